// The safetensors reader, writer and sharded checkpoints: files made byte by
// byte here (so any field can be wrong), each broken file a k100::Error
// naming the file and what is wrong with it, never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "k100/base/error.h"
#include "k100/quant/half.h"
#include "k100/quant/safetensors_checkpoint.h"
#include "k100/quant/safetensors_reader.h"
#include "k100/quant/safetensors_writer.h"
#include "test_files.h"

namespace k100::quant {
namespace {

// A file from a header text and data bytes, the header length as given (or
// the real one).
std::vector<uint8_t> raw(const std::string& header, size_t data_bytes, int64_t length = -1) {
  std::vector<uint8_t> b;
  const uint64_t h = length < 0 ? header.size() : uint64_t(length);
  for (int i = 0; i < 8; ++i) b.push_back(uint8_t(h >> (8 * i)));
  b.insert(b.end(), header.begin(), header.end());
  for (size_t i = 0; i < data_bytes; ++i) b.push_back(uint8_t(i * 7 + 1));
  return b;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    SafetensorsFile::parse(bytes, "bad.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(bytes, ...)                                                                   \
  do {                                                                                             \
    const std::string msg_ = error_of(bytes);                                                      \
    ASSERT_FALSE(msg_.empty()) << "parsed without an error";                                       \
    EXPECT_EQ(msg_.rfind("bad.safetensors", 0), 0u) << msg_;                                       \
    for (const char* part : {__VA_ARGS__}) EXPECT_NE(msg_.find(part), std::string::npos) << msg_; \
  } while (0)

const std::string kTwo =
    R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
    R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]}})";

TEST(Safetensors, ReadsTensorsShapesOffsetsAndMetadata) {
  const auto bytes = raw(kTwo, 32);
  const SafetensorsFile f = SafetensorsFile::parse(bytes, "two.safetensors");
  ASSERT_EQ(f.tensors().size(), 2u);
  EXPECT_EQ(f.tensors()[0].name, "a");  // by name
  EXPECT_EQ(f.header_size(), kTwo.size());
  EXPECT_EQ(f.data_offset(), 8 + kTwo.size());
  const SafetensorsTensor& b = f.at("b");
  EXPECT_EQ(b.dtype, SafetensorsDtype::BF16);
  EXPECT_EQ(b.shape, (std::vector<uint64_t>{4}));
  EXPECT_EQ(b.file_offset, 8 + kTwo.size() + 24);
  EXPECT_EQ(f.bytes(b).data(), bytes.data() + 8 + kTwo.size() + 24);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const TensorView v = f.view(f.at("a"));
  EXPECT_EQ(v.type, TensorType::F32);
  EXPECT_EQ(v.dims, (std::vector<uint64_t>{3, 2}));  // GGUF order
  EXPECT_EQ(f.find("c"), nullptr);
  EXPECT_THROW(f.at("c"), Error);
}

TEST(Safetensors, WriterOutputReadsBackWithAlignedData) {
  SafetensorsWriter w;
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};
  const std::vector<uint16_t> b = {f32_to_bf16(1.5f), f32_to_bf16(-2.0f)};
  const std::vector<uint8_t> e4 = {0x38, 0xB8, 0x7E};
  w.add("a", SafetensorsDtype::F32, {2, 3}, {reinterpret_cast<const uint8_t*>(a.data()), 24});
  w.add("b", SafetensorsDtype::BF16, {2}, {reinterpret_cast<const uint8_t*>(b.data()), 4});
  w.add("s", SafetensorsDtype::F8_E4M3, {3}, e4);
  w.add_metadata("format", "pt");
  EXPECT_THROW(w.add("a", SafetensorsDtype::F32, {1}, {reinterpret_cast<const uint8_t*>(a.data()), 4}), Error);
  EXPECT_THROW(w.add("c", SafetensorsDtype::F32, {2}, {reinterpret_cast<const uint8_t*>(a.data()), 4}), Error);
  const auto bytes = w.bytes();
  const SafetensorsFile f = SafetensorsFile::parse(bytes, "w");
  EXPECT_EQ(f.data_offset() % 8, 0u);
  EXPECT_EQ(f.view(f.at("a")).dequantize(), a);
  EXPECT_EQ(f.view(f.at("b")).dequantize(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(std::vector<uint8_t>(f.bytes(f.at("s")).begin(), f.bytes(f.at("s")).end()), e4);
  EXPECT_THROW(f.view(f.at("s")), Error);  // no plain tensor type for FP8
  EXPECT_EQ(f.metadata().at("format"), "pt");
}

TEST(SafetensorsErrors, EveryTruncationIsANamedError) {
  const auto good = raw(kTwo, 32);
  for (size_t n = 0; n < good.size(); ++n) {
    SCOPED_TRACE(n);
    const std::string msg = error_of(std::vector<uint8_t>(good.begin(), good.begin() + ptrdiff_t(n)));
    ASSERT_FALSE(msg.empty());
    const bool named = msg.find("truncated") != std::string::npos || msg.find("past the end") != std::string::npos ||
                       msg.find("belong to no tensor") != std::string::npos;
    EXPECT_TRUE(named) << msg;
  }
}

TEST(SafetensorsErrors, HeaderLengthPastTheEnd) {
  EXPECT_ERROR(raw(kTwo, 32, int64_t(kTwo.size() + 33)), "header length", "past the end");
  EXPECT_ERROR(raw(kTwo, 32, int64_t(1) << 62), "header length", "past the end");
}

TEST(SafetensorsErrors, HeaderThatIsNotJsonOrNotAnObject) {
  EXPECT_ERROR(raw("[1,2]", 0), "does not start with '{'");
  EXPECT_ERROR(raw("{\"a\":", 0), "not valid JSON at byte");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
               "'a' appears twice");
}

