// The package's kernels written in the DSL: every kernels/dsl/<name>.kkl,
// embedded into the kernel library at build time (cmake/EmbedKkl.cmake), so
// the package build compiles them without the source tree.
#pragma once

#include <string_view>
#include <vector>

namespace k100::kernels::dsl_package {

struct KklSource {
  const char* file;  // the file name without ".kkl" (the kernel's function name)
  const char* text;
};

// In file-name order.
const std::vector<KklSource>& kkl_sources();
// kernels/dsl/installed.json: the entries `k100-cc export --install` added
// ("[]" when there is none).
const char* installed_kernels_json();

}  // namespace k100::kernels::dsl_package
