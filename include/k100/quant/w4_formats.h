// k100lc quant: the 4-bit weight formats and the activation formats of the
// W4 paths, described as data (FORMATS.md sections 2 to 5).
//
// Every 4-bit weight format here shares one packing: rows of K codes, two
// per byte with the even k in the low nibble (so, read as 32-bit words, K/8
// words a row with element j at bits 4j..4j+3), one scale per `block`
// consecutive k of a row. What differs is data: how a code reads as a value,
// how many weights share a scale, the scale's type, whether scales are
// stored row by row or group by group, and whether one per-tensor number
// divides everything. A decoder (the host reference below, a device GEMV, a
// GEMM) reads a WeightFormat instead of hard-coding one format, so each
// format is written down once.
//
// The activation formats are the quantised forms of f32 input rows the
// integer-dot paths consume (W4A8, W4A4 decode and prefill, NVFP4's int8).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/quant/half.h"

namespace k100::quant {

// How a 4-bit code reads as a value.
enum class CodeKind {
  OffsetInt4,  // value = code - 8 (compressed-tensors "pack-quantized")
  SignedInt4,  // two's complement, -8..7 (RT4)
  E2M1,        // bit 3 sign, bits 0-2 index {0, .5, 1, 1.5, 2, 3, 4, 6} (NVFP4)
};

enum class ScaleKind { BF16, F16, F32, E4M3 };

// Where scale (row n, group g) of an [N, K] matrix sits.
enum class ScaleOrder {
  RowMajor,    // [N, K/block]: n * (K/block) + g
  GroupMajor,  // [K/block, N]: g * N + n (the W4A4 GEMM's widened scales)
};

struct WeightFormat {
  const char* name;
  CodeKind code;
  uint32_t block;  // weights per scale, along K (a default: RT4 tensors may set their own)
  ScaleKind scale;
  ScaleOrder scale_order;
  bool global_divisor;  // one f32 per tensor divides every weight
};

// FORMATS.md 2: weight_packed I32 [N, K/8], weight_scale BF16 [N, K/128].
inline constexpr WeightFormat kCompressedTensorsInt4{"compressed-tensors int4", CodeKind::OffsetInt4, 128,
                                                     ScaleKind::BF16, ScaleOrder::RowMajor, false};
// FORMATS.md 3.2: q [N, K/2] bytes, s f16 [N, K/group] (the GEMV layout).
inline constexpr WeightFormat kRt4Int4{"rt4 i4", CodeKind::SignedInt4, 128, ScaleKind::F16, ScaleOrder::RowMajor,
                                       false};
// FORMATS.md 3.3: the same q, scales widened to f32 group-major (the GEMM layout).
inline constexpr WeightFormat kRt4Int4Gemm{"rt4 i4 gemm", CodeKind::SignedInt4, 128, ScaleKind::F32,
                                           ScaleOrder::GroupMajor, false};
// FORMATS.md 5.1: weight_packed U8 [N, K/2], weight_scale F8_E4M3 [N, K/16],
// weight_global_scale F32 (a divisor: w = e2m1 * e4m3 / global).
inline constexpr WeightFormat kNvfp4{"nvfp4", CodeKind::E2M1, 16, ScaleKind::E4M3, ScaleOrder::RowMajor, true};

inline constexpr uint32_t scale_bytes(ScaleKind s) {
  return s == ScaleKind::F32 ? 4 : s == ScaleKind::E4M3 ? 1 : 2;
}

// E2M1 magnitudes by the low three bits of a code.
inline constexpr float kE2M1Magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

// OCP FP8 E4M3 ("E4M3FN"): bit 7 sign, 4 exponent bits (bias 7), 3 mantissa
// bits; subnormals at exponent 0. 0x7F/0xFF (NaN in the standard) are not
// special-cased (FORMATS.md 5.1): they read as 480.
inline float e4m3_to_f32(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  const float v = e == 0 ? std::ldexp(float(m) / 8.0f, -6) : std::ldexp(1.0f + float(m) / 8.0f, e - 7);
  return (b & 0x80) ? -v : v;
}
// Nearest E4M3 (ties to even), saturating at +-448; NaN becomes 0x7F.
uint8_t f32_to_e4m3(float f);

// The value of a 4-bit code (0..15) under `kind`.
inline float code_value(CodeKind kind, uint32_t code) {
  switch (kind) {
    case CodeKind::OffsetInt4: return float(int(code & 15) - 8);
    case CodeKind::SignedInt4: return float(int((code & 15) ^ 8) - 8);
    case CodeKind::E2M1: return (code & 8) ? -kE2M1Magnitudes[code & 7] : kE2M1Magnitudes[code & 7];
  }
  return 0.0f;
}
// The signed integer of an int4 code (-8..7) for the integer-dot paths.
inline int32_t code_int(CodeKind kind, uint32_t code) {
  return kind == CodeKind::OffsetInt4 ? int32_t(code & 15) - 8 : int32_t((code & 15) ^ 8) - 8;
}

inline float scale_value(ScaleKind kind, const uint8_t* p) {
  switch (kind) {
    case ScaleKind::BF16: return bf16_to_f32(uint16_t(p[0] | (p[1] << 8)));
    case ScaleKind::F16: return f16_to_f32(uint16_t(p[0] | (p[1] << 8)));
    case ScaleKind::F32: return std::bit_cast<float>(uint32_t(p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24)));
    case ScaleKind::E4M3: return e4m3_to_f32(p[0]);
  }
  return 0.0f;
}

