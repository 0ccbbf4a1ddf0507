// k100lc quant: writing NumPy .npy files (format version 1.0), so decoded
// tensors can be handed to NumPy (`np.load`) without a Python dependency.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace k100::quant {

// Writes little-endian float32 data with a C-order (row-major) shape;
// k100::Error naming the path when the data does not match the shape or the
// file cannot be written.
void write_npy_f32(const std::string& path, std::span<const float> data, std::span<const uint64_t> shape);

}  // namespace k100::quant
