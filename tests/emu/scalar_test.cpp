// Scalar ALU and scalar memory opcodes, one small kernel per case.
#include <gtest/gtest.h>

#include "scalar_harness.h"

namespace k100::emu::test {

TEST(EmuScalar, SaluOpcodes) { run_scalar_cases(salu_cases(), "salu"); }
TEST(EmuScalar, SmemOpcodes) { run_scalar_cases(smem_cases(), "smem"); }

}  // namespace k100::emu::test
