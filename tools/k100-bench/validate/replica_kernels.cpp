#include "replica_kernels.h"

#include <functional>
#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/codegen/codegen.h"

namespace k100::bench::validate {

namespace {

using namespace codegen;
using as::exec, as::offset, as::vcc;

constexpr float kLog2e = 1.4426950408889634f;
constexpr uint32_t kNegInf = 0xff800000u;

KernelOptions one_wave(uint32_t lds_bytes, int waves_per_simd = 4) {
  KernelOptions o;
  o.waves_per_simd = waves_per_simd;
  o.lds_bytes = lds_bytes;
  o.max_workgroup = 64;
  return o;
}

void wait_all(Kernel& k) { k.s_waitcnt(as::waitcnt(0, 7, 0)); }

// while (left >= chunk) { body(); left -= chunk; }  (left: a uniform SGPR)
void while_at_least(Kernel& k, SGPR left, uint32_t chunk, const std::function<void()>& body) {
  Label top = k.label("batch"), end = k.label("batch_end");
  k.bind(top);
  k.s_cmp_lt_u32(left, chunk);
  k.s_cbranch_scc1(end);
  body();
  k.s_sub_u32(left, left, chunk);
  k.s_branch(top);
  k.bind(end);
}

// The tail path: while (left > 0) { EXEC = lane < left; body(); left -= min(left, 64); }
void lane_tail(Kernel& k, SGPR left, VGPR lane, const std::function<void()>& body) {
  Label top = k.label("tail"), end = k.label("tail_end");
  const SGPR save = k.sgpr(2, "saved exec"), step = k.sgpr(1, "tail step");
  k.bind(top);
  k.s_cmp_eq_u32(left, 0);
  k.s_cbranch_scc1(end);
  k.v_cmp_gt_u32(vcc, left, lane);
  k.s_and_saveexec_b64(save, vcc);
  body();
  k.s_mov_b64(exec, save);
  k.s_min_u32(step, left, 64);
  k.s_sub_u32(left, left, step);
  k.s_branch(top);
  k.bind(end);
}

// One value per lane into LDS dwords [base, base + 256), then a 6-step tree;
// returns the wave's result in an SGPR. Needs the whole wave enabled.
SGPR lds_tree(Kernel& k, ReduceOp op, VGPR value, VGPR lane, uint32_t base) {
  const VGPR addr = k.vgpr(1, "tree address"), other = k.vgpr(1, "tree partner");
  const SGPR save = k.sgpr(2, "saved exec"), out = k.sgpr(1, "tree result");
  k.v_lshlrev_b32(addr, 2, lane);
  k.ds_write_b32(addr, value, offset(base));
  for (uint32_t s = 32; s >= 1; s /= 2) {
    k.v_cmp_gt_u32(vcc, s, lane);
    k.s_and_saveexec_b64(save, vcc);
    k.ds_read_b32(other, addr, offset(base + 4 * s));
    reduce_step(k, op, value, value, other);
    k.ds_write_b32(addr, value, offset(base));
    k.s_mov_b64(exec, save);
  }
  k.v_mov_b32(addr, 0);
  k.ds_read_b32(other, addr, offset(base));
  k.v_readfirstlane_b32(out, other);
  return out;
}

// v = 2^((v - m) * scale * log2 e), m and scale uniform.
void scaled_exp(Kernel& k, VGPR v, Operand m, Operand scale_log2e) {
  k.v_subrev_f32(v, m, v);
  k.v_mul_f32(v, scale_log2e, v);
  k.v_exp_f32(v, v);
}

// The split's rows [j0, jend) in blocks of 64, lane = row j (in vj), EXEC
// = the rows of the block that exist.
void row_blocks(Kernel& k, SGPR j0, SGPR jend, VGPR lane, VGPR vj, const std::function<void()>& body) {
  const SGPR blk = k.sgpr(1, "block"), save = k.sgpr(2, "saved exec");
  Label top = k.label("row_block"), done = k.label("row_blocks_done");
  k.s_mov_b32(blk, j0);
  k.bind(top);
  k.s_cmp_ge_u32(blk, jend);
  k.s_cbranch_scc1(done);
  k.v_add_u32(vj, blk, lane);
  k.v_cmp_gt_u32(vcc, jend, vj);
  k.s_and_saveexec_b64(save, vcc);
  body();
  k.s_mov_b64(exec, save);
  k.s_add_u32(blk, blk, 64);
  k.s_branch(top);
  k.bind(done);
}

// x * log2 e of a uniform f32 (an SGPR), as an SGPR.
SGPR times_log2e(Kernel& k, SGPR x) {
  const VGPR t = k.vgpr(1, "x log2 e");
  const SGPR out = k.sgpr(1, "x log2 e");
  k.v_mov_b32(t, x);
  k.v_mul_f32(t, kLog2e, t);
  k.v_readfirstlane_b32(out, t);
  return out;
}

}  // namespace

codeobj::CodeObject rmsnorm_replica(int loads_per_wait) {
  if (loads_per_wait < 2 || loads_per_wait > 16 || loads_per_wait % 2)
    throw Error("rmsnorm_replica: loads_per_wait must be even, 2..16 (got " + std::to_string(loads_per_wait) + ")");
  const int B = loads_per_wait, E = B / 2;
  const Signature sig("rmsnorm_rep" + std::to_string(B) + "_k",
                      {out("y", "f32"), in("x", "f32"), in("w", "f32"), value("dim", "u32"), value("eps", "f32")});
  Kernel k(sig, isa::Target::gfx926, one_wave(256));
  const SGPR row = k.workgroup_id(), sD = k.arg("dim");
  const VGPR lane = lane_of_local_id(k), voff = k.vgpr(1, "offset"), acc = k.vgpr(1, "sum of squares"),
             scale = k.vgpr(1, "scale"), a = k.vgpr(1, "a");
  std::vector<VGPR> xs, ws;
  for (int i = 0; i < B; ++i) xs.push_back(k.vgpr(1, "x"));
  for (int i = 0; i < E; ++i) ws.push_back(k.vgpr(1, "w"));
  const SGPR xs0 = scaled_address(k, k.arg("x"), row, sD, 2), ys0 = scaled_address(k, k.arg("y"), row, sD, 2);
  const SGPR px = k.sgpr(2, "x stream"), pw = k.sgpr(2, "w stream"), py = k.sgpr(2, "y stream"),
             left = k.sgpr(1, "left");
  k.v_lshlrev_b32(voff, 2, lane);
  // ---- statistics
  k.v_mov_b32(acc, 0);
  k.s_mov_b64(px, xs0);
  k.s_mov_b32(left, sD);
  while_at_least(k, left, 64u * uint32_t(B), [&] {
    for (int i = 0; i < B; ++i) k.global_load_dword(xs[size_t(i)], voff, px, offset(256 * i));
    wait_all(k);
    for (int i = 0; i < B; ++i) k.v_fmac_f32(acc, xs[size_t(i)], xs[size_t(i)]);
    add64(k, px, 256 * B);
  });
  lane_tail(k, left, lane, [&] {
    k.global_load_dword(xs[0], voff, px);
    wait_all(k);
    k.v_fmac_f32(acc, xs[0], xs[0]);
    add64(k, px, 256);
  });
  const SGPR sum = lds_tree(k, ReduceOp::Add, acc, lane, 0);
  k.v_cvt_f32_u32(a, sD);
  k.v_rcp_f32(a, a);
  k.v_mov_b32(scale, sum);
  k.v_fma_f32(scale, scale, a, k.arg("eps"));
  k.v_rsq_f32(scale, scale);
  // ---- output
  k.s_mov_b64(px, xs0);
  k.s_mov_b64(pw, k.arg("w"));
  k.s_mov_b64(py, ys0);
  k.s_mov_b32(left, sD);
  auto element = [&](int i, int imm) {
    k.v_mul_f32(xs[size_t(i)], xs[size_t(i)], scale);
    k.v_mul_f32(xs[size_t(i)], xs[size_t(i)], ws[size_t(i)]);
    k.global_store_dword(voff, xs[size_t(i)], py, offset(imm));
  };
  while_at_least(k, left, 64u * uint32_t(E), [&] {
    for (int i = 0; i < E; ++i) {
      k.global_load_dword(xs[size_t(i)], voff, px, offset(256 * i));
      k.global_load_dword(ws[size_t(i)], voff, pw, offset(256 * i));
    }
    wait_all(k);
    for (int i = 0; i < E; ++i) element(i, 256 * i);
    add64(k, px, 256 * E);
    add64(k, pw, 256 * E);
    add64(k, py, 256 * E);
  });
  lane_tail(k, left, lane, [&] {
    k.global_load_dword(xs[0], voff, px);
    k.global_load_dword(ws[0], voff, pw);
    wait_all(k);
    element(0, 0);
    add64(k, px, 256);
    add64(k, pw, 256);
    add64(k, py, 256);
  });
  k.s_endpgm();
  return k.build();
}

codeobj::CodeObject softmax_replica(int columns_per_lane) {
  if (columns_per_lane != 1 && columns_per_lane != 4)
    throw Error("softmax_replica: columns_per_lane must be 1 or 4 (got " + std::to_string(columns_per_lane) + ")");
  const int C = columns_per_lane;
  const Signature sig("softmax_rep" + std::to_string(C) + "_k", {out("y", "f32"), in("x", "f32"), value("rows", "u32"),
                                                                 value("cols", "u32"), value("group_size", "u32")});
  Kernel k(sig, isa::Target::gfx926, one_wave(256, 8));
  const SGPR row = k.workgroup_id(), sCols = k.arg("cols");
  const VGPR lane = lane_of_local_id(k), voff = k.vgpr(1, "offset"), t = k.vgpr(C, "x"), m = k.vgpr(1, "max"),
             sum = k.vgpr(1, "sum"), inv = k.vgpr(1, "inverse");
  const SGPR x0 = scaled_address(k, k.arg("x"), row, sCols, 2), y0 = scaled_address(k, k.arg("y"), row, sCols, 2);
  const SGPR px = k.sgpr(2, "x stream"), py = k.sgpr(2, "y stream"), left = k.sgpr(1, "left");
  const uint32_t step = 64u * uint32_t(C);
  auto load = [&](SGPR base) {
    if (C == 1) k.global_load_dword(t, voff, base);
    else k.global_load_dwordx4(t, voff, base);
    wait_all(k);  // one wait per step
  };
  auto store = [&] {
    if (C == 1) k.global_store_dword(voff, t, py);
    else k.global_store_dwordx4(voff, t, py);
    wait_all(k);  // the v1.7.8 compiler waited after every store
  };
  auto element = [&](int c) { return C == 1 ? t : t[c]; };
  k.v_lshlrev_b32(voff, C == 1 ? 2 : 4, lane);
  // ---- pass 1: the max (starting at 0)
  k.v_mov_b32(m, 0);
  k.s_mov_b64(px, x0);
  k.s_mov_b32(left, sCols);
  while_at_least(k, left, step, [&] {
    load(px);
    for (int c = 0; c < C; ++c) k.v_max_f32(m, m, element(c));
    add64(k, px, 4 * step);
  });
  const SGPR M = lds_tree(k, ReduceOp::Max, m, lane, 0);
  // ---- pass 2: exp and sum, written to y
  k.v_mov_b32(sum, 0);
  k.s_mov_b64(px, x0);
  k.s_mov_b64(py, y0);
  k.s_mov_b32(left, sCols);
  while_at_least(k, left, step, [&] {
    load(px);
    for (int c = 0; c < C; ++c) {
      scaled_exp(k, element(c), M, kLog2e);
      k.v_add_f32(sum, sum, element(c));
    }
    store();
    add64(k, px, 4 * step);
    add64(k, py, 4 * step);
  });
  const SGPR S = lds_tree(k, ReduceOp::Add, sum, lane, 0);
  k.v_mov_b32(inv, S);
  k.v_rcp_f32(inv, inv);
  // ---- pass 3: normalise y in place
  k.s_mov_b64(py, y0);
  k.s_mov_b32(left, sCols);
  while_at_least(k, left, step, [&] {
    load(py);
    for (int c = 0; c < C; ++c) k.v_mul_f32(element(c), element(c), inv);
    store();
    add64(k, py, 4 * step);
  });
  k.s_endpgm();
  return k.build();
}

codeobj::CodeObject part_replica(int dh, int batch) {
  if ((dh != 64 && dh != 128) || (batch != 4 && batch != 8))
    throw Error("part_replica: head_dim 64 or 128 and batch 4 or 8 (got " + std::to_string(dh) + ", " +
                std::to_string(batch) + ")");
  const int B = batch, J = batch / 2, D = dh / 64;  // J rows per wait in the output pass, D values per lane
  constexpr uint32_t kScores = 16384;               // LDS: 4096 scores, then the tree's 64 dwords
  const Signature sig("flash_dec_part_rep" + std::to_string(dh) + "_" + std::to_string(B) + "_k",
                      {out("po", "f32"), out("pm", "f32"), out("pl", "f32"), in("q", "f32"), in("kt", "f32"),
                       in("v", "f32"), value("n_kv", "u32"), value("dh", "u32"), value("pad", "u32"),
                       value("max_len", "u32"), value("cshift", "u32"), value("inv", "f32"), value("vstride", "u32")});
  Kernel k(sig, isa::Target::gfx926, one_wave(kScores + 256));
  Label empty = k.label("empty_split"), write = k.label("write");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  // The arguments past byte 64 one dword each: the layer's 3-dword block
  // there cannot be viewed in pairs.
  auto late = [&](const char* n) { return k.kernarg(sig.offset(n), 1); };
  const SGPR wg = k.workgroup_id(), sh = late("cshift"), n_kv = k.arg("n_kv"), max_len = k.arg("max_len");
  const SGPR h = s1("head"), split = s1("split"), nsplit = s1("nsplit"), R = s1("rows per split"), j0 = s1("first row"),
             jend = s1("end row"), left = s1("rows left"), row_bytes = s1("kt row bytes"),
             vrow = s1("v row bytes"), t = s1("t"), save = k.sgpr(2, "saved exec");
  const VGPR lane = lane_of_local_id(k), vj = k.vgpr(1, "row"), voff = k.vgpr(1, "offset"), acc = k.vgpr(1, "score"),
             mloc = k.vgpr(1, "max"), lsum = k.vgpr(1, "sum"), laddr = k.vgpr(1, "lds address"),
             paddr = k.vgpr(1, "p address"), tmp = k.vgpr(1, "tmp");
  std::vector<VGPR> kv, o, p;
  for (int i = 0; i < B; ++i) kv.push_back(k.vgpr(1, "k or v"));
  for (int c = 0; c < D; ++c) o.push_back(k.vgpr(1, "output"));
  for (int r = 0; r < J; ++r) p.push_back(k.vgpr(1, "p"));
  k.s_lshr_b32(h, wg, sh);
  k.s_lshl_b32(nsplit, 1, sh);
  k.s_sub_u32(t, nsplit, 1);
  k.s_and_b32(split, wg, t);
  k.s_lshr_b32(R, k.arg("pad"), sh);
  k.s_mul_i32(j0, split, R);
  k.s_add_u32(jend, j0, R);
  k.s_min_u32(jend, jend, n_kv);
  k.s_cmp_ge_u32(j0, n_kv);
  k.s_cbranch_scc1(empty);
  k.s_lshl_b32(row_bytes, max_len, 2);
  k.s_lshl_b32(vrow, late("vstride"), 2);
  // kt[h][d][j]: the head's first d-row; q[h][d]
  const SGPR hd = s1("h dh");
  k.s_mul_i32(hd, h, uint32_t(dh));
  const SGPR ktH = scaled_address(k, k.arg("kt"), hd, max_len, 2), qH = offset_address(k, k.arg("q"), hd, 2);
  const SGPR pk = k.sgpr(2, "kt stream"), qs = k.sgpr(B, "q values");
  // ---- score pass: lane = row, the d loop in batches of B loads per wait
  k.v_mov_b32(mloc, kNegInf);
  row_blocks(k, j0, jend, lane, vj, [&] {
    k.v_lshlrev_b32(voff, 2, vj);
    k.v_mov_b32(acc, 0);
    k.s_mov_b64(pk, ktH);
    for (int d0 = 0; d0 < dh; d0 += B) {
      if (B == 4) k.s_load_dwordx4(qs, qH, uint32_t(4 * d0));
      else k.s_load_dwordx8(qs, qH, uint32_t(4 * d0));
      for (int i = 0; i < B; ++i) {
        k.global_load_dword(kv[size_t(i)], voff, pk);
        add64(k, pk, row_bytes);
      }
      wait_all(k);
      for (int i = 0; i < B; ++i) k.v_fmac_f32(acc, qs[i], kv[size_t(i)]);
    }
    k.v_subrev_u32(laddr, j0, vj);
    k.v_lshlrev_b32(laddr, 2, laddr);
    k.ds_write_b32(laddr, acc);
    k.v_max_f32(mloc, mloc, acc);
  });
  const SGPR M = lds_tree(k, ReduceOp::Max, mloc, lane, kScores);
  // ---- p_j = exp((s_j - M) inv) over the scores in LDS, and their sum
  const SGPR inv2 = times_log2e(k, late("inv"));
  k.v_mov_b32(lsum, 0);
  row_blocks(k, j0, jend, lane, vj, [&] {
    k.v_subrev_u32(laddr, j0, vj);
    k.v_lshlrev_b32(laddr, 2, laddr);
    k.ds_read_b32(tmp, laddr);
    scaled_exp(k, tmp, M, inv2);
    k.ds_write_b32(laddr, tmp);
    k.v_add_f32(lsum, lsum, tmp);
  });
  const SGPR L = lds_tree(k, ReduceOp::Add, lsum, lane, kScores);
  // ---- output pass: lane = d, the j loop with J rows per wait
  const SGPR pv = k.sgpr(2, "v stream");
  set_scaled_address(k, pv, k.arg("v"), j0, late("vstride"), 2);
  k.s_lshl_b32(t, hd, 2);
  add64(k, pv, t);
  k.v_lshlrev_b32(voff, 2, lane);
  for (int c = 0; c < D; ++c) k.v_mov_b32(o[size_t(c)], 0);
  k.v_mov_b32(paddr, 0);
  k.s_sub_u32(left, jend, j0);
  auto rows = [&](int n) {
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < D; ++c) k.global_load_dword(kv[size_t(r * D + c)], voff, pv, offset(256 * c));
      add64(k, pv, vrow);
      k.ds_read_b32(p[size_t(r)], paddr, offset(4 * r));
    }
    wait_all(k);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < D; ++c) k.v_fmac_f32(o[size_t(c)], p[size_t(r)], kv[size_t(r * D + c)]);
    k.v_add_u32(paddr, 4 * n, paddr);
  };
  while_at_least(k, left, uint32_t(J), [&] { rows(J); });
  while_at_least(k, left, 1, [&] { rows(1); });
  const SGPR rm = s1("max out"), rl = s1("sum out");
  k.s_mov_b32(rm, M);
  k.s_mov_b32(rl, L);
  k.s_branch(write);
  // ---- a split past n_kv: pm = -inf, pl = 0, po = 0
  k.bind(empty);
  for (int c = 0; c < D; ++c) k.v_mov_b32(o[size_t(c)], 0);
  k.s_mov_b32(rm, kNegInf);
  k.s_mov_b32(rl, 0);
  k.bind(write);
  {
    const SGPR hs = s1("h nsplit + s");
    k.s_lshl_b32(nsplit, 1, sh);
    k.s_mul_i32(hs, h, nsplit);
    k.s_add_u32(hs, hs, split);
    const SGPR po = scaled_address(k, k.arg("po"), hs, uint32_t(dh), 2);
    k.v_lshlrev_b32(voff, 2, lane);
    for (int c = 0; c < D; ++c) k.global_store_dword(voff, o[size_t(c)], po, offset(256 * c));
    k.v_cmp_eq_u32(vcc, 0, lane);
    k.s_and_saveexec_b64(save, vcc);
    k.s_lshl_b32(hs, hs, 2);
    k.v_mov_b32(laddr, hs);
    k.v_mov_b32(tmp, rm);
    k.global_store_dword(laddr, tmp, k.arg("pm"));
    k.v_mov_b32(tmp, rl);
    k.global_store_dword(laddr, tmp, k.arg("pl"));
  }
  k.s_endpgm();
  return k.build();
}

