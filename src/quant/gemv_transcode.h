// Per-type geometry of the GEMV layout (gemv_layout.h): blocks per group,
// header and slice sizes. The transcoding itself is in gemv_transcode.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "k100/quant/tensor_type.h"

namespace k100::quant::detail {

struct GemvGeometry {
  TensorType type;
  int blocks_per_group, header_dwords, slice_dwords, slices;
};

// nullptr for a type without a GEMV layout.
const GemvGeometry* gemv_geometry(TensorType type);

// Bytes a group buffer needs: the largest group plus the 8 bytes past its end
// that the transcoding's 64-bit loads may read (their contents do not matter).
inline constexpr size_t kGemvGroupBuffer = 2 * 210 + 8;

// The transcoding of gemv_layout.h's encode_gemv_group / decode_gemv_group on
// buffers of kGemvGroupBuffer bytes, without the copies into them: `group`
// holds the G blocks (zeros for missing ones), `lane` the lane dwords.
void encode_padded_group(TensorType type, const uint8_t* group, uint32_t* lane);
void decode_to_padded_group(TensorType type, const uint8_t* lane, uint8_t* group);

}  // namespace k100::quant::detail
