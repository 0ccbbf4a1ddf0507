// Broken GGUF files: each must be a k100::Error whose message names the
// file, the offending key or tensor and the byte offset, never a crash or
// an allocation sized by a corrupt count.
#include <gtest/gtest.h>

#include <algorithm>

#include "gguf_sample.h"
#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "test_files.h"

namespace k100::quant {
namespace {

using test::RawGguf;

// The message of parsing `bytes`, or "" when it parsed.
std::string error_of(const std::vector<uint8_t>& bytes, const std::string& name = "bad.gguf") {
  try {
    GgufFile::parse(bytes, name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(bytes, ...)                                                            \
  do {                                                                                      \
    const std::string msg_ = error_of(bytes);                                               \
    ASSERT_FALSE(msg_.empty()) << "parsed without an error";                                \
    EXPECT_EQ(msg_.rfind("bad.gguf: ", 0), 0u) << msg_;                                     \
    for (const char* part : {__VA_ARGS__}) EXPECT_NE(msg_.find(part), std::string::npos) << msg_; \
  } while (0)

// A valid file: one u32 key, two f32 tensors of 8 elements.
RawGguf valid() {
  RawGguf r;
  r.header(2, 1).kv_u32("k", 7).tensor("a", {8}, 0, 0).tensor("b", {8}, 0, 32).pad().fill(64, 1);
  return r;
}

TEST(GgufErrors, TheValidBaseParses) { EXPECT_EQ(error_of(valid().b), ""); }

TEST(GgufErrors, EveryTruncationIsANamedError) {
  const auto good = valid().b;
  for (size_t n = 0; n < good.size(); ++n) {
    SCOPED_TRACE(n);
    const std::vector<uint8_t> cut(good.begin(), good.begin() + ptrdiff_t(n));
    const std::string msg = error_of(cut);
    ASSERT_FALSE(msg.empty());
    EXPECT_EQ(msg.rfind("bad.gguf: ", 0), 0u) << msg;
    const bool named = msg.find("truncated") != std::string::npos || msg.find("past the end") != std::string::npos ||
                       msg.find("too short") != std::string::npos || msg.find("cannot fit") != std::string::npos ||
                       msg.find("longer than") != std::string::npos;
    EXPECT_TRUE(named) << msg;
  }
}

TEST(GgufErrors, TruncatedMidKeyNamesTheKeyAndOffset) {
  auto r = RawGguf().header(0, 2).kv_u32("first", 1).str("second").u32(4);  // the value is missing
  r.fill(16);  // room for the header's count check; then cut right after the type
  r.b.resize(r.b.size() - 16);
  EXPECT_ERROR(r.b, "key 'second'", "truncated", "byte ");
}

TEST(GgufErrors, WrongMagic) {
  auto r = valid();
  r.b[0] = 'X';
  EXPECT_ERROR(r.b, "byte 0:", "not a GGUF file", "'XGUF'");
}

TEST(GgufErrors, WrongVersions) {
  for (uint32_t v : {0u, 1u, 4u, 0x03000000u}) {
    auto r = valid();
    std::memcpy(r.b.data() + 4, &v, 4);
    const std::string msg = error_of(r.b);
    EXPECT_NE(msg.find("byte 4:"), std::string::npos) << msg;
    const std::string want = v == 0x03000000u ? "big-endian"
                             : v == 1         ? "version 1 is not supported"
                                              : "unsupported GGUF version " + std::to_string(v);
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
}

TEST(GgufErrors, HugeCounts) {
  for (uint64_t n : {uint64_t(1) << 40, ~uint64_t(0), uint64_t(1000)}) {
    auto r = valid();
    std::memcpy(r.b.data() + 8, &n, 8);  // tensor count
    EXPECT_ERROR(r.b, "byte 8:", "tensor count", "cannot fit");
    r = valid();
    std::memcpy(r.b.data() + 16, &n, 8);  // metadata count
    EXPECT_ERROR(r.b, "byte 16:", "metadata count", "cannot fit");
  }
  // an array count and a string length beyond the file
  auto arr = RawGguf().header(0, 1).str("tokens").u32(9).u32(8).u64(uint64_t(1) << 50);
  arr.fill(64);
  EXPECT_ERROR(arr.b, "key 'tokens'", "array of 1125899906842624 string elements", "cannot fit");
  auto str = RawGguf().header(0, 1).str("name").u32(8).u64(uint64_t(1) << 62);
  str.fill(64);
  EXPECT_ERROR(str.b, "key 'name'", "longer than");
  auto key = RawGguf().header(0, 1).u64(~uint64_t(0));
  key.fill(64);
  EXPECT_ERROR(key.b, "metadata key 0", "byte 24:", "longer than");
}

TEST(GgufErrors, MisalignedTensor) {
  auto r = RawGguf().header(2, 0).tensor("a", {8}, 0, 0).tensor("b.weight", {8}, 0, 36).pad().fill(96);
  EXPECT_ERROR(r.b, "tensor 'b.weight'", "data offset 36", "misaligned", "byte ");
}

TEST(GgufErrors, OverlappingTensors) {
  auto r = RawGguf().header(2, 0).tensor("a", {16}, 0, 0).tensor("b", {8}, 0, 32).pad().fill(128);
  EXPECT_ERROR(r.b, "tensors 'a'", "'b'", "overlap");
  auto same = RawGguf().header(2, 0).tensor("a", {8}, 0, 64).tensor("b", {8}, 0, 64).pad().fill(128);
  EXPECT_ERROR(same.b, "overlap");
}

TEST(GgufErrors, OutOfFileTensors) {
  auto end = RawGguf().header(1, 0).tensor("w", {8}, 0, 32).pad().fill(40);  // 32 + 32 bytes > 40
  EXPECT_ERROR(end.b, "tensor 'w'", "past the end of the file");
  auto start = RawGguf().header(1, 0).tensor("w", {8}, 0, uint64_t(1) << 62).pad().fill(64);
  EXPECT_ERROR(start.b, "tensor 'w'", "starts past the end of the file");
  auto wrap = RawGguf().header(1, 0).tensor("w", {8}, 0, ~uint64_t(31)).pad().fill(64);  // offset + size wraps
  EXPECT_ERROR(wrap.b, "tensor 'w'", "past the end of the file");
  auto huge = RawGguf().header(1, 0).tensor("w", {uint64_t(1) << 40, uint64_t(1) << 30}, 0, 0).pad().fill(64);
  EXPECT_ERROR(huge.b, "tensor 'w'", "too large");
}

TEST(GgufErrors, BadTensorInfos) {
  EXPECT_ERROR(RawGguf().header(1, 0).tensor("w", {8}, 99, 0).pad().fill(64).b, "tensor 'w'",
               "unknown tensor type 99");
  EXPECT_ERROR(RawGguf().header(1, 0).tensor("w", {8, 1, 1, 1, 1}, 0, 0).pad().fill(64).b, "tensor 'w'",
               "5 dimensions");
  EXPECT_ERROR(RawGguf().header(1, 0).tensor("w", {}, 0, 0).pad().fill(64).b, "0 dimensions");
  EXPECT_ERROR(RawGguf().header(1, 0).tensor("w", {48}, 12, 0).pad().fill(512).b, "tensor 'w'",
               "multiple of 256");
  EXPECT_ERROR(RawGguf().header(1, 0).tensor("w", {~uint64_t(0)}, 0, 0).pad().fill(64).b, "over 2^63");
  EXPECT_ERROR(RawGguf().header(2, 0).tensor("w", {8}, 0, 0).tensor("w", {8}, 0, 32).pad().fill(64).b,
               "tensor 'w' appears twice");
}

TEST(GgufErrors, BadMetadata) {
  EXPECT_ERROR(RawGguf().header(0, 2).kv_u32("k", 1).kv_u32("k", 2).fill(32).b, "key 'k' appears twice");
  EXPECT_ERROR(RawGguf().header(0, 1).kv_u32("", 1).fill(32).b, "metadata key 0 is empty");
  EXPECT_ERROR(RawGguf().header(0, 1).str("k").u32(13).u32(0).fill(32).b, "key 'k'", "unknown value type 13");
  EXPECT_ERROR(RawGguf().header(0, 1).str("k").u32(7).u8(2).fill(32).b, "key 'k'", "bool value 2");
  EXPECT_ERROR(RawGguf().header(0, 1).str("k").u32(9).u32(7).u64(2).u8(1).u8(5).fill(32).b, "key 'k' element 1",
               "bool value 5");
  EXPECT_ERROR(RawGguf().header(0, 1).str("k").u32(9).u32(42).u64(0).fill(32).b, "unknown array element type 42");
  EXPECT_ERROR(RawGguf().header(0, 1).kv_u32("general.alignment", 48).fill(32).b, "general.alignment",
               "not a power of two");
  EXPECT_ERROR(RawGguf().header(0, 1).kv_u32("general.alignment", 0).fill(32).b, "not a power of two");
  EXPECT_ERROR(RawGguf().header(0, 1).str("general.alignment").u32(10).u64(32).fill(32).b,
               "general.alignment", "must be a u32");
  // arrays nested 9 deep
  RawGguf deep;
  deep.header(0, 1).str("deep").u32(9);
  for (int i = 0; i < 9; ++i) deep.u32(9).u64(1);
  deep.u32(0).u64(0).fill(64);
  EXPECT_ERROR(deep.b, "key 'deep' element 0", "nested deeper than 8");
}

TEST(GgufErrors, OpenNamesThePathAndTheReason) {
  try {
    GgufFile::open("/nonexistent/model.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.gguf: cannot open"), std::string::npos) << e.what();
  }
  const std::string empty = test::scratch_path("empty.gguf");
  test::write_file(empty, {});
  try {
    GgufFile::open(empty);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("too short"), std::string::npos) << e.what();
  }
  EXPECT_THROW(GgufFile::open(std::filesystem::temp_directory_path().string()), Error);  // a directory
}

TEST(GgufErrors, SingleByteCorruptionsParseConsistentlyOrFailNamed) {
  // flip bits in every header, metadata and tensor-info byte of a real
  // sample: each variant is either an Error naming the file, or a file whose
  // tensors are aligned, inside it and disjoint
  const auto s = test::make_sample(3, 32, true);
  const auto good = s.writer.bytes();
  const GgufFile f = GgufFile::parse(good, "sample.gguf");
  size_t errors = 0, parsed = 0;
  for (size_t i = 0; i < f.data_offset(); ++i) {
    for (uint8_t x : {uint8_t(0xff), uint8_t(0x80), uint8_t(0x01)}) {
      auto bad = good;
      bad[i] ^= x;
      try {
        const GgufFile g = GgufFile::parse(bad, "bad.gguf");
        ++parsed;
        uint64_t end = 0;
        std::vector<std::pair<uint64_t, uint64_t>> spans;
        for (const TensorInfo& t : g.tensors()) {
          ASSERT_EQ(t.offset % g.alignment(), 0u) << "byte " << i;
          ASSERT_LE(t.file_offset + t.size, bad.size()) << "byte " << i;
          if (t.size) spans.push_back({t.file_offset, t.file_offset + t.size});
        }
        std::sort(spans.begin(), spans.end());
        for (const auto& [a, b] : spans) {
          ASSERT_GE(a, end) << "byte " << i;
          end = b;
        }
      } catch (const Error& e) {
        ++errors;
        ASSERT_EQ(std::string(e.what()).rfind("bad.gguf: ", 0), 0u) << e.what();
      }
    }
  }
  EXPECT_GT(errors, 0u);
  EXPECT_GT(parsed, 0u);  // e.g. flipped bits inside string contents
}

TEST(GgufErrors, FuzzerFindingsStayFixed) {
  // inputs that once crashed the fuzz target: parse, check and decode them
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(K100_SOURCE_DIR) + "/tests/fuzz/regressions")) {
    if (e.path().filename().string().rfind("gguf_reader_", 0) != 0) continue;
    ++n;
    std::ifstream in(e.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      const GgufFile f = GgufFile::parse(bytes, e.path().string());
      for (const TensorInfo& t : f.tensors()) {
        if (traits(t.type).has_host_codec) {
          EXPECT_EQ(f.tensor(t).dequantize().size(), t.elements);
        }
      }
    } catch (const Error& err) {
      EXPECT_EQ(std::string(err.what()).rfind(e.path().string() + ": ", 0), 0u) << err.what();
    }
  }
  EXPECT_GT(n, 0u);
}

}  // namespace
}  // namespace k100::quant
