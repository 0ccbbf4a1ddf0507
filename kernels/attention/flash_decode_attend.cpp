// fa_decode_k and fa_decode_rows_k: the split part of decode attention over
// the packed KV cache (head_dim 256, int8 codes).
//
// Workgroup (h, s[, r]) of 256 threads = 4 waves walks the 64-key tiles of
// its split; wave 0 alone reads the arguments (flash_decode_arguments.cpp).
// Per tile, the next tile's K and V are already requested (two register
// sets, one memory round trip in flight ahead), then:
//  - scores: wave w reads keys [16 w, 16 w + 16) of the tile whole, four keys
//    per 16-byte-per-lane load (every load asks for whole 64-byte lines);
//    lane l holds 16 dims of a key and the query's words of the same dims
//    (v_dot4_i32_i8); the dot of each 128-dim scale group is summed over its
//    8 lanes in f32, exactly (|dot| <= 256 * 127^2 < 2^24), and put in LDS
//    (double-buffered by tile parity: one barrier per tile). Lane j of every
//    wave then forms the same f32 score of key tile*64 + j,
//      score = (dot_0 qs_0) ks_0[j], score = fma(dot_1 qs_1, ks_1[j], score)
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

constexpr uint32_t kPartBytes = 512;  // the dots of one tile: [64 keys][2 scale groups] f32
constexpr uint32_t kPBase = 2 * kPartBytes;  // p of each wave: [4 waves][64] f32
constexpr uint32_t kArgsLds = kPBase + 4 * 256;
constexpr uint32_t kLdsBytes = kArgsLds + kSharedArgumentsLds;

}  // namespace

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
           {.waves_per_simd = 2, .lds_bytes = kLdsBytes, .max_workgroup = 256,
            .workgroup_dims = rows ? 3 : 2});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const SharedArguments A = share_arguments(k, kArgsLds, 256, exit);
  const SGPR sH = k.workgroup_id(0), sS = k.workgroup_id(1), sWave = A.wave;
  const VGPR vLane = lane_of_local_id(k), vD = k.local_id(0);
  const SGPR sKvCap = A("kv_cap");

  // ---- the row: keys, splits, scratch slot, query row
  SGPR sNkv, sNs, sSlot = s1("slot"), sR, sT = s1("t");
  if (rows) {
    sR = k.workgroup_id(2);
    sNkv = s1("n_kv");
    k.s_add_u32(sNkv, A("n_kv0"), sR);
    sNs = row_split_count(k, sNkv, A("max_split"), A("force_split"));
  } else {
    sNkv = A("n_kv");
    sNs = A("n_split");
  }
  k.s_cmp_ge_u32(sS, sNs);
  k.s_cbranch_scc1(exit);  // a split past the row's count writes nothing
  // slot = h stride + s; rows: pmax / psum at (r n_heads) sc_stride + slot, pout at r sc_row_stride floats + 256 slot
  k.s_mul_i32(sSlot, sH, A(rows ? "sc_stride" : "arg16"));
  k.s_add_u32(sSlot, sSlot, sS);
  const SGPR sPo = offset_address(k, A("pout"), sSlot, 10);
  if (rows) {
    k.s_mul_i32(sT, sR, A("sc_row_stride")[0]);
    add64_pair(k, sPo, widen_shifted(k, sT, 2));
    k.s_mul_i32(sT, sR, A("n_heads"));
    k.s_mul_i32(sT, sT, A("sc_stride"));
    k.s_add_u32(sSlot, sSlot, sT);
  }
  const SGPR sG = divide_scalar(k, make_divider(k, A("ratio")), sH);

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

  // ---- query: lane l holds the words of dims [16 (l & 15), 16 (l & 15) + 16), both group scales
  k.s_mul_i32(sT, sH, A("q_dw_stride"));
  if (rows) {
    const SGPR sRow = s1("row words");
    k.s_mul_i32(sRow, sR, A("q_row_stride")[0]);
    k.s_add_u32(sT, sT, sRow);
  }
  k.s_lshl_b32(sT, sT, 2);
  const SGPR sQp = offset_address(k, A("q"), sT, 0);
  const VGPR vQ = k.vgpr(4, "query words"), vQoff = k.vgpr(1, "query offset");
  k.v_and_b32(vQoff, 15, vLane);
  k.v_lshlrev_b32(vQoff, 4, vQoff);
  k.global_load_dwordx4(vQ, vQoff, sQp);
  k.s_mul_i32(sT, sH, A("q_sc_stride"));
  if (rows) {
    const SGPR sRow = s1("row scales");
    k.s_mul_i32(sRow, sR, A("arg23"));
    k.s_add_u32(sT, sT, sRow);
  }
  const SGPR sQs0p = offset_address(k, A("qsc"), sT, 2);
  const SGPR sQs1p = offset_address(k, sQs0p, A("q_sc_row"), 2);
  const SGPR sQs0 = s1("qs0"), sQs1 = s1("qs1");
  k.s_load_dword(sQs0, sQs0p, 0);
  k.s_load_dword(sQs1, sQs1p, 0);

  // ---- the kv head's K, scales, V, V scales
  const SGPR sKb = scaled_address(k, A("k"), sG, sKvCap, 8);
  const SGPR sKs0 = scaled_address(k, A("ksc"), sG, sKvCap, 3);
  const SGPR sKs1 = offset_address(k, sKs0, sKvCap, 2);
  const SGPR sVb = scaled_address(k, A("v"), sG, sKvCap, 8);
  const SGPR sVsb = scaled_address(k, A("vsc"), sG, sKvCap, 4);
  SGPR sSnap, sSnapOn = s1("snapshot given");
  if (rows) {
    // vsnap + r vsnap_row_stride floats + g 64 256 floats
    sSnap = k.sgpr(2, "snapshot");
    k.s_mov_b64(sSnap, A("vsnap"));
    k.s_or_b32(sSnapOn, sSnap[0], sSnap[1]);
    k.s_mul_i32(sT, sR, A("vsnap_row_stride")[0]);
    add64_pair(k, sSnap, widen_shifted(k, sT, 2));
    k.s_lshl_b32(sT, sG, 16);
    add64(k, sSnap, sT);
  }

  // ---- lane constants and state
  // K: wave w reads keys [16 w, 16 w + 16) of a tile whole, four per load (lane l: key 16 w + 4 i + (l >> 4),
  // bytes [16 (l & 15), + 16)), so that every load asks for whole lines; the dot of a key's 128-dim group is
  // the sum over 8 lanes (exact in f32: |dot| <= 256 127^2 < 2^24), stored by the group's first lane at
  // [key][group] of the tile's LDS buffer and read back by lane j = key j.
  const VGPR vD4 = v1("4 d"), vPartW = v1("partial write address"), vPartR = v1("partial read address"),
             vPw = v1("p write address"), vPr = v1("p read address"), vKlane = v1("k lane offset");
  const SGPR sWriters = k.sgpr(2, "first lanes of the groups");
  k.v_lshlrev_b32(vD4, 2, vD);
  k.v_lshlrev_b32(vPartR, 3, vLane);
  k.v_lshrrev_b32(vPartW, 4, vLane);
  k.s_lshl_b32(sT, sWave, 4);
  k.v_add_u32(vPartW, sT, vPartW);  // key 16 w + (l >> 4)
  k.v_lshlrev_b32(vKlane, 8, vPartW);
  k.v_add_u32(vKlane, vQoff, vKlane);
  k.v_lshlrev_b32(vPartW, 3, vPartW);
  k.v_lshrrev_b32(vPw, 1, vLane);
  k.v_and_b32(vPw, 4, vPw);  // 4 ((l >> 3) & 1): the scale group
  k.v_add_u32(vPartW, vPw, vPartW);
  k.v_and_b32(vPw, 7, vLane);
  k.v_cmp_eq_u32(vcc, 0, vPw);
  k.s_mov_b64(sWriters, vcc);
  k.s_lshl_b32(sT, sWave, 8);
  k.s_add_u32(sT, sT, kPBase);
  k.v_mov_b32(vPr, sT);
  k.v_lshlrev_b32(vPw, 2, vLane);
  k.v_add_u32(vPw, sT, vPw);
  const VGPR vM = v1("running max"), vL = v1("running sum"), vO = v1("output"), vKey = v1("key"),
             vKoff = v1("k offset"), vKsoff = v1("k scale offset"), vAddr = v1("lds address"),
             vS = v1("score"), vTmp = v1("t"), vMn = v1("new max"), vCorr = v1("correction"), vP = v1("p"),
             vVoff = v1("v offset"), vAcc = v1("acc"), vC = v1("code");
  const VGPR vParts = k.vgpr(4, "dots");
  VGPR vPq[4];
  for (auto& q : vPq) q = k.vgpr(4, "p");
  // Two sets of a tile's operands: the next tile's loads are in flight while this one is computed.
  struct TileRegs {
    VGPR k, ks0, ks1, v, vs;
  };
  TileRegs sets[2];
  for (auto& r : sets) r = {k.vgpr(16, "k words"), v1("ks0"), v1("ks1"), k.vgpr(16, "v words"), v1("v scale")};
  const SGPR sTile = s1("tile"), sNext = s1("next tile"), sBuf = s1("buffer"), sTmax = s1("tile max"),
             sTsum = s1("tile sum");
  k.v_mov_b32(vM, kNegInfBits);
  k.v_mov_b32(vL, 0);
  k.v_mov_b32(vO, 0);

  // Requests tile `tile`'s K words (this wave's 64 bytes of each key), K scales, V words and V scales.
  auto issue = [&](const TileRegs& r, SGPR tile) {
    k.s_lshl_b32(sT, tile, 14);
    k.v_add_u32(vKoff, sT, vKlane);
    for (int i = 0; i < 4; ++i) k.global_load_dwordx4(r.k.sub(4 * i, 4), vKoff, sKb, offset(1024 * i));
    k.s_lshl_b32(sT, tile, 6);
    k.v_add_u32(vKsoff, sT, vLane);
    k.v_lshlrev_b32(vKsoff, 2, vKsoff);
    k.global_load_dword(r.ks0, vKsoff, sKs0);
    k.global_load_dword(r.ks1, vKsoff, sKs1);
    k.s_lshl_b32(sT, tile, 14);  // 16 word rows of 1 KiB per tile
    k.v_add_u32(vVoff, sT, vD4);
    for (int grp = 0; grp < 4; ++grp) {
      for (int i = 0; i < 4; ++i) k.global_load_dword(r.v[4 * grp + i], vVoff, sVb, offset(1024 * i));
      if (grp < 3) k.v_add_u32(vVoff, 4096, vVoff);
    }
    k.s_lshl_b32(sT, tile, 10);
    k.v_add_u32(vVoff, sT, vD4);
    k.global_load_dword(r.vs, vVoff, sVsb);
  };
  // The scores and softmax of tile sTile: vP = p of lane's key, vCorr, vM, vL updated, p in LDS.
  auto scores = [&](const TileRegs& r) {
    k.s_lshl_b32(sT, sTile, 6);
    k.v_add_u32(vKey, sT, vLane);
    for (int i = 0; i < 4; ++i) {
      k.v_mov_b32(vParts[i], 0);
      for (int t = 0; t < 4; ++t) dot4_i8(k, vParts[i], vQ[t], r.k[4 * i + t]);
      k.v_cvt_f32_i32(vParts[i], vParts[i]);
    }
    lane_reduce(k, {{ReduceOp::Add, vParts[0]}, {ReduceOp::Add, vParts[1]}, {ReduceOp::Add, vParts[2]},
                    {ReduceOp::Add, vParts[3]}},
                8);
    k.s_and_b32(sBuf, sTile, 1);
    k.s_mul_i32(sBuf, sBuf, kPartBytes);
    k.v_add_u32(vAddr, sBuf, vPartW);
    k.s_mov_b64(exec, sWriters);
    for (int i = 0; i < 4; ++i) k.ds_write_b32(vAddr, vParts[i], offset(32 * i));
    k.s_mov_b64(exec, -1);
    k.s_waitcnt(lgkmcnt(0));
    k.s_barrier();
    k.v_add_u32(vAddr, sBuf, vPartR);
    k.ds_read_b64(vParts.sub(0, 2), vAddr);
    k.v_mov_b32(vS, vParts[0]);
    k.v_mov_b32(vTmp, vParts[1]);
    k.v_mul_f32(vS, sQs0, vS);
    k.v_mul_f32(vS, vS, r.ks0);
    k.v_mul_f32(vTmp, sQs1, vTmp);
    k.v_fma_f32(vS, vTmp, r.ks1, vS);
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
  auto update_output = [&](VGPR vs) {
    k.v_mul_f32(vO, vO, vCorr);
    k.v_fmac_f32(vO, vAcc, vs);
  };
  // P.V of a tile from the packed cache.
  auto packed_values = [&](const TileRegs& r) {
    k.v_mov_b32(vAcc, 0);
    for (int i = 0; i < 16; ++i) {
      const VGPR p = vPq[i % 4];
      k.ds_read_b128(p, vPr, offset(16 * i));
      for (int b = 0; b < 4; ++b) {
        i8_to_f32(k, vC, r.v[i], b);
        k.v_fmac_f32(vAcc, p[b], vC);
      }
    }
    update_output(r.vs);
  };
  // P.V of the row's last tile from the f32 snapshot, re-quantised against keys [tile 64, n_kv).
  auto snapshot_values = [&] {
    const SGPR sValid = s1("valid keys"), sLeft = s1("keys left"), sAt = k.sgpr(2, "snapshot row");
    const VGPR vX = k.vgpr(8, "snapshot values"), vAmax = v1("amax"), vQmax = v1("127"), vLo = v1("-127"),
               vQ = v1("x / scale"), vPa = v1("p address"), vVs = v1("snapshot scale");
    k.s_lshl_b32(sT, sTile, 6);
    k.s_sub_u32(sValid, sNkv, sT);
    // n snapshot rows (keys) of dim d from sAt on
    auto load_snapshot_rows = [&](int n) {
      for (int i = 0; i < n; ++i) {
        k.global_load_dword(vX[i], vD4, sAt);
        add64(k, sAt, 1024);
      }
    };
    // amax over the valid keys
    k.v_mov_b32(vAmax, 0);
    k.s_mov_b64(sAt, sSnap);
    k.s_mov_b32(sLeft, sValid);
    countdown_groups(k, sLeft, {8, 1}, [&](int n) {
      load_snapshot_rows(n);
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
      load_snapshot_rows(n);
      for (int i = 0; i < n; ++i) {
        k.ds_read_b32(vP, vPa, offset(4 * i));
        w4act::divide_f32(k, vQ, vX[i], vVs);
        k.v_rndne_f32(vQ, vQ);
        k.v_med3_f32(vQ, vQ, vLo, vQmax);
        k.v_fmac_f32(vAcc, vP, vQ);
      }
      k.v_add_u32(vPa, 4 * n, vPa);
    });
    update_output(vVs);
  };
  auto compute = [&](const TileRegs& r) {
    scores(r);
    if (!rows) return packed_values(r);
    Label packed = k.label("packed_tile"), next = k.label("next_tile");
    k.s_cmp_eq_u32(sSnapOn, 0);
    k.s_cbranch_scc1(packed);
    k.s_add_u32(sT, sTile, 1);
    k.s_cmp_lg_u32(sT, sTiles);
    k.s_cbranch_scc1(packed);
    snapshot_values();
    k.s_branch(next);
    k.bind(packed);
    packed_values(r);
    k.bind(next);
  };

  // Tiles in pairs, one register set each; the request for tile t + 1 (the last tile again at the end:
  // cache hits, and no branch around the loads) goes out before tile t is computed.
  Label tile_loop = k.label("tile"), tiles_done = k.label("tiles_done");
  k.s_cmp_ge_u32(sT0, sT1);
  k.s_cbranch_scc1(tiles_done);
  k.s_mov_b32(sTile, sT0);
  issue(sets[0], sTile);
  k.bind(tile_loop);
  for (int half = 0; half < 2; ++half) {
    k.s_add_u32(sNext, sTile, 1);
    k.s_sub_u32(sT, sT1, 1);
    k.s_min_u32(sNext, sNext, sT);
    issue(sets[1 - half], sNext);
    compute(sets[half]);
    k.s_add_u32(sTile, sTile, 1);
    k.s_cmp_ge_u32(sTile, sT1);
    k.s_cbranch_scc1(tiles_done);
  }
  k.s_branch(tile_loop);
  k.bind(tiles_done);

  // ---- pout[slot][d] = o; wave 0 lane 0: pmax[slot] = m, psum[slot] = l (-inf, 0, 0 for an empty split)
  k.global_store_dword(vD4, vO, sPo);
  k.s_cmp_lg_u32(sWave, 0);
  k.s_cbranch_scc1(exit);
  k.s_lshl_b32(sT, sSlot, 2);
  k.s_mov_b64(exec, 1);
  k.v_mov_b32(vTmp, sT);
  k.global_store_dword(vTmp, vM, A("pmax"));
  k.global_store_dword(vTmp, vL, A("psum"));
  return k.build();
}

}  // namespace k100::kernels::flash_decode
