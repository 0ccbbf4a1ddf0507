// k100lc quant: the packed KV cache and attention operands (KERNELS.md 4.6,
// docs/PACKED_KV.md byte by byte).
//
//   PackedQuery q = quantize_query(x, T, H, D, G, TP);       // x [T][H][D]
//   PackedKvCache cache(kv_heads, kv_cap, D, G);
//   cache.append_k(k_rows, t0, T);                           // [T][kv_heads][D]
//   cache.append_v(v_rows, t0, T);
//   float kd = cache.key(h, pos, d), vd = cache.value(h, pos, d);
//
// These are the host references the device kernels (attn_q_quant_k,
// kv_append_k_k, kv_append_v_k) are compared with bit for bit: the same
// buffers, the same words, the same scale bits.
//
// Every quantisation in the format is the same rule, on a group of f32:
//   scale = amax / 127 (IEEE f32 division, correctly rounded); 1.0 when the
//           group is all zero (amax = max |x| over the group)
//   code  = clamp(rint(x / scale), -127, 127)  (x / scale correctly rounded,
//           rint: to nearest, ties to EVEN)
// Codes are int8 (KVEL = 4 per u32 word, the lowest index in the lowest
// byte); -128 never occurs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace k100::quant {

inline constexpr int kPackedKvCodesPerWord = 4;  // KVEL
inline constexpr int kPackedKvQmax = 127;
inline constexpr int kPackedKvTile = 64;         // keys per V tile (BG)

// The scale of a group with the given max |x|.
float packed_kv_scale(float amax);
// The code of x in a group of the given scale.
int8_t packed_kv_code(float x, float scale);
// Code i (0..3) of a word: byte i, sign-extended.
int8_t packed_kv_word_code(uint32_t word, int i);
// The word of four codes, c[0] in the low byte.
uint32_t packed_kv_word(int8_t c0, int8_t c1, int8_t c2, int8_t c3);

// Quantised queries: codes [heads][rows][dim/4], scales [heads][dim/group][rows]
// (group-major), rows = TP (the padded query count).
struct PackedQuery {
  int64_t heads = 0, rows = 0, dim = 0, group = 0;
  std::vector<uint32_t> codes;
  std::vector<float> scales;

  int8_t code(int64_t h, int64_t r, int64_t d) const;
  float scale(int64_t h, int64_t r, int64_t d) const;  // the scale of d's group
};

// An empty query block: codes 0, scales 1.0 (what padded rows hold unless the
// caller put something else there). k100::Error naming the argument when
// dim is not a multiple of 4 or of group, or group not a multiple of 4.
PackedQuery make_packed_query(int64_t heads, int64_t rows, int64_t dim, int64_t group);
// Quantises x [T][heads][dim] into rows r < T of q (rows T..q.rows-1 are not
// touched). k100::Error when T > q.rows or x is too short.
void quantize_query_into(PackedQuery& q, std::span<const float> x, int64_t T);
// make_packed_query(H, TP, D, G) then quantize_query_into.
PackedQuery quantize_query(std::span<const float> x, int64_t T, int64_t H, int64_t D, int64_t G, int64_t TP);

// The cache of kv_heads heads with room for `capacity` keys (the pitch of
// every per-position array; a multiple of 64):
//   k_codes  [kv_heads][capacity][dim/4]
//   k_scales [kv_heads][dim/group][capacity]
//   v_codes  [kv_heads][capacity/4][dim]       word = 4 consecutive keys of one d
//   v_scales [kv_heads][capacity/64][dim]      per (64-key tile, d)
//   v_stage  [kv_heads][64][dim] f32           values of the current tile
// A new cache is all zero (codes, scales and stage).
class PackedKvCache {
 public:
  PackedKvCache(int64_t kv_heads, int64_t capacity, int64_t dim, int64_t group);

  // Keys t0 .. t0+T-1 from rows [T][kv_heads][dim]: per (key, head, group)
  // one scale and dim/4 words; nothing else changes.
  void append_k(std::span<const float> rows, int64_t t0, int64_t T);
  // Values t0 .. t0+T-1 from rows [T][kv_heads][dim], tile by tile over the
  // 64-key tiles the range touches. For a tile [b, b+64) with valid keys
  // [b, e), e = min(b+64, t0+T): its values are stage[h][j][d] for keys
  // b+j < t0 (the earlier appends of that tile) and the new rows for keys
  // >= t0; per d the scale is that of the valid keys, every word of the tile
  // is rewritten (codes of keys >= e are 0), and then stage[h][p % 64][d] =
  // the new value of key p, for each new key p of the tile. Before a call,
  // stage must therefore hold keys [64*floor(t0/64), t0) — what the previous
  // append left when the appends are contiguous.
  void append_v(std::span<const float> rows, int64_t t0, int64_t T);

  int8_t key_code(int64_t h, int64_t pos, int64_t d) const;
  int8_t value_code(int64_t h, int64_t pos, int64_t d) const;
  float key_scale(int64_t h, int64_t pos, int64_t d) const;    // the scale of d's group
  float value_scale(int64_t h, int64_t pos, int64_t d) const;  // the scale of pos's tile
  // Dequantised: code * scale, one f32 product.
  float key(int64_t h, int64_t pos, int64_t d) const;
  float value(int64_t h, int64_t pos, int64_t d) const;

  int64_t kv_heads() const { return kv_heads_; }
  int64_t capacity() const { return capacity_; }
  int64_t dim() const { return dim_; }
  int64_t group() const { return group_; }

  std::vector<uint32_t> k_codes;
  std::vector<float> k_scales;
  std::vector<uint32_t> v_codes;
  std::vector<float> v_scales;
  std::vector<float> v_stage;

 private:
  void check_append(const char* what, std::span<const float> rows, int64_t t0, int64_t T) const;
  int64_t kv_heads_, capacity_, dim_, group_;
};

}  // namespace k100::quant
