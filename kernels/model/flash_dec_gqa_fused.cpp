// Decode attention with grouped-query heads in one launch: flash_dec_gqa_k,
// flash_dec_gqa_f16_k (f16 caches), and the generator of their variants
// that take the step's attention input too (flash_dec_gqa_rope_k, _f16_k;
// the prologue is Body::rope_q_and_append). Registry entries and tests:
// flash_dec_gqa_entries.cpp, flash_dec_gqa_rope.cpp.
//
// One workgroup per KV head g and split s of its rows (one wave: see
// kMaxWaves; the generator can let W waves take interleaved 64-row blocks
// and merge their partials in LDS)
// scores the rows for all `group` query heads h = g group + i that share
// the KV head, so every K and V line is read once (not once per query
// head), and keeps each head's online-softmax partials. Rows
// [s R, min(s R + R, n_kv, max_len)); with t_j = q_h . K_g[j],
// m = max t_j, p_j = exp((t_j - m) inv) the split writes
//   pm[h S + s] = m, pl[h S + s] = sum_j p_j, po[(h S + s) dh + d] = sum_j p_j V_g[j][d]
// (an empty split: -inf, 0, 0), then increments count[g] (wrapping at S - 1,
// so the counter is back at 0 after every launch). The workgroup that finds
// S - 1 there is the last of its KV head: it reads the S partials of each of
// the group's heads and writes out[h][d] = softmax(q_h K_g^T inv) V_g. The
// partials are written before the atomic (vmcnt(0)) and read with glc (past
// the vector L1), the release and acquire of the hand-over.
//
// The caches are laid out for whole-line, contiguous reads ("blocked"):
//   K: kt[((g max_len + (j & ~63)) dh + d 64 + (j & 63))]  (64-row tiles of K^T)
//   V: v[(g max_len + j) dh + d]                            (head-major rows)
// so the sixteen 256-byte K loads of one trip are one 4 KiB run and eight V
// rows one 4 KiB run. qkv_rope_append_k writes them (mode bit 1). The f16
// kernel keeps the same tiles with d pairs in one dword (K) and two d per
// lane (V) and multiplies the halves in f32 with v_fma_mix_f32.
//
// Scores: lanes over 64 rows, q broadcast from LDS (ds_read_b128 at one
// address), K for the next 16 d (f16: 32) in flight while the current ones
// are summed (and the next block's first during the last V rows): sixteen
// 256-byte rows of the tile, one contiguous 4 KiB run. P V: lanes over d,
// p_j by v_readlane, V in 4 KiB runs of rows, one in flight ahead. The body
// is generated for each (dh, group) in {64, 128, 256} x {1..8} (the rope
// variants: dh 64 and 128), each behind its own test, so no lane or
// instruction is spent on an absent head. With gate != 0 the combine
// multiplies the output by sigmoid(gate) (gated attention).
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/flash_dec_reference.h"
#include "k100/codegen/exponential.h"
#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::vcc, as::exec, as::offset;
using namespace model_family;

constexpr int kMaxGroup = 8;
constexpr int kTripBytes = 4096;          // K and V bytes per load trip: one contiguous 4 KiB run each
constexpr uint32_t kMaxHeadBytes = 1024;  // LDS per query head (dh <= 256)
// Waves of a workgroup that share a split (blocks w, w + W, ..., merged in LDS). One: a second wave's LDS
// region would leave three workgroups per CU (heads of 256, group 8), and more splits of one wave each
// spread the work over more SIMDs for the same bytes in flight (MODELED: as fast as two waves at 4096 rows,
// faster at 32768, where the VALU work of one wave per KV head and split is the limit). The merge stays
// generic in W.
constexpr int kMaxWaves = 1;
// Each wave's region: its copy of q (head i at i HB), later its partials (acc at the same places, then
// (m, l) per head at kPartsOffset): a wave writes its partials only after its last read of q.
constexpr uint32_t kPartsOffset = kMaxGroup * kMaxHeadBytes;
constexpr uint32_t kQRegion = kPartsOffset + 8 * kMaxGroup;
constexpr uint32_t kLdsBytes = kMaxWaves * kQRegion;

}  // namespace

namespace model_family {

Signature gqa_signature(bool f16, bool rope) {
  const char* e = f16 ? "f16" : "f32";
  if (rope)
    return Signature(f16 ? "flash_dec_gqa_rope_f16_k" : "flash_dec_gqa_rope_k",
                     {out("out", "f32"), out("po", "f32"), out("pm", "f32"), out("pl", "f32"), inout("count", "u32"),
                      inout("kt", e), inout("v", e), in("qkv", "f32"), in("bias", "f32"), in("q_norm", "f32"),
                      in("k_norm", "f32"), in("cos", "f32"), in("sin", "f32"), value("pos", "u32"),
                      value("dh", "u32"), value("rows_per_split", "u32"), value("max_len", "u32"),
                      value("cshift", "u32"), value("inv", "f32"), value("group", "u32"),
                      value("n_kv_heads", "u32"), value("n_rot", "u32"), value("mode", "u32"), value("eps", "f32"),
                      in("gate", "f32")},
                     codeobj::HiddenArgLayout::Compact);
  return Signature(f16 ? "flash_dec_gqa_f16_k" : "flash_dec_gqa_k",
                   {out("out", "f32"), out("po", "f32"), out("pm", "f32"), out("pl", "f32"), inout("count", "u32"),
                    in("q", "f32"), in("kt", e), in("v", e), value("n_kv", "u32"), value("dh", "u32"),
                    value("rows_per_split", "u32"), value("max_len", "u32"), value("cshift", "u32"),
                    value("inv", "f32"), value("group", "u32"), in("gate", "f32")},
                   codeobj::HiddenArgLayout::Compact);
}

}  // namespace model_family

namespace {

// What every (dh, group) body shares: set up once at entry.
struct Common {
  SGPR g, split, nsplit, j0, end, q, wave, waves;
  VGPR lane, l4, c;
};

class Body {
 public:
  Body(Kernel& k, const Common& cm, int dh, int group, bool f16, bool rope, Label exit)
      : k_(k), cm_(cm), DH(dh), G(group), NC(f16 ? std::max(2, dh / 64) : dh / 64), KC(f16 ? 32 : 16), NK(dh / KC),
        VR(std::min(16, kTripBytes / (dh * (f16 ? 2 : 4)))), HB(NC * 256), F16(f16), HALF(f16 && dh == 64), ROPE(rope),
        EB(f16 ? 2 : 4), exit_(exit) {}

