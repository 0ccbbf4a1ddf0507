// k100lc model: a 4-bit weight matrix as a checkpoint holds it (its kind,
// its bytes as a quant::W4Matrix) and the activation paths a 4-bit linear
// layer runs (`--act`); the layer itself is W4Linear (w4_linear.h).
#pragma once

#include <string>
#include <string_view>

#include "k100/quant/w4_formats.h"

namespace k100::model {

enum class W4Kind { CompressedInt4, Nvfp4, Rt4 };
const char* w4_kind_name(W4Kind k);  // "compressed-tensors INT4", "NVFP4", "RT4"

// The activations a 4-bit layer runs with (`--act`). Default: a16 for
// compressed-tensors INT4, a8 for NVFP4 and RT4.
enum class W4Activations { Default, A16, A8, A4 };
const char* w4_activations_name(W4Activations a);  // "a16", ...; "default"
// "a16", "a8", "a4"; k100::Error naming `flag` for another value.
W4Activations parse_w4_activations(std::string_view text, std::string_view flag = "--act");
// The path a kind runs with `a`: the default resolved; k100::Error naming
// both when the format has no such path (`what` names the layer).
W4Activations resolve_w4_activations(W4Kind kind, W4Activations a, const std::string& what);

// One 4-bit matrix of a checkpoint: its format and its bytes (empty spans: a
// shape-only weight, k100-bench model).
struct W4Weight {
  W4Kind kind = W4Kind::CompressedInt4;
  quant::W4Matrix matrix;  // n x k over the source's bytes (kCompressedTensorsInt4, kNvfp4 or kRt4Int4)
  std::string key;         // the checkpoint's name of the layer, for messages
};

}  // namespace k100::model
