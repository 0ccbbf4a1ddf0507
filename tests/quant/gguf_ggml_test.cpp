// GGUF files against ggml's own reader and writer: what our writer writes,
// ggml reads back identically (metadata, tensor infos, tensor bytes, decoded
// values); what ggml writes, our reader reads identically; files our reader
// rejects, ggml rejects too.
#include <gtest/gtest.h>

#include <cstring>

#include "ggml_oracle.h"
#include "k100/base/error.h"
#include "gguf_sample.h"
#include "k100/quant/codec.h"
#include "k100/quant/gguf_reader.h"
#include "test_files.h"

namespace k100::quant {
namespace {

using test::GgmlOracle;

void expect_ggml_reads_sample(const GgmlOracle* g, uint32_t version, uint32_t alignment) {
  auto s = test::make_sample(version, alignment, false);
  const std::string path = test::scratch_path("sample_v" + std::to_string(version) + "_a" +
                                              std::to_string(alignment) + ".gguf");
  s.writer.write(path);
  const GgufFile ours = GgufFile::open(path);

  GgmlOracle::GgufContents c;
  ASSERT_TRUE(g->read_gguf(path, &c)) << "ggml refused " << path;
  EXPECT_EQ(c.version, version);
  EXPECT_EQ(c.alignment, alignment);
  EXPECT_EQ(c.data_offset, ours.data_offset());

  // metadata: same keys in the same order, same types, same bytes
  ASSERT_EQ(c.kv.size(), ours.metadata().size());
  for (size_t i = 0; i < c.kv.size(); ++i) {
    const KeyValue& kv = ours.metadata()[i];
    const auto& gk = c.kv[i];
    SCOPED_TRACE(kv.key);
    EXPECT_EQ(gk.key, kv.key);
    ASSERT_EQ(gk.type, int(kv.value.type()));
    if (kv.value.is_array()) {
      ASSERT_EQ(gk.array_type, int(kv.value.array_type()));
      if (kv.value.array_type() == ValueType::String) {
        EXPECT_EQ(gk.strings, kv.value.strings());
      } else {
        const auto b = kv.value.array_bytes();
        EXPECT_EQ(gk.raw, std::vector<uint8_t>(b.begin(), b.end()));
      }
    } else if (kv.value.type() == ValueType::String) {
      ASSERT_EQ(gk.strings.size(), 1u);
      EXPECT_EQ(gk.strings[0], kv.value.as_string());
    } else {
      const auto b = kv.value.scalar_bytes();
      EXPECT_EQ(gk.raw, std::vector<uint8_t>(b.begin(), b.end()));
    }
  }

  // tensors: infos, bytes as ggml loaded them, and ggml's decode of them
  ASSERT_EQ(c.tensors.size(), s.tensors.size());
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const auto& gt = c.tensors[i];
    const auto& st = s.tensors[i];
    SCOPED_TRACE(st.name);
    EXPECT_EQ(gt.name, st.name);
    EXPECT_EQ(gt.type, int(st.type));
    for (size_t d = 0; d < 4; ++d) EXPECT_EQ(gt.ne[d], d < st.dims.size() ? int64_t(st.dims[d]) : 1);
    const TensorInfo* ti = ours.find_tensor(st.name);
    ASSERT_NE(ti, nullptr);
    EXPECT_EQ(gt.offset, ti->offset);
    EXPECT_EQ(gt.size, st.bytes.size());
    ASSERT_EQ(gt.data, st.bytes);
    std::vector<float> theirs(ti->elements);
    g->dequantize(int(st.type), gt.data.data(), theirs.data(), int64_t(theirs.size()));
    const auto mine = ours.tensor(*ti).dequantize();
    EXPECT_EQ(std::memcmp(theirs.data(), mine.data(), mine.size() * 4), 0);
  }
}

TEST(GgufGgml, GgmlReadsOurVersion3File) {
  K100_REQUIRE_GGML(g);
  expect_ggml_reads_sample(g, 3, 32);
}

TEST(GgufGgml, GgmlReadsOurVersion2FileWithAlignment64) {
  K100_REQUIRE_GGML(g);
  expect_ggml_reads_sample(g, 2, 64);
}

TEST(GgufGgml, WeReadWhatGgmlWrites) {
  K100_REQUIRE_GGML(g);
  std::vector<GgmlOracle::WriteTensor> tensors;
  uint32_t seed = 40;
  for (TensorType t : host_codec_types()) {
    const int64_t row = traits(t).block_elems == 1 ? 64 : 2 * int64_t(traits(t).block_elems);
    const auto x = test::weight_like(6, size_t(row), seed++);
    tensors.push_back({"t." + type_name(t), int(t), {row, 3, 2}, quantize(t, x)});
  }
  const std::string path = test::scratch_path("written_by_ggml.gguf");
  ASSERT_TRUE(g->write_gguf(path, {{"test.u32", 77}}, {{"general.name", "from ggml"}},
                            {{"test.scores", {1.0f, -2.0f, 0.5f}}}, tensors));
  const GgufFile f = GgufFile::open(path);
  EXPECT_EQ(f.version(), 3u);
  EXPECT_EQ(f.at("test.u32").get<uint32_t>(), 77u);
  EXPECT_EQ(f.at("general.name").as_string(), "from ggml");
  EXPECT_EQ(f.at("test.scores").to_vector<float>(), (std::vector<float>{1.0f, -2.0f, 0.5f}));
  ASSERT_EQ(f.tensors().size(), tensors.size());
  for (const auto& t : tensors) {
    SCOPED_TRACE(t.name);
    const TensorView v = f.tensor(t.name);
    EXPECT_EQ(int(v.type), t.type);
    EXPECT_EQ(v.dims, (std::vector<uint64_t>{uint64_t(t.ne[0]), 3, 2}));
    ASSERT_EQ(std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()), t.data);
    std::vector<float> theirs(v.elements());
    g->dequantize(t.type, t.data.data(), theirs.data(), int64_t(theirs.size()));
    const auto mine = v.dequantize();
    EXPECT_EQ(std::memcmp(theirs.data(), mine.data(), mine.size() * 4), 0);
  }
}