  void emit() {
    // the KV head's caches: + g max_len dh (elements)
    kt_ = k_.sgpr(2, "kt of the kv head");
    v_ = k_.sgpr(2, "v of the kv head");
    sT = s1("t");
    k_.s_mul_i32(sT, cm_.g, k_.arg("max_len"));
    set_scaled_address(k_, kt_, k_.arg("kt"), sT, DH, F16 ? 1 : 2);
    set_scaled_address(k_, v_, k_.arg("v"), sT, DH, F16 ? 1 : 2);
    // the lane's columns of partials and outputs: d = lane + 64 c (f32), d = 2 lane + c (f16: one V dword per lane)
    vCol = k_.vgpr(1, "column offset");
    k_.v_lshlrev_b32(vCol, F16 ? 3 : 2, cm_.lane);
    if (ROPE)
      rope_q_and_append();
    else
      load_q();
    init();
    blocks();
    merge_waves();
    store_partials();
    hand_over();
    combine();
  }

 private:
  Kernel& k_;
  const Common& cm_;
  // NC accumulators per head and lane (f32: d = 64 c + lane; f16: d = 128 (c >> 1) + 2 lane + (c & 1), on
  // lanes below 32 for dh 64 (HALF)), KC d per K trip (sixteen 256-byte rows of the tile), NK trips per
  // block, VR V rows per trip, HB LDS bytes per query head
  const int DH, G, NC, KC, NK, VR, HB;
  const bool F16, HALF, ROPE;
  const int EB;  // cache element bytes
  Label exit_;
  SGPR kt_, v_;
  VGPR vCol;
  int col(int c) const { return F16 ? 512 * (c >> 1) + 4 * (c & 1) : 256 * c; }
  // f16 heads of 64: a V row, a partial row and an output row are 32 lanes' dwords
  void column_lanes() {
    if (HALF) k_.s_mov_b64(exec, 0xffffffffull);
  }
  void all_lanes() {
    if (HALF) k_.s_mov_b64(exec, -1);
  }
  VGPR vS[kMaxGroup], vL[kMaxGroup], vM[kMaxGroup], vAcc[kMaxGroup][4], vK[2], vQ[2], vV[2], vQbase, vQa, vOffK, vT, vRow;
  SGPR sJb, sNb, sRows, sJj, sVrow, sP, sT;

  SGPR s1(const char* n) { return k_.sgpr(1, n); }

  // q of the group's heads into this wave's LDS copy at wave 4096 + i 512 + d 4.
  void load_q() {
    vQbase = k_.vgpr(1, "q copy in lds");
    vT = k_.vgpr(1, "t");
    const VGPR vAt = k_.vgpr(1, "lds address");
    k_.s_mul_i32(sT, cm_.wave, kQRegion);
    k_.v_mov_b32(vQbase, sT);
    k_.v_add_u32(vAt, sT, cm_.l4);
    const SGPR sQh = k_.sgpr(2, "q of the head");
    k_.s_mov_b64(sQh, cm_.q);
    for (int i = 0; i < G; ++i) {
      for (int c = 0; c < DH / 64; ++c) {
        k_.global_load_dword(vT, cm_.l4, sQh, offset(c * 256));
        k_.ds_write_b32(vAt, vT, offset(HB * i + c * 256));
      }
      if (i + 1 < G) add64(k_, sQh, DH * 4);
    }
  }

