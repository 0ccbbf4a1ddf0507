// Programs the differential fuzzer (python/k100lc_kernels/fuzz.py) found
// compiled wrongly or refused, reduced to their smallest form, compiled and
// run on the emulator (every check on) against host computations.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dsl_run_support.h"

namespace {

using k100::dsl::testing::DslKernel;
using k100::kernels::DeviceBuffer;

// A float literal converted to an integer is a uniform value: it was left in
// a VGPR and refused as "a per-lane value where a uniform one is needed".
TEST(DslFuzzFound, FloatLiteralConvertedToIntIsUniform) {
  DslKernel k(R"(
def lit_to_int(out: ptr[s32], k: s32):
    i = gid()
    out[i] = (s32(-7.5) * k) + s32(u32(1e-3) & 15) + s32(u32(3.9))
)");
  ASSERT_TRUE(k.ok());
  DeviceBuffer<int32_t> out(k.dev(), 64);
  k.launch({1}, {64}, {out.addr(), int32_t(5)});
  for (int32_t v : out.download()) ASSERT_EQ(v, -7 * 5 + 0 + 3);
}

// A uniform constant divided by a power of two (1000 % 128) put two
// literals into one scalar instruction and the kernel was refused.
TEST(DslFuzzFound, ConstantModuloPowerOfTwoHasOneLiteral) {
  DslKernel k(R"(
def lit_mod(out: ptr[u32]):
    i = gid()
    out[i] = (1000 % 128) * 100000 + 1000000 // 256
)");
  ASSERT_TRUE(k.ok());
  DeviceBuffer<uint32_t> out(k.dev(), 64);
  k.launch({1}, {64}, {out.addr()});
  for (uint32_t v : out.download()) ASSERT_EQ(v, (1000u % 128u) * 100000u + 1000000u / 256u);
}

}  // namespace
