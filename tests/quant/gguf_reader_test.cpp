// GgufWriter -> GgufFile round trips: metadata of every value type (nested
// arrays included), tensors of every codec type, versions 2 and 3, custom
// alignment, lookups, partial row decoding, and the writer's own checks.
#include <gtest/gtest.h>

#include "gguf_sample.h"
#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "test_files.h"

namespace k100::quant {
namespace {

void expect_matches_sample(const GgufFile& f, const test::Sample& s, uint32_t version, uint32_t alignment) {
  EXPECT_EQ(f.version(), version);
  EXPECT_EQ(f.alignment(), alignment);
  EXPECT_EQ(f.data_offset() % alignment, 0u);
  // the alignment key comes first when it was set
  const size_t skip = alignment != kGgufDefaultAlignment ? 1 : 0;
  ASSERT_EQ(f.metadata().size(), s.kv.size() + skip);
  if (skip) {
    EXPECT_EQ(f.metadata()[0].key, kGgufAlignmentKey);
  }
  for (size_t i = 0; i < s.kv.size(); ++i) {
    EXPECT_EQ(f.metadata()[i + skip].key, s.kv[i].key);
    EXPECT_TRUE(f.metadata()[i + skip].value == s.kv[i].value) << s.kv[i].key << ": "
                                                                << f.metadata()[i + skip].value.to_string();
  }
  ASSERT_EQ(f.tensors().size(), s.tensors.size());
  for (size_t i = 0; i < s.tensors.size(); ++i) {
    const TensorInfo& t = f.tensors()[i];
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.name, s.tensors[i].name);
    EXPECT_EQ(t.type, s.tensors[i].type);
    EXPECT_EQ(t.dims, s.tensors[i].dims);
    EXPECT_EQ(t.offset % alignment, 0u);
    EXPECT_EQ(t.file_offset, f.data_offset() + t.offset);
    const TensorView v = f.tensor(t);
    EXPECT_EQ(std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()), s.tensors[i].bytes);
  }
}

TEST(GgufRoundTrip, Version3FromAFile) {
  const auto s = test::make_sample(3, kGgufDefaultAlignment, true);
  const std::string path = test::scratch_path("roundtrip_v3.gguf");
  s.writer.write(path);
  const GgufFile f = GgufFile::open(path);
  EXPECT_EQ(f.path(), path);
  expect_matches_sample(f, s, 3, 32);
}

TEST(GgufRoundTrip, Version2WithAlignment64FromMemory) {
  const auto s = test::make_sample(2, 64, true);
  const auto bytes = s.writer.bytes();
  const GgufFile f = GgufFile::parse(bytes, "memory.gguf");
  expect_matches_sample(f, s, 2, 64);
  EXPECT_EQ(f.file_size(), bytes.size());
}

TEST(GgufRoundTrip, AlignmentOneIsAllowed) {
  GgufWriter w;
  w.set_alignment(1);
  const std::vector<float> x = {1, 2, 3};
  w.add_tensor_from_f32("a", TensorType::F32, {3}, x);
  w.add_tensor_from_f32("b", TensorType::F16, {3}, x);
  const auto bytes = w.bytes();
  const GgufFile f = GgufFile::parse(bytes, "a1.gguf");
  EXPECT_EQ(f.alignment(), 1u);
  EXPECT_EQ(f.tensors()[1].offset, 12u);  // packed, no padding
  EXPECT_EQ(f.tensor("b").dequantize(), x);
}

TEST(GgufRoundTrip, EmptyFileHasNoEntries) {
  const auto bytes = GgufWriter().bytes();
  EXPECT_EQ(bytes.size(), 32u);  // header padded to the alignment
  const GgufFile f = GgufFile::parse(bytes, "empty.gguf");
  EXPECT_TRUE(f.metadata().empty());
  EXPECT_TRUE(f.tensors().empty());
}

