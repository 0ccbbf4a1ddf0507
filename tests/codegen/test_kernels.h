// Registry entries for kernels a codegen test builds and launches itself (the
// registry asks every kernel for cases; these are run by the test instead).
#pragma once

#include <functional>
#include <utility>

#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::codegen::test_kernels {

inline kernels::KernelDef launched_here(Signature sig, std::function<codeobj::CodeObject(isa::Target)> build) {
  kernels::KernelDef d = kernels::generated_kernel("test", std::move(sig), std::move(build));
  d.cases = [](bool) { return std::vector<kernels::Case>{kernels::make_case({})}; };
  d.run = [](kernels::TestDevice&, const kernels::Case&) { return kernels::CaseResult{}; };
  return d;
}

}  // namespace k100::codegen::test_kernels
