// The GEMV kernel generators (C++ on the codegen layer): each returns the
// code object of one kernel, built from its signature. Registered in
// gemv_kernels.cpp.
#pragma once

#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::kernels::gemv {

// The rows of a group_size-rows-per-workgroup kernel: [id * G, min(nrows,
// id * G + G)), G = group_size (0: the workgroup size, read from the dispatch
// packet like the wave count); workgroups past the rows go to `exit`.
struct GroupRows {
  codegen::SGPR begin, end, waves;
};
GroupRows group_rows(codegen::Kernel& k, codegen::SGPR group_size, codegen::SGPR nrows, codegen::Label exit);

// One wave per output row (grid = nrows, wg = 64).
enum class WaveGemv {
  Plain,     // gemv_f32_warp_k:      y[n]  = sum_k w[n][k] x[k]
  Acc,       // gemv_f32_warp_acc_k:  y[n] += sum_k w[n][k] x[k]
  GatedAcc,  // gemv_f32_gated_acc_k: y[n] += sum_k w[n][k] silu(gate[k]) up[k]
};
codegen::Signature wave_gemv_signature(WaveGemv kind);
codeobj::CodeObject build_wave_gemv(isa::Target target, WaveGemv kind);

// Eight rows per wave, 8 lanes per row.
enum class Rows8Gemv {
  Plain,   // gemv_f32_rows8_k      (grid = ceil(nrows/8), wg = 64)
  Acc,     // gemv_f32_rows8_acc_k
  Split,   // gemv_f32_rows8_split_k (grid = ceil(nrows/8) << sh)
  Groups,  // gemv_f32_k: group_size rows per workgroup, any workgroup size
};
codegen::Signature rows8_gemv_signature(Rows8Gemv kind);
codeobj::CodeObject build_rows8_gemv(isa::Target target, Rows8Gemv kind);

// gemv_i8_k: int8 weights with one f32 scale per 32, group_size rows per
// workgroup, any workgroup size.
codegen::Signature i8_gemv_signature();
codeobj::CodeObject build_i8_gemv(isa::Target target);

}  // namespace k100::kernels::gemv
