// k100lc quant: NVFP4 layers of compressed-tensors "nvfp4-pack-quantized"
// checkpoints (FORMATS.md 5).
//
// A layer `<prefix>` is `<prefix>.weight_packed` U8 [N, K/2] (E2M1 codes,
// even k in the low nibble), `<prefix>.weight_scale` F8_E4M3 [N, K/16] and
// `<prefix>.weight_global_scale` F32 (one element), which the checkpoints
// store as a divisor: w = E2M1 * E4M3 / weight_global_scale, so a kernel's
// multiplier is 1 / weight_global_scale.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/quant/safetensors_checkpoint.h"
#include "k100/quant/w4_formats.h"

namespace k100::quant {

struct Nvfp4Layer {
  std::string prefix;
  int64_t n = 0, k = 0;
  const SafetensorsCheckpoint::Entry* packed = nullptr;
  const SafetensorsCheckpoint::Entry* scale = nullptr;
  const SafetensorsCheckpoint::Entry* global_scale = nullptr;
  W4Matrix matrix;  // kNvfp4 over the mapped bytes, matrix.global = weight_global_scale
  // The GEMV's multiplier (FORMATS.md 5.3 gscale).
  float gscale() const { return 1.0f / matrix.global; }
};

// The layer `prefix`; k100::Error naming the checkpoint and the tensor for a
// missing tensor, a wrong dtype or shape, or a global scale that is not a
// positive finite number.
Nvfp4Layer find_nvfp4_layer(const SafetensorsCheckpoint& c, const std::string& prefix);

// A quantiser for test checkpoints, in the checkpoints' convention:
// global = 448 * 6 / max|w| (1 for an all-zero matrix), block scale =
// E4M3(max|w of the 16| / 6 * global), code = the E2M1 value nearest to
// w * global / scale (the smaller magnitude on a tie).
struct PackedNvfp4 {
  std::vector<uint8_t> packed;  // [n][k/2]
  std::vector<uint8_t> scale;   // E4M3 [n][k/16]
  float global = 1.0f;          // weight_global_scale (a divisor)
};
PackedNvfp4 pack_nvfp4(std::span<const float> w, int64_t n, int64_t k);

}  // namespace k100::quant
