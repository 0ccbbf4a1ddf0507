// The shared parts of the NVFP4 GEMVs (nvfp4_gemv_parts.h).
#include "nvfp4/nvfp4_gemv_parts.h"

namespace k100::kernels::nvfp4 {

using namespace codegen;

StepRows::StepRows(Kernel& k, const GemvShape& sh) {
  for (int r = 0; r < sh.rows; ++r) {
    w.push_back(k.sgpr(2, "weight row"));
    s.push_back(k.sgpr(2, "scale row"));
  }
  for (int m = 0; m < sh.m; ++m) {
    e.push_back(k.sgpr(2, "even activation row"));
    o.push_back(k.sgpr(2, "odd activation row"));
    a.push_back(k.sgpr(2, "activation scale row"));
  }
}

void StepRows::advance(Kernel& k, const GemvShape& sh) const {
  const uint32_t G = uint32_t(sh.groups);
  for (const SGPR& x : w) add64(k, x, 512 * G);
  for (const SGPR& x : s) add64(k, x, 64 * G);
  for (const SGPR& x : e) add64(k, x, 512 * G);
  for (const SGPR& x : o) add64(k, x, 512 * G);
  for (const SGPR& x : a) add64(k, x, 256 * G);
}

StepRegs::StepRegs(Kernel& k, const GemvShape& sh) {
  const int G = sh.groups;
  for (int r = 0; r < sh.rows; ++r) {
    codes.push_back(k.vgpr(2 * G, "codes"));
    sbytes.push_back(k.vgpr(1, "scale bytes"));
  }
  for (int m = 0; m < sh.m; ++m) {
    ae.push_back(k.vgpr(2 * G, "even activations"));
    ao.push_back(k.vgpr(2 * G, "odd activations"));
    asc.push_back(k.vgpr(G, "activation scales"));
  }
}

void StepRegs::zero(Kernel& k) const {
  for (const auto* v : {&codes, &sbytes, &ae, &ao, &asc})
    for (const VGPR& x : *v)
      for (int i = 0; i < x.width; ++i) k.v_mov_b32(x[i], 0);
}

LaneOffsets::LaneOffsets(Kernel& k, const GemvShape& sh, VGPR lane)
    : group(k.vgpr(1, "lane group")), o8(k.vgpr(1, "word offset")), o1(k.vgpr(1, "byte offset")),
      o4(k.vgpr(1, "scale offset")) {
  k.v_mul_u32_u24(group, sh.groups, lane);
  k.v_lshlrev_b32(o8, 3, group);
  k.v_mov_b32(o1, group);
  k.v_lshlrev_b32(o4, 2, group);
}

void load_step(Kernel& k, const GemvShape& sh, const StepRegs& r, const StepRows& p, const LaneOffsets& o) {
  const bool wide = sh.groups == 2;
  auto words = [&](VGPR dst, SGPR base) {
    if (wide) k.global_load_dwordx4(dst, o.o8, base);
    else k.global_load_dwordx2(dst, o.o8, base);
  };
  for (int x = 0; x < sh.rows; ++x) {
    words(r.codes[size_t(x)], p.w[size_t(x)]);
    if (wide) k.global_load_ushort(r.sbytes[size_t(x)], o.o1, p.s[size_t(x)]);
    else k.global_load_ubyte(r.sbytes[size_t(x)], o.o1, p.s[size_t(x)]);
  }
  for (int m = 0; m < sh.m; ++m) {
    words(r.ae[size_t(m)], p.e[size_t(m)]);
    words(r.ao[size_t(m)], p.o[size_t(m)]);
    if (wide) k.global_load_dwordx2(r.asc[size_t(m)], o.o4, p.a[size_t(m)]);
    else k.global_load_dword(r.asc[size_t(m)], o.o4, p.a[size_t(m)]);
  }
}

StepMath::StepMath(Kernel& k, const GemvShape& sh)
    : k_(k), sh_(sh), dec_(k), e_(k.vgpr(2, "even weights")), o_(k.vgpr(2, "odd weights")),
      tmp_(k.vgpr(3, "decode scratch")), sw_(k.vgpr(sh.groups, "weight scales")), dot_(k.vgpr(1, "dot")),
      fd_(k.vgpr(1, "dot f32")), prod_(k.vgpr(1, "scale product")), zero_(k.vgpr(1, "zero")),
      yrow_(k.sgpr(2, "y row")), idx_(k.sgpr(1, "y index")) {}

void StepMath::dots(const StepRegs& r, VGPR acc) {
  const int M = sh_.m;
  for (int x = 0; x < sh_.rows; ++x)
    for (int g = 0; g < sh_.groups; ++g) {
      dec_.scale(sw_[g], r.sbytes[size_t(x)], g, tmp_[0]);
      for (int h = 0; h < 2; ++h) dec_.codes(e_[h], o_[h], r.codes[size_t(x)][2 * g + h], tmp_);
      for (int m = 0; m < M; ++m) {
        const VGPR ae = r.ae[size_t(m)], ao = r.ao[size_t(m)];
        k_.v_dot4_i32_i8(dot_, e_[0], ae[2 * g], 0);
        k_.v_dot4_i32_i8(dot_, o_[0], ao[2 * g], dot_);
        k_.v_dot4_i32_i8(dot_, e_[1], ae[2 * g + 1], dot_);
        k_.v_dot4_i32_i8(dot_, o_[1], ao[2 * g + 1], dot_);
        k_.v_cvt_f32_i32(fd_, dot_);
        k_.v_mul_f32(prod_, sw_[g], r.asc[size_t(m)][g]);
        k_.v_fmac_f32(acc[x * M + m], fd_, prod_);
      }
    }
}

void StepMath::store(VGPR acc, SGPR y, SGPR n, SGPR row0, SGPR valid, SGPR inv_gscale) {
  const int M = sh_.m, R = sh_.rows;
  std::vector<std::pair<ReduceOp, VGPR>> sums;
  for (int i = 0; i < R * M; ++i) sums.push_back({ReduceOp::Add, acc[i]});
  lane_reduce(k_, sums);
  for (int i = 0; i < R * M; ++i) k_.v_mul_f32(acc[i], inv_gscale, acc[i]);
  k_.v_mov_b32(zero_, 0);
  Label stored = k_.label("stored");
  std::vector<Label> next;
  for (int m = 0; m + 1 < M; ++m) next.push_back(k_.label("next activation row"));
  k_.s_mov_b32(exec_lo, 0);
  k_.s_mov_b32(exec_hi, 0x80000000u);
  for (int m = 0; m < M; ++m) {
    k_.s_mul_i32(idx_, n, m);
    k_.s_add_u32(idx_, idx_, row0);
    set_offset_address(k_, yrow_, y, idx_, 2);
    for (int r = 0; r < R; ++r) {
      if (r > 0) {
        k_.s_cmp_le_u32(valid, r);
        k_.s_cbranch_scc1(m + 1 < M ? next[size_t(m)] : stored);
      }
      k_.global_store_dword(zero_, acc[r * M + m], yrow_, offset(4 * r));
    }
    if (m + 1 < M) k_.bind(next[size_t(m)]);
  }
  k_.bind(stored);
  k_.s_mov_b64(exec, -1);
}

void unit_rows(Kernel& k, const GemvShape& sh, const StepRows& p, SGPR row0, SGPR valid, SGPR n, SGPR half,
               SGPR groups, SGPR wq, SGPR ws) {
  const SGPR last = k.sgpr(1, "last row"), rr = k.sgpr(1, "row");
  k.s_sub_u32(valid, n, row0);
  k.s_min_u32(valid, valid, sh.rows);
  k.s_sub_u32(last, valid, 1);
  for (int r = 0; r < sh.rows; ++r) {
    k.s_min_u32(rr, last, r);
    k.s_add_u32(rr, rr, row0);
    set_scaled_address(k, p.w[size_t(r)], wq, rr, half, 0);
    set_scaled_address(k, p.s[size_t(r)], ws, rr, groups, 0);
  }
}

void activation_rows(Kernel& k, const GemvShape& sh, const StepRows& p, SGPR half, SGPR groups, SGPR ae, SGPR ao,
                     SGPR asc) {
  for (int m = 0; m < sh.m; ++m) {
    set_scaled_address(k, p.e[size_t(m)], ae, half, m, 0);
    set_scaled_address(k, p.o[size_t(m)], ao, half, m, 0);
    set_scaled_address(k, p.a[size_t(m)], asc, groups, m, 2);
  }
}

}  // namespace k100::kernels::nvfp4
