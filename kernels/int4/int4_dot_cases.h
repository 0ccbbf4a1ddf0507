// Test cases and host checks of int4_dequant_k and int4_dot_k. The
// reference is the `quant` module's compressed-tensors INT4 description
// (k100/quant/w4_formats.h: W4Matrix over kCompressedTensorsInt4, and
// gemv_reference for the row sums), written independently of the kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "k100/kernels/registry.h"

namespace k100::kernels::int4 {

// Dequantiser: dims words (u32 codes words; blocks = ceil(words / 16) scales),
// wg (= group_size), grid (0: ceil(words / wg)), bits (1: scales are random
// bf16 bit patterns, infinities and NaNs included; 0: finite scales).
std::vector<Case> dequant_cases(bool sweep);
CaseResult run_dequant(TestDevice& dev, const Case& c);

// Dot: dims nbpr (128-weight blocks per row), rows (per weight group), groups,
// slots (weight groups stored, ids a permutation of some of them), shared (1:
// one activation row for all groups, else one per group), pad (bytes between
// weight groups beyond their blocks, a multiple of 64), wg (= group_size).
// Launches int4_dot_k and reduce_blocks_k; partials against double dots over
// W4Matrix::weight, row sums against gemv_reference.
Tolerance dot_tolerance();
std::vector<Case> dot_cases(bool sweep);
Case dot_bench_case();  // 17408 x 5120, M = 1
uint64_t dot_ideal_bytes(const Case& c);
CaseResult run_dot(TestDevice& dev, const Case& c);

}  // namespace k100::kernels::int4
