// Which weight block and activation block a work-item of a `*_dot_k` kernel
// takes (KERNELS.md 3.3): the indexing the GGUF dot family and int4_dot_k
// share, from the kernel's arguments nbpr, magic_nbpr, magic_rpe,
// rows_per_w, magic_rpw, ids, x, w and stride.
#pragma once

#include <cstdint>

#include "k100/codegen/codegen.h"

namespace k100::kernels::gguf {

struct DotBlock {
  codegen::VGPR x;      // the activation block: x + (e * nbpr + b) * elems floats
  codegen::VGPR w;      // the weight block: w + ids[ew] * stride + local * block_bytes
  codegen::VGPR slot;   // ids[ew], the weight group's slot
  codegen::VGPR local;  // the block's index in its weight group
};

// Block i: q1 = i / nbpr (weight row), b = i % nbpr, e = q1 / rows_per_exp
// (activation group), ew = q1 / rows_per_w (weight group), local = (q1 - ew
// rows_per_w) nbpr + b, by the magic multipliers (division.h).
DotBlock dot_block(codegen::Kernel& k, codegen::VGPR i, uint32_t elems, uint32_t block_bytes);

}  // namespace k100::kernels::gguf
