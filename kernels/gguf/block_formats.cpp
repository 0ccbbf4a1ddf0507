// The GGUF block types the kernels decode: geometry, table arguments and
// emitter of each (KERNELS.md sections 3.3, 3.4 and 4 for the first eleven).
#include "gguf/block_codec.h"

#include "k100/base/error.h"

namespace k100::kernels::gguf {

using quant::TensorType;

const std::vector<BlockFormat>& block_formats() {
  static const std::vector<BlockFormat> formats = {
      {TensorType::IQ2_S, "iq2s", "IQ2_S", 256, 82, {{"grid", "u64", "iq2s_grid"}}, decode_iq2s,
       "per 8 elements a 10-bit index gathers one u64 grid entry (8 magnitudes), 4-bit sub-scales "
       "d * (0.5 + s) * 0.25 and sign bits complete the values", true},
      {TensorType::IQ3_S, "iq3s", "IQ3_S", 256, 110, {{"grid", "u32", "iq3s_grid"}}, decode_iq3s,
       "per 4 elements a 9-bit index gathers one u32 grid entry (4 magnitudes), sub-scales d * (1 + 2 s) and "
       "one sign bit per element complete the values", true},
      {TensorType::IQ3_XXS, "iq3xxs", "IQ3_XXS", 256, 98, {{"grid", "u32", "iq3xxs_grid"}, {"ksigns", "u8", "ksigns_iq2xs"}},
       decode_iq3xxs,
       "per 4 elements an 8-bit index gathers one u32 grid entry, per 8 elements a 7-bit index gathers the sign "
       "pattern byte; sub-scale d * (0.5 + s) * 0.5", true},
      {TensorType::IQ4_NL, "iq4nl", "IQ4_NL", 32, 18, {}, decode_iq4nl,
       "the 16-level codebook is looked up four codes at a time with byte permutes (v_perm_b32) from 4 VGPRs; "
       "value d * codebook[q]"},
      {TensorType::IQ4_XS, "iq4xs", "IQ4_XS", 256, 136, {}, decode_iq4xs,
       "codebook lookups as for IQ4_NL under 6-bit sub-scales, value (d * (ls - 32)) * codebook[q]"},
      {TensorType::Q2_0, "q2_0", "Q2_0", 64, 18, {}, decode_q2_0, "2-bit codes by bitfield extraction, value (q - 1) * d"},
      {TensorType::Q4_0, "q4_0", "Q4_0", 32, 18, {}, decode_q4_0, "nibbles split four at a time, value (q - 8) * d"},
      {TensorType::Q4_K, "q4k", "Q4_K", 256, 144, {}, decode_q4k,
       "6-bit (scale, min) pairs unpacked per 32 elements, value (d * sc) * q - dmin * m"},
      {TensorType::Q5_K, "q5k", "Q5_K", 256, 176, {}, decode_q5k,
       "as Q4_K with the fifth bits of qh merged into the nibbles, value (d * sc) * q - dmin * m", true},
      {TensorType::Q6_K, "q6k", "Q6_K", 256, 210, {}, decode_q6k,
       "6-bit codes from ql nibbles and qh bit pairs, value (d * scale) * (q - 32) with int8 scales per 16", true},
      {TensorType::Q8_0, "q8_0", "Q8_0", 32, 34, {}, decode_q8_0, "int8 codes sign-extended by SDWA, value q * d"},
      // The types beyond KERNELS.md: decoders, no fused dot kernels.
      {TensorType::Q4_1, "q4_1", "Q4_1", 32, 20, {}, decode_q4_1, "nibbles split four at a time, value q * d + m",
       false, false},
      {TensorType::Q5_0, "q5_0", "Q5_0", 32, 22, {}, decode_q5_0,
       "nibbles split four at a time with their fifth bits spread from qh to bytes, value (q - 16) * d", false, false},
      {TensorType::Q5_1, "q5_1", "Q5_1", 32, 24, {}, decode_q5_1,
       "nibbles with their fifth bits as for Q5_0, value q * d + m", false, false},
      {TensorType::MXFP4, "mxfp4", "MXFP4", 32, 17, {}, decode_mxfp4,
       "the 16 E2M1 codes (doubled) looked up four at a time with byte permutes, value kv[q] * 2^(e - 128)", false,
       false},
      {TensorType::Q2_K, "q2k", "Q2_K", 256, 84, {}, decode_q2k,
       "2-bit codes four at a time per byte shift, 4-bit scale and min per 16, value (d * sc) * q - dmin * m", false,
       false},
      {TensorType::Q3_K, "q3k", "Q3_K", 256, 110, {}, decode_q3k,
       "2-bit codes with their hmask bits, 6-bit scales per 16, value (d * (sc - 32)) * (q - 4)", false, false},
      {TensorType::IQ2_XXS, "iq2xxs", "IQ2_XXS", 256, 66, {{"grid", "u64", "iq2xxs_grid"}, {"ksigns", "u8", "ksigns_iq2xs"}},
       decode_iq2xxs,
       "per 8 elements an 8-bit index gathers one u64 grid entry (8 magnitudes) and a 7-bit code its sign pattern; "
       "sub-scale d * (0.5 + s) * 0.25", false, false},
      {TensorType::IQ2_XS, "iq2xs", "IQ2_XS", 256, 74, {{"grid", "u64", "iq2xs_grid"}, {"ksigns", "u8", "ksigns_iq2xs"}},
       decode_iq2xs,
       "per 8 elements a 9-bit index gathers one u64 grid entry and a 7-bit code its sign pattern; sub-scales "
       "d * (0.5 + s) * 0.25 per 16", false, false},
      {TensorType::IQ1_S, "iq1s", "IQ1_S", 256, 50, {{"grid", "u64", "iq1s_grid"}}, decode_iq1s,
       "per 8 elements an 11-bit index gathers one u64 entry of 8 signed values, value d * (2 s + 1) * (g + delta), "
       "delta +-1/8 per 32", false, false},
      {TensorType::IQ1_M, "iq1m", "IQ1_M", 256, 56, {{"grid", "u64", "iq1s_grid"}}, decode_iq1m,
       "per 8 elements an 11-bit index gathers one u64 entry of 8 signed values with its delta +-1/8, scales d (2 s "
       "+ 1) per 16, d from four nibbles", false, false},
      {TensorType::TQ1_0, "tq1_0", "TQ1_0", 256, 54, {}, decode_tq1_0,
       "five base-3 digits per byte by multiplication, value (t - 1) * d", false, false},
      {TensorType::TQ2_0, "tq2_0", "TQ2_0", 256, 66, {}, decode_tq2_0, "2-bit codes four at a time, value (q - 1) * d",
       false, false},
  };
  return formats;
}

const BlockFormat& block_format(TensorType type) {
  for (const BlockFormat& f : block_formats())
    if (f.type == type) return f;
  throw Error("gguf kernels: no device decoder for tensor type " + quant::type_name(type));
}

}  // namespace k100::kernels::gguf
