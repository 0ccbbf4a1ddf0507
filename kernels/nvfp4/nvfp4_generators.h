// The NVFP4 kernels' generators (nvfp4_gemv.cpp, nvfp4_gemm.cpp) over the
// shared format description (nvfp4_format.h).
#pragma once

#include <string>

#include "k100/codegen/signature.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::kernels::nvfp4 {

// One decode GEMV: `m` activation rows (1..4; the fast form: up to 4, the
// count an argument), `rows` weight rows per wave and unit, `groups` 16-wide
// K groups per lane and step (1: nvfp4_gemv, 2: nvfp4_gemv_wide).
struct GemvForm {
  int m = 1, rows = 1, groups = 1;
  bool fast = false;  // nvfp4_gemv_fast_k: waves walk units until the matrix is done
  std::string name() const;
};
codegen::Signature gemv_signature(const GemvForm& f);
codeobj::CodeObject build_gemv(isa::Target target, const GemvForm& f);
// nvfp4_gemv_fast.cpp
codeobj::CodeObject build_gemv_fast(isa::Target target);
// Weight rows per unit of the fast form (its launch contract counts units of this many rows).
inline constexpr int kFastRows = 1;

// The prefill GEMM: guarded (nvfp4_gemm_kernel) or not (nvfp4_gemm_kernel_ng).
codegen::Signature gemm_signature(bool guarded);
codeobj::CodeObject build_gemm(isa::Target target, bool guarded);

}  // namespace k100::kernels::nvfp4
