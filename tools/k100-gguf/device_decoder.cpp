#include "device_decoder.h"

#include <algorithm>
#include <vector>

#include "k100/base/error.h"
#include "k100/quant/iq_tables.h"

namespace k100::gguf_tool {

namespace {

using quant::TensorType;

// The catalog's decoder of each type (KERNELS.md 3.4 and the package's
// decoders of the other block types and the f16 / bf16 converters) and its lookup tables, in argument
// order. Kernels with a group_size argument take it after nblocks; the
// others index by global id.
struct DecodeKernel {
  TensorType type;
  const char* lookup;
  std::vector<const char*> tables;
  bool group_size;
};

const std::vector<DecodeKernel>& decode_kernels() {
  static const std::vector<DecodeKernel> k = {
      {TensorType::Q4_0, "q4_0_dequant_k", {}, true},
      {TensorType::Q8_0, "q8_0_dequant_k", {}, true},
      {TensorType::Q2_0, "q2_0_dequant_k", {}, true},
      {TensorType::IQ4_NL, "iq4nl_dequant_k", {}, true},
      {TensorType::IQ4_XS, "iq4xs_dequant_k", {}, true},
      {TensorType::Q4_K, "q4k_dequant", {}, false},
      {TensorType::Q5_K, "q5k_dequant", {}, false},
      {TensorType::Q6_K, "q6k_dequant", {}, false},
      {TensorType::IQ2_S, "iq2s_dequant_k", {"iq2s_grid"}, true},
      {TensorType::IQ3_S, "iq3s_dequant_k", {"iq3s_grid"}, true},
      {TensorType::IQ3_XXS, "iq3xxs_dequant_k", {"iq3xxs_grid", "ksigns_iq2xs"}, true},
      {TensorType::Q4_1, "q4_1_dequant_k", {}, true},
      {TensorType::Q5_0, "q5_0_dequant_k", {}, true},
      {TensorType::Q5_1, "q5_1_dequant_k", {}, true},
      {TensorType::MXFP4, "mxfp4_dequant_k", {}, true},
      {TensorType::Q2_K, "q2k_dequant_k", {}, true},
      {TensorType::Q3_K, "q3k_dequant_k", {}, true},
      {TensorType::IQ2_XXS, "iq2xxs_dequant_k", {"iq2xxs_grid", "ksigns_iq2xs"}, true},
      {TensorType::IQ2_XS, "iq2xs_dequant_k", {"iq2xs_grid", "ksigns_iq2xs"}, true},
      {TensorType::IQ1_S, "iq1s_dequant_k", {"iq1s_grid"}, true},
      {TensorType::IQ1_M, "iq1m_dequant_k", {"iq1s_grid"}, true},
      {TensorType::TQ1_0, "tq1_0_dequant_k", {}, true},
      {TensorType::TQ2_0, "tq2_0_dequant_k", {}, true},
      {TensorType::F16, "f16_to_f32_k", {}, false},
      {TensorType::BF16, "bf16_to_f32_k", {}, false},
  };
  return k;
}

const DecodeKernel* find_kernel(TensorType type) {
  for (const DecodeKernel& k : decode_kernels())
    if (k.type == type) return &k;
  return nullptr;
}

constexpr uint64_t kChunkValues = uint64_t(1) << 24;

}  // namespace

uint64_t rows_per_chunk(const quant::TensorView& t) {
  return std::max<uint64_t>(1, kChunkValues / std::max<uint64_t>(1, t.row_elements()));
}

std::string DeviceDecoder::kernel_for(TensorType type) {
  if (type == TensorType::F32) return "device memory copy";
  const DecodeKernel* k = find_kernel(type);
  return k ? k->lookup : "";
}

DeviceDecoder::~DeviceDecoder() {
  try {
    for (const auto& [name, ptr] : tables_) rt_.free(ptr);
    if (in_) rt_.free(in_);
    if (out_) rt_.free(out_);
  } catch (...) {
  }
}

uint64_t DeviceDecoder::table(const std::string& name) {
  auto it = tables_.find(name);
  if (it != tables_.end()) return it->second;
  const auto bytes = quant::table_bytes(name);
  const uint64_t p = rt_.alloc(bytes.size());
  rt_.upload(p, bytes.data(), bytes.size());
  tables_[name] = p;
  return p;
}

void DeviceDecoder::reserve(uint64_t in_bytes, uint64_t out_bytes) {
  if (in_bytes > in_bytes_) {
    if (in_) rt_.free(in_);
    in_ = rt_.alloc(in_bytes);
    in_bytes_ = in_bytes;
  }
  if (out_bytes > out_bytes_) {
    if (out_) rt_.free(out_);
    out_ = rt_.alloc(out_bytes);
    out_bytes_ = out_bytes;
  }
}

void DeviceDecoder::decode_rows(const quant::TensorView& t, uint64_t first, uint64_t count, float* out) {
  if (first > t.rows() || count > t.rows() - first)
    throw Error("tensor '" + std::string(t.name) + "': rows [" + std::to_string(first) + ", " +
                std::to_string(first + count) + ") are outside its " + std::to_string(t.rows()) + " rows");
  const DecodeKernel* k = find_kernel(t.type);
  if (!k && t.type != TensorType::F32)
    throw Error("tensor '" + std::string(t.name) + "': no device decoder for type " + quant::type_name(t.type));
  const quant::TypeTraits& tr = quant::traits(t.type);
  const uint64_t step = rows_per_chunk(t);
  for (uint64_t r = 0; r < count; r += step) {
    const uint64_t rows = std::min(step, count - r);
    const uint64_t values = rows * t.row_elements(), bytes = rows * t.row_size();
    const uint8_t* src = t.bytes.data() + (first + r) * t.row_size();
    float* dst = out + r * t.row_elements();
    if (!values) continue;
    reserve(bytes, values * 4);
    rt_.upload(in_, src, bytes);
    if (k) {
      const uint64_t blocks = values / tr.block_elems;
      std::vector<uint64_t> argv = {in_, out_};
      for (const char* name : k->tables) argv.push_back(table(name));
      argv.push_back(blocks);
      if (k->group_size) argv.push_back(64);
      rt_.launch(k->lookup, uint32_t((blocks + 63) / 64), 64, argv);
      rt_.sync();
      rt_.download(dst, out_, values * 4);
    } else {
      rt_.download(dst, in_, bytes);  // f32: through device memory as it is
    }
  }
}

}  // namespace k100::gguf_tool
