// ggml (llama.cpp's tensor library, from the npm package node-llama-cpp) as a
// test oracle: its dequantisers, quantisers and GGUF reader and writer,
// reached through dlopen of libggml-base.so. scripts/install-llama-oracle.sh
// puts the library into <build>/oracles/llama; K100_GGML_LIB overrides the
// path. The product never links it.
//
// Tests call K100_REQUIRE_GGML(g): without the library the test is skipped
// with the reason, except under CI=true, where it fails.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace k100::test {

class GgmlOracle {
 public:
  // The loaded oracle, or nullptr with the reason in *why.
  static const GgmlOracle* get(std::string* why);

  // The ggml type id of a type name ("q4_K"), -1 when this build has none.
  int type_id(const std::string& name) const;
  int64_t block_size(int type) const;
  size_t type_size(int type) const;
  const char* type_name(int type) const;

  // ggml's reference dequantiser (the type's to_float) and quantisers:
  // from_float_ref (false for the types without one: IQ1_S, IQ1_M, IQ2_XXS,
  // IQ2_XS), and ggml_quantize_chunk, which for those four takes an
  // importance matrix of ones (takes_importance).
  void dequantize(int type, const void* src, float* dst, int64_t n) const;
  bool quantize_ref(int type, const float* src, void* dst, int64_t n) const;
  size_t quantize_chunk(int type, const float* src, void* dst, int64_t nrows, int64_t n_per_row) const;
  bool takes_importance(int type) const;
  float fp16_to_fp32(uint16_t h) const;
  float bf16_to_fp32(uint16_t h) const;
  void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n) const;
  void fp32_to_bf16_row_ref(const float* src, uint16_t* dst, int64_t n) const;

  // ggml's GGUF reader: everything it reports about a file, tensor data
  // included (loaded through its own ggml context).
  struct KeyValue {
    std::string key;
    int type = 0;                        // GGUF value type code
    int array_type = -1;                 // element type for arrays
    std::vector<uint8_t> raw;            // scalar bytes / fixed-size array bytes
    std::vector<std::string> strings;    // a string value, or string array elements
  };
  struct Tensor {
    std::string name;
    int type = 0;
    int64_t ne[4] = {1, 1, 1, 1};
    size_t offset = 0;
    size_t size = 0;
    std::vector<uint8_t> data;
  };
  struct GgufContents {
    uint32_t version = 0;
    size_t alignment = 0;
    size_t data_offset = 0;
    std::vector<KeyValue> kv;
    std::vector<Tensor> tensors;
  };
  // false when ggml refuses the file.
  bool read_gguf(const std::string& path, GgufContents* out) const;

  // ggml's GGUF writer: a file with these scalar/string metadata entries and
  // tensors (data copied in), written by gguf_write_to_file.
  struct WriteTensor {
    std::string name;
    int type;
    std::vector<int64_t> ne;
    std::vector<uint8_t> data;
  };
  bool write_gguf(const std::string& path, const std::vector<std::pair<std::string, uint32_t>>& u32_kv,
                  const std::vector<std::pair<std::string, std::string>>& str_kv,
                  const std::vector<std::pair<std::string, std::vector<float>>>& f32_array_kv,
                  const std::vector<WriteTensor>& tensors) const;

  struct Api;  // the resolved symbols

 private:
  GgmlOracle() = default;
  void* handle_ = nullptr;
  const Api* api_ = nullptr;
};

// True under CI=true: a missing oracle is then a failure, not a skip.
bool oracle_required();

}  // namespace k100::test

#define K100_REQUIRE_GGML(var)                                                                 \
  std::string var##_why;                                                                       \
  const ::k100::test::GgmlOracle* var = ::k100::test::GgmlOracle::get(&var##_why);             \
  if (!var) {                                                                                  \
    if (::k100::test::oracle_required()) FAIL() << "CI=true and the ggml oracle is missing: " << var##_why; \
    GTEST_SKIP() << var##_why;                                                                 \
  }
