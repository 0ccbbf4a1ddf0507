// The C ABI (libk100_quant.so): the same answers as the C++ API, error codes
// and messages for bad arguments, from C++ and from a C99 caller.
#include <gtest/gtest.h>

#include <cstring>

#include "gguf_sample.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/iq_tables.h"
#include "k100/quant/k100_quant.h"
#include "test_files.h"

extern "C" int c_caller_summary(const char* path, const char* key, char* text, size_t text_size, int64_t* tensors,
                                double* sum);

namespace k100::quant {
namespace {

std::string sample_file() {
  static const std::string path = [] {
    const std::string p = test::scratch_path("c_api_sample.gguf");
    test::make_sample(3, 32, true).writer.write(p);
    return p;
  }();
  return path;
}

struct File {
  k100q_file* f = nullptr;
  explicit File(const std::string& path) { EXPECT_EQ(k100q_open(path.c_str(), &f), 0) << k100q_last_error(); }
  ~File() { k100q_close(f); }
};

TEST(CApi, FileAndTensorInfosMatchTheCppReader) {
  const GgufFile cpp = GgufFile::open(sample_file());
  File c(sample_file());
  ASSERT_NE(c.f, nullptr);
  EXPECT_EQ(k100q_version(c.f), 3u);
  EXPECT_EQ(k100q_alignment(c.f), 32u);
  EXPECT_EQ(k100q_data_offset(c.f), cpp.data_offset());
  EXPECT_EQ(k100q_file_size(c.f), cpp.file_size());
  ASSERT_EQ(k100q_tensor_count(c.f), int64_t(cpp.tensors().size()));
  for (size_t i = 0; i < cpp.tensors().size(); ++i) {
    const TensorInfo& t = cpp.tensors()[i];
    k100q_tensor_info info{};
    ASSERT_EQ(k100q_tensor_info_at(c.f, int64_t(i), &info), 0);
    EXPECT_STREQ(info.name, t.name.c_str());
    EXPECT_EQ(info.type, uint32_t(t.type));
    EXPECT_EQ(info.n_dims, t.dims.size());
    for (size_t d = 0; d < 4; ++d) EXPECT_EQ(info.dims[d], d < t.dims.size() ? t.dims[d] : 1);
    EXPECT_EQ(info.file_offset, t.file_offset);
    EXPECT_EQ(info.size, t.size);
    EXPECT_EQ(k100q_find_tensor(c.f, t.name.c_str()), int64_t(i));
    const void* data = nullptr;
    uint64_t bytes = 0;
    ASSERT_EQ(k100q_tensor_data(c.f, int64_t(i), &data, &bytes), 0);
    EXPECT_EQ(bytes, t.size);
    const auto expect = cpp.tensor(t).dequantize();
    std::vector<float> got(t.elements);
    ASSERT_EQ(k100q_tensor_dequantize_rows(c.f, int64_t(i), 0, t.elements / t.dims[0], got.data(), got.size()), 0)
        << k100q_last_error();
    EXPECT_EQ(got, expect);
  }
  EXPECT_EQ(k100q_find_tensor(c.f, "nope"), -1);
}

TEST(CApi, MetadataValuesMatchTheCppReader) {
  const GgufFile cpp = GgufFile::open(sample_file());
  File c(sample_file());
  ASSERT_EQ(k100q_kv_count(c.f), int64_t(cpp.metadata().size()));
  for (size_t i = 0; i < cpp.metadata().size(); ++i) {
    const KeyValue& kv = cpp.metadata()[i];
    const char* key = nullptr;
    const k100q_value* v = k100q_kv(c.f, int64_t(i), &key);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(key, kv.key.c_str());
    EXPECT_EQ(k100q_find_kv(c.f, kv.key.c_str()), int64_t(i));
    ASSERT_EQ(k100q_value_type(v), int(kv.value.type()));
    if (kv.value.type() == ValueType::String) {
      const char* s = nullptr;
      uint64_t n = 0;
      ASSERT_EQ(k100q_value_string(v, &s, &n), 0);
      EXPECT_EQ(std::string(s, n), kv.value.as_string());
    } else if (!kv.value.is_array()) {
      uint8_t buf[8] = {};
      const int n = k100q_value_scalar(v, buf, sizeof buf);
      ASSERT_GT(n, 0);
      EXPECT_EQ(0, std::memcmp(buf, kv.value.scalar_bytes().data(), size_t(n)));
    } else {
      int elem = -1;
      uint64_t count = 0;
      ASSERT_EQ(k100q_value_array(v, &elem, &count), 0);
      EXPECT_EQ(elem, int(kv.value.array_type()));
      EXPECT_EQ(count, kv.value.size());
      if (kv.value.array_type() == ValueType::String) {
        for (uint64_t j = 0; j < count; ++j) {
          const char* s = nullptr;
          uint64_t n = 0;
          ASSERT_EQ(k100q_value_array_string(v, j, &s, &n), 0);
          EXPECT_EQ(std::string(s, n), kv.value.strings()[j]);
        }
      } else if (kv.value.array_type() == ValueType::Array) {
        for (uint64_t j = 0; j < count; ++j) {
          const k100q_value* item = k100q_value_array_item(v, j);
          ASSERT_NE(item, nullptr);
          EXPECT_EQ(k100q_value_type(item), int(ValueType::Array));
        }
        EXPECT_EQ(k100q_value_array_item(v, count), nullptr);
      } else {
        const void* data = nullptr;
        uint64_t bytes = 0;
        ASSERT_EQ(k100q_value_array_data(v, &data, &bytes), 0);
        ASSERT_EQ(bytes, kv.value.array_bytes().size());
        if (bytes) {
          EXPECT_EQ(0, std::memcmp(data, kv.value.array_bytes().data(), bytes));
        }
      }
    }
  }
}

TEST(CApi, ErrorsAreCodesWithMessages) {
  k100q_file* f = nullptr;
  EXPECT_EQ(k100q_open("/nonexistent.gguf", &f), K100Q_ERR);
  EXPECT_EQ(f, nullptr);
  EXPECT_NE(std::string(k100q_last_error()).find("/nonexistent.gguf: cannot open"), std::string::npos);
  EXPECT_EQ(k100q_open(nullptr, &f), K100Q_ERR_ARG);
  File c(sample_file());
  EXPECT_EQ(k100q_kv(c.f, 9999, nullptr), nullptr);
  EXPECT_NE(std::string(k100q_last_error()).find("no metadata entry 9999"), std::string::npos);
  k100q_tensor_info info;
  EXPECT_EQ(k100q_tensor_info_at(c.f, -1, &info), K100Q_ERR_ARG);
  float out[4];
  EXPECT_EQ(k100q_tensor_dequantize_rows(c.f, 0, 0, 1, out, 4), K100Q_ERR_ARG);  // a row is longer than 4
  EXPECT_EQ(k100q_tensor_dequantize_rows(c.f, 0, 1000, 1, nullptr, 0), K100Q_ERR_ARG);
  // a string value asked for as a scalar
  const k100q_value* arch = k100q_kv(c.f, k100q_find_kv(c.f, "general.architecture"), nullptr);
  uint8_t buf[8];
  EXPECT_EQ(k100q_value_scalar(arch, buf, sizeof buf), K100Q_ERR);
  EXPECT_NE(std::string(k100q_last_error()).find("string"), std::string::npos);
  EXPECT_EQ(k100q_value_scalar(nullptr, buf, sizeof buf), K100Q_ERR_ARG);
}

TEST(CApi, CodecsTypesAndTables) {
  const char* name = nullptr;
  uint32_t elems = 0, bytes = 0;
  int codec = 0;
  ASSERT_EQ(k100q_type_info(42, &name, &elems, &bytes, &codec), 0);
  EXPECT_STREQ(name, "q2_0");
  EXPECT_EQ(elems, 64u);
  EXPECT_EQ(bytes, 18u);
  EXPECT_EQ(codec, 1);
  EXPECT_EQ(k100q_type_info(4, nullptr, nullptr, nullptr, nullptr), K100Q_ERR_ARG);
  EXPECT_EQ(k100q_type_from_name("Q4_K"), 12);
  EXPECT_EQ(k100q_type_from_name("q9_9"), K100Q_ERR_ARG);
  EXPECT_EQ(k100q_row_bytes(12, 512), 288);
  EXPECT_EQ(k100q_row_bytes(12, 100), K100Q_ERR_ARG);

  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(float(i));
  std::vector<uint8_t> q(144);
  ASSERT_EQ(k100q_quantize(12, x.data(), 256, q.data(), q.size()), 0);
  EXPECT_EQ(q, quantize(TensorType::Q4_K, x));
  std::vector<float> y(256);
  ASSERT_EQ(k100q_dequantize(12, q.data(), q.size(), y.data(), 256), 0);
  EXPECT_EQ(y, dequantize(TensorType::Q4_K, q));
  EXPECT_EQ(k100q_dequantize(12, q.data(), 100, y.data(), 256), K100Q_ERR_ARG);  // buffer too small
  EXPECT_EQ(k100q_dequantize(9, q.data(), q.size(), y.data(), 32), K100Q_ERR_NOCODEC);
  EXPECT_NE(std::string(k100q_last_error()).find("q8_1"), std::string::npos);

  for (std::string_view t : table_names()) {
    const void* data = nullptr;
    uint64_t n = 0;
    ASSERT_EQ(k100q_table(std::string(t).c_str(), &data, &n), 0);
    EXPECT_EQ(n, table_bytes(t).size());
    EXPECT_EQ(0, std::memcmp(data, table_bytes(t).data(), n));
  }
  const void* data = nullptr;
  uint64_t n = 0;
  EXPECT_EQ(k100q_table("nope", &data, &n), K100Q_ERR_ARG);
}

TEST(CApi, APlainCCallerGetsTheSameSums) {
  char text[256];
  int64_t tensors = 0;
  double sum = 0.0;
  ASSERT_EQ(c_caller_summary(sample_file().c_str(), "general.architecture", text, sizeof text, &tensors, &sum), 0)
      << text;
  EXPECT_STREQ(text, "llama");
  const GgufFile cpp = GgufFile::open(sample_file());
  EXPECT_EQ(tensors, int64_t(cpp.tensors().size()));
  double expect = 0.0;
  for (const TensorInfo& t : cpp.tensors())
    for (float v : cpp.tensor(t).dequantize()) expect += v;
  EXPECT_EQ(sum, expect);
  EXPECT_LT(c_caller_summary("/nonexistent.gguf", "k", text, sizeof text, &tensors, &sum), 0);
  EXPECT_NE(std::string(text).find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace k100::quant
