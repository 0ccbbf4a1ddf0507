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
// From 8192 keys on (128 tiles), when 6 divides ratio, the workgroup of the
// first query head of each group of 6 heads of a kv head computes all six
// from one read of each tile (the query words of the six in LDS, each code
// converted once for the six) and the other five workgroups leave: the
// catalog's grid gives every query head a workgroup, and the K and V of a kv
// head would otherwise cross the L2 six times. Every head's arithmetic is the
// same, in the same order, either way (results do not depend on it).
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

// LDS: the dots of a tile for up to kMaxGroup heads ([head][64 keys][2 scale groups] f32), two buffers (by
// tile parity); the p of each wave and head ([wave][head][64] f32); the arguments.
constexpr int kMaxGroup = 6;
constexpr uint32_t kGroupFromTiles = 128;  // contexts of 8192 keys and more
constexpr uint32_t kHeadDots = 512, kDotBuffer = kMaxGroup * kHeadDots;
constexpr uint32_t kPBase = 2 * kDotBuffer, kWaveP = kMaxGroup * 256;
constexpr uint32_t kQBase = kPBase + 4 * kWaveP;  // [head][16 lane groups][4 words] of the queries
constexpr uint32_t kArgsLds = kQBase + kMaxGroup * 256;
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
           {.waves_per_simd = 2, .lds_bytes = kLdsBytes, .max_workgroup = 256, .workgroup_dims = rows ? 3 : 2});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const SharedArguments A = share_arguments(k, kArgsLds, 256, exit);
  const SGPR sH = k.workgroup_id(0), sS = k.workgroup_id(1), sWave = A.wave;
  const VGPR vLane = lane_of_local_id(k), vD = k.local_id(0);
  const SGPR sKvCap = A("kv_cap");

  // ---- the row: keys, splits, scratch slot base
  SGPR sNkv, sNs, sR, sT = s1("t"), sSlotBase = s1("row slot base");
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
  const SGPR sStride = A(rows ? "sc_stride" : "arg16");
  // rows: pmax / psum at (r n_heads) sc_stride + slot, pout at r sc_row_stride floats + 256 slot
  const SGPR sPoutBase = k.sgpr(2, "pout of the row");
  k.s_mov_b64(sPoutBase, A("pout"));
  k.s_mov_b32(sSlotBase, 0);
  if (rows) {
    k.s_mul_i32(sT, sR, A("sc_row_stride")[0]);
    add64_pair(k, sPoutBase, widen_shifted(k, sT, 2));
    k.s_mul_i32(sT, sR, A("n_heads"));
    k.s_mul_i32(sSlotBase, sT, sStride);
  }
  const Divider ratio_div = make_divider(k, A("ratio"));
  const SGPR sG = divide_scalar(k, ratio_div, sH), sHm = s1("head in its group");
  k.s_mul_i32(sT, sG, A("ratio"));
  k.s_sub_u32(sHm, sH, sT);

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

  // ---- lane constants
  // K: wave w reads keys [16 w, 16 w + 16) of a tile whole, four per load (lane l: key 16 w + 4 i + (l >> 4),
  // bytes [16 (l & 15), + 16)), so that every load asks for whole lines; the dot of a key's 128-dim group is
  // the sum over 8 lanes (exact in f32: |dot| <= 256 127^2 < 2^24), stored by the group's first lane at
  // [head][key][group] of the tile's LDS buffer and read back by lane j = key j.
  const VGPR vD4 = v1("4 d"), vPartW = v1("partial write address"), vPartR = v1("partial read address"),
             vPw = v1("p write address"), vPr = v1("p read address"), vKlane = v1("k lane offset"),
             vQoff = v1("query offset");
  const SGPR sWriters = k.sgpr(2, "first lanes of the groups");
  k.v_and_b32(vQoff, 15, vLane);
  k.v_lshlrev_b32(vQoff, 4, vQoff);
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
  k.s_mul_i32(sT, sWave, kWaveP);
  k.s_add_u32(sT, sT, kPBase);
  k.v_mov_b32(vPr, sT);
  k.v_lshlrev_b32(vPw, 2, vLane);
  k.v_add_u32(vPw, sT, vPw);

  // The workgroup computes the G query heads h .. h + G - 1 of its kv head, all from one read of each tile
  // (G = 6 when ratio is a multiple of 6, else 1); the workgroups of the other heads of such a group leave.
  // Every head's arithmetic is the same, in the same order, whatever G.
  auto heads = [&](const int G) {
    const VGPR vKey = v1("key"), vKoff = v1("k offset"), vKsoff = v1("k scale offset"), vAddr = v1("lds address"),
               vS = v1("score"), vTmp = v1("t"), vMn = v1("new max"), vP = v1("p"), vVoff = v1("v offset");
    const VGPR vParts = k.vgpr(4, "dots"), vQw = k.vgpr(4, "query words"), vQaddr = v1("query address"),
               vCodes = k.vgpr(4, "codes");
    VGPR vP4[2] = {k.vgpr(4, "p"), k.vgpr(4, "p")};
    struct Head {
      VGPR m, l, o, acc, corr;
      SGPR qs0, qs1, slot;
    };
    std::vector<Head> hs(static_cast<std::size_t>(G));
    for (int i = 0; i < G; ++i) {
      Head& x = hs[size_t(i)];
      x = {v1("running max"), v1("running sum"), v1("output"), v1("acc"), v1("correction"), s1("qs0"), s1("qs1"),
           s1("slot")};
      // query head h + i: codes at q + (h + i) q_dw_stride (+ r q_row_stride) words, scales likewise
      const SGPR sHead = s1("head");
      k.s_add_u32(sHead, sH, i);
      k.s_mul_i32(sT, sHead, A("q_dw_stride"));
      if (rows) {
        const SGPR sRow = s1("row words");
        k.s_mul_i32(sRow, sR, A("q_row_stride")[0]);
        k.s_add_u32(sT, sT, sRow);
      }
      k.s_lshl_b32(sT, sT, 2);
      // the head's words go to LDS (16 B per lane group), read back per tile
      k.global_load_dwordx4(vQw, vQoff, offset_address(k, A("q"), sT, 0));
      k.v_add_u32(vQaddr, kQBase + 256 * i, vQoff);
      Label written = k.label("query written");  // by lanes 0..15 of wave 0
      k.s_cmp_lg_u32(sWave, 0);
      k.s_cbranch_scc1(written);
      k.s_mov_b64(exec, 0xffff);
      k.ds_write_b128(vQaddr, vQw);
      k.s_mov_b64(exec, -1);
      k.bind(written);
      k.s_mul_i32(sT, sHead, A("q_sc_stride"));
      if (rows) {
        const SGPR sRow = s1("row scales");
        k.s_mul_i32(sRow, sR, A("arg23"));
        k.s_add_u32(sT, sT, sRow);
      }
      const SGPR sQs0p = offset_address(k, A("qsc"), sT, 2);
      k.s_load_dword(x.qs0, sQs0p, 0);
      k.s_load_dword(x.qs1, offset_address(k, sQs0p, A("q_sc_row"), 2), 0);
      k.s_mul_i32(x.slot, sHead, sStride);
      k.s_add_u32(x.slot, x.slot, sS);
      k.v_mov_b32(x.m, kNegInfBits);
      k.v_mov_b32(x.l, 0);
      k.v_mov_b32(x.o, 0);
    }
    k.v_add_u32(vQaddr, kQBase, vQoff);
    k.s_waitcnt(lgkmcnt(0));
    k.s_barrier();
    // Two sets of a tile's operands: the next tile's loads are in flight while this one is computed.
    struct TileRegs {
      VGPR k, ks0, ks1, v, vs;
    };
    TileRegs sets[2];
    for (auto& r : sets) r = {k.vgpr(16, "k words"), v1("ks0"), v1("ks1"), k.vgpr(16, "v words"), v1("v scale")};
    const SGPR sTile = s1("tile"), sNext = s1("next tile"), sBuf = s1("buffer"), sTmax = s1("tile max"),
               sTsum = s1("tile sum"), sValidKeys = k.sgpr(2, "keys below n_kv");

    // Requests tile `tile`'s K words, K scales, V words and V scales.
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
    // The scores and softmax of tile sTile for every head: corr, m, l updated, p in LDS.
    auto scores = [&](const TileRegs& r) {
      k.s_and_b32(sBuf, sTile, 1);
      k.s_mul_i32(sBuf, sBuf, kDotBuffer);
      k.v_add_u32(vAddr, sBuf, vPartW);
      for (int i = 0; i < G; ++i) {
        k.ds_read_b128(vQw, vQaddr, offset(256 * i));
        for (int q = 0; q < 4; ++q) {
          k.v_mov_b32(vParts[q], 0);
          for (int t = 0; t < 4; ++t) dot4_i8(k, vParts[q], vQw[t], r.k[4 * q + t]);
          k.v_cvt_f32_i32(vParts[q], vParts[q]);
        }
        lane_reduce(k, {{ReduceOp::Add, vParts[0]}, {ReduceOp::Add, vParts[1]}, {ReduceOp::Add, vParts[2]},
                        {ReduceOp::Add, vParts[3]}},
                    8);
        k.s_mov_b64(exec, sWriters);
        for (int q = 0; q < 4; ++q) k.ds_write_b32(vAddr, vParts[q], offset(kHeadDots * i + 32 * q));
        k.s_mov_b64(exec, -1);
      }
      k.s_waitcnt(lgkmcnt(0));
      k.s_barrier();
      k.v_add_u32(vAddr, sBuf, vPartR);
      k.s_lshl_b32(sT, sTile, 6);
      k.v_add_u32(vKey, sT, vLane);
      k.v_cmp_gt_u32(vcc, sNkv, vKey);
      k.s_mov_b64(sValidKeys, vcc);
      for (int i = 0; i < G; ++i) {
        const Head& x = hs[size_t(i)];
        k.ds_read_b64(vParts.sub(0, 2), vAddr, offset(kHeadDots * i));
        k.v_mul_f32(vS, x.qs0, vParts[0]);
        k.v_mul_f32(vS, vS, r.ks0);
        k.v_mul_f32(vTmp, x.qs1, vParts[1]);
        k.v_fma_f32(vS, vTmp, r.ks1, vS);
        k.v_mov_b32(vTmp, kNegInfBits);
        k.v_cndmask_b32(vS, vTmp, vS, sValidKeys);
        k.v_mov_b32(vTmp, vS);
        lane_reduce(k, {{ReduceOp::Max, vTmp}});
        k.v_readlane_b32(sTmax, vTmp, 63);
        k.v_max_f32(vMn, sTmax, x.m);
        exp2_scaled_difference(k, x.corr, x.m, vMn, kLog2E);
        k.v_mov_b32(x.m, vMn);
        exp2_scaled_difference(k, vP, vS, vMn, kLog2E);
        k.v_mov_b32(vTmp, vP);
        lane_reduce(k, {{ReduceOp::Add, vTmp}});
        k.v_readlane_b32(sTsum, vTmp, 63);
        k.v_mul_f32(x.l, x.l, x.corr);
        k.v_add_f32(x.l, sTsum, x.l);
        k.ds_write_b32(vPw, vP, offset(256 * i));
      }
    };
    // o = fma(acc, vs, o c) for every head
    auto update_outputs = [&](VGPR vs) {
      for (const Head& x : hs) {
        k.v_mul_f32(x.o, x.o, x.corr);
        k.v_fmac_f32(x.o, x.acc, vs);
      }
    };
    // P.V of a tile from the packed cache: each code converted once for all heads.
    auto packed_values = [&](const TileRegs& r) {
      for (const Head& x : hs) k.v_mov_b32(x.acc, 0);
      for (int w = 0; w < 16; ++w) {
        for (int b = 0; b < 4; ++b) i8_to_f32(k, vCodes[b], r.v[w], b);
        for (int i = 0; i < G; ++i) {
          const VGPR p = vP4[i % 2];
          k.ds_read_b128(p, vPr, offset(256 * i + 16 * w));
          for (int b = 0; b < 4; ++b) k.v_fmac_f32(hs[size_t(i)].acc, p[b], vCodes[b]);
        }
      }
      update_outputs(r.vs);
    };
    // P.V of the row's last tile from the f32 snapshot, re-quantised against keys [tile 64, n_kv).
    auto snapshot_values = [&] {
      const SGPR sValid = s1("valid keys"), sLeft = s1("keys left"), sAt = k.sgpr(2, "snapshot row");
      const VGPR vX = k.vgpr(8, "snapshot values"), vAmax = v1("amax"), vQmax = v1("127"), vLo = v1("-127"),
                 vQ = v1("x / scale"), vPa = v1("p address"), vVs = v1("snapshot scale");
      // n snapshot rows (keys) of dim d from sAt on
      auto load_snapshot_rows = [&](int n) {
        for (int i = 0; i < n; ++i) {
          k.global_load_dword(vX[i], vD4, sAt);
          add64(k, sAt, 1024);
        }
      };
      k.s_lshl_b32(sT, sTile, 6);
      k.s_sub_u32(sValid, sNkv, sT);
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
      for (const Head& x : hs) k.v_mov_b32(x.acc, 0);
      k.v_mov_b32(vPa, vPr);
      k.s_mov_b64(sAt, sSnap);
      k.s_mov_b32(sLeft, sValid);
      countdown_groups(k, sLeft, {8, 1}, [&](int n) {
        load_snapshot_rows(n);
        for (int j = 0; j < n; ++j) {
          w4act::divide_f32(k, vQ, vX[j], vVs);
          k.v_rndne_f32(vQ, vQ);
          k.v_med3_f32(vQ, vQ, vLo, vQmax);
          for (int i = 0; i < G; ++i) {
            k.ds_read_b32(vP, vPa, offset(256 * i + 4 * j));
            k.v_fmac_f32(hs[size_t(i)].acc, vP, vQ);
          }
        }
        k.v_add_u32(vPa, 4 * n, vPa);
      });
      update_outputs(vVs);
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
    for (const Head& x : hs) k.global_store_dword(vD4, x.o, offset_address(k, sPoutBase, x.slot, 10));
    k.s_cmp_lg_u32(sWave, 0);
    k.s_cbranch_scc1(exit);
    k.s_mov_b64(exec, 1);
    for (const Head& x : hs) {
      k.s_add_u32(sT, sSlotBase, x.slot);
      k.s_lshl_b32(sT, sT, 2);
      k.v_mov_b32(vTmp, sT);
      k.global_store_dword(vTmp, x.m, A("pmax"));
      k.global_store_dword(vTmp, x.l, A("psum"));
    }
    k.s_branch(exit);
  };

  // G = 6 when 6 divides ratio; the group's first head computes, the others leave
  Label single = k.label("one_head");
  const SGPR sSix = s1("6");
  k.s_mov_b32(sSix, 6);
  const Divider six = make_divider(k, sSix);
  const SGPR sQ6 = divide_scalar(k, six, A("ratio"));
  k.s_mul_i32(sT, sQ6, 6);
  k.s_cmp_lg_u32(sT, A("ratio"));
  k.s_cbranch_scc1(single);
  k.s_cmp_lt_u32(sTiles, kGroupFromTiles);
  k.s_cbranch_scc1(single);
  const SGPR sQh = divide_scalar(k, six, sHm);
  k.s_mul_i32(sT, sQh, 6);
  k.s_cmp_lg_u32(sT, sHm);
  k.s_cbranch_scc1(exit);
  heads(kMaxGroup);
  k.bind(single);
  heads(1);
  return k.build();
}

}  // namespace k100::kernels::flash_decode
