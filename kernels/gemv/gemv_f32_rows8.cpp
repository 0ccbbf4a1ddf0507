// Eight rows per wave: gemv_f32_rows8_k, gemv_f32_rows8_acc_k,
// gemv_f32_rows8_split_k and gemv_f32_k.
//
// Lane l works on row q = l >> 3 of an 8-row block and column slot r = l & 7.
// Per 128-column chunk, load i (0..3) of lane (q, r) reads
// w[row q][c0 + 32 i + 4 r .. +3] and x[c0 + 32 i + 4 r .. +3] as dwordx4: one
// load covers 128 contiguous bytes (2 whole lines) of each of the 8 rows, so
// every weight line is requested by exactly one instruction, and x costs 2
// lines per load for all 8 rows. A tail of fewer than 128 columns is read one
// dword per lane. The 8 lanes of a row are summed with DPP (quad_perm,
// quad_perm, row_half_mirror) and lane r = 0 writes the row.
//
// Rows past the end are masked off (loads included), so any nrows works; the
// columns need no alignment (k % 128 is the tail).
//
// gemv_f32_k takes `group_size` rows per workgroup (its documented grid is
// ceil(nrows / group_size)) and splits them over however many waves the
// workgroup really has, which it reads from the dispatch packet, so any
// workgroup size is correct. It enables the dispatch pointer: s[4:5] dispatch
// packet, s[6:7] kernarg, s8 workgroup id. The other three take one 8-row
// block per workgroup: s[4:5] kernarg, s6 workgroup id.
#include "gemv/gemv_emit.h"
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace as;

