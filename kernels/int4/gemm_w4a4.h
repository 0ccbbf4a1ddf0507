// The W4A4 prefill GEMM (KERNELS.md 3.2): c[M][N] = sum over 128-wide K
// groups g of asc[g][m] * wsc[g][n] * sum_(k in g) qa[m][k] * qw[n][k], both
// operands int4 two's complement packed 8 per u32 (low nibble = smaller k),
// scales f32 group-major. gemm_w4a4 takes its 128 x 64 tile from the
// workgroup ids (x = column block, y = row block); gemm_w4a4_flat from one 1D
// id split by a magic multiplier.
#pragma once

#include "k100/codegen/codegen.h"

namespace k100::kernels::int4 {

enum class GemmGrid { TwoD, Flat };

codegen::Signature gemm_w4a4_signature(GemmGrid grid);
codeobj::CodeObject build_gemm_w4a4(isa::Target target, GemmGrid grid);

// The tile and the workgroup the generator is written for.
inline constexpr int kTileM = 128, kTileN = 64, kGemmThreads = 256, kGemmGroup = 128;

}  // namespace k100::kernels::int4
