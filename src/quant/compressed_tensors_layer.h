// The tensors of one quantised layer of a compressed-tensors checkpoint,
// found and checked by name, dtype and shape (shared by the INT4 and the
// NVFP4 layers).
#pragma once

#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/quant/safetensors_checkpoint.h"
#include "k100/quant/w4_formats.h"

namespace k100::quant::detail {

inline const SafetensorsCheckpoint::Entry& layer_tensor(const SafetensorsCheckpoint& c, const std::string& name,
                                                        SafetensorsDtype dtype, const std::string& what) {
  const SafetensorsCheckpoint::Entry* e = c.find(name);
  if (!e) throw Error(c.origin() + ": tensor '" + name + "' (" + what + ") is missing");
  if (e->tensor->dtype != dtype)
    throw Error(c.origin() + ": tensor '" + name + "' is " + e->tensor->describe() + ", expected dtype " +
                dtype_info(dtype).name + " (" + what + ")");
  return *e;
}

inline void expect_shape(const SafetensorsCheckpoint& c, const SafetensorsCheckpoint::Entry& e,
                         const std::vector<uint64_t>& shape, const std::string& why) {
  if (e.tensor->shape != shape)
    throw Error(c.origin() + ": tensor '" + e.tensor->name + "' is " + e.tensor->describe() + ", expected " +
                format_shape(shape) + " (" + why + ")");
}

// A tensor the layer must not have (a zero point, a group-order permutation).
inline void refuse_tensor(const SafetensorsCheckpoint& c, const std::string& name, const std::string& why) {
  if (c.find(name)) throw Error(c.origin() + ": tensor '" + name + "' is present: " + why);
}

// The layer's matrix over the mapped codes and scales, size-checked.
inline W4Matrix layer_matrix(const SafetensorsCheckpoint& c, const std::string& prefix, const WeightFormat& format,
                             int64_t n, int64_t k, const SafetensorsCheckpoint::Entry& codes,
                             const SafetensorsCheckpoint::Entry& scales, float global = 1.0f) {
  W4Matrix m;
  m.format = &format;
  m.n = n;
  m.k = k;
  m.codes = c.bytes(codes);
  m.scales = c.bytes(scales);
  m.global = global;
  m.check(c.origin() + ": layer '" + prefix + "'");
  return m;
}

}  // namespace k100::quant::detail