codeobj::CodeObject combine_replica(int dh) {
  if (dh != 64 && dh != 128) throw Error("combine_replica: head_dim 64 or 128 (got " + std::to_string(dh) + ")");
  const int D = dh / 64;
  const Signature sig("flash_dec_comb_rep" + std::to_string(dh) + "_k",
                      {out("out", "f32"), in("po", "f32"), in("pm", "f32"), in("pl", "f32"), value("dh", "u32"),
                       value("nsplit", "u32"), value("inv", "f32")});
  Kernel k(sig, isa::Target::gfx926, one_wave(0));
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR h = k.workgroup_id(), ns = k.arg("nsplit"), left = s1("splits left"), inv2 = times_log2e(k, k.arg("inv"));
  const VGPR lane = lane_of_local_id(k), zero = k.vgpr(1, "zero"), voff = k.vgpr(1, "offset"), M = k.vgpr(1, "max"),
             L = k.vgpr(1, "weight sum");
  std::vector<VGPR> m(4), l(4), o;
  for (int i = 0; i < 4; ++i) m[size_t(i)] = k.vgpr(1, "pm"), l[size_t(i)] = k.vgpr(1, "pl");
  std::vector<std::vector<VGPR>> po(4);
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < D; ++c) po[size_t(i)].push_back(k.vgpr(1, "po"));
  for (int c = 0; c < D; ++c) o.push_back(k.vgpr(1, "out"));
  const SGPR pmH = scaled_address(k, k.arg("pm"), h, ns, 2), plH = scaled_address(k, k.arg("pl"), h, ns, 2);
  const SGPR poH = k.sgpr(2, "po of the head");
  {
    const SGPR hn = s1("h nsplit");
    k.s_mul_i32(hn, h, ns);
    set_scaled_address(k, poH, k.arg("po"), hn, uint32_t(dh), 2);
  }
  const SGPR pm = k.sgpr(2, "pm stream"), pl = k.sgpr(2, "pl stream"), pp = k.sgpr(2, "po stream");
  k.v_mov_b32(zero, 0);
  k.v_lshlrev_b32(voff, 2, lane);
  // ---- pass 1: M = max over the splits, 4 per wait, then the tail
  k.v_mov_b32(M, kNegInf);
  k.s_mov_b64(pm, pmH);
  k.s_mov_b32(left, ns);
  auto max_group = [&](int n) {
    for (int i = 0; i < n; ++i) k.global_load_dword(m[size_t(i)], zero, pm, offset(4 * i));
    wait_all(k);
    for (int i = 0; i < n; ++i) k.v_max_f32(M, M, m[size_t(i)]);
    add64(k, pm, 4 * n);
  };
  while_at_least(k, left, 4, [&] { max_group(4); });
  while_at_least(k, left, 1, [&] { max_group(1); });
  // ---- pass 2: w_s = exp((pm_s - M) inv), sums of w_s pl_s and w_s po_s
  k.v_mov_b32(L, 0);
  for (int c = 0; c < D; ++c) k.v_mov_b32(o[size_t(c)], 0);
  k.s_mov_b64(pm, pmH);
  k.s_mov_b64(pl, plH);
  k.s_mov_b64(pp, poH);
  k.s_mov_b32(left, ns);
  auto sum_group = [&](int n) {
    for (int i = 0; i < n; ++i) {
      k.global_load_dword(m[size_t(i)], zero, pm, offset(4 * i));
      k.global_load_dword(l[size_t(i)], zero, pl, offset(4 * i));
      for (int c = 0; c < D; ++c) k.global_load_dword(po[size_t(i)][size_t(c)], voff, pp, offset(4 * dh * i + 256 * c));
    }
    wait_all(k);
    for (int i = 0; i < n; ++i) {
      k.v_sub_f32(m[size_t(i)], m[size_t(i)], M);
      k.v_mul_f32(m[size_t(i)], inv2, m[size_t(i)]);
      k.v_exp_f32(m[size_t(i)], m[size_t(i)]);
      k.v_fmac_f32(L, m[size_t(i)], l[size_t(i)]);
      for (int c = 0; c < D; ++c) k.v_fmac_f32(o[size_t(c)], m[size_t(i)], po[size_t(i)][size_t(c)]);
    }
    add64(k, pm, 4 * n);
    add64(k, pl, 4 * n);
    add64(k, pp, 4 * dh * n);
  };
  while_at_least(k, left, 4, [&] { sum_group(4); });
  while_at_least(k, left, 1, [&] { sum_group(1); });
  k.v_rcp_f32(L, L);
  const SGPR outH = scaled_address(k, k.arg("out"), h, uint32_t(dh), 2);
  for (int c = 0; c < D; ++c) {
    k.v_mul_f32(o[size_t(c)], o[size_t(c)], L);
    k.global_store_dword(voff, o[size_t(c)], outH, offset(256 * c));
  }
  k.s_endpgm();
  return k.build();
}

}  // namespace k100::bench::validate