  // The rope variants: q of the group's heads from the projection qkv (its bias, the per-head RMSNorm and
  // the rotation, as qkv_rope_append_k computes them) into this wave's LDS copy. The wave that takes the
  // block of row pos in the split that holds it also puts k and v of row pos into the caches and waits
  // until the writes are done, before any load of that block: the row is read back from the cache (so
  // the f16 variant attends to the rounded values the next token will see), and no other split or wave
  // reads it (with rows_per_split a multiple of 16 no other split even loads a 64-byte line of it into
  // its CU's L1 before the write: the only line the wave reads back is one no L1 holds). Lane t holds
  // pair t (dh / 2 <= 64 pairs).
  void rope_q_and_append() {
    vQbase = k_.vgpr(1, "q copy in lds");
    vT = k_.vgpr(1, "t");
    k_.s_mul_i32(sT, cm_.wave, kQRegion);
    k_.v_mov_b32(vQbase, sT);
    const int P = DH / 2;
    const SGPR sPairs = k_.sgpr(2, "pair lanes"), sRot = k_.sgpr(2, "rotated lanes"),
               sNeox = k_.sgpr(2, "neox lanes"), sHalf = s1("rotated pairs"), sTab = s1("table row"),
               sBias = k_.sgpr(2, "bias rows"), sRow = k_.sgpr(2, "k row"), sHeads = s1("query heads");
    const VGPR vIa = k_.vgpr(1, "first element bytes"), vIb = k_.vgpr(1, "second element bytes"),
               vCos = k_.vgpr(1, "cos"), vSin = k_.vgpr(1, "sin"), vU = k_.vgpr(1, "u"),
               vAt = k_.vgpr(1, "lds address");
    k_.v_cmp_gt_u32(vcc, P, cm_.lane);
    k_.s_mov_b64(sPairs, vcc);
    k_.s_lshr_b32(sTab, k_.arg("n_rot"), 1);
    k_.s_min_u32(sHalf, sTab, P);
    k_.v_cmp_gt_u32(vcc, sHalf, cm_.lane);
    k_.s_and_b64(sRot, vcc, sPairs);
    k_.s_bitcmp1_b32(k_.arg("mode"), 0);
    k_.s_cselect_b64(sNeox, -1, 0);
    k_.s_and_b64(sNeox, sNeox, sRot);
    // elements (2t, 2t + 1), or (t, t + n_rot / 2) for the rotated pairs of neox, as byte offsets
    k_.v_lshlrev_b32(vIa, 3, cm_.lane);
    k_.v_add_u32(vIb, 4, vIa);
    k_.v_cndmask_b32(vIa, vIa, cm_.l4, sNeox);
    k_.s_lshl_b32(sT, sHalf, 2);
    k_.v_add_u32(vT, sT, cm_.l4);
    k_.v_cndmask_b32(vIb, vIb, vT, sNeox);
    // cos/sin[pos][t] (tables of n_rot / 2 per position)
    k_.s_mul_i32(sTab, sTab, k_.arg("pos"));
    const SGPR sCos = scaled_address(k_, k_.arg("cos"), sTab, 1, 2), sSin = scaled_address(k_, k_.arg("sin"), sTab, 1, 2);
    k_.s_mov_b64(exec, sRot);
    k_.global_load_dword(vCos, cm_.l4, sCos);
    k_.global_load_dword(vSin, cm_.l4, sSin);
    k_.s_mov_b64(exec, -1);

    // x of n rows at `at` (+ the bias rows at the same offsets from bias + `bias_at` bytes)
    auto load_rows = [&](int n, SGPR at, Operand bias_at, VGPR* a, VGPR* b) {
      for (int i = 0; i < n; ++i) {
        k_.v_mov_b32(a[i], 0);
        k_.v_mov_b32(b[i], 0);
      }
      k_.s_mov_b64(exec, sPairs);
      for (int i = 0; i < n; ++i) {
        k_.global_load_dword(a[i], vIa, at, offset(i * DH * 4));
        k_.global_load_dword(b[i], vIb, at, offset(i * DH * 4));
      }
      Label no_bias = k_.label("no_bias");
      k_.s_mov_b64(sBias, k_.arg("bias"));
      k_.s_cmp_eq_u64(sBias, 0);
      k_.s_cbranch_scc1(no_bias);
      add64(k_, sBias, bias_at);
      std::vector<VGPR> ba(static_cast<size_t>(n)), bb(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        ba[size_t(i)] = k_.vgpr(1, "bias");
        bb[size_t(i)] = k_.vgpr(1, "bias");
        k_.global_load_dword(ba[size_t(i)], vIa, sBias, offset(i * DH * 4));
        k_.global_load_dword(bb[size_t(i)], vIb, sBias, offset(i * DH * 4));
      }
      for (int i = 0; i < n; ++i) {
        k_.v_add_f32(a[i], a[i], ba[size_t(i)]);
        k_.v_add_f32(b[i], b[i], bb[size_t(i)]);
      }
      k_.bind(no_bias);
      k_.s_mov_b64(exec, -1);
    };
    // x * (mean(x^2) + eps)^(-1/2) * w per row (norm weights `weights` != 0), then the rotation
    auto norm_rotate = [&](int n, const char* weights, VGPR* a, VGPR* b) {
      Label no_norm = k_.label("no_norm");
      const SGPR sW = k_.sgpr(2, "norm weights");
      k_.s_mov_b64(sW, k_.arg(weights));
      k_.s_cmp_eq_u64(sW, 0);
      k_.s_cbranch_scc1(no_norm);
      std::vector<std::pair<ReduceOp, VGPR>> sums;
      std::vector<VGPR> sq(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        sq[size_t(i)] = k_.vgpr(1, "squares");
        k_.v_mul_f32(sq[size_t(i)], a[i], a[i]);
        k_.v_fmac_f32(sq[size_t(i)], b[i], b[i]);
        sums.push_back({ReduceOp::Add, sq[size_t(i)]});
      }
      lane_reduce(k_, sums);
      k_.s_mov_b64(exec, sPairs);
      k_.global_load_dword(vU, vIa, sW);   // w[a]
      k_.global_load_dword(vAt, vIb, sW);                                // w[b]
      for (int i = 0; i < n; ++i) {
        k_.v_readlane_b32(sT, sq[size_t(i)], 63);
        k_.v_mov_b32(vT, 1.0f / float(DH));
        k_.v_mul_f32(vT, sT, vT);  // the mean, exact: dh a power of two
        k_.v_add_f32(vT, k_.arg("eps"), vT);
        k_.v_rsq_f32(vT, vT);
        k_.v_mul_f32(a[i], a[i], vT);
        k_.v_mul_f32(a[i], a[i], vU);
        k_.v_mul_f32(b[i], b[i], vT);
        k_.v_mul_f32(b[i], b[i], vAt);
      }
      k_.s_mov_b64(exec, -1);
      k_.bind(no_norm);
      k_.s_mov_b64(exec, sRot);
      for (int i = 0; i < n; ++i) {
        k_.v_mul_f32(vT, a[i], vCos);
        k_.v_mul_f32(vU, a[i], vSin);
        k_.v_fma_f32(a[i], neg(b[i]), vSin, vT);
        k_.v_fma_f32(b[i], b[i], vCos, vU);
      }
      k_.s_mov_b64(exec, -1);
    };

    VGPR vA[kMaxGroup], vB[kMaxGroup];
    for (int i = 0; i < G; ++i) {
      vA[i] = k_.vgpr(1, "q a");
      vB[i] = k_.vgpr(1, "q b");
    }
    // the group's q rows: qkv + g group dh 4 (cm_.q), bias at the same offset
    k_.s_mul_i32(sT, cm_.g, G * DH * 4);
    load_rows(G, cm_.q, sT, vA, vB);
    norm_rotate(G, "q_norm", vA, vB);
    k_.s_mov_b64(exec, sPairs);
    k_.v_add_u32(vAt, vQbase, vIa);
    k_.v_add_u32(vU, vQbase, vIb);
    for (int i = 0; i < G; ++i) {
      k_.ds_write_b32(vAt, vA[i], offset(HB * i));
      k_.ds_write_b32(vU, vB[i], offset(HB * i));
    }
    k_.s_mov_b64(exec, -1);

    // ---- row pos: only in the split with j0 <= pos < end, by the wave taking block (pos - j0) >> 6
    Label no_append = k_.label("no_append");
    const SGPR sPos = k_.arg("pos");
    k_.s_cmp_lt_u32(sPos, cm_.j0);
    k_.s_cbranch_scc1(no_append);
    k_.s_cmp_ge_u32(sPos, cm_.end);
    k_.s_cbranch_scc1(no_append);
    k_.s_sub_u32(sT, sPos, cm_.j0);
    k_.s_lshr_b32(sT, sT, 6);
    k_.s_sub_u32(sTab, cm_.waves, 1);
    k_.s_and_b32(sT, sT, sTab);
    k_.s_cmp_lg_u32(sT, cm_.wave);
    k_.s_cbranch_scc1(no_append);
    // k row n_head + g = n_kv_heads group + g, v row n_kv_heads further; the bias rows alike
    k_.s_mul_i32(sHeads, k_.arg("n_kv_heads"), G);
    k_.s_add_u32(sHeads, sHeads, cm_.g);
    set_scaled_address(k_, sRow, k_.arg("qkv"), sHeads, DH, 2);
    VGPR vRa[2] = {k_.vgpr(1, "k a"), k_.vgpr(1, "v a")}, vRb[2] = {k_.vgpr(1, "k b"), k_.vgpr(1, "v b")};
    k_.s_mul_i32(sT, sHeads, DH * 4);
    // the v row n_kv_heads dh 4 bytes on (more than an instruction offset holds)
    load_rows(1, sRow, sT, &vRa[0], &vRb[0]);
    const SGPR sVrowIn = k_.sgpr(2, "v row in");
    k_.s_mov_b64(sVrowIn, sRow);
    k_.s_mul_i32(sTab, k_.arg("n_kv_heads"), DH * 4);
    add64(k_, sVrowIn, sTab);
    k_.s_add_u32(sT, sT, sTab);
    load_rows(1, sVrowIn, sT, &vRa[1], &vRb[1]);
    norm_rotate(1, "k_norm", &vRa[0], &vRb[0]);
    // K: tile (pos & ~63), row pos & 63; f32 element d at d 256, f16 at (d >> 1) 256 + (d & 1) 2
    const SGPR sKdst = k_.sgpr(2, "k destination"), sVdst = k_.sgpr(2, "v destination");
    k_.s_andn2_b32(sT, sPos, 63);
    set_scaled_address(k_, sKdst, kt_, sT, DH, F16 ? 1 : 2);
    k_.s_and_b32(sT, sPos, 63);
    k_.s_lshl_b32(sT, sT, 2);
    add64(k_, sKdst, sT);
    set_scaled_address(k_, sVdst, v_, sPos, DH, F16 ? 1 : 2);
    k_.s_mov_b64(exec, sPairs);
    const VGPR vOa = k_.vgpr(1, "k offset a"), vOb = k_.vgpr(1, "k offset b");
    if (F16) {
      // element e = bytes / 4: K at (e >> 1) 256 + (e & 1) 2 = (bytes >> 3) 256 + (bytes & 4) / 2; V at e 2
      for (int e = 0; e < 2; ++e) {
        const VGPR idx = e ? vIb : vIa, o = e ? vOb : vOa;
        k_.v_lshrrev_b32(o, 3, idx);
        k_.v_lshlrev_b32(o, 8, o);
        k_.v_and_b32(vT, 4, idx);
        k_.v_lshrrev_b32(vT, 1, vT);
        k_.v_or_b32(o, o, vT);
      }
      k_.v_cvt_f16_f32(vT, vRa[0]);
      k_.global_store_short(vOa, vT, sKdst);
      k_.v_cvt_f16_f32(vU, vRb[0]);
      k_.global_store_short(vOb, vU, sKdst);
      k_.v_lshrrev_b32(vOa, 1, vIa);
      k_.v_lshrrev_b32(vOb, 1, vIb);
      k_.v_cvt_f16_f32(vCos, vRa[1]);
      k_.global_store_short(vOa, vCos, sVdst);
      k_.v_cvt_f16_f32(vSin, vRb[1]);
      k_.global_store_short(vOb, vSin, sVdst);
    } else {
      k_.v_lshlrev_b32(vOa, 6, vIa);
      k_.v_lshlrev_b32(vOb, 6, vIb);
      k_.global_store_dword(vOa, vRa[0], sKdst);
      k_.global_store_dword(vOb, vRb[0], sKdst);
      k_.global_store_dword(vIa, vRa[1], sVdst);
      k_.global_store_dword(vIb, vRb[1], sVdst);
    }
    k_.s_mov_b64(exec, -1);
    k_.s_waitcnt(vmcnt(0));  // the row is in the cache before this wave loads its block
    k_.bind(no_append);
  }