TEST(GgufRoundTrip, LookupsAndTheirErrorsNameTheKey) {
  const auto s = test::make_sample(3, 32, false);
  const auto bytes = s.writer.bytes();
  const GgufFile f = GgufFile::parse(bytes, "lookups.gguf");
  EXPECT_EQ(f.at("general.architecture").as_string(), "llama");
  EXPECT_EQ(f.at("test.u32").as_u64(), 4000000000u);
  EXPECT_EQ(f.at("test.i8").as_i64(), -100);
  EXPECT_DOUBLE_EQ(f.at("test.f32").as_f64(), double(1.5e-3f));
  EXPECT_EQ(f.at("tokenizer.ggml.tokens").strings().size(), 5u);
  EXPECT_EQ(f.at("tokenizer.ggml.token_type").to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, -4}));
  EXPECT_EQ(f.find("nope"), nullptr);
  EXPECT_EQ(f.find_tensor("nope"), nullptr);
  try {
    f.at("no.such.key");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lookups.gguf: no metadata key 'no.such.key'"), std::string::npos);
  }
  try {
    f.tensor("no.such.tensor");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no tensor 'no.such.tensor'"), std::string::npos);
  }
  // typed access with the wrong type names both types
  try {
    f.at("test.u32").get<float>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("u32, not f32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.at("test.i8").as_u64(), Error);  // negative
  EXPECT_THROW(f.at("general.name").as_f64(), Error);
}

TEST(GgufRoundTrip, RowRangesDecodeLikeTheWholeTensor) {
  const auto s = test::make_sample(3, 32, false);
  const auto bytes = s.writer.bytes();
  const GgufFile f = GgufFile::parse(bytes, "rows.gguf");
  for (const TensorInfo& t : f.tensors()) {
    const TensorView v = f.tensor(t);
    const auto all = v.dequantize();
    ASSERT_EQ(all, dequantize(t.type, s.tensors[size_t(&t - f.tensors().data())].bytes));
    if (v.rows() < 3) continue;
    std::vector<float> part(2 * v.row_elements());
    v.dequantize_rows(1, 2, part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + ptrdiff_t(v.row_elements()))) << t.name;
    EXPECT_THROW(v.dequantize_rows(v.rows() - 1, 2, part.data()), Error);
  }
}

TEST(GgufWriterChecks, RejectsWhatCouldNotBeReadBack) {
  GgufWriter w;
  w.add("a", Value::of(1u));
  EXPECT_THROW(w.add("a", Value::of(2u)), Error);
  EXPECT_THROW(w.add("", Value::of(2u)), Error);
  EXPECT_THROW(w.add(kGgufAlignmentKey, Value::of(uint64_t(64))), Error);  // must be u32
  EXPECT_THROW(w.set_alignment(48), Error);
  EXPECT_THROW(GgufWriter(1), Error);
  EXPECT_THROW(w.add_tensor("t", TensorType::Q4_0, {33}, std::vector<uint8_t>(18)), Error);  // partial block
  EXPECT_THROW(w.add_tensor("t", TensorType::Q4_0, {32}, std::vector<uint8_t>(17)), Error);  // wrong size
  EXPECT_THROW(w.add_tensor("t", TensorType::F32, {1, 1, 1, 1, 1}, std::vector<uint8_t>(4)), Error);
  EXPECT_THROW(w.add_tensor(std::string(64, 'n'), TensorType::F32, {1}, std::vector<uint8_t>(4)), Error);
  w.add_tensor("t", TensorType::F32, {1}, std::vector<uint8_t>(4));
  EXPECT_THROW(w.add_tensor("t", TensorType::F32, {1}, std::vector<uint8_t>(4)), Error);
  EXPECT_THROW(w.add_tensor_from_f32("u", TensorType::Q8_1, {32}, std::vector<float>(32)), Error);  // no codec
  // nine levels of arrays are one too many
  Value v = Value::array(std::span<const uint8_t>());
  for (int i = 0; i < 7; ++i) v = Value::array_of({v});
  w.add("deep8", v);
  EXPECT_THROW(w.add("deep9", Value::array_of({v})), Error);
  EXPECT_THROW(w.write("/nonexistent-dir/x.gguf"), Error);
}

}  // namespace
}  // namespace k100::quant
