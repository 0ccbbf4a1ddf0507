// The GGUF kernels' test cases and host references. The reference decoder is
// a parameter: the registry's self-test passes the `quant` module's host
// codecs, the oracle test (tests/kernels/gguf_ggml_test.cpp) passes ggml's
// own dequantisers, so both compare the same device runs against an
// independent decode.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "gguf/block_codec.h"
#include "k100/kernels/registry.h"

namespace k100::kernels::gguf {

// Decodes n elements of `type` from `src` (whole blocks) into dst.
using Dequantizer = std::function<void(quant::TensorType type, const uint8_t* src, float* dst, int64_t n)>;
const Dequantizer& host_codecs();

// Tolerances stated for the kernels (docs and self-test).
Tolerance dot_tolerance();

// `count` blocks of random bytes; with `finite_scales` every f16 scale field
// is a random finite value of moderate size, else the scales stay random
// bits (infinities, NaNs, subnormals).
std::vector<uint8_t> random_blocks(const BlockFormat& f, size_t count, uint32_t seed, bool finite_scales);
// `count` blocks of Gaussian values (sigma 1, 1 % outliers x 4) encoded by the
// host quantiser, so decoded weights are of order 1.
std::vector<uint8_t> quantised_blocks(const BlockFormat& f, size_t count, uint32_t seed);

// Decoders: dims nblocks, wg (= group_size), grid (0: ceil(nblocks / wg)),
// offset (bytes before the first block: misaligned blocks), bits (1: random
// scale bits, 2: quantised blocks, 0: random blocks with finite scales).
std::vector<Case> dequant_cases(bool sweep);
// Decodes whole blocks with the type's decoder kernel, the blocks stored
// `offset` bytes into their buffer (grid 0: ceil(blocks / wg)); the values,
// and the check that nothing was written past them.
struct DeviceDecode {
  std::vector<float> values;
  CaseResult guard;
};
DeviceDecode decode_blocks(TestDevice& dev, const BlockFormat& f, const std::vector<uint8_t>& blocks, int64_t offset,
                           int64_t wg, uint32_t grid);
CaseResult run_dequant(TestDevice& dev, const BlockFormat& f, const Case& c, const Dequantizer& ref);
// iq4nl_to_i8_k: the int8 codes times the scale against the reference decode,
// bit for bit, and the codes against the codebook.
CaseResult run_iq4nl_to_i8(TestDevice& dev, const Case& c, const Dequantizer& ref);

// Dot products: dims nbpr, rows (rows per weight group), groups (weight
// groups), slots (weight groups stored, >= groups, ids a permutation of some
// of them), shared (1: one activation row for all groups, else one per
// group), pad (bytes between weight groups beyond their blocks), wg
// (= group_size), grid (0: ceil(nblocks / wg)). Launches the dot kernel and
// reduce_blocks_k and compares partials and row sums with double-precision
// dots over the reference decode.
std::vector<Case> dot_cases(const BlockFormat& f, bool sweep);
Case dot_bench_case(const BlockFormat& f);  // 17408 x 5120, M = 1
uint64_t dot_ideal_bytes(const BlockFormat& f, const Case& c);
CaseResult run_dot(TestDevice& dev, const BlockFormat& f, const Case& c, const Dequantizer& ref);

// reduce_blocks_k against the f32 sum in index order (exact).
std::vector<Case> reduce_cases(bool sweep);
CaseResult run_reduce(TestDevice& dev, const Case& c);

// f16_to_f32_k / bf16_to_f32_k: every 16-bit pattern in the first case,
// bit for bit with the reference (NaN payloads included: both widen exactly).
std::vector<Case> half_cases(bool sweep);
CaseResult run_half_to_f32(TestDevice& dev, bool bf16, const Case& c, const Dequantizer& ref);

}  // namespace k100::kernels::gguf
