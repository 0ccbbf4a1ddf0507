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
// workgroup size is correct. The other three take one 8-row block per
// workgroup.
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace codegen;

Signature rows8_gemv_signature(Rows8Gemv kind) {
  const bool groups = kind == Rows8Gemv::Groups, split = kind == Rows8Gemv::Split;
  std::vector<Param> p = {in("w", "f32"), in("x", "f32"),
                          split ? out("part", "f32") : kind == Rows8Gemv::Acc ? inout("y", "f32") : out("y", "f32"),
                          value("nrows", "u32"), value(groups ? "nchunks" : "k", "u32")};
  if (split) p.insert(p.end(), {value("stride", "u32"), value("sh", "u32")});
  else p.push_back(value("group_size", "u32"));
  const char* name = kind == Rows8Gemv::Plain ? "gemv_f32_rows8_k" : kind == Rows8Gemv::Acc ? "gemv_f32_rows8_acc_k"
                     : split                  ? "gemv_f32_rows8_split_k"
                                              : "gemv_f32_k";
  return Signature(name, p);
}

codeobj::CodeObject build_rows8_gemv(isa::Target target, Rows8Gemv kind) {
  const bool groups = kind == Rows8Gemv::Groups, split = kind == Rows8Gemv::Split;
  Kernel k(rows8_gemv_signature(kind), target, {.waves_per_simd = 4, .dispatch_ptr = groups});
  const SGPR sW = k.arg("w"), sX = k.arg("x"), sY = k.arg(split ? "part" : "y"), sN = k.arg("nrows"),
             sK = k.arg(groups ? "nchunks" : "k"), group = k.workgroup_id();
  const SGPR sStride = split ? k.arg("stride") : SGPR{}, sSh = split ? k.arg("sh") : SGPR{},
             sGroup = split ? SGPR{} : k.arg("group_size");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR sPitch = s1("pitch"), sCols = s1("cols"), sValid = s1("valid rows"), sCnt = s1("chunks"),
             sWb = k.sgpr(2, "w block"), sXb = k.sgpr(2, "x block"), sOb = k.sgpr(2, "out block"), sT = s1("t"),
             sT2 = s1("t2"), sRow0 = s1("row0"),
             sBlk = s1("block"), sSlice = s1("slice"), sMask = s1("slice mask"), sV = k.sgpr(2, "v"),
             sColBeg = s1("column begin"), sCps = s1("chunks per slice");
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const VGPR vQ = v1("q"), vR = v1("r"), vRowOff = v1("row offset"), vOffW = v1("w offset"), vOffX = v1("x offset"),
             vAcc = v1("acc"), vOutOff = v1("out offset"), vCol = v1("column"), vTW = v1("tail w"),
             vTX = v1("tail x"), vT = v1("t"), vR16 = v1("r16");
  // 16 partial sums per lane (one per dword of the 4 loads of a chunk): a
  // row's k terms run through 128 rounding chains, as many as in the
  // wave-per-row kernels (64 lanes x 4 would be 256 for the same row).
  const VGPR vPart = k.vgpr(16, "partial sums");
  std::vector<VGPR> wd, xd;
  for (int i = 0; i < 4; ++i) wd.push_back(k.vgpr(4, "w")), xd.push_back(k.vgpr(4, "x"));
  auto vWd = [&](int i) { return wd[size_t(i)]; };
  auto vXd = [&](int i) { return xd[size_t(i)]; };

  Label exit = k.exit();
  VGPR vLane;
  SGPR sWave;
  if (groups) {
    sWave = wave_index(k);
    vLane = whole_wave_lane_id(k);
  } else {
    exit_unless_first_wave(k, exit);
    vLane = whole_wave_lane_id(k);
  }
  k.v_lshrrev_b32(vQ, 3, vLane);
  k.v_and_b32(vR, 7, vLane);
  k.v_lshlrev_b32(vR16, 4, vR);

  // Row pitch (elements) and the number of columns.
  if (groups) {
    k.s_lshl_b32(sPitch, sK, 2);  // k = 4 * nchunks
    k.s_mov_b32(sCols, sPitch);
  } else if (split) {
    k.s_mov_b32(sPitch, sStride);
  } else {
    k.s_mov_b32(sPitch, sK);
    k.s_mov_b32(sCols, sK);
  }
  k.s_lshl_b32(sT, sPitch, 2);
  k.v_mul_lo_u32(vRowOff, vQ, sT);  // q * pitch * 4

  // sWb = w + row0 * pitch * 4 (+ column offset for split), sValid = min(8, end - row0).
  auto block_rows = [&](SGPR end) {
    k.s_sub_u32(sValid, end, sRow0);
    k.s_min_u32(sValid, sValid, 8);
    set_scaled_address(k, sWb, sW, sRow0, sPitch, 2);
  };

  // The 8-row block: columns [0, sCols) of rows row0 + q < row0 + sValid,
  // w at sWb, x at sXb, output at sOb + vOutOff. Entered and left with all
  // lanes enabled.
  auto block_body = [&]() {
    Label loop = k.label("chunk"), tail = k.label("tail");
    // rows past the end do nothing, loads included (by hand, not an if_: its saved EXEC costs an SGPR here)
    k.v_cmp_gt_u32(vcc, sValid, vQ);
    k.s_and_b64(exec, exec, vcc);
    for (int c = 0; c < 16; ++c) k.v_mov_b32(vPart[c], 0);
    k.v_add_u32(vOffW, vRowOff, vR16);
    k.v_mov_b32(vOffX, vR16);
    k.s_lshr_b32(sCnt, sCols, 7);
    k.s_cmp_eq_u32(sCnt, 0);
    k.s_cbranch_scc1(tail);
    k.bind(loop);
    for (int i = 0; i < 4; ++i) {
      k.global_load_dwordx4(vWd(i), vOffW, sWb, offset(128 * i));
      k.global_load_dwordx4(vXd(i), vOffX, sXb, offset(128 * i));
    }
    k.v_add_u32(vOffW, 0x200, vOffW);
    k.v_add_u32(vOffX, 0x200, vOffX);
    k.s_sub_u32(sCnt, sCnt, 1);
    for (int i = 0; i < 4; ++i) {
      for (int c = 0; c < 4; ++c) k.v_fmac_f32(vPart[4 * i + c], vWd(i)[c], vXd(i)[c]);
    }
    k.s_cmp_lg_u32(sCnt, 0);
    k.s_cbranch_scc1(loop);
    // Columns [128 * chunks, sCols): lane r takes base + r + 8 j.
    k.bind(tail);
    k.s_and_b32(sT, sCols, 0xffffff80u);
    k.v_add_u32(vCol, sT, vR);
    k.v_lshlrev_b32(vTX, 2, vCol);
    k.v_add_u32(vTW, vRowOff, vTX);
    lane_walk(k, vCol, sCols, 8, [&] {
      k.global_load_dword(vWd(0)[0], vTW, sWb);
      k.global_load_dword(vXd(0)[0], vTX, sXb);
      k.v_fmac_f32(vPart[0], vWd(0)[0], vXd(0)[0]);
      k.v_add_u32(vTW, 32, vTW);
      k.v_add_u32(vTX, 32, vTX);
    });
    for (int half = 8; half >= 2; half /= 2)
      for (int c = 0; c < half; ++c) k.v_add_f32(vPart[c], vPart[c], vPart[c + half]);
    k.v_add_f32(vAcc, vPart[0], vPart[1]);
    lane_reduce(k, {{ReduceOp::Add, vAcc}}, 8);
    k.v_cmp_eq_u32(vcc, 0, vR);
    k.if_(vcc, [&] {  // lane r = 0 of each valid row
      if (kind == Rows8Gemv::Acc) {
        k.global_load_dword(vT, vOutOff, sOb);
        k.v_add_f32(vAcc, vAcc, vT);
      }
      k.global_store_dword(vOutOff, vAcc, sOb);
    });
    k.s_mov_b64(exec, -1);
  };

  if (kind == Rows8Gemv::Plain || kind == Rows8Gemv::Acc) {
    k.s_cmp_ge_u32(group, ceil_shift(k, sN, 3));  // 8-row blocks
    k.s_cbranch_scc1(exit);  // block past the end: a larger grid is harmless
    k.s_lshl_b32(sRow0, group, 3);
    block_rows(sN);
    k.s_mov_b64(sXb, sX);
    set_offset_address(k, sOb, sY, sRow0, 2);  // y + row0 * 4
    k.v_lshlrev_b32(vOutOff, 2, vQ);
    block_body();
  } else if (split) {
    // Workgroup id = block << sh | slice; slice s covers chunks
    // [s * cps, (s + 1) * cps) of the ceil(k / 128) 128-column chunks,
    // cps = ceil(chunks / 2^sh); slices past the end write 0.
    k.s_cmp_gt_u32(sSh, 24);
    k.s_cbranch_scc1(exit);
    k.s_lshl_b32(sMask, 1, sSh);
    k.s_sub_u32(sMask, sMask, 1);
    k.s_and_b32(sSlice, group, sMask);
    k.s_lshr_b32(sBlk, group, sSh);
    k.s_cmp_ge_u32(sBlk, ceil_shift(k, sN, 3));
    k.s_cbranch_scc1(exit);
    k.s_lshl_b32(sRow0, sBlk, 3);
    block_rows(sN);
    // Column range of the slice.
    k.s_add_u32(sCps, ceil_shift(k, sK, 7), sMask);  // chunks = ceil(k / 128)
    k.s_lshr_b32(sCps, sCps, sSh);
    k.s_mul_i32(sColBeg, sSlice, sCps);
    k.s_add_u32(sT, sColBeg, sCps);
    k.s_lshl_b32(sColBeg, sColBeg, 7);
    k.s_min_u32(sColBeg, sColBeg, sK);
    k.s_lshl_b32(sT, sT, 7);
    k.s_min_u32(sT, sT, sK);
    k.s_sub_u32(sCols, sT, sColBeg);
    // w and x advance to the slice's first column.
    add64_pair(k, sWb, widen_shifted(k, sColBeg, 2));
    set_offset_address(k, sXb, sX, sColBeg, 2);
    // part + ((block << (sh + 3)) + slice) * 4; lane q adds q << (sh + 2).
    k.s_add_u32(sT, sSh, 3);
    k.s_mov_b32(sV[0], sBlk);
    k.s_mov_b32(sV[1], 0);
    k.s_lshl_b64(sV, sV, sT);
    k.s_or_b32(sV[0], sV[0], sSlice);
    k.s_lshl_b64(sV, sV, 2);
    k.s_add_u32(sOb[0], sY[0], sV[0]);
    k.s_addc_u32(sOb[1], sY[1], sV[1]);
    k.s_add_u32(sT, sSh, 2);
    k.v_lshlrev_b32(vOutOff, sT, vQ);
    block_body();
  } else {
    // gemv_f32_k: rows [id * G, min(nrows, id * G + G)), G = group_size (0:
    // the workgroup size); wave v of nw takes 8-row blocks v, v + nw, ...
    Label block_loop = k.label("block");
    const GroupRows rows = group_rows(k, sGroup, sN, exit);
    const SGPR sRbeg = rows.begin, sRend = rows.end, sWaves = rows.waves;
    k.s_sub_u32(sT2, sRend, sRbeg);
    const SGPR sNb = ceil_shift(k, sT2, 3);
    k.s_mov_b64(sXb, sX);
    k.v_lshlrev_b32(vOutOff, 2, vQ);
    k.s_mov_b32(sBlk, sWave);
    k.bind(block_loop);
    k.s_cmp_ge_u32(sBlk, sNb);
    k.s_cbranch_scc1(exit);
    k.s_lshl_b32(sRow0, sBlk, 3);
    k.s_add_u32(sRow0, sRow0, sRbeg);
    block_rows(sRend);
    set_offset_address(k, sOb, sY, sRow0, 2);  // y + row0 * 4
    block_body();
    k.s_add_u32(sBlk, sBlk, sWaves);
    k.s_branch(block_loop);
  }
  return k.build();
}

}  // namespace k100::kernels::gemv
