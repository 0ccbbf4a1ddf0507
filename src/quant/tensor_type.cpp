// The table of ggml tensor types: id, name, block geometry. The geometry of
// every id is checked against ggml's own (ggml_blck_size, ggml_type_size) by
// tests/quant/ggml_oracle_test.cpp.
#include "k100/quant/tensor_type.h"

#include <array>
#include <cctype>

#include "k100/base/error.h"

namespace k100::quant {
namespace {

using T = TensorType;

constexpr TypeTraits kTypes[] = {
    {T::F32, "f32", 1, 4, true},
    {T::F16, "f16", 1, 2, true},
    {T::Q4_0, "q4_0", 32, 18, true},
    {T::Q4_1, "q4_1", 32, 20, true},
    {T::Q5_0, "q5_0", 32, 22, true},
    {T::Q5_1, "q5_1", 32, 24, true},
    {T::Q8_0, "q8_0", 32, 34, true},
    {T::Q8_1, "q8_1", 32, 36, false},
    {T::Q2_K, "q2_K", 256, 84, true},
    {T::Q3_K, "q3_K", 256, 110, true},
    {T::Q4_K, "q4_K", 256, 144, true},
    {T::Q5_K, "q5_K", 256, 176, true},
    {T::Q6_K, "q6_K", 256, 210, true},
    {T::Q8_K, "q8_K", 256, 292, false},
    {T::IQ2_XXS, "iq2_xxs", 256, 66, true},
    {T::IQ2_XS, "iq2_xs", 256, 74, true},
    {T::IQ3_XXS, "iq3_xxs", 256, 98, true},
    {T::IQ1_S, "iq1_s", 256, 50, true},
    {T::IQ4_NL, "iq4_nl", 32, 18, true},
    {T::IQ3_S, "iq3_s", 256, 110, true},
    {T::IQ2_S, "iq2_s", 256, 82, true},
    {T::IQ4_XS, "iq4_xs", 256, 136, true},
    {T::I8, "i8", 1, 1, false},
    {T::I16, "i16", 1, 2, false},
    {T::I32, "i32", 1, 4, false},
    {T::I64, "i64", 1, 8, false},
    {T::F64, "f64", 1, 8, false},
    {T::IQ1_M, "iq1_m", 256, 56, true},
    {T::BF16, "bf16", 1, 2, true},
    {T::TQ1_0, "tq1_0", 256, 54, true},
    {T::TQ2_0, "tq2_0", 256, 66, true},
    {T::MXFP4, "mxfp4", 32, 17, true},
    {T::NVFP4, "nvfp4", 64, 36, false},
    {T::Q1_0, "q1_0", 128, 18, false},
    {T::Q2_0, "q2_0", 64, 18, true},
};

constexpr uint32_t kMaxId = 42;

// id -> index into kTypes, -1 for ids ggml does not define
constexpr std::array<int, kMaxId + 1> kIndex = [] {
  std::array<int, kMaxId + 1> a{};
  for (auto& v : a) v = -1;
  for (size_t i = 0; i < std::size(kTypes); ++i) a[uint32_t(kTypes[i].type)] = int(i);
  return a;
}();

constexpr TensorType kHostCodecTypes[] = {
    T::Q4_0,  T::Q8_0,    T::Q2_0,   T::Q4_K,  T::Q5_K,  T::Q6_K,  T::IQ4_NL, T::IQ4_XS,
    T::IQ2_S, T::IQ3_S,   T::IQ3_XXS, T::Q4_1, T::Q5_0,  T::Q5_1,  T::Q2_K,   T::Q3_K,
    T::IQ1_S, T::IQ1_M,   T::IQ2_XXS, T::IQ2_XS, T::MXFP4, T::TQ1_0, T::TQ2_0, T::F32,
    T::F16,   T::BF16,
};

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

const TypeTraits* find_type(uint32_t id) {
  if (id > kMaxId || kIndex[id] < 0) return nullptr;
  return &kTypes[kIndex[id]];
}

const TypeTraits& traits(TensorType type) {
  const TypeTraits* t = find_type(uint32_t(type));
  if (!t) throw Error("tensor type " + std::to_string(uint32_t(type)) + " is not defined");
  return *t;
}

std::optional<TensorType> type_from_name(std::string_view name) {
  for (const TypeTraits& t : kTypes)
    if (iequal(t.name, name)) return t.type;
  return std::nullopt;
}

std::string type_name(uint32_t id) {
  const TypeTraits* t = find_type(id);
  return t ? std::string(t->name) : "type " + std::to_string(id);
}

uint64_t row_bytes(TensorType type, uint64_t n) {
  const TypeTraits& t = traits(type);
  if (n % t.block_elems != 0)
    throw Error(std::string(t.name) + ": " + std::to_string(n) + " elements are not a whole number of " +
                std::to_string(t.block_elems) + "-element blocks");
  return n / t.block_elems * t.block_bytes;
}

std::span<const TypeTraits> all_types() { return kTypes; }

std::span<const TensorType> host_codec_types() { return kHostCodecTypes; }

}  // namespace k100::quant
