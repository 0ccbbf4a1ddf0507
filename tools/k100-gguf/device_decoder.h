// Decoding GGUF tensors on the runtime's device (the emulator without a DCU,
// the DCU with one) with the kernel catalog's decoders: the `*_dequant_k`,
// `q4k_dequant`-style and f16 / bf16 converter kernels, launched by lookup
// name. The i-quant tables are uploaded once per decoder. F32 tensors need no
// decoding; they are copied through device memory so every type takes the
// same path.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "k100/quant/tensor_view.h"
#include "k100/runtime/runtime.h"

namespace k100::gguf_tool {

class DeviceDecoder {
 public:
  explicit DeviceDecoder(runtime::Runtime& rt) : rt_(rt) {}
  ~DeviceDecoder();
  DeviceDecoder(const DeviceDecoder&) = delete;
  DeviceDecoder& operator=(const DeviceDecoder&) = delete;

  // The kernel that decodes a type on the device ("device memory copy" for
  // F32), or "" when there is none.
  static std::string kernel_for(quant::TensorType type);

  // Decodes rows [first, first + count) of the tensor into out (count *
  // row_elements floats), in launches of at most 16 Mi values.
  void decode_rows(const quant::TensorView& t, uint64_t first, uint64_t count, float* out);

  std::string backend() const { return rt_.backend_name(); }

 private:
  uint64_t table(const std::string& name);
  void reserve(uint64_t in_bytes, uint64_t out_bytes);

  runtime::Runtime& rt_;
  std::map<std::string, uint64_t> tables_;
  uint64_t in_ = 0, out_ = 0, in_bytes_ = 0, out_bytes_ = 0;
};

// Rows of a tensor decoded per chunk (at most 16 Mi values at a time).
uint64_t rows_per_chunk(const quant::TensorView& t);

}  // namespace k100::gguf_tool
