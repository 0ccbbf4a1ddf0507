// gemv_i8_k: y[n] = sum_s ws[n][s] * sum_(j<32) w[n][32 s + j] * x[32 s + j],
// int8 weights w (row pitch `rowbytes` bytes), f32 scales ws (row pitch
// `ws_stride` bytes), k = 32 * ngroups.
//
// A wave computes R = 4 rows at once so each x element it loads serves four
// rows. Per step of 1024 columns, lane l takes columns 256 i + 4 l .. +3
// (i = 0..3): the weights as one dword per row and i (256 contiguous bytes
// per load, 4 whole lines), x as one dwordx4 per i (1 KiB contiguous, 16
// lines, shared by the R rows), and the step's 32 scales of a row as one
// dword load by lanes 0..31 (128 contiguous bytes), from which lane l picks
// the scale of its group (8 i + l / 8) with ds_bpermute_b32 (no LDS memory).
// Bytes become f32 with SDWA sign-extending conversions; each lane adds
// scale * (w0 x0 + w1 x1 + w2 x2 + w3 x3). A last partial step (ngroups % 32)
// runs masked, with x and the scales zeroed where masked off. The four row
// sums are reduced together with DPP (their steps fill each other's wait
// states) and lane 63 stores them.
//
// Rows: the workgroup takes rows [id * G, min(nrows, id * G + G)),
// G = group_size (0: the workgroup size); wave v of the workgroup's nw waves
// (workgroup size read from the dispatch packet) takes row quads v, v + nw, ...
// Rows of a partial quad past the end re-read the last valid row and are not
// stored.
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace codegen;

Signature i8_gemv_signature() {
  return Signature("gemv_i8_k", {in("w", "i8"), in("ws", "f32"), in("x", "f32"), out("y", "f32"), value("nrows", "u32"),
                                 value("ngroups", "u32"), value("rowbytes", "u32"), value("ws_stride", "u32"),
                                 value("group_size", "u32")});
}

