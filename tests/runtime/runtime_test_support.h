// Helpers of the runtime tests: the test kernel packages (assembled from
// tests/runtime/kernels/*.s in the test process), runtimes on a chosen
// backend, environment overrides and a GEMV reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "k100/runtime/runtime.h"

namespace k100::runtime::test {

// Assembles tests/runtime/kernels/<name>.s into code-object bytes (cached).
const std::vector<uint8_t>& package(const std::string& name);
// The same bytes in a file under the test's temporary directory.
// The package written to a file in a directory only this process uses (removed at exit).
std::string package_file(const std::string& name);

// A runtime on the emulator with the "runtime_test" package loaded.
RuntimeOptions emu_options();

// Sets (or unsets, value nullopt) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value);
  ~ScopedEnv();

 private:
  std::string name_;
  std::optional<std::string> old_;
};

std::vector<float> random_floats(size_t n, uint32_t seed);
// y = W x in double precision.
std::vector<double> gemv_reference(const std::vector<float>& w, const std::vector<float>& x,
                                   size_t n, size_t k);

// Runs the seed's quick start (GEMV by name, grid = workgroups) on `rt` and
// returns the largest error relative to max|y|.
double quick_start_gemv(Runtime& rt, size_t n, size_t k);

// ids3d_k (runtime_test.s) writes gx | gy << 10 | gz << 20 for every
// work-item of a groups x wg launch: the work-items whose value is wrong.
size_t ids3d_mismatches(const std::vector<uint32_t>& ids, Dim3 groups, Dim3 wg);

}  // namespace k100::runtime::test
