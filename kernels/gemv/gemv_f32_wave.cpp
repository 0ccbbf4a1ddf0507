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
//
// Entry: s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup
// id (= row), v0 local id.
#include "gemv/gemv_emit.h"
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace as;

codeobj::CodeObject build_wave_gemv(isa::Target target, WaveGemv kind) {
  const bool gated = kind == WaveGemv::GatedAcc;
  const bool accumulate = kind != WaveGemv::Plain;
  const char* name = kind == WaveGemv::Plain ? "gemv_f32_warp_k"
                     : kind == WaveGemv::Acc ? "gemv_f32_warp_acc_k"
                                             : "gemv_f32_gated_acc_k";
  KernelBuilder b(name, target);
  const EntryRegs in = entry_regs(false);

  // Arguments: (w, x, y, nrows, k, group_size) or (w, gate, up, y, nrows, k, group_size).
  const SGPR sW = s(8, 2), sA = s(10, 2), sB = s(12, 2);
  const SGPR sY = gated ? s(14, 2) : s(12, 2);
  const SGPR sN = gated ? s(16) : s(14), sK = gated ? s(17) : s(15);
  const SGPR sWave = s(7), sRow = s(18, 2), sCnt = s(20), sCol = s(21), sSave = s(22, 2), sSum = s(24), sT = s(25),
             sYr = s(26, 2);
  const VGPR vLocal = v(0), vLane = v(1), vOff = v(2), vAcc = v(3), vCopy = v(4), vCol = v(5), vT = v(6);
  // Per 256-column block: w, then x (or gate, up), 4 dwords each.
  const int per_block = gated ? 3 : 2;
  auto block_reg = [&](int blk, int operand) { return v(8 + 4 * (per_block * blk + operand), 4); };
  const VGPR vTmp = v(8 + 4 * per_block * 2, 4);  // gated: one temporary per component
  // Four partial sums per lane (one per dword of a piece): shorter dependent
  // chains, and a quarter of the terms per rounding chain.
  const VGPR vPart = v(8 + 4 * per_block * 2 + 4, 4);

  Label exit = b.label("exit"), pair_loop = b.label("pair"), single = b.label("single"), tail = b.label("tail"),
        tail_step = b.label("tail_step"), tail_done = b.label("tail_done"), reduce = b.label("reduce");

  b.s_load_dwordx8(s(8, 8), in.kernarg, 0x0);
  if (gated) b.s_load_dwordx2(s(16, 2), in.kernarg, 0x20);
  b.s_waitcnt(waitcnt(63, 7, 0));
  first_wave_whole(b, vLocal, sWave, vLane, exit);
  b.s_cmp_ge_u32(in.group, sN);
  b.s_cbranch_scc1(exit);  // row past the end: a larger grid is harmless
  scalar_address(b, sRow, sW, in.group, sK, 2);  // w + row * k * 4
  for (int c = 0; c < 4; ++c) b.v_mov_b32(vPart[c], 0);
  b.v_lshlrev_b32(vOff, 4, vLane);  // byte offset of this lane's piece: 16 * lane

  // One multiply-add per column: acc += w * x, or acc += w * silu(g) * u.
  auto accumulate_columns = [&](VGPR w, VGPR a, VGPR u, int n) {
    if (!gated) {
      for (int c = 0; c < n; ++c) b.v_fmac_f32(vPart[c], w[c], a[c]);
      return;
    }
    for (int c = 0; c < n; ++c) b.v_mul_f32(vTmp[c], -1.44269504088896340736f, a[c]);
    for (int c = 0; c < n; ++c) b.v_exp_f32(vTmp[c], vTmp[c]);
    for (int c = 0; c < n; ++c) b.v_add_f32(vTmp[c], 1.0f, vTmp[c]);
    for (int c = 0; c < n; ++c) b.v_rcp_f32(vTmp[c], vTmp[c]);
    for (int c = 0; c < n; ++c) b.v_mul_f32(a[c], a[c], u[c]);
    for (int c = 0; c < n; ++c) b.v_mul_f32(a[c], a[c], vTmp[c]);
    for (int c = 0; c < n; ++c) b.v_fmac_f32(vPart[c], w[c], a[c]);
  };
  auto load_block = [&](int blk) {
    b.global_load_dwordx4(block_reg(blk, 0), vOff, sRow, offset(1024 * blk));
    b.global_load_dwordx4(block_reg(blk, 1), vOff, sA, offset(1024 * blk));
    if (gated) b.global_load_dwordx4(block_reg(blk, 2), vOff, sB, offset(1024 * blk));
  };
  auto compute_block = [&](int blk) {
    accumulate_columns(block_reg(blk, 0), block_reg(blk, 1), gated ? block_reg(blk, 2) : VGPR{}, 4);
  };

  // Pairs of 256-column blocks.
  b.s_lshr_b32(sCnt, sK, 9);
  b.s_cmp_eq_u32(sCnt, 0);
  b.s_cbranch_scc1(single);
  b.bind(pair_loop);
  load_block(0);
  load_block(1);
  b.v_add_u32(vOff, 0x800, vOff);
  b.s_sub_u32(sCnt, sCnt, 1);
  b.s_waitcnt(waitcnt(per_block));
  compute_block(0);
  b.s_waitcnt(waitcnt(0));
  compute_block(1);
  b.s_cmp_lg_u32(sCnt, 0);
  b.s_cbranch_scc1(pair_loop);
  // An odd 256-column block.
  b.bind(single);
  b.s_bitcmp1_b32(sK, 8);
  b.s_cbranch_scc0(tail);
  load_block(0);
  b.s_waitcnt(waitcnt(0));
  compute_block(0);

  // Columns [256 * blocks, k): lane l takes column base + l + 64 j, j = 0..3.
  b.bind(tail);
  b.s_and_b32(sCol, sK, 0xffffff00u);
  b.s_cmp_eq_u32(sCol, sK);
  b.s_cbranch_scc1(reduce);
  b.v_add_u32(vCol, sCol, vLane);
  b.s_mov_b32(sCnt, 4);
  b.bind(tail_step);
  b.v_cmp_gt_u32(vcc, sK, vCol);  // column < k
  b.s_and_saveexec_b64(sSave, vcc);
  b.s_cbranch_execz(tail_done);
  b.v_lshlrev_b32(vT, 2, vCol);
  b.global_load_dword(block_reg(0, 0)[0], vT, sRow);
  b.global_load_dword(block_reg(0, 1)[0], vT, sA);
  if (gated) b.global_load_dword(block_reg(0, 2)[0], vT, sB);
  b.s_waitcnt(waitcnt(0));
  accumulate_columns(block_reg(0, 0), block_reg(0, 1), gated ? block_reg(0, 2) : VGPR{}, 1);
  b.s_mov_b64(exec, sSave);
  b.v_add_u32(vCol, 64, vCol);
  b.s_sub_u32(sCnt, sCnt, 1);
  b.s_cmp_lg_u32(sCnt, 0);
  b.s_cbranch_scc1(tail_step);
  b.s_branch(reduce);
  b.bind(tail_done);
  b.s_mov_b64(exec, sSave);

  b.bind(reduce);
  b.v_add_f32(vAcc, vPart[0], vPart[1]);
  b.v_add_f32(vT, vPart[2], vPart[3]);
  b.v_add_f32(vAcc, vAcc, vT);
  wave_sum_to_lane63(b, {vAcc}, {vCopy});
  b.v_readlane_b32(sSum, vAcc, 63);
  // y + row * 4, written by lane 0.
  b.s_lshl_b32(sYr[0], in.group, 2);
  b.s_lshr_b32(sT, in.group, 30);
  b.s_add_u32(sYr[0], sY[0], sYr[0]);
  b.s_addc_u32(sYr[1], sY[1], sT);
  b.v_mov_b32(vT, 0);
  b.s_mov_b64(exec, 1);
  if (accumulate) {
    b.global_load_dword(vAcc, vT, sYr);
    b.s_waitcnt(waitcnt(0));
    b.v_add_f32(vAcc, sSum, vAcc);
  } else {
    b.v_mov_b32(vAcc, sSum);
  }
  b.global_store_dword(vT, vAcc, sYr);
  b.bind(exit);
  b.s_endpgm();

  kernel_interface(b, false, gated ? 48 : 40);
  b.arg("w", "global_buffer", "const f32*", "read_only");
  if (gated) {
    b.arg("gate", "global_buffer", "const f32*", "read_only");
    b.arg("up", "global_buffer", "const f32*", "read_only");
  } else {
    b.arg("x", "global_buffer", "const f32*", "read_only");
  }
  b.arg("y", "global_buffer", "f32*", accumulate ? "read_write" : "write_only");
  b.arg("nrows", "by_value", "u32");
  b.arg("k", "by_value", "u32");
  b.arg("group_size", "by_value", "u32");
  return b.code_object();
}

}  // namespace k100::kernels::gemv