  void init() {
    for (int i = 0; i < G; ++i) {
      vS[i] = k_.vgpr(1, "score");
      vL[i] = k_.vgpr(1, "sum of p");
      vM[i] = k_.vgpr(1, "running max");
      k_.v_mov_b32(vL[i], 0);
      k_.v_mov_b32(vM[i], kNegInfBits);
      for (int c = 0; c < NC; ++c) {
        vAcc[i][c] = k_.vgpr(1, "accumulator");
        k_.v_mov_b32(vAcc[i][c], 0);
      }
    }
    // the phases share registers (the allocator keeps whatever a loop reads live around it): V rows go
    // where K was, the softmax temporaries where q was
    for (int b = 0; b < 2; ++b) {
      vK[b] = k_.vgpr(std::max(k_loads(), VR * v_loads()), "k, then v rows");
      vQ[b] = k_.vgpr(16, "q, then softmax temporaries");
      vV[b] = vK[b].sub(0, VR * v_loads());
    }
    vOffK = k_.vgpr(1, "k offset");
    vQa = k_.vgpr(1, "q chunk in lds");
    vRow = k_.vgpr(1, "row");
    sJb = s1("block row");
    sNb = s1("rows in block");
    sRows = k_.sgpr(2, "rows of the block");
    sJj = s1("row in block");
    sVrow = k_.sgpr(2, "v row");
    sP = k_.sgpr(kMaxGroup, "p");
  }

  // f32: one 256-byte row of the tile per d; f16: one per pair of d (a dword holds d, d + 1 of a row)
  int k_loads() const { return 16; }
  void load_k(int chunk) {
    for (int t = 0; t < k_loads(); ++t) k_.global_load_dword(vK[chunk & 1][t], vOffK, kt_, offset(t * 256));
    k_.v_add_u32(vOffK, k_loads() * 256, vOffK);
  }

  // Unit u of a chunk: head u / (KC / 16), its d 16 (u % (KC / 16)) .. + 15 of the chunk at vQa (its first
  // d, in bytes): q into buffer u & 1
  void q_reads(int u) {
    const int sub = KC / 16, i = u / sub, s = u % sub;
    for (int m = 0; m < 4; ++m) k_.ds_read_b128(vQ[u & 1].sub(4 * m, 4), vQa, offset(HB * i + 64 * s + 16 * m));
  }

  // One wait per chunk and per head (not one per register the automatic waits would put before each first
  // use): `later` vector loads were issued after the chunk's; the next head's four q reads stay in flight.
  void score_chunk(int chunk, int later) {
    const int sub = KC / 16, units = G * sub;
    q_reads(0);
    k_.s_waitcnt(vmcnt(later));
    for (int u = 0; u < units; ++u) {
      const int i = u / sub, s = u % sub;
      if (u + 1 < units) q_reads(u + 1);
      k_.s_waitcnt(lgkmcnt(u + 1 < units ? 4 : 0));
      for (int t = 0; t < 16; ++t) {
        if (F16)
          k_.v_fma_mix_f32(vS[i], vK[chunk & 1][8 * s + t / 2], vQ[u & 1][t], vS[i], as::op_sel({t & 1, 0, 0}),
                           as::op_sel_hi({1, 0, 0}));
        else
          k_.v_fmac_f32(vS[i], vQ[u & 1][t], vK[chunk & 1][t]);
      }
    }
    k_.v_add_u32(vQa, KC * 4, vQa);
  }

