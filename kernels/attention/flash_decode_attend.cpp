// fa_decode_k and fa_decode_rows_k: the split part of decode attention over
// the packed KV cache (head_dim 256, int8 codes).
//
// Workgroup (h, s[, r]) of 256 threads = 4 waves walks the 64-key tiles of
// its split. Per tile:
//  - scores: wave w takes dims [64 w, 64 w + 64) of every key, lane j key
//    tile*64 + j: its 64 K bytes (four 16-byte loads) against the query's 16
//    words held in SGPRs (v_dot4_i32_i8). The four waves' integer partials
//    meet in LDS (double-buffered by tile parity, so one barrier per tile);
//    each wave then forms the same f32 score of its lane's key,
//      score = (f32(dot_0) qs_0) ks_0[j], score = fma(f32(dot_1) qs_1, ks_1[j], score)
//    (-inf for j >= n_kv), and the same online softmax: m' = max(m, tile
//    max), c = exp(m - m'), p_j = exp(score_j - m'), l = l c + sum_j p_j.
//  - P.V: thread d (= local id) reads the tile's 16 words of dim d (4 keys
//    each, coalesced across d) and the tile's scale vs[d]; p_j come back from
//    the wave's own LDS copy as broadcasts; acc = sum_j p_j f32(code_j) in key
//    order (fmac), then o = fma(acc, vs, o c).
// The result: pout[slot][d] = o, pmax[slot] = m, psum[slot] = l.
//
// fa_decode_rows_k (z = query row r, n_kv = n_kv0 + r keys) additionally
// takes the row's split count from n_kv (row_split_count), exits when its
// split lies beyond it, and with vsnap != 0 re-quantises the row's last tile
// from the f32 snapshot against the row's own prefix (scale = amax / 127,
// code = clamp(rint(x / scale), -127, 127), correctly rounded division),
// accumulating exactly as above: the same partials, bit for bit, as
// fa_decode_k over a cache whose last tile held those n_kv keys.
#include "attention/flash_decode_kernels.h"

#include <bit>

#include "w4act/activation_quantiser.h"