TEST(GgufGgml, FilesWeRejectGgmlRejectsToo) {
  K100_REQUIRE_GGML(g);
  // one valid 1-tensor file, then broken variants of it
  auto file = [](uint32_t magic, uint32_t version, uint64_t offset, uint64_t data_bytes) {
    test::RawGguf r;
    r.u32(magic).u32(version).u64(1).u64(1).kv_u32("general.alignment", 32);
    r.tensor("w", {32}, 0, offset).pad().fill(size_t(data_bytes));
    return r.b;
  };
  const auto good = file(0x46554747, 3, 0, 128);
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> bad = {
      {"wrong magic", file(0x46554748, 3, 0, 128)},
      {"version 1", file(0x46554747, 1, 0, 128)},
      {"version 4", file(0x46554747, 4, 0, 128)},
      {"misaligned", file(0x46554747, 3, 4, 132)},
      {"out of file", file(0x46554747, 3, 0, 64)},
      {"truncated", std::vector<uint8_t>(good.begin(), good.begin() + 30)},
  };
  const std::string good_path = test::scratch_path("ggml_good.gguf");
  test::write_file(good_path, good);
  GgmlOracle::GgufContents c;
  ASSERT_TRUE(g->read_gguf(good_path, &c));
  EXPECT_NO_THROW(GgufFile::open(good_path));
  for (const auto& [what, bytes] : bad) {
    const std::string path = test::scratch_path("ggml_bad.gguf");
    test::write_file(path, bytes);
    GgmlOracle::GgufContents ignored;
    EXPECT_FALSE(g->read_gguf(path, &ignored)) << what;
    EXPECT_THROW(GgufFile::open(path), Error) << what;
  }
}

}  // namespace
}  // namespace k100::quant
