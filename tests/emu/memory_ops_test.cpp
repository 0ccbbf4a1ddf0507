// Vector memory and LDS opcodes, one small kernel per case.
#include <gtest/gtest.h>

#include "vector_harness.h"

namespace k100::emu::test {

TEST(EmuVectorMemory, Opcodes) { run_vector_cases(vmem_cases(), "vmem"); }
TEST(EmuLds, Opcodes) { run_vector_cases(ds_cases(), "ds"); }

}  // namespace k100::emu::test
