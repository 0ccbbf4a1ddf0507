// Per-type geometry of the GEMV layout (gemv_layout.h): blocks per group,
// header and slice sizes. The transcoding itself is in gemv_transcode.cpp.
#pragma once

#include "k100/quant/tensor_type.h"

namespace k100::quant::detail {

struct GemvGeometry {
  TensorType type;
  int blocks_per_group, header_dwords, slice_dwords, slices;
};

// nullptr for a type without a GEMV layout.
const GemvGeometry* gemv_geometry(TensorType type);

}  // namespace k100::quant::detail
