// k100lc quant: a tensor's type, shape and bytes, wherever the bytes live (a
// mapped GGUF file, a buffer a test built).
//
// Shapes are in GGUF order: dims[0] is the number of elements in a row (the
// fastest-varying index), dims[1] the number of rows, and so on; a NumPy or
// row-major view of the same tensor has the reversed shape. A view does not
// own its bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/quant/tensor_type.h"

namespace k100::quant {

struct TensorView {
  std::string_view name;
  TensorType type = TensorType::F32;
  std::vector<uint64_t> dims;       // GGUF order, 1 to 4 entries
  std::span<const uint8_t> bytes;   // exactly byte_size() bytes

  uint64_t elements() const;        // product of dims
  uint64_t row_elements() const { return dims.empty() ? 0 : dims[0]; }
  uint64_t rows() const;            // elements / row_elements (1 for an empty shape)
  uint64_t row_size() const;        // bytes of one row
  uint64_t byte_size() const;       // bytes of the whole tensor

  // Decodes rows [first, first + count) into out (count * row_elements
  // floats) with the host codecs; k100::Error for a type without a codec or a
  // range outside the tensor, naming the tensor.
  void dequantize_rows(uint64_t first, uint64_t count, float* out) const;
  std::vector<float> dequantize() const;
};

// Bytes of a tensor of this type and shape; k100::Error when dims[0] is not a
// multiple of the block size or the size overflows 64 bits (naming `what`).
uint64_t tensor_bytes(TensorType type, std::span<const uint64_t> dims, std::string_view what);

// "4096 x 32000" in GGUF order.
std::string format_dims(std::span<const uint64_t> dims);

}  // namespace k100::quant