// One [N, K] matrix in a WeightFormat, over bytes held elsewhere.
struct W4Matrix {
  const WeightFormat* format = &kRt4Int4;
  int64_t n = 0, k = 0;
  int64_t group = 0;                  // weights per scale (0: the format's block)
  std::span<const uint8_t> codes;     // n * k / 2 bytes
  std::span<const uint8_t> scales;    // n * k / group scales in the format's order
  float global = 1.0f;                // the per-tensor divisor (global_divisor formats)

  int64_t block() const { return group ? group : int64_t(format->block); }
  int64_t groups_per_row() const { return k / block(); }
  uint64_t code_bytes() const { return uint64_t(n) * uint64_t(k) / 2; }
  uint64_t scale_bytes() const { return uint64_t(n) * uint64_t(groups_per_row()) * quant::scale_bytes(format->scale); }
  // k100::Error naming `what` when K is not a whole number of blocks (and of
  // 8), the byte counts differ from the shape, or the divisor is not a
  // positive finite number.
  void check(const std::string& what) const;

  uint32_t code(int64_t row, int64_t col) const {
    const uint8_t b = codes[size_t((uint64_t(row) * uint64_t(k) + uint64_t(col)) / 2)];
    return (col & 1) ? uint32_t(b >> 4) : uint32_t(b & 15);
  }
  float scale(int64_t row, int64_t g) const {
    const uint64_t i = format->scale_order == ScaleOrder::RowMajor ? uint64_t(row) * uint64_t(groups_per_row()) + uint64_t(g)
                                                                   : uint64_t(g) * uint64_t(n) + uint64_t(row);
    return scale_value(format->scale, scales.data() + i * quant::scale_bytes(format->scale));
  }
  // The weight as the format defines it: code * scale (/ global), in f32.
  float weight(int64_t row, int64_t col) const {
    const float w = code_value(format->code, code(row, col)) * scale(row, col / block());
    return format->global_divisor ? w / global : w;
  }
  // Rows [first, first + count) into out (count * k floats); k100::Error
  // for a range outside the matrix.
  void dequantize_rows(int64_t first, int64_t count, float* out) const;
  std::vector<float> dequantize() const;
};

// The float reference GEMV of every format (W4A16): y[m][n] = sum_k w(n, k)
// x[m][k] over the dequantised weights, accumulated in double and rounded
// once. x is [m][k] f32, the result [m][n].
std::vector<float> gemv_reference(const W4Matrix& w, std::span<const float> x, int64_t m);

// ---------------------------------------------------------------------------
// Activation formats (FORMATS.md 4 and 5.2): f32 rows quantised per group of
// `group` k with s = max|x| / qmax (1.0 when the group is all zero) and
// q = clamp(rint(x / s), -qmax - 1, qmax), ties to even.

enum class ActivationCodes {
  Int8EvenOdd,  // int8 codes split into the even-k and the odd-k stream, [M, K/2] each
  Int4Packed,   // two's-complement nibbles, even k low: [M, K/2] bytes (= u32 [M, K/8] low-first)
};

struct ActivationFormat {
  const char* name;
  uint32_t group;
  int32_t qmax;  // 127 (int8) or 7 (int4)
  ActivationCodes codes;
  ScaleOrder scale_order;  // of the f32 scales: [M, K/group] or [K/group, M]
  bool group_sums;         // an int32 sum of the codes per group (W4A8's correction term)
};

inline constexpr ActivationFormat kActW4A8{"w4a8", 128, 127, ActivationCodes::Int8EvenOdd, ScaleOrder::RowMajor, true};
inline constexpr ActivationFormat kActW4A4Decode{"w4a4 decode", 32, 7, ActivationCodes::Int4Packed,
                                                 ScaleOrder::RowMajor, false};
inline constexpr ActivationFormat kActW4A4Prefill{"w4a4 prefill", 128, 7, ActivationCodes::Int4Packed,
                                                  ScaleOrder::GroupMajor, false};
inline constexpr ActivationFormat kActNvfp4{"nvfp4 activations", 16, 127, ActivationCodes::Int8EvenOdd,
                                            ScaleOrder::RowMajor, false};

}  // namespace k100::quant
