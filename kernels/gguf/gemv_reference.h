// The fast GEMVs' test cases and their runner with the weights' dequantiser
// as a parameter: the registry passes the host codecs, the ggml comparison
// (tests/kernels/gguf_gemv_ggml_test.cpp) ggml's own dequantisers.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "k100/kernels/registry.h"
#include "k100/quant/tensor_type.h"

namespace k100::kernels::gguf_gemv {

// Decodes n elements of one row of GGUF blocks.
using RowDequantizer = std::function<void(const uint8_t* row, float* out, int64_t n)>;

// The cases of a type's *_gemv_k (tails, 1..4 rows, split rows, MoE groups).
std::vector<Case> gemv_cases(quant::TensorType type, bool sweep);
// Random blocks, repacked, one launch; y against a double-precision dot over
// the rows as `dequantize` decodes them.
CaseResult run_gemv_case(TestDevice& dev, const Case& c, quant::TensorType type, const RowDequantizer& dequantize);

// The device repack kernels (`*_gemv_repack_k`, gemv_repack_kernels.cpp),
// registered with the GEMVs.
void register_gguf_gemv_repack_kernels(Registry& r);

}  // namespace k100::kernels::gguf_gemv
