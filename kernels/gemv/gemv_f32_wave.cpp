// One wave per output row: gemv_f32_warp_k, gemv_f32_warp_acc_k,
// gemv_f32_gated_acc_k.
//
// Lane l streams 16-byte pieces of the row: w[n][256 i + 4 l .. +3], so one
// global_load_dwordx4 covers 1 KiB of the row (16 whole 64-byte lines) and no
// weight line is requested twice; the vector operands (x, or gate and up) are
// read with the same pattern. Two 256-column blocks are loaded per loop trip.
// A tail of fewer than 256 columns is read one dword per lane (4 steps of 64
// columns at most). The 64 partial sums are reduced with DPP into lane 63,
// which lane 0 of the wave then stores (after adding y for the accumulating
// forms). The gated form computes silu(gate[k]) * up[k] = gate*up / (1 + 2^(-gate*log2 e))
// in the loop (v_exp_f32, v_rcp_f32): no reuse across rows exists inside a
// one-row workgroup, and the transcendental work stays far below the
// bandwidth bound.
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace codegen;

Signature wave_gemv_signature(WaveGemv kind) {
  const bool gated = kind == WaveGemv::GatedAcc, acc = kind != WaveGemv::Plain;
  std::vector<Param> p = {in("w", "f32")};
  if (gated) p.insert(p.end(), {in("gate", "f32"), in("up", "f32")});
  else p.push_back(in("x", "f32"));
  p.insert(p.end(), {acc ? inout("y", "f32") : out("y", "f32"), value("nrows", "u32"), value("k", "u32"),
                     value("group_size", "u32")});
  return Signature(kind == WaveGemv::Plain ? "gemv_f32_warp_k" : acc && !gated ? "gemv_f32_warp_acc_k"
                                                                               : "gemv_f32_gated_acc_k",
                   p);
}

codeobj::CodeObject build_wave_gemv(isa::Target target, WaveGemv kind) {
  const bool gated = kind == WaveGemv::GatedAcc, accumulate = kind != WaveGemv::Plain;
  Kernel k(wave_gemv_signature(kind), target, {.waves_per_simd = gated ? 6 : 8});
  const SGPR sA = k.arg(gated ? "gate" : "x"), sN = k.arg("nrows"), sK = k.arg("k"), row = k.workgroup_id();
  const SGPR sB = gated ? k.arg("up") : SGPR{}, sCnt = k.sgpr(1, "blocks"), sCol = k.sgpr(1, "column");
  const VGPR vOff = k.vgpr(1, "offset"), vCol = k.vgpr(1, "column"), vT = k.vgpr(1, "t");
  // Per 256-column block: w, then x (or gate, up), 4 dwords each.
  const int per_block = gated ? 3 : 2;
  std::vector<VGPR> blocks;
  for (int i = 0; i < 2 * per_block; ++i) blocks.push_back(k.vgpr(4, "block"));
  auto block_reg = [&](int blk, int operand) { return blocks[size_t(per_block * blk + operand)]; };
  const VGPR vTmp = gated ? k.vgpr(4, "silu") : VGPR{};
  // Four partial sums per lane (one per dword of a piece): shorter dependent
  // chains, and a quarter of the terms per rounding chain.
  const VGPR vPart = k.vgpr(4, "partial sums");

  Label exit = k.exit(), pair_loop = k.label("pair"), single = k.label("single"), tail = k.label("tail");

  exit_unless_first_wave(k, exit);
  const VGPR vLane = whole_wave_lane_id(k);
  k.s_cmp_ge_u32(row, sN);
  k.s_cbranch_scc1(exit);  // row past the end: a larger grid is harmless
  const SGPR sRow = scaled_address(k, k.arg("w"), row, sK, 2);  // w + row * k * 4
  for (int c = 0; c < 4; ++c) k.v_mov_b32(vPart[c], 0);
  k.v_lshlrev_b32(vOff, 4, vLane);  // byte offset of this lane's piece: 16 * lane

  // One multiply-add per column: acc += w * x, or acc += w * silu(g) * u.
  auto accumulate_columns = [&](VGPR w, VGPR a, VGPR u, int n) {
    if (gated) {
      reciprocal_one_plus_exp2(k, vTmp, -kLog2E, a, n);  // sigmoid(a)
      for (int c = 0; c < n; ++c) k.v_mul_f32(a[c], a[c], u[c]);
      for (int c = 0; c < n; ++c) k.v_mul_f32(a[c], a[c], vTmp[c]);
    }
    for (int c = 0; c < n; ++c) k.v_fmac_f32(vPart[c], w[c], a[c]);
  };
  auto load_block = [&](int blk) {
    k.global_load_dwordx4(block_reg(blk, 0), vOff, sRow, offset(1024 * blk));
    k.global_load_dwordx4(block_reg(blk, 1), vOff, sA, offset(1024 * blk));
    if (gated) k.global_load_dwordx4(block_reg(blk, 2), vOff, sB, offset(1024 * blk));
  };
  auto compute_block = [&](int blk) {
    accumulate_columns(block_reg(blk, 0), block_reg(blk, 1), gated ? block_reg(blk, 2) : VGPR{}, 4);
  };

  // Pairs of 256-column blocks.
  k.s_lshr_b32(sCnt, sK, 9);
  k.s_cmp_eq_u32(sCnt, 0);
  k.s_cbranch_scc1(single);
  k.bind(pair_loop);
  load_block(0);
  load_block(1);
  k.v_add_u32(vOff, 0x800, vOff);
  k.s_sub_u32(sCnt, sCnt, 1);
  compute_block(0);
  compute_block(1);
  k.s_cmp_lg_u32(sCnt, 0);
  k.s_cbranch_scc1(pair_loop);
  // An odd 256-column block.
  k.bind(single);
  k.s_bitcmp1_b32(sK, 8);
  k.s_cbranch_scc0(tail);
  load_block(0);
  compute_block(0);

  // Columns [256 * blocks, k): lane l takes column base + l + 64 j, j = 0..3.
  k.bind(tail);
  k.s_and_b32(sCol, sK, 0xffffff00u);
  k.v_add_u32(vCol, sCol, vLane);
  lane_walk(k, vCol, sK, 64, [&] {
    k.v_lshlrev_b32(vT, 2, vCol);
    k.global_load_dword(block_reg(0, 0)[0], vT, sRow);
    k.global_load_dword(block_reg(0, 1)[0], vT, sA);
    if (gated) k.global_load_dword(block_reg(0, 2)[0], vT, sB);
    accumulate_columns(block_reg(0, 0), block_reg(0, 1), gated ? block_reg(0, 2) : VGPR{}, 1);
  });

  store_wave_sum(k, vPart, k.arg("y"), row, accumulate);
  return k.build();
}

}  // namespace k100::kernels::gemv