codeobj::CodeObject build_i8_gemv(isa::Target target) {
  constexpr int R = 4;  // rows per wave pass
  Kernel k(i8_gemv_signature(), target, {.waves_per_simd = 3, .dispatch_ptr = true});
  const SGPR sW = k.arg("w"), sWs = k.arg("ws"), sX = k.arg("x"), sY = k.arg("y"), sN = k.arg("nrows"),
             sGroups = k.arg("ngroups"), sRowBytes = k.arg("rowbytes"), sWsStride = k.arg("ws_stride"),
             sGroup = k.arg("group_size");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sBlk = s1("quad"), sRow0 = s1("row0"), sVr = s1("valid rows"), sT = s1("t"), sT2 = s1("t2"),
             sSteps = s1("steps"), sRem = s1("rem"), sCnt = s1("count"), sLim = s1("limit"), sRowR = s1("row r");
  std::vector<SGPR> wr, sr;
  for (int r = 0; r < R; ++r) wr.push_back(k.sgpr(2, "w row")), sr.push_back(k.sgpr(2, "ws row"));
  auto sWr = [&](int r) { return wr[size_t(r)]; };
  auto sSr = [&](int r) { return sr[size_t(r)]; };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const VGPR vOffW = v1("w offset"), vOffX = v1("x offset"), vOffS = v1("scale offset"), vPA = v1("permute address"),
             vZero = v1("zero"), vT = v1("t");
  const VGPR accs = k.vgpr(R, "acc"), scales = k.vgpr(R, "scales"), weights = k.vgpr(4 * R, "weights"),
             picked = k.vgpr(4 * R, "picked scales");
  std::vector<VGPR> xs;
  for (int i = 0; i < 4; ++i) xs.push_back(k.vgpr(4, "x"));
  auto vAcc = [&](int r) { return accs[r]; };
  auto vS = [&](int r) { return scales[r]; };
  auto vW = [&](int r, int i) { return weights[4 * r + i]; };
  auto vX = [&](int i) { return xs[size_t(i)]; };
  auto vSc = [&](int r, int i) { return picked[4 * r + i]; };
  const VGPR vF = k.vgpr(4, "converted"), vDot = v1("dot");

  Label exit = k.exit(), group_loop = k.label("quad"), step_loop = k.label("step"), tail = k.label("tail"),
        reduce = k.label("reduce"), stored = k.label("stored");

  const SGPR sWave = wave_index(k);
  const VGPR vLane = whole_wave_lane_id(k);

  // Row range of the workgroup.
  const GroupRows rows = group_rows(k, sGroup, sN, exit);
  const SGPR sRbeg = rows.begin, sRend = rows.end, sWaves = rows.waves;
  k.s_lshr_b32(sSteps, sGroups, 5);
  k.s_and_b32(sRem, sGroups, 31);
  // Lane constants.
  k.v_lshrrev_b32(vPA, 3, vLane);
  k.v_lshlrev_b32(vPA, 2, vPA);  // ds_bpermute address of lane l / 8 (+ 32 i by offset)
  k.v_mov_b32(vZero, 0);
  k.s_mov_b32(sBlk, sWave);

  // One step of 1024 columns; `masked`: the last ngroups % 32 groups only.
  auto step = [&](bool masked) {
    if (masked) {
      for (int r = 0; r < R; ++r) k.v_mov_b32(vS(r), 0);
      for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 4; ++c) k.v_mov_b32(vX(i)[c], 0);
      k.v_cmp_gt_u32(vcc, sRem, vLane);
      k.s_mov_b64(exec, vcc);
    }
    for (int r = 0; r < R; ++r) k.global_load_dword(vS(r), vOffS, sSr(r));
    if (masked) k.s_mov_b64(exec, -1);  // the compares below must see every lane
    for (int i = 0; i < 4; ++i) {
      Label skip;
      if (masked) {
        skip = k.label("skip");
        // Lanes with 4 l + 256 i < 32 * rem, i.e. l < 8 rem - 64 i.
        k.s_lshl_b32(sLim, sRem, 3);
        k.s_sub_u32(sLim, sLim, 64 * i);
        k.v_cmp_gt_i32(vcc, sLim, vLane);
        k.s_mov_b64(exec, vcc);
        k.s_cbranch_execz(skip);
      }
      for (int r = 0; r < R; ++r) k.global_load_dword(vW(r, i), vOffW, sWr(r), offset(256 * i));
      k.global_load_dwordx4(vX(i), vOffX, sX, offset(1024 * i));
      if (masked) k.bind(skip);
    }
    if (masked) {
      k.s_mov_b64(exec, -1);
    } else {
      k.v_add_u32(vOffW, 0x400, vOffW);
      k.v_add_u32(vOffX, 0x1000, vOffX);
      k.v_add_u32(vOffS, 0x80, vOffS);
    }
    for (int i = 0; i < 4; ++i)
      for (int r = 0; r < R; ++r) k.ds_bpermute_b32(vSc(r, i), vPA, vS(r), offset(32 * i));
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < 4; ++i) {
        for (int c = 0; c < 4; ++c) i8_to_f32(k, vF[c], vW(r, i), c);
        k.v_mul_f32(vDot, vF[0], vX(i)[0]);
        for (int c = 1; c < 4; ++c) k.v_fmac_f32(vDot, vF[c], vX(i)[c]);
        k.v_fmac_f32(vAcc(r), vDot, vSc(r, i));
      }
  };

  k.bind(group_loop);
  k.s_mul_i32(sRow0, sBlk, R);
  k.s_add_u32(sRow0, sRow0, sRbeg);
  k.s_cmp_ge_u32(sRow0, sRend);
  k.s_cbranch_scc1(exit);
  k.s_sub_u32(sVr, sRend, sRow0);
  k.s_min_u32(sVr, sVr, R);
  k.s_sub_u32(sT2, sVr, 1);  // last valid row of the quad, relative
  for (int r = 0; r < R; ++r) {
    k.s_min_u32(sT, sT2, r);
    k.s_add_u32(sRowR, sRow0, sT);
    set_scaled_address(k, sWr(r), sW, sRowR, sRowBytes, 0);
    set_scaled_address(k, sSr(r), sWs, sRowR, sWsStride, 0);
    k.v_mov_b32(vAcc(r), 0);
  }
  k.v_lshlrev_b32(vOffW, 2, vLane);
  k.v_lshlrev_b32(vOffX, 4, vLane);
  k.v_and_b32(vT, 31, vLane);
  k.v_lshlrev_b32(vOffS, 2, vT);
  k.s_mov_b32(sCnt, sSteps);
  k.s_cmp_eq_u32(sCnt, 0);
  k.s_cbranch_scc1(tail);
  k.bind(step_loop);
  step(false);
  k.s_sub_u32(sCnt, sCnt, 1);
  k.s_cmp_lg_u32(sCnt, 0);
  k.s_cbranch_scc1(step_loop);
  k.bind(tail);
  k.s_cmp_eq_u32(sRem, 0);
  k.s_cbranch_scc1(reduce);
  step(true);
  k.bind(reduce);
  lane_reduce(k, {{ReduceOp::Add, accs[0]}, {ReduceOp::Add, accs[1]}, {ReduceOp::Add, accs[2]}, {ReduceOp::Add, accs[3]}});
  // y + row0 * 4; lane 63 stores the valid rows.
  const SGPR sYb = offset_address(k, sY, sRow0, 2);
  k.s_mov_b32(exec_lo, 0);
  k.s_mov_b32(exec_hi, 0x80000000u);
  for (int r = 0; r < R; ++r) {
    if (r > 0) {
      k.s_cmp_le_u32(sVr, r);
      k.s_cbranch_scc1(stored);
    }
    k.global_store_dword(vZero, vAcc(r), sYb, offset(4 * r));
  }
  k.bind(stored);
  k.s_mov_b64(exec, -1);
  k.s_add_u32(sBlk, sBlk, sWaves);
  k.s_branch(group_loop);
  return k.build();
}

}  // namespace k100::kernels::gemv
