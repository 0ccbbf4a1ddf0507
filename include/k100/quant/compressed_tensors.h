// k100lc quant: compressed-tensors checkpoints (FORMATS.md 2 and 5): the
// `quantization_config` of config.json, and the INT4 group-128 layers of a
// "pack-quantized" checkpoint (NVFP4 layers: nvfp4.h).
//
// A layer `<prefix>` of a pack-quantized checkpoint is three tensors:
// `<prefix>.weight_packed` I32 [N, K/8] (eight offset-binary codes a word,
// low nibble first), `<prefix>.weight_scale` BF16 [N, K/128] and
// `<prefix>.weight_shape` I64 [2] = [N, K]; all three are cross-checked
// before a layer is used. A configuration this package cannot read exactly
// (another method, bit width, group, strategy, zero points, a group-order
// permutation) is refused by name, never approximated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/quant/json_document.h"
#include "k100/quant/safetensors_checkpoint.h"
#include "k100/quant/w4_formats.h"

namespace k100::quant {

enum class CompressedTensorsScheme {
  Int4Group128,  // format "pack-quantized": INT4, group 128, symmetric, BF16 scales
  Nvfp4,         // format "nvfp4-pack-quantized": E2M1, E4M3 scales per 16, f32 global divisor
};

const char* scheme_name(CompressedTensorsScheme s);  // "compressed-tensors INT4 (pack-quantized)", ...

struct QuantizationConfig {
  CompressedTensorsScheme scheme = CompressedTensorsScheme::Int4Group128;
  std::string format;                // "pack-quantized" or "nvfp4-pack-quantized"
  int64_t group_size = 128;
  std::vector<std::string> ignore;   // modules left unquantised ("lm_head", "re:...")
};

// Reads config.json's "quantization_config" object. k100::Error naming
// `where` and the key for any other method, format or variant.
QuantizationConfig read_quantization_config(const JsonObject& qc);

// One INT4 layer of a pack-quantized checkpoint.
struct Int4Layer {
  std::string prefix;  // the tensor names without ".weight_packed"
  int64_t n = 0, k = 0;
  const SafetensorsCheckpoint::Entry* packed = nullptr;
  const SafetensorsCheckpoint::Entry* scale = nullptr;
  const SafetensorsCheckpoint::Entry* shape = nullptr;
  W4Matrix matrix;  // kCompressedTensorsInt4 over the mapped bytes
};

// The layer `prefix`; k100::Error naming the checkpoint and the tensor for a
// missing tensor, a wrong dtype or shape, or weight_shape disagreeing with
// the other two.
Int4Layer find_int4_layer(const SafetensorsCheckpoint& c, const std::string& prefix);
// Every prefix with a ".weight_packed" tensor, in checkpoint order (by name).
std::vector<std::string> packed_layer_prefixes(const SafetensorsCheckpoint& c);

// The test packer of FORMATS.md 2.4: per row and group of 128, scale =
// max|w| / 7 rounded to bf16 (1.0 for an all-zero group), code =
// clip(rint(w / scale) + 8, 0, 15). w is [n][k] f32, k a multiple of 128.
struct PackedInt4 {
  std::vector<int32_t> packed;   // [n][k/8]
  std::vector<uint16_t> scale;   // bf16 [n][k/128]
};
PackedInt4 pack_int4_group128(std::span<const float> w, int64_t n, int64_t k);

}  // namespace k100::quant
