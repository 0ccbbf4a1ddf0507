// k100lc quant: host-side weight formats (GGUF files, their block codecs).
//
// This header names the tensor data types a GGUF file can hold. The numeric
// ids are the ones llama.cpp/ggml writes into GGUF tensor infos (Q2_0 = 42),
// so a TensorType read from a file is simply its id. Every id ggml defines has
// its block geometry here, so files with types k100lc does not decode can
// still be listed and bounds-checked; `has_host_codec` says which ones the
// host codecs (codec.h) decode and encode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace k100::quant {

enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
  Q2_0 = 42,
};

// Geometry of one type: a row of n elements (n a multiple of block_elems)
// takes n / block_elems * block_bytes bytes.
struct TypeTraits {
  TensorType type;
  const char* name;      // lower case, as ggml prints it ("q4_K", "iq3_xxs", "f32")
  uint32_t block_elems;  // elements per block (1 for plain scalars)
  uint32_t block_bytes;  // bytes per block
  bool has_host_codec;   // dequantize_row / quantize_row support it
};

// The traits of a type id, or nullptr for an id ggml does not define (4, 5,
// 31..33, 36..38 were removed from ggml; ids >= 43 do not exist yet).
const TypeTraits* find_type(uint32_t id);

// The traits of a known type (the enum only holds defined ids).
const TypeTraits& traits(TensorType type);

// Lookup by name, case-insensitive ("Q4_K", "q4_k", "iq4_nl", "BF16").
std::optional<TensorType> type_from_name(std::string_view name);

// "q4_K", or "type 99" for an id that is not defined.
std::string type_name(uint32_t id);
inline std::string type_name(TensorType t) { return traits(t).name; }

// Bytes of a row of n elements; throws k100::Error when n is not a multiple of
// the block size (the message names the type and n).
uint64_t row_bytes(TensorType type, uint64_t n);

// All defined types in id order (for listings and tests).
std::span<const TypeTraits> all_types();

// The types the host codecs handle: the eleven block types of the spec
// (Q4_0, Q8_0, Q2_0, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, IQ2_S, IQ3_S, IQ3_XXS),
// the twelve more that GGUF files use (Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, IQ1_S,
// IQ1_M, IQ2_XXS, IQ2_XS, MXFP4, TQ1_0, TQ2_0), then F32, F16 and BF16.
std::span<const TensorType> host_codec_types();

}  // namespace k100::quant