codeobj::CodeObject build_rows8_gemv(isa::Target target, Rows8Gemv kind) {
  const bool groups = kind == Rows8Gemv::Groups, split = kind == Rows8Gemv::Split;
  const char* name = kind == Rows8Gemv::Plain   ? "gemv_f32_rows8_k"
                     : kind == Rows8Gemv::Acc   ? "gemv_f32_rows8_acc_k"
                     : kind == Rows8Gemv::Split ? "gemv_f32_rows8_split_k"
                                                : "gemv_f32_k";
  KernelBuilder b(name, target);
  const EntryRegs in = entry_regs(groups);

  // Arguments: (w, x, y|part, nrows, k|nchunks) in s[12:19], then
  // split: (stride, sh) in s[20:21]; groups: group_size in s20, the dispatch
  // packet's workgroup_size_x | y << 16 in s21.
  const SGPR sW = s(12, 2), sX = s(14, 2), sY = s(16, 2), sN = s(18), sK = s(19);
  const SGPR sStride = s(20), sSh = s(21), sGroup = s(20), sPacket = s(21);
  // Working registers.
  const SGPR sPitch = s(22), sCols = s(23), sValid = s(24), sCnt = s(25), sWb = s(26, 2), sXb = s(28, 2),
             sOb = s(30, 2), sT = s(32), sT2 = s(33), sSave = s(34, 2), sSave2 = s(36, 2), sRow0 = s(38),
             sBlk = s(39), sNb = s(40), sWaves = s(41), sRbeg = s(42), sRend = s(43), sWave = s(44),
             sSlice = s(45), sMask = s(46), sV = s(48, 2), sColBeg = s(50), sCps = s(51);
  const VGPR vLocal = v(0), vLane = v(1), vQ = v(2), vR = v(3), vRowOff = v(4), vOffW = v(5), vOffX = v(6),
             vAcc = v(7), vOutOff = v(8), vCol = v(9), vTW = v(10), vTX = v(11), vT = v(12), vR16 = v(13);
  // 16 partial sums per lane (one per dword of the 4 loads of a chunk): a
  // row's k terms run through 128 rounding chains, as many as in the
  // wave-per-row kernels (64 lanes x 4 would be 256 for the same row).
  const VGPR vPart = v(48, 16);
  auto vWd = [](int i) { return v(16 + 4 * i, 4); };
  auto vXd = [](int i) { return v(32 + 4 * i, 4); };

  Label exit = b.label("exit");

  b.s_load_dwordx8(s(12, 8), in.kernarg, 0x0);
  if (split) b.s_load_dwordx2(s(20, 2), in.kernarg, 0x20);
  if (groups) {
    b.s_load_dword(sGroup, in.kernarg, 0x20);
    b.s_load_dword(sPacket, in.dispatch, 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  }
  b.s_waitcnt(waitcnt(63, 7, 0));
  if (groups) {
    b.v_readfirstlane_b32(sWave, vLocal);
    b.s_lshr_b32(sWave, sWave, 6);  // this wave's index in the workgroup
    whole_wave_lane_id(b, vLane);
  } else {
    first_wave_whole(b, vLocal, sT, vLane, exit);
  }
  b.v_lshrrev_b32(vQ, 3, vLane);
  b.v_and_b32(vR, 7, vLane);
  b.v_lshlrev_b32(vR16, 4, vR);

  // Row pitch (elements) and the number of columns.
  if (groups) {
    b.s_lshl_b32(sPitch, sK, 2);  // k = 4 * nchunks
    b.s_mov_b32(sCols, sPitch);
  } else if (split) {
    b.s_mov_b32(sPitch, sStride);
  } else {
    b.s_mov_b32(sPitch, sK);
    b.s_mov_b32(sCols, sK);
  }
  b.s_lshl_b32(sT, sPitch, 2);
  b.v_mul_lo_u32(vRowOff, vQ, sT);  // q * pitch * 4

  // Number of 8-row blocks: ceil(nrows / 8) without overflow.
  auto blocks_of = [&](SGPR dst, SGPR rows) {
    b.s_lshr_b32(dst, rows, 3);
    b.s_and_b32(sT, rows, 7);
    b.s_cmp_lg_u32(sT, 0);
    b.s_addc_u32(dst, dst, 0);
  };
  // sWb = w + row0 * pitch * 4 (+ column offset for split), sValid = min(8, end - row0).
  auto block_rows = [&](SGPR end) {
    b.s_sub_u32(sValid, end, sRow0);
    b.s_min_u32(sValid, sValid, 8);
    scalar_address(b, sWb, sW, sRow0, sPitch, 2);
  };
  // y + row0 * 4.
  auto row_output = [&]() {
    b.s_lshl_b32(sT, sRow0, 2);
    b.s_lshr_b32(sT2, sRow0, 30);
    b.s_add_u32(sOb[0], sY[0], sT);
    b.s_addc_u32(sOb[1], sY[1], sT2);
  };

  // The 8-row block: columns [0, sCols) of rows row0 + q < row0 + sValid,
  // w at sWb, x at sXb, output at sOb + vOutOff. Entered and left with all
  // lanes enabled.
  auto block_body = [&]() {
    Label loop = b.label("chunk"), tail = b.label("tail"), tail_loop = b.label("tail_loop"),
          tail_done = b.label("tail_done"), reduce = b.label("reduce");
    b.v_cmp_gt_u32(vcc, sValid, vQ);
    b.s_and_saveexec_b64(sSave, vcc);  // rows past the end do nothing, loads included
    for (int c = 0; c < 16; ++c) b.v_mov_b32(vPart[c], 0);
    b.v_add_u32(vOffW, vRowOff, vR16);
    b.v_mov_b32(vOffX, vR16);
    b.s_lshr_b32(sCnt, sCols, 7);
    b.s_cmp_eq_u32(sCnt, 0);
    b.s_cbranch_scc1(tail);
    b.bind(loop);
    for (int i = 0; i < 4; ++i) {
      b.global_load_dwordx4(vWd(i), vOffW, sWb, offset(128 * i));
      b.global_load_dwordx4(vXd(i), vOffX, sXb, offset(128 * i));
    }
    b.v_add_u32(vOffW, 0x200, vOffW);
    b.v_add_u32(vOffX, 0x200, vOffX);
    b.s_sub_u32(sCnt, sCnt, 1);
    for (int i = 0; i < 4; ++i) {
      b.s_waitcnt(waitcnt(6 - 2 * i));  // loads return in order: pair i has arrived
      for (int c = 0; c < 4; ++c) b.v_fmac_f32(vPart[4 * i + c], vWd(i)[c], vXd(i)[c]);
    }
    b.s_cmp_lg_u32(sCnt, 0);
    b.s_cbranch_scc1(loop);
    // Columns [128 * chunks, sCols): lane r takes base + r + 8 j.
    b.bind(tail);
    b.s_and_b32(sT, sCols, 127);
    b.s_cmp_eq_u32(sT, 0);
    b.s_cbranch_scc1(reduce);
    b.s_and_b32(sT, sCols, 0xffffff80u);
    b.v_add_u32(vCol, sT, vR);
    b.v_lshlrev_b32(vTX, 2, vCol);
    b.v_add_u32(vTW, vRowOff, vTX);
    b.bind(tail_loop);
    b.v_cmp_gt_u32(vcc, sCols, vCol);
    b.s_and_saveexec_b64(sSave2, vcc);
    b.s_cbranch_execz(tail_done);
    b.global_load_dword(vWd(0)[0], vTW, sWb);
    b.global_load_dword(vXd(0)[0], vTX, sXb);
    b.s_waitcnt(waitcnt(0));
    b.v_fmac_f32(vPart[0], vWd(0)[0], vXd(0)[0]);
    b.s_mov_b64(exec, sSave2);
    b.v_add_u32(vCol, 8, vCol);
    b.v_add_u32(vTW, 32, vTW);
    b.v_add_u32(vTX, 32, vTX);
    b.s_branch(tail_loop);
    b.bind(tail_done);
    b.s_mov_b64(exec, sSave2);
    b.bind(reduce);
    for (int half = 8; half >= 2; half /= 2)
      for (int c = 0; c < half; ++c) b.v_add_f32(vPart[c], vPart[c], vPart[c + half]);
    b.v_add_f32(vAcc, vPart[0], vPart[1]);
    octet_sum(b, vAcc);
    b.v_cmp_eq_u32(vcc, 0, vR);
    b.s_and_b64(exec, exec, vcc);  // lane r = 0 of each valid row
    if (kind == Rows8Gemv::Acc) {
      b.global_load_dword(vT, vOutOff, sOb);
      b.s_waitcnt(waitcnt(0));
      b.v_add_f32(vAcc, vAcc, vT);
    }
    b.global_store_dword(vOutOff, vAcc, sOb);
    b.s_mov_b64(exec, -1);
  };

  if (kind == Rows8Gemv::Plain || kind == Rows8Gemv::Acc) {
    blocks_of(sNb, sN);
    b.s_cmp_ge_u32(in.group, sNb);
    b.s_cbranch_scc1(exit);  // block past the end: a larger grid is harmless
    b.s_lshl_b32(sRow0, in.group, 3);
    block_rows(sN);
    b.s_mov_b64(sXb, sX);
    row_output();
    b.v_lshlrev_b32(vOutOff, 2, vQ);
    block_body();
  } else if (split) {
    // Workgroup id = block << sh | slice; slice s covers chunks
    // [s * cps, (s + 1) * cps) of the ceil(k / 128) 128-column chunks,
    // cps = ceil(chunks / 2^sh); slices past the end write 0.
    b.s_cmp_gt_u32(sSh, 24);
    b.s_cbranch_scc1(exit);
    b.s_lshl_b32(sMask, 1, sSh);
    b.s_sub_u32(sMask, sMask, 1);
    b.s_and_b32(sSlice, in.group, sMask);
    b.s_lshr_b32(sBlk, in.group, sSh);
    blocks_of(sNb, sN);
    b.s_cmp_ge_u32(sBlk, sNb);
    b.s_cbranch_scc1(exit);
    b.s_lshl_b32(sRow0, sBlk, 3);
    block_rows(sN);
    // Column range of the slice.
    b.s_lshr_b32(sCnt, sK, 7);  // chunks = ceil(k / 128)
    b.s_and_b32(sT, sK, 127);
    b.s_cmp_lg_u32(sT, 0);
    b.s_addc_u32(sCnt, sCnt, 0);
    b.s_add_u32(sCps, sCnt, sMask);
    b.s_lshr_b32(sCps, sCps, sSh);
    b.s_mul_i32(sColBeg, sSlice, sCps);
    b.s_add_u32(sT, sColBeg, sCps);
    b.s_lshl_b32(sColBeg, sColBeg, 7);
    b.s_min_u32(sColBeg, sColBeg, sK);
    b.s_lshl_b32(sT, sT, 7);
    b.s_min_u32(sT, sT, sK);
    b.s_sub_u32(sCols, sT, sColBeg);
    // w and x advance to the slice's first column.
    b.s_lshl_b32(sT, sColBeg, 2);
    b.s_lshr_b32(sT2, sColBeg, 30);
    b.s_add_u32(sWb[0], sWb[0], sT);
    b.s_addc_u32(sWb[1], sWb[1], sT2);
    b.s_add_u32(sXb[0], sX[0], sT);
    b.s_addc_u32(sXb[1], sX[1], sT2);
    // part + ((block << (sh + 3)) + slice) * 4; lane q adds q << (sh + 2).
    b.s_add_u32(sT, sSh, 3);
    b.s_mov_b32(sV[0], sBlk);
    b.s_mov_b32(sV[1], 0);
    b.s_lshl_b64(sV, sV, sT);
    b.s_or_b32(sV[0], sV[0], sSlice);
    b.s_lshl_b64(sV, sV, 2);
    b.s_add_u32(sOb[0], sY[0], sV[0]);
    b.s_addc_u32(sOb[1], sY[1], sV[1]);
    b.s_add_u32(sT, sSh, 2);
    b.v_lshlrev_b32(vOutOff, sT, vQ);
    block_body();
  } else {
    // gemv_f32_k: rows [id * G, min(nrows, id * G + G)), G = group_size (0:
    // the workgroup size); wave v of nw takes 8-row blocks v, v + nw, ...
    Label block_loop = b.label("block");
    b.s_and_b32(sT, sPacket, 0xffff);  // workgroup size
    b.s_add_u32(sWaves, sT, 63);
    b.s_lshr_b32(sWaves, sWaves, 6);
    b.s_cmp_eq_u32(sGroup, 0);
    b.s_cselect_b32(sGroup, sT, sGroup);
    b.s_mul_hi_u32(sT, in.group, sGroup);
    b.s_cmp_lg_u32(sT, 0);
    b.s_cbranch_scc1(exit);
    b.s_mul_i32(sRbeg, in.group, sGroup);
    b.s_cmp_ge_u32(sRbeg, sN);
    b.s_cbranch_scc1(exit);
    b.s_add_u32(sRend, sRbeg, sGroup);
    b.s_cselect_b32(sRend, sN, sRend);  // carry: the range reaches past 2^32
    b.s_min_u32(sRend, sRend, sN);
    b.s_sub_u32(sT2, sRend, sRbeg);
    blocks_of(sNb, sT2);
    b.s_mov_b64(sXb, sX);
    b.v_lshlrev_b32(vOutOff, 2, vQ);
    b.s_mov_b32(sBlk, sWave);
    b.bind(block_loop);
    b.s_cmp_ge_u32(sBlk, sNb);
    b.s_cbranch_scc1(exit);
    b.s_lshl_b32(sRow0, sBlk, 3);
    b.s_add_u32(sRow0, sRow0, sRbeg);
    block_rows(sRend);
    row_output();
    block_body();
    b.s_add_u32(sBlk, sBlk, sWaves);
    b.s_branch(block_loop);
  }
  b.bind(exit);
  b.s_endpgm();

  kernel_interface(b, groups, 40);
  b.arg("w", "global_buffer", "const f32*", "read_only");
  b.arg("x", "global_buffer", "const f32*", "read_only");
  if (split) {
    b.arg("part", "global_buffer", "f32*", "write_only");
  } else {
    b.arg("y", "global_buffer", "f32*", kind == Rows8Gemv::Acc ? "read_write" : "write_only");
  }
  b.arg("nrows", "by_value", "u32");
  b.arg(groups ? "nchunks" : "k", "by_value", "u32");
  if (split) {
    b.arg("stride", "by_value", "u32");
    b.arg("sh", "by_value", "u32");
  } else {
    b.arg("group_size", "by_value", "u32");
  }
  return b.code_object();
}

}  // namespace k100::kernels::gemv