namespace k100::kernels::flash_decode {

using namespace codegen;

const Signature kDecodeSig("fa_decode_k",
                           {out("pout", "f32"), out("pmax", "f32"), out("psum", "f32"), in("q", "u32"),
                            in("qsc", "f32"), in("k", "u32"), in("ksc", "f32"), in("v", "u32"), in("vsc", "f32"),
                            value("n_kv", "i32"), value("kv_cap", "i32"), value("ratio", "i32"),
                            value("q_dw_stride", "i32"), value("q_sc_stride", "i32"), value("q_sc_row", "i32"),
                            value("n_split", "i32"), value("arg16", "i32")});

const Signature kRowsSig("fa_decode_rows_k",
                         {out("pout", "f32"), out("pmax", "f32"), out("psum", "f32"), in("q", "u32"),
                          in("qsc", "f32"), in("k", "u32"), in("ksc", "f32"), in("v", "u32"), in("vsc", "f32"),
                          in("vsnap", "f32"), value("vsnap_row_stride", "u64"), value("n_kv0", "i32"),
                          value("kv_cap", "i32"), value("ratio", "i32"), value("q_dw_stride", "i32"),
                          value("q_sc_stride", "i32"), value("q_sc_row", "i32"), value("max_split", "i32"),
                          value("force_split", "i32"), value("sc_stride", "i32"), value("n_heads", "i32"),
                          value("q_row_stride", "u64"), value("sc_row_stride", "u64"), value("arg23", "i32")});

namespace {

constexpr uint32_t kPartBytes = 1024;  // int partials of one tile: [64 keys][4 waves] i32
constexpr uint32_t kPBase = 2 * kPartBytes;  // p of each wave: [4 waves][64] f32
constexpr uint32_t kLdsBytes = kPBase + 4 * 256;

}  // namespace

void exit_unless_workgroup_size(Kernel& k, uint32_t threads, Label exit) {
  const SGPR packet = k.sgpr(1, "workgroup size");
  k.s_load_dword(packet, k.dispatch_pointer(), 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  k.s_and_b32(packet, packet, 0xffff);
  k.s_cmp_lg_u32(packet, threads);
  k.s_cbranch_scc1(exit);
}

SGPR row_split_count(Kernel& k, SGPR n_kv, SGPR max_split, SGPR force_split) {
  const SGPR ns = k.sgpr(1, "row splits"), tiles = k.sgpr(1, "row tiles"), t = k.sgpr(1, "8 splits");
  Label grown = k.label("splits_grown"), grow = k.label("grow_splits");
  k.s_add_u32(tiles, n_kv, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_mov_b32(ns, 1);
  k.bind(grow);
  k.s_lshl_b32(t, ns, 3);
  k.s_cmp_lt_u32(tiles, t);
  k.s_cbranch_scc1(grown);
  k.s_cmp_ge_i32(ns, max_split);
  k.s_cbranch_scc1(grown);
  k.s_lshl_b32(ns, ns, 1);
  k.s_branch(grow);
  k.bind(grown);
  k.s_cmp_gt_i32(force_split, 0);
  k.s_cselect_b32(ns, force_split, ns);
  return ns;
}

codeobj::CodeObject build_attend(isa::Target target, bool rows) {
  Kernel k(rows ? kRowsSig : kDecodeSig, target,
           {.waves_per_simd = 2, .lds_bytes = kLdsBytes, .max_workgroup = 256, .dispatch_ptr = true,
            .workgroup_dims = rows ? 3 : 2});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  exit_unless_workgroup_size(k, 256, exit);
  const SGPR sH = k.workgroup_id(0), sS = k.workgroup_id(1), sWave = wave_index(k);
  const VGPR vLane = lane_of_local_id(k), vD = k.local_id(0);
  const SGPR sKvCap = k.arg("kv_cap");

  // ---- the row: keys, splits, scratch slot, query row
  SGPR sNkv, sNs, sSlot = s1("slot"), sR, sT = s1("t");
  if (rows) {
    sR = k.workgroup_id(2);
    sNkv = s1("n_kv");
    k.s_add_u32(sNkv, k.arg("n_kv0"), sR);
    sNs = row_split_count(k, sNkv, k.arg("max_split"), k.arg("force_split"));
  } else {
    sNkv = k.arg("n_kv");
    sNs = k.arg("n_split");
  }
  k.s_cmp_ge_u32(sS, sNs);
  k.s_cbranch_scc1(exit);  // a split past the row's count writes nothing
  // slot = h stride + s; rows: pmax / psum at (r n_heads) sc_stride + slot, pout at r sc_row_stride floats + 256 slot
  k.s_mul_i32(sSlot, sH, k.arg(rows ? "sc_stride" : "arg16"));
  k.s_add_u32(sSlot, sSlot, sS);
  const SGPR sPo = offset_address(k, k.arg("pout"), sSlot, 10);
  if (rows) {
    k.s_mul_i32(sT, sR, k.arg("sc_row_stride")[0]);
    add64_pair(k, sPo, widen_shifted(k, sT, 2));
    k.s_mul_i32(sT, sR, k.arg("n_heads"));
    k.s_mul_i32(sT, sT, k.arg("sc_stride"));
    k.s_add_u32(sSlot, sSlot, sT);
  }
  const SGPR sG = divide_scalar(k, make_divider(k, k.arg("ratio")), sH);

  // ---- tiles [t0, t1) of split s: T = ceil(tiles / splits) each
  const SGPR sTiles = s1("tiles"), sT0 = s1("t0"), sT1 = s1("t1");
  k.s_add_u32(sTiles, sNkv, 63);
  k.s_lshr_b32(sTiles, sTiles, 6);
  k.s_add_u32(sT, sTiles, sNs);
  k.s_sub_u32(sT, sT, 1);
  const SGPR sPer = divide_scalar(k, make_divider(k, sNs), sT);
  k.s_mul_i32(sT0, sS, sPer);
  k.s_min_u32(sT0, sT0, sTiles);
  k.s_add_u32(sT1, sT0, sPer);
  k.s_min_u32(sT1, sT1, sTiles);

  // ---- query: codes of dims [64 w, 64 w + 64) in SGPRs, both group scales
  k.s_mul_i32(sT, sH, k.arg("q_dw_stride"));
  if (rows) {
    const SGPR sRow = s1("row words");
    k.s_mul_i32(sRow, sR, k.arg("q_row_stride")[0]);
    k.s_add_u32(sT, sT, sRow);
  }
  k.s_lshl_b32(sT, sT, 2);
  const SGPR sQp = offset_address(k, k.arg("q"), sT, 0), sW64 = s1("64 w");
  k.s_lshl_b32(sW64, sWave, 6);
  add64(k, sQp, sW64);
  const SGPR sQ = k.sgpr(16, "query words");
  k.s_load_dwordx16(sQ, sQp, 0);
  k.s_mul_i32(sT, sH, k.arg("q_sc_stride"));
  if (rows) {
    const SGPR sRow = s1("row scales");
    k.s_mul_i32(sRow, sR, k.arg("arg23"));
    k.s_add_u32(sT, sT, sRow);
  }
  const SGPR sQs0p = offset_address(k, k.arg("qsc"), sT, 2);
  const SGPR sQs1p = offset_address(k, sQs0p, k.arg("q_sc_row"), 2);
  const SGPR sQs0 = s1("qs0"), sQs1 = s1("qs1");
  k.s_load_dword(sQs0, sQs0p, 0);
  k.s_load_dword(sQs1, sQs1p, 0);

  // ---- the kv head's K (this wave's 64 bytes of each row), scales, V, V scales
  const SGPR sKb = scaled_address(k, k.arg("k"), sG, sKvCap, 8);
  add64(k, sKb, sW64);
  const SGPR sKs0 = scaled_address(k, k.arg("ksc"), sG, sKvCap, 3);
  const SGPR sKs1 = offset_address(k, sKs0, sKvCap, 2);
  const SGPR sVb = scaled_address(k, k.arg("v"), sG, sKvCap, 8);
  const SGPR sVsb = scaled_address(k, k.arg("vsc"), sG, sKvCap, 4);
  SGPR sSnap, sSnapOn = s1("snapshot given");
  if (rows) {
    // vsnap + r vsnap_row_stride floats + g 64 256 floats
    sSnap = k.sgpr(2, "snapshot");
    k.s_mov_b64(sSnap, k.arg("vsnap"));
    k.s_or_b32(sSnapOn, sSnap[0], sSnap[1]);
    k.s_mul_i32(sT, sR, k.arg("vsnap_row_stride")[0]);
    add64_pair(k, sSnap, widen_shifted(k, sT, 2));
    k.s_lshl_b32(sT, sG, 16);
    add64(k, sSnap, sT);
  }

  // ---- lane constants and state
  const VGPR vD4 = v1("4 d"), vPartW = v1("partial write address"), vPartR = v1("partial read address"),
             vPw = v1("p write address"), vPr = v1("p read address");
  k.v_lshlrev_b32(vD4, 2, vD);
  k.v_lshlrev_b32(vPartR, 4, vLane);
  k.s_lshl_b32(sT, sWave, 2);
  k.v_add_u32(vPartW, sT, vPartR);
  k.s_lshl_b32(sT, sWave, 8);
  k.s_add_u32(sT, sT, kPBase);
  k.v_mov_b32(vPr, sT);
  k.v_lshlrev_b32(vPw, 2, vLane);
  k.v_add_u32(vPw, sT, vPw);
  const VGPR vM = v1("running max"), vL = v1("running sum"), vO = v1("output"), vKey = v1("key"),
             vKoff = v1("k offset"), vKsoff = v1("k scale offset"), vKs0 = v1("ks0"), vKs1 = v1("ks1"),
             vDot = v1("dot"), vAddr = v1("lds address"), vS = v1("score"), vTmp = v1("t"), vMn = v1("new max"),
             vCorr = v1("correction"), vP = v1("p"), vVoff = v1("v offset"), vVs = v1("v scale"), vAcc = v1("acc"),
             vC = v1("code");
  const VGPR vK = k.vgpr(16, "k words"), vParts = k.vgpr(4, "partials"), vV = k.vgpr(16, "v words");
  VGPR vPq[4];
  for (auto& q : vPq) q = k.vgpr(4, "p");
  const SGPR sTile = s1("tile"), sBuf = s1("buffer"), sTmax = s1("tile max"), sTsum = s1("tile sum");
  k.v_mov_b32(vM, kNegInfBits);
  k.v_mov_b32(vL, 0);
  k.v_mov_b32(vO, 0);

  // The scores and softmax of tile sTile: vP = p of lane's key, vCorr, vM, vL updated, p in LDS.
  auto scores = [&] {
    k.s_lshl_b32(sT, sTile, 6);
    k.v_add_u32(vKey, sT, vLane);
    k.v_lshlrev_b32(vKoff, 8, vKey);
    for (int i = 0; i < 4; ++i) k.global_load_dwordx4(vK.sub(4 * i, 4), vKoff, sKb, offset(16 * i));
    k.v_lshlrev_b32(vKsoff, 2, vKey);
    k.global_load_dword(vKs0, vKsoff, sKs0);
    k.global_load_dword(vKs1, vKsoff, sKs1);
    k.v_mov_b32(vDot, 0);
    for (int t = 0; t < 16; ++t) dot4_i8(k, vDot, sQ[t], vK[t]);
    k.s_and_b32(sBuf, sTile, 1);
    k.s_mul_i32(sBuf, sBuf, kPartBytes);
    k.v_add_u32(vAddr, sBuf, vPartW);
    k.ds_write_b32(vAddr, vDot);
    k.s_waitcnt(lgkmcnt(0));
    k.s_barrier();
    k.v_add_u32(vAddr, sBuf, vPartR);
    k.ds_read_b128(vParts, vAddr);
    k.v_add_u32(vParts[0], vParts[0], vParts[1]);
    k.v_add_u32(vParts[2], vParts[2], vParts[3]);
    k.v_cvt_f32_i32(vS, vParts[0]);
    k.v_cvt_f32_i32(vTmp, vParts[2]);
    k.v_mul_f32(vS, sQs0, vS);
    k.v_mul_f32(vS, vS, vKs0);
    k.v_mul_f32(vTmp, sQs1, vTmp);
    k.v_fma_f32(vS, vTmp, vKs1, vS);
    k.v_mov_b32(vTmp, kNegInfBits);
    k.v_cmp_gt_u32(vcc, sNkv, vKey);
    k.v_cndmask_b32(vS, vTmp, vS, vcc);
    k.v_mov_b32(vTmp, vS);
    lane_reduce(k, {{ReduceOp::Max, vTmp}});
    k.v_readlane_b32(sTmax, vTmp, 63);
    k.v_max_f32(vMn, sTmax, vM);
    exp2_scaled_difference(k, vCorr, vM, vMn, kLog2E);
    k.v_mov_b32(vM, vMn);
    exp2_scaled_difference(k, vP, vS, vMn, kLog2E);
    k.v_mov_b32(vTmp, vP);
    lane_reduce(k, {{ReduceOp::Add, vTmp}});
    k.v_readlane_b32(sTsum, vTmp, 63);
    k.v_mul_f32(vL, vL, vCorr);
    k.v_add_f32(vL, sTsum, vL);
    k.ds_write_b32(vPw, vP);
  };
  // o = fma(acc, vs, o c)
  auto update_output = [&] {
    k.v_mul_f32(vO, vO, vCorr);
    k.v_fmac_f32(vO, vAcc, vVs);
  };
  // P.V of a tile from the packed cache.
  auto packed_values = [&] {
    k.s_lshl_b32(sT, sTile, 14);  // 16 word rows of 1 KiB per tile
    k.v_add_u32(vVoff, sT, vD4);
    for (int grp = 0; grp < 4; ++grp) {
      for (int i = 0; i < 4; ++i) k.global_load_dword(vV[4 * grp + i], vVoff, sVb, offset(1024 * i));
      if (grp < 3) k.v_add_u32(vVoff, 4096, vVoff);
    }
    k.s_lshl_b32(sT, sTile, 10);
    k.v_add_u32(vTmp, sT, vD4);
    k.global_load_dword(vVs, vTmp, sVsb);
    k.v_mov_b32(vAcc, 0);
    for (int r = 0; r < 16; ++r) {
      const VGPR p = vPq[r % 4];
      k.ds_read_b128(p, vPr, offset(16 * r));
      for (int b = 0; b < 4; ++b) {
        i8_to_f32(k, vC, vV[r], b);
        k.v_fmac_f32(vAcc, p[b], vC);
      }
    }
    update_output();
  };
  // P.V of the row's last tile from the f32 snapshot, re-quantised against keys [tile 64, n_kv).
  auto snapshot_values = [&] {
    const SGPR sValid = s1("valid keys"), sLeft = s1("keys left"), sAt = k.sgpr(2, "snapshot row");
    const VGPR vX = k.vgpr(8, "snapshot values"), vAmax = v1("amax"), vQmax = v1("127"), vLo = v1("-127"),
               vQ = v1("x / scale"), vPa = v1("p address");
    k.s_lshl_b32(sT, sTile, 6);
    k.s_sub_u32(sValid, sNkv, sT);
    // amax over the valid keys
    k.v_mov_b32(vAmax, 0);
    k.s_mov_b64(sAt, sSnap);
    k.s_mov_b32(sLeft, sValid);
    countdown_groups(k, sLeft, {8, 1}, [&](int n) {
      for (int i = 0; i < n; ++i) {
        k.global_load_dword(vX[i], vD4, sAt);
        add64(k, sAt, 1024);
      }
      for (int i = 0; i < n; ++i) k.v_max_f32(vAmax, vAmax, abs(vX[i]));
    });
    k.v_mov_b32(vQmax, std::bit_cast<uint32_t>(127.f));
    k.v_mov_b32(vLo, std::bit_cast<uint32_t>(-127.f));
    w4act::divide_f32(k, vVs, vAmax, vQmax);
    k.v_cmp_lt_f32(vcc, 0, vAmax);  // an all-zero column has scale 1
    k.v_cndmask_b32(vVs, 1.0, vVs, vcc);
    // acc = sum_j p_j code_j over the valid keys (the others have code 0)
    k.v_mov_b32(vAcc, 0);
    k.v_mov_b32(vPa, vPr);
    k.s_mov_b64(sAt, sSnap);
    k.s_mov_b32(sLeft, sValid);
    countdown_groups(k, sLeft, {8, 1}, [&](int n) {
      for (int i = 0; i < n; ++i) {
        k.global_load_dword(vX[i], vD4, sAt);
        add64(k, sAt, 1024);
      }
      for (int i = 0; i < n; ++i) {
        k.ds_read_b32(vP, vPa, offset(4 * i));
        w4act::divide_f32(k, vQ, vX[i], vVs);
        k.v_rndne_f32(vQ, vQ);
        k.v_med3_f32(vQ, vQ, vLo, vQmax);
        k.v_fmac_f32(vAcc, vP, vQ);
      }
      k.v_add_u32(vPa, 4 * n, vPa);
    });
    update_output();
  };

  Label tile_loop = k.label("tile"), tiles_done = k.label("tiles_done");
  k.s_mov_b32(sTile, sT0);
  k.bind(tile_loop);
  k.s_cmp_ge_u32(sTile, sT1);
  k.s_cbranch_scc1(tiles_done);
  scores();
  if (rows) {
    Label packed = k.label("packed_tile"), next = k.label("next_tile");
    k.s_cmp_eq_u32(sSnapOn, 0);
    k.s_cbranch_scc1(packed);
    k.s_add_u32(sT, sTile, 1);
    k.s_cmp_lg_u32(sT, sTiles);
    k.s_cbranch_scc1(packed);
    snapshot_values();
    k.s_branch(next);
    k.bind(packed);
    packed_values();
    k.bind(next);
  } else {
    packed_values();
  }
  k.s_add_u32(sTile, sTile, 1);
  k.s_branch(tile_loop);
  k.bind(tiles_done);

  // ---- pout[slot][d] = o; wave 0 lane 0: pmax[slot] = m, psum[slot] = l (-inf, 0, 0 for an empty split)
  k.global_store_dword(vD4, vO, sPo);
  k.s_cmp_lg_u32(sWave, 0);
  k.s_cbranch_scc1(exit);
  k.s_lshl_b32(sT, sSlot, 2);
  k.s_mov_b64(exec, 1);
  k.v_mov_b32(vTmp, sT);
  k.global_store_dword(vTmp, vM, k.arg("pmax"));
  k.global_store_dword(vTmp, vL, k.arg("psum"));
  return k.build();
}

}  // namespace k100::kernels::flash_decode
