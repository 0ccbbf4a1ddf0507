// A GGUF file with every tensor type the host codecs handle and metadata of
// every value type, built by GgufWriter; shared by the reader tests and the
// ggml comparison.
#pragma once

#include <string>
#include <vector>

#include "codec_test_data.h"
#include "k100/quant/codec.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/gguf_writer.h"

namespace k100::test {

struct SampleTensor {
  std::string name;
  quant::TensorType type;
  std::vector<uint64_t> dims;
  std::vector<uint8_t> bytes;
};

struct Sample {
  quant::GgufWriter writer;
  std::vector<quant::KeyValue> kv;  // as added (without general.alignment)
  std::vector<SampleTensor> tensors;
};

// With `nested` the metadata includes arrays of arrays (which ggml's reader
// does not accept).
inline Sample make_sample(uint32_t version, uint32_t alignment, bool nested) {
  using namespace quant;
  Sample s{GgufWriter(version), {}, {}};
  if (alignment != kGgufDefaultAlignment) s.writer.set_alignment(alignment);
  auto add = [&](std::string key, Value v) {
    s.kv.push_back({key, v});
    s.writer.add(std::move(key), std::move(v));
  };
  add("general.architecture", Value::string("llama"));
  add("general.name", Value::string("k100lc sample \xe2\x9c\x93"));
  add("test.u8", Value::of(uint8_t(200)));
  add("test.i8", Value::of(int8_t(-100)));
  add("test.u16", Value::of(uint16_t(60000)));
  add("test.i16", Value::of(int16_t(-30000)));
  add("test.u32", Value::of(uint32_t(4000000000u)));
  add("test.i32", Value::of(int32_t(-2000000000)));
  add("test.f32", Value::of(1.5e-3f));
  add("test.bool", Value::of(true));
  add("test.u64", Value::of(uint64_t(1) << 60));
  add("test.i64", Value::of(int64_t(-1) << 62));
  add("test.f64", Value::of(-2.718281828459045));
  add("test.empty_string", Value::string(""));
  const std::vector<float> scores = {0.0f, -1.0f, 2.5f, 1e30f};
  add("tokenizer.ggml.scores", Value::array(std::span<const float>(scores)));
  const std::vector<int32_t> types = {1, 2, 3, -4};
  add("tokenizer.ggml.token_type", Value::array(std::span<const int32_t>(types)));
  add("tokenizer.ggml.tokens", Value::string_array({"<unk>", "<s>", "</s>", "", "h\xc3\xa9llo"}));
  const std::vector<uint8_t> u8s = {0, 1, 255};
  add("test.u8_array", Value::array(std::span<const uint8_t>(u8s)));
  const std::vector<bool> flags = {true, false, true};
  const std::vector<uint8_t> flag_bytes(flags.begin(), flags.end());
  add("test.bool_array", Value::raw_array(ValueType::Bool, 3, flag_bytes));
  const std::vector<double> f64s = {1.0, -0.0, 1e-300};
  add("test.f64_array", Value::array(std::span<const double>(f64s)));
  const std::vector<int64_t> i64s = {};
  add("test.empty_array", Value::array(std::span<const int64_t>(i64s)));
  if (nested) {
    const std::vector<uint16_t> a = {1, 2}, b = {3};
    add("test.nested", Value::array_of({Value::array(std::span<const uint16_t>(a)), Value::string_array({"x"}),
                                        Value::array_of({Value::array(std::span<const uint16_t>(b))})}));
  }

  // every codec type, in shapes of 1, 2 and 3 dimensions
  uint32_t seed = 100;
  auto add_tensor = [&](std::string name, TensorType t, std::vector<uint64_t> dims) {
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    const auto x = weight_like(n / dims[0], dims[0], seed++);
    SampleTensor st{name, t, dims, quantize(t, x)};
    s.writer.add_tensor(st.name, t, st.dims, st.bytes);
    s.tensors.push_back(std::move(st));
  };
  for (TensorType t : host_codec_types()) {
    const uint64_t row = traits(t).block_elems == 1 ? 96 : 2 * traits(t).block_elems;
    add_tensor("blk.0." + type_name(t) + ".weight", t, {row, 6});
  }
  add_tensor("vec.f32", TensorType::F32, {33});
  add_tensor("cube.q4_K", TensorType::Q4_K, {256, 6, 2});
  add_tensor("cube.iq3_xxs", TensorType::IQ3_XXS, {512, 6, 1, 2});
  return s;
}

}  // namespace k100::test
