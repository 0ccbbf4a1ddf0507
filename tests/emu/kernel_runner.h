// Running compiled test kernels (OpenCL C by clang-15, HIP by hipcc; code
// object v4 and v5) on one shared emulated device, plus host-side helpers
// for references: deterministic inputs and ULP comparisons.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emu_test_support.h"

namespace k100::emu::test {

// The device all kernel tests share, and code objects loaded once.
Device& shared_device();
// tests/emu/kernels/<stem>.hsaco from the build tree, or null when it was not built.
std::shared_ptr<const Program> kernel_program(const std::string& stem, bool hip = false);
// Whether the build found the compiler for the kernels (clang-15 / hipcc).
bool compiler_available(bool hip);

// Loads a kernel file into `var`; skips the test with a reason when the compiler
// is not installed, fails when the compiler is there but the file is not.
#define K100_LOAD_KERNELS(var, stem, hip)                                                         \
  auto var = ::k100::emu::test::kernel_program(stem, hip);                                       \
  if (!var) {                                                                                     \
    if (!::k100::emu::test::compiler_available(hip))                                              \
      K100_ORACLE_MISSING(std::string((hip) ? "hipcc" : "clang-15") + " is not installed: kernel " + (stem) + " was not built"); \
    FAIL() << "compiled kernel " << stem << ".hsaco is missing from the build tree";              \
  }

// Dispatches and requires success; threads = 0 means the default (all).
DispatchResult run_kernel(const Program& p, const std::string& kernel, const LaunchConfig& launch, const Args& args,
                          unsigned threads = 0, uint32_t dynamic_lds = 0);

LaunchConfig global(Dim3 items, Dim3 wg);

// The common shape kernel(const In* in, Out* out, uint n): uploads `in`, runs on a zeroed
// output of `out_count` elements and returns it.
template <class Out, class In>
std::vector<Out> run_in_out(const Program& p, const std::string& kernel, const LaunchConfig& launch,
                            const std::vector<In>& in, uint32_t n, size_t out_count) {
  Buffers buf(shared_device());
  uint64_t di = buf.upload(in), dout = buf.zeros(out_count * sizeof(Out));
  run_kernel(p, kernel, launch, Args().add(di).add(dout).add(n));
  return buf.download<Out>(dout, out_count);
}

// Deterministic pseudo-random data.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 6364136223846793005ull + 1442695040888963407ull) {}
  uint32_t next() {
    s_ = s_ * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(s_ >> 32);
  }
  int32_t range(int32_t lo, int32_t hi) {
    uint64_t span = uint64_t(int64_t(hi) - int64_t(lo)) + 1;
    return int32_t(int64_t(lo) + int64_t(uint64_t(next()) % span));
  }
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 8) / float(1 << 24); }
  std::vector<float> floats(size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (auto& x : v) x = uniform(lo, hi);
    return v;
  }
  std::vector<int32_t> ints(size_t n, int32_t lo, int32_t hi) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = range(lo, hi);
    return v;
  }
  std::vector<uint32_t> words(size_t n) {
    std::vector<uint32_t> v(n);
    for (auto& x : v) x = next();
    return v;
  }

 private:
  uint64_t s_;
};

// Distance in float ULPs between got and the (more precise) reference.
double ulp_error(float got, double want);
// Expects |got - want| <= max_ulps ULPs of the reference (NaN matches NaN).
#define EXPECT_ULP(got, want, max_ulps, what)                                                       \
  EXPECT_LE(::k100::emu::test::ulp_error((got), (want)), (max_ulps))                                \
      << what << ": got " << std::hexfloat << (got) << " want " << (want) << std::defaultfloat << " (" \
      << (got) << " vs " << (want) << ")"

}  // namespace k100::emu::test