  // V rows jj .. jj + n - 1 of the block into buffer b (n <= VR).
  int v_loads() const { return F16 ? std::max(1, DH / 128) : NC; }  // per row
  void load_v(int b, int n) {
    column_lanes();
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < v_loads(); ++c)
        k_.global_load_dword(vV[b][r * v_loads() + c], cm_.l4, sVrow, offset(r * DH * EB + c * 256));
    all_lanes();
    add64(k_, sVrow, n * DH * EB);
  }
  // acc += p_j v_j for the n rows in buffer b, rows sJj ...; `later` vector loads were issued after the rows'
  void accumulate_v(int b, int n, int later) {
    k_.s_waitcnt(vmcnt(later));
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < G; ++i) k_.v_readlane_b32(sP[i], vS[i], sJj);
      column_lanes();
      for (int i = 0; i < G; ++i)
        for (int c = 0; c < NC; ++c) {
          if (F16)
            k_.v_fma_mix_f32(vAcc[i][c], vV[b][r * v_loads() + (c >> 1)], sP[i], vAcc[i][c],
                             as::op_sel({c & 1, 0, 0}), as::op_sel_hi({1, 0, 0}));
          else
            k_.v_fmac_f32(vAcc[i][c], sP[i], vV[b][r * NC + c]);
        }
      all_lanes();
      k_.s_add_u32(sJj, sJj, 1);
    }
  }

  void blocks() {
    Label block = k_.label("block"), done = k_.label("blocks_done"), partial = k_.label("partial_block"),
          softmax = k_.label("softmax"), full_v = k_.label("full_block_v"), rows1 = k_.label("rows1");
    // wave w of the workgroup takes the split's blocks w, w + W, ...
    const SGPR sStride = s1("block stride");
    k_.s_lshl_b32(sStride, cm_.wave, 6);
    k_.s_add_u32(sJb, cm_.j0, sStride);
    k_.s_lshl_b32(sStride, cm_.waves, 6);
    k_.s_cmp_ge_u32(sJb, cm_.end);
    k_.s_cbranch_scc1(done);
    // the rows of block jb and its first K chunk in flight (also issued ahead, by the block before)
    auto start_block = [&] {
      k_.s_sub_u32(sNb, cm_.end, sJb);
      k_.s_min_u32(sNb, sNb, 64);
      // rows jb + lane: tile (row >> 6), row & 63 within it
      k_.v_add_u32(vRow, sJb, cm_.lane);
      k_.v_lshrrev_b32(vT, 6, vRow);
      k_.v_mul_u32_u24(vOffK, DH * 64 * EB, vT);
      k_.v_and_b32(vT, 63, vRow);
      k_.v_lshl_add_u32(vOffK, vT, 2, vOffK);
      k_.v_cmp_gt_u32(vcc, sNb, cm_.lane);
      k_.s_mov_b64(sRows, vcc);
      k_.s_mov_b64(exec, sRows);
      load_k(0);
      k_.s_mov_b64(exec, -1);
    };
    start_block();
    k_.bind(block);
    // ---- scores
    for (int i = 0; i < G; ++i) k_.v_mov_b32(vS[i], 0);
    set_scaled_address(k_, sVrow, v_, sJb, DH, F16 ? 1 : 2);
    k_.s_mov_b64(exec, sRows);
    // chunks in pairs, the next chunk's K always in flight (NK is even)
    Label pair = k_.label("k_pair"), last_pair = k_.label("k_last_pair");
    k_.v_mov_b32(vQa, vQbase);
    k_.s_mov_b32(sJj, NK);
    k_.bind(pair);
    k_.s_sub_u32(sJj, sJj, 2);
    load_k(1);
    score_chunk(0, k_loads());
    k_.s_cmp_eq_u32(sJj, 0);
    k_.s_cbranch_scc1(last_pair);
    load_k(0);
    score_chunk(1, k_loads());
    k_.s_branch(pair);
    k_.bind(last_pair);
    score_chunk(1, 0);
    k_.s_mov_b64(exec, -1);
    // a full block has its first V rows in flight during the softmax
    k_.s_cmp_lt_u32(sNb, 64);
    k_.s_cbranch_scc1(softmax);
    load_v(0, VR);
    k_.bind(softmax);
    k_.v_mov_b32(vT, kNegInfBits);
    std::vector<std::pair<ReduceOp, VGPR>> maxes;
    VGPR vB[kMaxGroup];
    for (int i = 0; i < G; ++i) {
      k_.v_cndmask_b32(vS[i], vT, vS[i], sRows);
      vB[i] = vQ[0][i];  // block max
      k_.v_mov_b32(vB[i], vS[i]);
      maxes.push_back({ReduceOp::Max, vB[i]});
    }
    lane_reduce(k_, maxes);
    const VGPR vCorr = vQ[1][0];  // correction
    for (int i = 0; i < G; ++i) {
      k_.v_readlane_b32(sT, vB[i], 63);
      k_.v_max_f32(vB[i], sT, vM[i]);  // new max
      k_.v_sub_f32(vCorr, vM[i], vB[i]);
      k_.v_mul_f32(vCorr, vCorr, cm_.c);
      k_.v_exp_f32(vCorr, vCorr);  // exp((m - m_new) inv); 0 while m = -inf
      k_.v_mov_b32(vM[i], vB[i]);
      k_.v_sub_f32(vS[i], vS[i], vB[i]);
      k_.v_mul_f32(vS[i], vS[i], cm_.c);
      k_.v_exp_f32(vS[i], vS[i]);  // p, 0 past the block
      k_.v_mul_f32(vL[i], vL[i], vCorr);
      k_.v_add_f32(vL[i], vL[i], vS[i]);
      for (int c = 0; c < NC; ++c) k_.v_mul_f32(vAcc[i][c], vAcc[i][c], vCorr);
    }
    k_.s_mov_b32(sJj, 0);
    k_.s_cmp_lt_u32(sNb, 64);
    k_.s_cbranch_scc1(partial);
    // ---- full block: 64 rows in four pairs of 8-row groups, one group in flight ahead
    k_.bind(full_v);
    {
      Label pairs = k_.label("v_pairs"), last = k_.label("v_last_pair");
      k_.bind(pairs);
      load_v(1, VR);
      accumulate_v(0, VR, VR * v_loads());
      k_.s_cmp_ge_u32(sJj, 64 - VR);
      k_.s_cbranch_scc1(last);
      load_v(0, VR);
      accumulate_v(1, VR, VR * v_loads());
      k_.s_branch(pairs);
      // the next block's first K chunk goes out before the last V rows are summed
      Label no_next = k_.label("no_next_block");
      k_.bind(last);
      k_.s_add_u32(sJb, sJb, sStride);
      k_.s_cmp_ge_u32(sJb, cm_.end);
      k_.s_cbranch_scc1(no_next);
      start_block();
      accumulate_v(1, VR, k_loads());
      k_.s_branch(block);
      k_.bind(no_next);
      accumulate_v(1, VR, 0);
      k_.s_branch(done);
    }
    // ---- partial block (the split's last rows): groups of 8, then single rows
    k_.bind(partial);
    {
      Label groups = k_.label("v_groups");
      k_.bind(groups);
      k_.s_add_u32(sT, sJj, VR);
      k_.s_cmp_gt_u32(sT, sNb);
      k_.s_cbranch_scc1(rows1);
      load_v(0, VR);
      accumulate_v(0, VR, 0);
      k_.s_branch(groups);
      k_.bind(rows1);
      k_.s_cmp_ge_u32(sJj, sNb);
      k_.s_cbranch_scc1(done);  // a partial block is the split's last
      load_v(0, 1);
      accumulate_v(0, 1, 0);
      k_.s_branch(rows1);
    }
    k_.bind(done);
  }
  // Waves 1 .. W-1 hand their partials to wave 0 through LDS and end; wave 0 merges them:
  // m = max(m0, mw), a = exp((m0 - m) inv) (1 where m0 = m, so two empty halves stay 0), ...
  void merge_waves() {
    std::vector<std::pair<ReduceOp, VGPR>> sums;
    for (int i = 0; i < G; ++i) sums.push_back({ReduceOp::Add, vL[i]});
    lane_reduce(k_, sums);
    for (int i = 0; i < G; ++i) {
      k_.v_readlane_b32(sT, vL[i], 63);
      k_.v_mov_b32(vL[i], sT);  // uniform
    }
    Label first = k_.label("first_wave"), merge = k_.label("merge"), merged = k_.label("merged");
    const VGPR vAt = k_.vgpr(1, "partials in lds"), vOne = k_.vgpr(1, "one");
    const SGPR sW = s1("wave merged");
    k_.s_cmp_eq_u32(cm_.wave, 0);
    k_.s_cbranch_scc1(first);
    // into the wave's own region, over its copy of q (its last read of it is done)
    k_.s_mul_i32(sT, cm_.wave, kQRegion);
    k_.v_add_u32(vAt, sT, cm_.l4);
    for (int i = 0; i < G; ++i)
      for (int c = 0; c < NC; ++c) k_.ds_write_b32(vAt, vAcc[i][c], offset(HB * i + c * 256));
    k_.v_mov_b32(vAt, sT);
    k_.s_mov_b64(exec, 1);
    for (int i = 0; i < G; ++i) {
      k_.ds_write_b32(vAt, vM[i], offset(int(kPartsOffset) + 8 * i));
      k_.ds_write_b32(vAt, vL[i], offset(int(kPartsOffset) + 8 * i + 4));
    }
    k_.s_mov_b64(exec, -1);
    k_.s_barrier();
    k_.s_endpgm();
    k_.bind(first);
    k_.s_barrier();
    k_.v_mov_b32(vOne, 1.0f);
    k_.s_mov_b32(sW, 1);
    k_.s_mov_b32(sT, kQRegion);
    k_.bind(merge);
    k_.s_cmp_ge_u32(sW, cm_.waves);
    k_.s_cbranch_scc1(merged);
    k_.v_mov_b32(vAt, sT);
    const VGPR vMw = vQ[0][0], vLw = vQ[0][1], vMn = vQ[0][2], vA0 = vQ[0][3], vA1 = vQ[0][4],
               vAw = vQ[1];
    for (int i = 0; i < G; ++i) {
      k_.ds_read_b32(vMw, vAt, offset(int(kPartsOffset) + 8 * i));
      k_.ds_read_b32(vLw, vAt, offset(int(kPartsOffset) + 8 * i + 4));
      k_.v_add_u32(vRow, vAt, cm_.l4);
      for (int c = 0; c < NC; ++c) k_.ds_read_b32(vAw[c], vRow, offset(HB * i + c * 256));
      k_.v_max_f32(vMn, vM[i], vMw);
      k_.v_sub_f32(vA0, vM[i], vMn);
      k_.v_mul_f32(vA0, vA0, cm_.c);
      k_.v_exp_f32(vA0, vA0);
      k_.v_cmp_eq_f32(vcc, vM[i], vMn);
      k_.v_cndmask_b32(vA0, vA0, vOne, vcc);
      k_.v_sub_f32(vA1, vMw, vMn);
      k_.v_mul_f32(vA1, vA1, cm_.c);
      k_.v_exp_f32(vA1, vA1);
      k_.v_cmp_eq_f32(vcc, vMw, vMn);
      k_.v_cndmask_b32(vA1, vA1, vOne, vcc);
      k_.v_mul_f32(vL[i], vL[i], vA0);
      k_.v_fmac_f32(vL[i], vLw, vA1);
      for (int c = 0; c < NC; ++c) {
        k_.v_mul_f32(vAcc[i][c], vAcc[i][c], vA0);
        k_.v_fmac_f32(vAcc[i][c], vAw[c], vA1);
      }
      k_.v_mov_b32(vM[i], vMn);
    }
    k_.s_add_u32(sW, sW, 1);
    k_.s_add_u32(sT, sT, kQRegion);
    k_.s_branch(merge);
    k_.bind(merged);
  }

  void store_partials() {
    // index of head 0's partial: (g G) S + s; head i at + i S
    const SGPR sIdx = s1("partial index"), sBase = k_.sgpr(2, "partial row"), sStep = s1("head partial bytes");
    k_.s_mul_i32(sIdx, cm_.g, G);
    k_.s_mul_i32(sIdx, sIdx, cm_.nsplit);
    k_.s_add_u32(sIdx, sIdx, cm_.split);
    set_scaled_address(k_, sBase, k_.arg("po"), sIdx, DH, 2);
    k_.s_mul_i32(sStep, cm_.nsplit, DH * 4);
    column_lanes();
    for (int i = 0; i < G; ++i) {
      for (int c = 0; c < NC; ++c) k_.global_store_dword(vCol, vAcc[i][c], sBase, offset(col(c)));
      if (i + 1 < G) add64(k_, sBase, sStep);
    }
    all_lanes();
    k_.s_lshl_b32(sIdx, sIdx, 2);
    k_.s_lshl_b32(sStep, cm_.nsplit, 2);
    k_.s_mov_b64(exec, 1);
    k_.v_mov_b32(vRow, sIdx);
    for (int i = 0; i < G; ++i) {
      k_.global_store_dword(vRow, vL[i], k_.arg("pl"));
      k_.global_store_dword(vRow, vM[i], k_.arg("pm"));
      if (i + 1 < G) k_.v_add_u32(vRow, sStep, vRow);
    }
  }

  // Release the partials, count the split; all but the KV head's last split leave.
  void hand_over() {
    const VGPR vOld = k_.vgpr(1, "count before"), vData = k_.vgpr(1, "wrap");
    k_.s_waitcnt(vmcnt(0));  // the partials are in the L2 before the count says so
    k_.s_sub_u32(sT, cm_.nsplit, 1);
    k_.s_lshl_b32(sJj, cm_.g, 2);
    k_.v_mov_b32(vRow, sJj);
    k_.v_mov_b32(vData, sT);
    k_.global_atomic_inc(vOld, vRow, vData, k_.arg("count"), as::glc());
    k_.v_readfirstlane_b32(sJj, vOld);
    k_.s_mov_b64(exec, -1);
    k_.s_cmp_lg_u32(sJj, sT);
    k_.s_cbranch_scc1(exit_);
  }

  // Gated attention (gate != 0): out[h][d] *= sigmoid(gate[h dh + d]) = 1 / (1 + 2^(-gate log2 e)), the
  // output of the group's heads (from head index sHead) in vAcc.
  void gate(SGPR sHead) {
    Label no_gate = k_.label("no_gate");
    const SGPR sGate = k_.sgpr(2, "gate of the head");
    k_.s_mov_b64(sGate, k_.arg("gate"));
    k_.s_cmp_eq_u64(sGate, 0);
    k_.s_cbranch_scc1(no_gate);
    k_.s_mul_i32(sT, sHead, DH * 4);
    add64(k_, sGate, sT);
    const VGPR vG = vQ[1].sub(0, NC);
    for (int i = 0; i < G; ++i) {
      column_lanes();
      for (int c = 0; c < NC; ++c) k_.global_load_dword(vG[c], vCol, sGate, offset(col(c)));
      all_lanes();
      reciprocal_one_plus_exp2(k_, vG, -kLog2E, vG, NC);
      for (int c = 0; c < NC; ++c) k_.v_mul_f32(vAcc[i][c], vAcc[i][c], vG[c]);
      if (i + 1 < G) add64(k_, sGate, DH * 4);
    }
    k_.bind(no_gate);
  }

  // The last split of KV head g: out[h] = sum_s w_s po[h][s] / sum_s w_s pl[h][s], w_s = exp((pm_s - M) inv).
  void combine() {
    // splits per trip: as many as 80 VGPRs of partial rows hold (the loop's K, V and q registers are free), at most 8
    int U = 8;
    while (U > 1 && (U * G * NC > 80 || (U - 1) * DH * 4 + col(NC - 1) > 4095)) U /= 2;
    std::vector<VGPR> vP(size_t(U * G * NC));
    for (auto& r : vP) r = k_.vgpr(1, "partial");
    VGPR vW[kMaxGroup], vPl[kMaxGroup], vX[kMaxGroup];
    const SGPR sSplits = k_.sgpr(2, "split lanes"), sHead = s1("head index"), sStep = s1("head partial bytes");
    SGPR sRow[kMaxGroup];
    // lanes over splits: pm, pl of head i at ((g G + i) S + lane) * 4
    k_.s_mul_i32(sHead, cm_.g, G);
    k_.s_mul_i32(sT, sHead, cm_.nsplit);
    k_.v_add_u32(vRow, sT, cm_.lane);
    k_.v_lshlrev_b32(vRow, 2, vRow);
    k_.v_cmp_gt_u32(vcc, cm_.nsplit, cm_.lane);
    k_.s_mov_b64(sSplits, vcc);
    k_.s_lshl_b32(sStep, cm_.nsplit, 2);
    for (int i = 0; i < G; ++i) {
      vW[i] = k_.vgpr(1, "weight");
      vPl[i] = k_.vgpr(1, "split sum");
      vX[i] = k_.vgpr(1, "max");
      k_.v_mov_b32(vW[i], kNegInfBits);
      k_.v_mov_b32(vPl[i], 0);
    }
    k_.s_mov_b64(exec, sSplits);
    for (int i = 0; i < G; ++i) {
      k_.global_load_dword(vW[i], vRow, k_.arg("pm"), as::glc());
      k_.global_load_dword(vPl[i], vRow, k_.arg("pl"), as::glc());
      if (i + 1 < G) k_.v_add_u32(vRow, sStep, vRow);
    }
    k_.s_mov_b64(exec, -1);
    std::vector<std::pair<ReduceOp, VGPR>> maxes, sums;
    for (int i = 0; i < G; ++i) {
      k_.v_mov_b32(vX[i], vW[i]);
      maxes.push_back({ReduceOp::Max, vX[i]});
      sums.push_back({ReduceOp::Add, vPl[i]});
    }
    lane_reduce(k_, maxes);
    for (int i = 0; i < G; ++i) {
      k_.v_readlane_b32(sT, vX[i], 63);
      k_.v_sub_f32(vW[i], vW[i], sT);
      k_.v_mul_f32(vW[i], vW[i], cm_.c);
      k_.v_exp_f32(vW[i], vW[i]);  // 0 for empty splits and lanes past S
      k_.v_mul_f32(vPl[i], vPl[i], vW[i]);
    }
    lane_reduce(k_, sums);
    for (int i = 0; i < G; ++i) {
      k_.v_readlane_b32(sT, vPl[i], 63);
      k_.v_rcp_f32(vPl[i], sT);  // 1 / denominator, uniform
      for (int c = 0; c < NC; ++c) k_.v_mov_b32(vAcc[i][c], 0);
      sRow[i] = k_.sgpr(2, "partial rows of the head");
    }
    // po rows of head i: po + ((g G + i) S) dh 4, one dh row per split
    k_.s_mul_i32(sT, sHead, cm_.nsplit);
    set_scaled_address(k_, sRow[0], k_.arg("po"), sT, DH, 2);
    k_.s_mul_i32(sStep, cm_.nsplit, DH * 4);
    for (int i = 1; i < G; ++i) {
      k_.s_mov_b64(sRow[i], sRow[i - 1]);
      add64(k_, sRow[i], sStep);
    }
    k_.s_mov_b32(sJj, 0);
    auto trip = [&](int n, Label top, Label past) {
      k_.bind(top);
      k_.s_add_u32(sT, sJj, n);
      k_.s_cmp_gt_u32(sT, cm_.nsplit);
      k_.s_cbranch_scc1(past);
      column_lanes();
      for (int u = 0; u < n; ++u)
        for (int i = 0; i < G; ++i)
          for (int c = 0; c < NC; ++c)
            k_.global_load_dword(vP[size_t((u * G + i) * NC + c)], vCol, sRow[i], offset(u * DH * 4 + col(c)),
                                 as::glc());
      all_lanes();
      for (int u = 0; u < n; ++u) {
        for (int i = 0; i < G; ++i) k_.v_readlane_b32(sP[i], vW[i], sJj);
        for (int i = 0; i < G; ++i)
          for (int c = 0; c < NC; ++c) k_.v_fmac_f32(vAcc[i][c], sP[i], vP[size_t((u * G + i) * NC + c)]);
        k_.s_add_u32(sJj, sJj, 1);
      }
      for (int i = 0; i < G; ++i) add64(k_, sRow[i], n * DH * 4);
      k_.s_branch(top);
      k_.bind(past);
    };
    if (U > 1) trip(U, k_.label("combine_trips"), k_.label("combine_trips_done"));
    trip(1, k_.label("combine_single"), k_.label("combine_done"));
    for (int i = 0; i < G; ++i)
      for (int c = 0; c < NC; ++c) k_.v_mul_f32(vAcc[i][c], vAcc[i][c], vPl[i]);
    gate(sHead);
    const SGPR sOut = k_.sgpr(2, "out of the head");
    set_scaled_address(k_, sOut, k_.arg("out"), sHead, DH, 2);
    column_lanes();
    for (int i = 0; i < G; ++i) {
      for (int c = 0; c < NC; ++c) k_.global_store_dword(vCol, vAcc[i][c], sOut, offset(col(c)));
      if (i + 1 < G) add64(k_, sOut, DH * 4);
    }
    all_lanes();
  }
};

}  // namespace

