// Benchmark cases of a kernel group beyond each kernel's own
// (KernelDef::bench_case): shapes a group's benchmark must show that its
// kernels' single cases cannot, e.g. decode attention at 4096 and 32768 rows
// with f32 and f16 caches in the attention group. `k100-bench kernels
// --group G` runs them after the group's kernels.
#pragma once

#include <string>
#include <vector>

#include "k100/kernels/registry.h"

namespace k100::kernels {

struct GroupBenchCase {
  std::string lookup;  // the kernel (of any family)
  Case c;              // its sizes, as its test cases name them
};

// The extra cases of the group (family) `family`; empty for most groups.
// Defined in kernels/attention/decode_attention_bench.cpp (the attention
// group's); another group adds its cases there by name.
std::vector<GroupBenchCase> group_bench_cases(const std::string& family);

}  // namespace k100::kernels
