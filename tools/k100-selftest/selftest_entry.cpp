// The self-test as a C entry point: k100-selftest's main and the Python
// package's `python3 -m k100lc_kernels selftest` (through libk100_selftest.so)
// both call it, so both run the same cases on the runtime's backend.
#include <cstdio>
#include <exception>

#include "k100/kernels/runtime_test_device.h"
#include "k100/kernels/selftest.h"

extern "C" __attribute__((visibility("default"))) int k100_selftest_main(int argc, const char* const* argv) {
  using namespace k100;
  kernels::SelftestOptions options;
  if (!kernels::parse_selftest_options(argc, argv, options, stderr)) return 2;
  try {
    runtime::Runtime rt;
    kernels::RuntimeTestDevice dev(rt);
    int failed = kernels::run_selftest(dev, kernels::registry(), options, stdout, stderr,
                                       [&](const std::string& lookup) { return rt.has_kernel(lookup); });
    std::fflush(stdout);
    return failed ? 1 : 0;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "selftest: %s\n0 passed, 1 failed\n", e.what());
    return 1;
  }
}