TEST(SafetensorsErrors, OffsetsOutOfRangeOverlappingOrLeavingHoles) {
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4), "tensor 'a'", "out of range");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12),
               "'a'", "'b'", "overlap");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8), "[0, 4)", "belong to no tensor");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 8), "[4, 8)", "after the last tensor");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", 8), "tensor 'a'", "not a range");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4), "tensor 'a'", "expected 2");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 4), "tensor 'a'");
}

TEST(SafetensorsErrors, DtypeOrShapeMismatch) {
  EXPECT_ERROR(raw(R"({"a":{"dtype":"BF16","shape":[3],"data_offsets":[0,8]}})", 8), "tensor 'a'", "BF16 [3]",
               "takes 6 bytes", "hold 8", "dtype/shape mismatch");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"Q4","shape":[3],"data_offsets":[0,8]}})", 8), "tensor 'a'", "unknown dtype 'Q4'");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})", 8),
               "tensor 'a'", "64 bits");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4), "negative dimension");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":"2","data_offsets":[0,8]}})", 8), "'a.shape'", "expected an array");
  EXPECT_ERROR(raw(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})", 8), "'a.extra'");
  EXPECT_ERROR(raw(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", 8), "'a.dtype'", "missing");
  EXPECT_ERROR(raw(R"({"__metadata__":{"n":1}})", 0), "__metadata__.n");
}

TEST(SafetensorsErrors, OpeningAMissingFileNamesIt) {
  try {
    SafetensorsFile::open("/nonexistent/x.safetensors");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.safetensors"), std::string::npos);
  }
}

// A sharded checkpoint: two shards and an index, written into `dir`.
void write_shards(const std::string& dir, const std::string& index) {
  std::filesystem::create_directories(dir);
  const std::vector<float> v = {1, 2, 3, 4};
  SafetensorsWriter a, b;
  a.add("x.weight", SafetensorsDtype::F32, {2, 2}, {reinterpret_cast<const uint8_t*>(v.data()), 16});
  b.add("y.weight", SafetensorsDtype::F32, {4}, {reinterpret_cast<const uint8_t*>(v.data()), 16});
  b.add("z.weight", SafetensorsDtype::F32, {1}, {reinterpret_cast<const uint8_t*>(v.data()), 4});
  a.write(dir + "/model-00001-of-00002.safetensors");
  b.write(dir + "/model-00002-of-00002.safetensors");
  const std::string text = index;
  test::write_file(dir + "/model.safetensors.index.json", std::vector<uint8_t>(text.begin(), text.end()));
}

const std::string kIndex =
    R"({"metadata":{"total_size":36},"weight_map":{"x.weight":"model-00001-of-00002.safetensors",)"
    R"("y.weight":"model-00002-of-00002.safetensors","z.weight":"model-00002-of-00002.safetensors"}})";

std::string checkpoint_error(const std::string& dir) {
  try {
    SafetensorsCheckpoint::open(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SafetensorsCheckpoint, ShardedIndexGivesOneSetOfTensors) {
  const std::string dir = test::scratch_path("sharded");
  write_shards(dir, kIndex);
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(dir);
  EXPECT_EQ(c.files().size(), 2u);
  ASSERT_EQ(c.tensors().size(), 3u);
  EXPECT_EQ(c.at("z.weight").file->path(), dir + "/model-00002-of-00002.safetensors");
  EXPECT_EQ(c.total_bytes(), 36u);
  float f;
  std::memcpy(&f, c.bytes(c.at("y.weight")).data() + 4, 4);
  EXPECT_EQ(f, 2.0f);
}

TEST(SafetensorsCheckpoint, IndexAndShardsMustAgree) {
  const std::string dir = test::scratch_path("sharded_bad");
  write_shards(dir, R"({"weight_map":{"x.weight":"model-00002-of-00002.safetensors","y.weight":"model-00002-of-00002.safetensors","z.weight":"model-00002-of-00002.safetensors"}})");
  std::string msg = checkpoint_error(dir);
  EXPECT_NE(msg.find("'x.weight'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not hold it"), std::string::npos) << msg;
  write_shards(dir, R"({"weight_map":{"x.weight":"model-00001-of-00002.safetensors","y.weight":"model-00002-of-00002.safetensors"}})");
  msg = checkpoint_error(dir);
  EXPECT_NE(msg.find("'z.weight'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not in 'weight_map'"), std::string::npos) << msg;
  write_shards(dir, R"({"weight_map":{"x.weight":"../model-00001-of-00002.safetensors"}})");
  msg = checkpoint_error(dir);
  EXPECT_NE(msg.find("not a file name in the index's directory"), std::string::npos) << msg;
  write_shards(dir, R"({"weight_map":{"x.weight":"missing.safetensors"}})");
  msg = checkpoint_error(dir);
  EXPECT_NE(msg.find("missing.safetensors"), std::string::npos) << msg;
  write_shards(dir, R"({"weight_map":[]})");
  msg = checkpoint_error(dir);
  EXPECT_NE(msg.find("'weight_map'"), std::string::npos) << msg;
  EXPECT_NE(checkpoint_error(test::scratch_path("empty_dir_that_is_missing")).find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace k100::quant
