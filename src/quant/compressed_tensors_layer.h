// The tensors of one quantised layer of a compressed-tensors checkpoint,
// found and checked by name, dtype and shape (shared by the INT4 and the
// NVFP4 layers).
#pragma once

#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/quant/safetensors_checkpoint.h"

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

}  // namespace k100::quant::detail
