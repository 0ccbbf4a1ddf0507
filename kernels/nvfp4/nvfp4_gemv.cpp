// The NVFP4 decode GEMVs: nvfp4_gemv<M,NROW>, nvfp4_gemv_wide<M,NROW>.
//
//   y[m][n] = inv_gscale * sum_g E4M3(ws[n][g]) * asc[m][g] * sum_(k in g) E2M1(w[n][k]) * q[m][k]
//
// A unit is NROW consecutive weight rows; wave v of workgroup b takes unit
// b * W + v (W = the workgroup's waves, from its hidden group size, so any
// workgroup size is covered by grid = ceil(N / (W * NROW))). Lane l walks the
// row's 16-wide groups G l .. G l + G - 1, then + 64 G per step (G = 1: one
// u32 x 2 of codes and one scale byte per row; G = 2, the wide form: a u32 x 4
// and a u16 of two scale bytes), with the M activation rows' even and odd
// code words and their scales at the same positions (shared by the NROW
// rows). The last step runs on the lanes whose groups exist. Per group and
// activation row: four v_dot4_i32_i8 of the decoded weight words with the
// activation words (exact), then acc += f32(dot) * (0.5 E4M3 * asc). The
// NROW x M sums are reduced over the lanes (DPP) and lane 63 stores them
// times inv_gscale. Rows past N re-read the last row and are not stored.
#include <algorithm>

#include "nvfp4/nvfp4_format.h"
#include "nvfp4/nvfp4_generators.h"

namespace k100::kernels::nvfp4 {

using namespace codegen;

std::string GemvForm::name() const {
  if (fast) return "nvfp4_gemv_fast_k";
  return std::string(groups == 2 ? "nvfp4_gemv_wide<" : "nvfp4_gemv<") + std::to_string(m) + "," +
         std::to_string(rows) + ">";
}

Signature gemv_signature(const GemvForm& f) {
  std::vector<Param> p = {in("wq", "u32"),  in("ws", "u8"),   in("ae", "i8"),     in("ao", "i8"),
                          in("asc", "f32"), out("y", "f32"), value("N", "i32"), value("K", "i32"),
                          value("inv_gscale", "f32")};
  return Signature(f.name(), p, codeobj::HiddenArgLayout::Full);
}

namespace {

class GemvBody {
 public:
  GemvBody(Kernel& k, const GemvForm& f) : k(k), f(f), dec(k) {
    const int M = f.m, R = f.rows, G = f.groups;
    for (int r = 0; r < R; ++r) {
      codes.push_back(k.vgpr(2 * G, "codes"));
      sbytes.push_back(k.vgpr(1, "scale bytes"));
      wrow.push_back(k.sgpr(2, "weight row"));
      srow.push_back(k.sgpr(2, "scale row"));
    }
    for (int m = 0; m < M; ++m) {
      ae.push_back(k.vgpr(2 * G, "even activations"));
      ao.push_back(k.vgpr(2 * G, "odd activations"));
      asc.push_back(k.vgpr(G, "activation scales"));
      aerow.push_back(k.sgpr(2, "even row"));
      aorow.push_back(k.sgpr(2, "odd row"));
      ascrow.push_back(k.sgpr(2, "scale row"));
    }
    acc = k.vgpr(R * M, "sums");
  }

