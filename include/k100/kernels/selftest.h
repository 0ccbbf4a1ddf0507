// k100lc kernels: the self-test (k100-selftest, python3 -m k100lc_kernels selftest).
//
// Runs every registered kernel's test cases on a TestDevice and compares with
// the host references. Per kernel it prints the sizes, the largest absolute
// and relative errors, the tolerance and pass/fail; the last line is exactly
// "N passed, M failed" (kernels). With `json` the report is one JSON document
// on `out` and the summary line goes to `err`.
//
//   --group a,b    only these families       --only x,y   only these kernels
//   --sweep        a wide spread of sizes per kernel, with each kernel's limits
//   --repeat N     run each case N times; any output that differs between
//                  repeats fails the kernel
//   --json         machine-readable report   --list       names and families
//   --verbose      one line per case
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "k100/kernels/registry.h"

namespace k100::kernels {

struct SelftestOptions {
  std::vector<std::string> groups, only;
  bool sweep = false;
  bool json = false;
  bool list = false;
  bool verbose = false;
  int repeat = 1;
};

// Parses the flags above (argv[0] is the program name). Returns false and
// writes the problem to `err` on bad input.
bool parse_selftest_options(int argc, const char* const* argv, SelftestOptions& out, std::FILE* err);
extern const char* const kSelftestUsage;

// Runs the selected kernels; returns the number of failed kernels (0 = all passed).
// Kernels the device does not have (a stale package) fail with that reason.
// `has_kernel` may be empty (every kernel is assumed present).
int run_selftest(TestDevice& dev, const Registry& registry, const SelftestOptions& options, std::FILE* out,
                 std::FILE* err, const std::function<bool(const std::string&)>& has_kernel = {});

}  // namespace k100::kernels
