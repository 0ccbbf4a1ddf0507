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
//
// Entry: s[4:5] dispatch packet, s[6:7] kernarg pointer, s8 workgroup id, v0 local id.
#include "gemv/gemv_emit.h"
#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace as;

codeobj::CodeObject build_i8_gemv(isa::Target target) {
  constexpr int R = 4;  // rows per wave pass
  KernelBuilder b("gemv_i8_k", target);
  const EntryRegs in = entry_regs(true);

  const SGPR sW = s(12, 2), sWs = s(14, 2), sX = s(16, 2), sY = s(18, 2), sN = s(20), sGroups = s(21),
             sRowBytes = s(22), sWsStride = s(23), sGroup = s(24), sPacket = s(25);
  const SGPR sWaves = s(26), sRbeg = s(27), sRend = s(28), sBlk = s(29), sRow0 = s(30), sVr = s(31), sT = s(32),
             sT2 = s(33), sSteps = s(34), sRem = s(35), sCnt = s(36), sWave = s(37),
             sYb = s(40, 2), sLim = s(42), sRowR = s(43);
  auto sWr = [](int r) { return s(44 + 4 * r, 2); };
  auto sSr = [](int r) { return s(46 + 4 * r, 2); };
  const VGPR vLocal = v(0), vLane = v(1), vOffW = v(2), vOffX = v(3), vOffS = v(4), vPA = v(5), vZero = v(6),
             vT = v(7);
  auto vAcc = [](int r) { return v(8 + r); };
  auto vS = [](int r) { return v(12 + r); };
  auto vW = [](int r, int i) { return v(16 + 4 * r + i); };
  auto vX = [](int i) { return v(32 + 4 * i, 4); };
  auto vSc = [](int r, int i) { return v(48 + 4 * r + i); };
  const VGPR vF = v(64, 4), vCopy = v(68, 4), vDot = v(72);

  Label exit = b.label("exit"), group_loop = b.label("quad"), step_loop = b.label("step"), tail = b.label("tail"),
        reduce = b.label("reduce"), stored = b.label("stored");

  b.s_load_dwordx8(s(12, 8), in.kernarg, 0x0);
  b.s_load_dwordx4(s(20, 4), in.kernarg, 0x20);
  b.s_load_dword(sGroup, in.kernarg, 0x30);
  b.s_load_dword(sPacket, in.dispatch, 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  b.s_waitcnt(waitcnt(63, 7, 0));
  b.v_readfirstlane_b32(sWave, vLocal);
  b.s_lshr_b32(sWave, sWave, 6);  // this wave's index in the workgroup
  whole_wave_lane_id(b, vLane);

  // Row range of the workgroup.
  b.s_and_b32(sT, sPacket, 0xffff);
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
  b.s_lshr_b32(sSteps, sGroups, 5);
  b.s_and_b32(sRem, sGroups, 31);
  // Lane constants.
  b.v_lshrrev_b32(vPA, 3, vLane);
  b.v_lshlrev_b32(vPA, 2, vPA);  // ds_bpermute address of lane l / 8 (+ 32 i by offset)
  b.v_mov_b32(vZero, 0);
  b.s_mov_b32(sBlk, sWave);

  // One step of 1024 columns; `masked`: the last ngroups % 32 groups only.
  auto step = [&](bool masked) {
    if (masked) {
      for (int r = 0; r < R; ++r) b.v_mov_b32(vS(r), 0);
      for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 4; ++c) b.v_mov_b32(vX(i)[c], 0);
      b.v_cmp_gt_u32(vcc, sRem, vLane);
      b.s_mov_b64(exec, vcc);
    }
    for (int r = 0; r < R; ++r) b.global_load_dword(vS(r), vOffS, sSr(r));
    if (masked) b.s_mov_b64(exec, -1);  // the compares below must see every lane
    for (int i = 0; i < 4; ++i) {
      Label skip;
      if (masked) {
        skip = b.label("skip");
        // Lanes with 4 l + 256 i < 32 * rem, i.e. l < 8 rem - 64 i.
        b.s_lshl_b32(sLim, sRem, 3);
        b.s_sub_u32(sLim, sLim, 64 * i);
        b.v_cmp_gt_i32(vcc, sLim, vLane);
        b.s_mov_b64(exec, vcc);
        b.s_cbranch_execz(skip);
      }
      for (int r = 0; r < R; ++r) b.global_load_dword(vW(r, i), vOffW, sWr(r), offset(256 * i));
      b.global_load_dwordx4(vX(i), vOffX, sX, offset(1024 * i));
      if (masked) b.bind(skip);
    }
    if (masked) {
      b.s_mov_b64(exec, -1);
      b.s_waitcnt(waitcnt(0));
    } else {
      b.v_add_u32(vOffW, 0x400, vOffW);
      b.v_add_u32(vOffX, 0x1000, vOffX);
      b.v_add_u32(vOffS, 0x80, vOffS);
      b.s_waitcnt(waitcnt(4 * R + 4));  // the scale loads (issued first) have arrived
    }
    for (int i = 0; i < 4; ++i)
      for (int r = 0; r < R; ++r) b.ds_bpermute_b32(vSc(r, i), vPA, vS(r), offset(32 * i));
    b.s_waitcnt(waitcnt(0, 7, 0));
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < 4; ++i) {
        static const char* kByte[4] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3"};
        for (int c = 0; c < 4; ++c)
          b.v_cvt_f32_i32(vF[c], sext(vW(r, i)), sdwa_sel("dst_sel", "DWORD"), sdwa_sel("dst_unused", "UNUSED_PAD"),
                          sdwa_sel("src0_sel", kByte[c]));
        b.v_mul_f32(vDot, vF[0], vX(i)[0]);
        for (int c = 1; c < 4; ++c) b.v_fmac_f32(vDot, vF[c], vX(i)[c]);
        b.v_fmac_f32(vAcc(r), vDot, vSc(r, i));
      }
  };

  b.bind(group_loop);
  b.s_mul_i32(sRow0, sBlk, R);
  b.s_add_u32(sRow0, sRow0, sRbeg);
  b.s_cmp_ge_u32(sRow0, sRend);
  b.s_cbranch_scc1(exit);
  b.s_sub_u32(sVr, sRend, sRow0);
  b.s_min_u32(sVr, sVr, R);
  b.s_sub_u32(sT2, sVr, 1);  // last valid row of the quad, relative
  for (int r = 0; r < R; ++r) {
    b.s_min_u32(sT, sT2, r);
    b.s_add_u32(sRowR, sRow0, sT);
    scalar_address(b, sWr(r), sW, sRowR, sRowBytes, 0);
    scalar_address(b, sSr(r), sWs, sRowR, sWsStride, 0);
    b.v_mov_b32(vAcc(r), 0);
  }
  b.v_lshlrev_b32(vOffW, 2, vLane);
  b.v_lshlrev_b32(vOffX, 4, vLane);
  b.v_and_b32(vT, 31, vLane);
  b.v_lshlrev_b32(vOffS, 2, vT);
  b.s_mov_b32(sCnt, sSteps);
  b.s_cmp_eq_u32(sCnt, 0);
  b.s_cbranch_scc1(tail);
  b.bind(step_loop);
  step(false);
  b.s_sub_u32(sCnt, sCnt, 1);
  b.s_cmp_lg_u32(sCnt, 0);
  b.s_cbranch_scc1(step_loop);
  b.bind(tail);
  b.s_cmp_eq_u32(sRem, 0);
  b.s_cbranch_scc1(reduce);
  step(true);
  b.bind(reduce);
  std::vector<VGPR> accs, copies;
  for (int r = 0; r < R; ++r) {
    accs.push_back(vAcc(r));
    copies.push_back(vCopy[r]);
  }
  wave_sum_to_lane63(b, accs, copies);
  // y + row0 * 4; lane 63 stores the valid rows.
  b.s_lshl_b32(sT, sRow0, 2);
  b.s_lshr_b32(sT2, sRow0, 30);
  b.s_add_u32(sYb[0], sY[0], sT);
  b.s_addc_u32(sYb[1], sY[1], sT2);
  b.s_mov_b32(exec_lo, 0);
  b.s_mov_b32(exec_hi, 0x80000000u);
  for (int r = 0; r < R; ++r) {
    if (r > 0) {
      b.s_cmp_le_u32(sVr, r);
      b.s_cbranch_scc1(stored);
    }
    b.global_store_dword(vZero, vAcc(r), sYb, offset(4 * r));
  }
  b.bind(stored);
  b.s_mov_b64(exec, -1);
  b.s_add_u32(sBlk, sBlk, sWaves);
  b.s_branch(group_loop);
  b.bind(exit);
  b.s_endpgm();

  kernel_interface(b, true, 56);
  b.arg("w", "global_buffer", "const i8*", "read_only");
  b.arg("ws", "global_buffer", "const f32*", "read_only");
  b.arg("x", "global_buffer", "const f32*", "read_only");
  b.arg("y", "global_buffer", "f32*", "write_only");
  b.arg("nrows", "by_value", "u32");
  b.arg("ngroups", "by_value", "u32");
  b.arg("rowbytes", "by_value", "u32");
  b.arg("ws_stride", "by_value", "u32");
  b.arg("group_size", "by_value", "u32");
  return b.code_object();
}

}  // namespace k100::kernels::gemv