  // The unit whose first row is `row0` (< N): loads, dots, lane reduction, store.
  void unit(SGPR row0, SGPR lane_group0, VGPR lane) {
    const int M = f.m, R = f.rows, G = f.groups;
    const SGPR N = k.arg("N"), K = k.arg("K"), y = k.arg("y");
    const SGPR rv = k.sgpr(1, "valid rows"), t = k.sgpr(1, "t"), rr = k.sgpr(1, "row"), half = k.sgpr(1, "K / 2"),
               groups = k.sgpr(1, "groups"), trips = k.sgpr(1, "steps");
    k.s_sub_u32(rv, N, row0);
    k.s_min_u32(rv, rv, R);
    k.s_lshr_b32(half, K, 1);
    k.s_lshr_b32(groups, K, 4);
    k.s_sub_u32(t, rv, 1);
    for (int r = 0; r < R; ++r) {
      k.s_min_u32(rr, t, r);
      k.s_add_u32(rr, rr, row0);
      set_scaled_address(k, wrow[size_t(r)], k.arg("wq"), rr, half, 0);
      set_scaled_address(k, srow[size_t(r)], k.arg("ws"), rr, groups, 0);
    }
    for (int m = 0; m < M; ++m) {
      set_scaled_address(k, aerow[size_t(m)], k.arg("ae"), half, m, 0);
      set_scaled_address(k, aorow[size_t(m)], k.arg("ao"), half, m, 0);
      set_scaled_address(k, ascrow[size_t(m)], k.arg("asc"), groups, m, 2);
    }
    for (int i = 0; i < R * M; ++i) k.v_mov_b32(acc[i], 0);
    // Lane offsets: codes and activation words 8 G bytes per lane, scale bytes G, activation scales 4 G.
    const VGPR vg = k.vgpr(1, "group"), o8 = k.vgpr(1, "word offset"), o1 = k.vgpr(1, "byte offset"),
               o4 = k.vgpr(1, "scale offset");
    k.v_mul_u32_u24(vg, G, lane);
    k.v_lshlrev_b32(o8, 3, vg);
    k.v_mov_b32(o1, vg);
    k.v_lshlrev_b32(o4, 2, vg);
    (void)lane_group0;
    // steps = ceil(groups / 64 G)
    k.s_add_u32(trips, groups, 64 * G - 1);
    k.s_lshr_b32(trips, trips, G == 2 ? 7 : 6);
    const VGPR E = k.vgpr(2, "even weights"), O = k.vgpr(2, "odd weights"), tmp = k.vgpr(3, "decode scratch"),
               sw = k.vgpr(G, "weight scales"), dot = k.vgpr(1, "dot"), fd = k.vgpr(1, "dot f32"),
               prod = k.vgpr(1, "scale product");
    k.loop_();
    k.v_cmp_gt_u32(vcc, groups, vg);
    k.if_(vcc);
    for (int m = 0; m < M; ++m) {
      load_words(ae[size_t(m)], o8, aerow[size_t(m)]);
      load_words(ao[size_t(m)], o8, aorow[size_t(m)]);
      if (G == 1) k.global_load_dword(asc[size_t(m)], o4, ascrow[size_t(m)]);
      else k.global_load_dwordx2(asc[size_t(m)], o4, ascrow[size_t(m)]);
    }
    for (int r = 0; r < R; ++r) {
      load_words(codes[size_t(r)], o8, wrow[size_t(r)]);
      if (G == 1) k.global_load_ubyte(sbytes[size_t(r)], o1, srow[size_t(r)]);
      else k.global_load_ushort(sbytes[size_t(r)], o1, srow[size_t(r)]);
    }
    for (int r = 0; r < R; ++r)
      for (int g = 0; g < G; ++g) {
        dec.scale(sw[g], sbytes[size_t(r)], g, tmp[0]);
        for (int h = 0; h < 2; ++h) dec.codes(E[h], O[h], codes[size_t(r)][2 * g + h], tmp);
        for (int m = 0; m < M; ++m) {
          k.v_dot4_i32_i8(dot, E[0], ae[size_t(m)][2 * g], 0);
          k.v_dot4_i32_i8(dot, O[0], ao[size_t(m)][2 * g], dot);
          k.v_dot4_i32_i8(dot, E[1], ae[size_t(m)][2 * g + 1], dot);
          k.v_dot4_i32_i8(dot, O[1], ao[size_t(m)][2 * g + 1], dot);
          k.v_cvt_f32_i32(fd, dot);
          k.v_mul_f32(prod, sw[g], asc[size_t(m)][g]);
          k.v_fmac_f32(acc[r * M + m], fd, prod);
        }
      }
    k.end_if();
    k.v_add_u32(vg, 64 * G, vg);
    k.v_add_u32(o8, 512 * G, o8);
    k.v_add_u32(o1, 64 * G, o1);
    k.v_add_u32(o4, 256 * G, o4);
    k.s_sub_u32(trips, trips, 1);
    k.s_cmp_eq_u32(trips, 0);
    k.break_(Cond::Scc1);
    k.end_loop();

    std::vector<std::pair<ReduceOp, VGPR>> sums;
    for (int i = 0; i < R * M; ++i) sums.push_back({ReduceOp::Add, acc[i]});
    lane_reduce(k, sums);
    for (int i = 0; i < R * M; ++i) k.v_mul_f32(acc[i], k.arg("inv_gscale"), acc[i]);
    // lane 63 stores y[m][row0 + r] for r < valid rows
    const VGPR zero = k.vgpr(1, "zero");
    k.v_mov_b32(zero, 0);
    const SGPR yrow = k.sgpr(2, "y row"), idx = k.sgpr(1, "y index");
    Label stored = k.label("stored");
    k.s_mov_b32(exec_lo, 0);
    k.s_mov_b32(exec_hi, 0x80000000u);
    for (int m = 0; m < M; ++m) {
      k.s_mul_i32(idx, N, m);
      k.s_add_u32(idx, idx, row0);
      set_offset_address(k, yrow, y, idx, 2);
      for (int r = 0; r < R; ++r) {
        if (r > 0) {
          k.s_cmp_le_u32(rv, r);
          k.s_cbranch_scc1(m + 1 < M ? next_row_label(m) : stored);
        }
        k.global_store_dword(zero, acc[r * M + m], yrow, offset(4 * r));
      }
      if (m + 1 < M) k.bind(next_row_label(m));
    }
    k.bind(stored);
    k.s_mov_b64(exec, -1);
  }