namespace model_family {

codeobj::CodeObject build_gqa_attention(isa::Target target, bool f16, bool rope) {
  Kernel k(gqa_signature(f16, rope), target, options(kLdsBytes, 2));
  Label exit = k.label("exit");
  Common cm;
  cm.waves = k.sgpr(1, "waves");
  if (kMaxWaves == 1) {
    k.s_mov_b32(cm.waves, 1);  // (no read of the workgroup size: one line less over the host link per wave)
  } else {
    k.s_lshr_b32(cm.waves, group_size_x(k), 6);
    k.s_max_u32(cm.waves, cm.waves, 1);
    k.s_min_u32(cm.waves, cm.waves, kMaxWaves);
  }
  cm.wave = wave_index(k);
  k.s_cmp_ge_u32(cm.wave, cm.waves);
  k.s_cbranch_scc1(exit);
  cm.lane = whole_wave_lane_id(k);
  cm.l4 = k.vgpr(1, "4 lane");
  cm.c = k.vgpr(1, "inv log2 e");
  k.v_lshlrev_b32(cm.l4, 2, cm.lane);
  k.v_mov_b32(cm.c, kLog2E);
  k.v_mul_f32(cm.c, k.arg("inv"), cm.c);
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  cm.g = s1("kv head");
  cm.split = s1("split");
  cm.nsplit = s1("splits");
  cm.j0 = s1("first row");
  cm.end = s1("end");
  cm.q = k.sgpr(2, "q of the group");
  const SGPR sId = k.workgroup_id(), sR = k.arg("rows_per_split"), sT = s1("t");
  k.s_cmp_gt_u32(k.arg("cshift"), 6);  // at most 64 splits: lanes over splits combine them
  k.s_cbranch_scc1(exit);
  k.s_lshr_b32(cm.g, sId, k.arg("cshift"));
  k.s_lshl_b32(cm.nsplit, 1, k.arg("cshift"));
  k.s_sub_u32(sT, cm.nsplit, 1);
  k.s_and_b32(cm.split, sId, sT);
  // rows [j0, end)
  k.s_mul_i32(cm.j0, cm.split, sR);
  k.s_add_u32(cm.end, cm.j0, sR);
  k.s_cselect_b32(cm.end, -1, cm.end);  // saturate on overflow
  if (rope) {  // rows 0 .. pos
    k.s_add_u32(sT, k.arg("pos"), 1);
    k.s_min_u32(cm.end, cm.end, sT);
  } else {
    k.s_min_u32(cm.end, cm.end, k.arg("n_kv"));
  }
  k.s_min_u32(cm.end, cm.end, k.arg("max_len"));
  // q of the KV head's first query head (the rope variants: its row of qkv): + g group dh 4
  k.s_mul_i32(sT, cm.g, k.arg("group"));
  set_scaled_address(k, cm.q, k.arg(rope ? "qkv" : "q"), sT, k.arg("dh"), 2);
  Label dispatch = k.label("dispatch");
  k.s_branch(dispatch);
  k.bind(exit);  // here, in branch range of the prologue
  k.s_endpgm();
  k.bind(dispatch);
  // one body per (dh, group), each behind its own test: a branch skips one body at a time, so none
  // leaves the branch range however many there are
  for (int dh : {128, 64, 256})
    for (int g = 1; g <= kMaxGroup; ++g) {
      if (rope && dh > 128) continue;  // the rope prologue: one rotated pair per lane
      Label skip = k.label("other_body"), body_exit = k.label("body_exit");
      k.s_cmp_lg_u32(k.arg("dh"), dh);
      k.s_cbranch_scc1(skip);
      k.s_cmp_lg_u32(k.arg("group"), g);
      k.s_cbranch_scc1(skip);
      Body(k, cm, dh, g, f16, rope, body_exit).emit();
      k.bind(body_exit);
      k.s_endpgm();
      k.bind(skip);
    }
  k.s_endpgm();
  return k.build();
}

}  // namespace model_family

}  // namespace k100::kernels
