// int4_gemv_k: our fast decode GEMV over compressed-tensors INT4 weights
// (W4A16) exactly as the checkpoint stores them (codes [N][K/8] u32,
// offset-binary; bf16 scales [N][K/128]), for 1..4 activation rows. It is
// the fast GEMVs' skeleton (kernels/gguf/gemv_skeleton.h) over row storage
// with a decoder of this format (int4_w4a16_decoder.cpp).
#pragma once

#include <memory>

#include "gguf/gemv_decoder.h"
#include "k100/kernels/registry.h"

namespace k100::kernels::int4 {

// The skeleton's view of the format: 128-weight blocks, one per group
// (no partial group at any K % 128 = 0), four 4-dword slices, row storage
// with 2-byte scales.
gguf_gemv::GroupShape w4a16_group_shape();
std::unique_ptr<gguf_gemv::GemvDecoder> make_w4a16_decoder();

codegen::Signature int4_gemv_signature();
codeobj::CodeObject build_int4_gemv(isa::Target target);

}  // namespace k100::kernels::int4

namespace k100::kernels {
// The registry entry of int4_gemv_k (registered with the family's other kernels).
KernelDef int4_w4a16_gemv_def();
}  // namespace k100::kernels