 private:
  Label next_row_label(int m) {
    while (int(next_.size()) <= m) next_.push_back(k.label("next activation row"));
    return next_[size_t(m)];
  }
  void load_words(VGPR dst, VGPR off, SGPR base) {
    if (f.groups == 1) k.global_load_dwordx2(dst, off, base);
    else k.global_load_dwordx4(dst, off, base);
  }

  Kernel& k;
  const GemvForm f;
  Nvfp4Decoder dec;
  std::vector<VGPR> codes, sbytes, ae, ao, asc;
  std::vector<SGPR> wrow, srow, aerow, aorow, ascrow;
  VGPR acc;
  std::vector<Label> next_;
};

// VGPRs the body keeps live, for the occupancy the kernel asks for.
int gemv_vgprs(const GemvForm& f) {
  return f.rows * (2 * f.groups + 1) + f.m * 5 * f.groups + f.rows * f.m + f.groups + 20;
}

}  // namespace

codeobj::CodeObject build_gemv(isa::Target target, const GemvForm& f) {
  const int waves = std::clamp(256 / ((gemv_vgprs(f) + 7) / 8 * 8), 1, 8);
  Kernel k(gemv_signature(f), target, {.waves_per_simd = waves, .max_workgroup = 1024});
  Label exit = k.exit();
  const WorkgroupWaves ww = workgroup_waves(k, exit);
  const VGPR lane = whole_wave_lane_id(k);
  GemvBody body(k, f);
  const SGPR row0 = k.sgpr(1, "first row");
  k.s_mul_i32(row0, k.workgroup_id(), ww.waves);
  k.s_add_u32(row0, row0, ww.wave);
  k.s_mul_i32(row0, row0, f.rows);
  k.s_cmp_ge_u32(row0, k.arg("N"));
  k.s_cbranch_scc1(exit);
  body.unit(row0, SGPR{}, lane);
  return k.build();
}

}  // namespace k100::kernels::nvfp4
