// A harness for scalar-instruction unit tests: each case is a few lines of
// assembly run by one wave; the harness saves s0..s71, SCC, VCC, EXEC and M0
// to memory with s_store (no vector instruction involved) and checks the
// expected registers. Kernel arguments: out pointer, in pointer (64 dwords
// of 0x1000 + i, writable).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "emu_test_support.h"

namespace k100::emu::test {

struct ScalarCase {
  std::string body;
  // "s5" (32-bit), "s[4:5]" (64-bit), "scc", "vcc", "exec", "m0", "in[i]" (input dword after the run)
  std::vector<std::pair<std::string, uint64_t>> expect;
  std::string end = "s_endpgm";  // the instruction that ends the kernel
};

const std::vector<ScalarCase>& salu_cases();
const std::vector<ScalarCase>& smem_cases();

// The assembly of a table (one kernel per case, named <prefix>_<index>).
std::string scalar_cases_source(const std::vector<ScalarCase>& cases, const std::string& prefix);

// Runs every case of `cases`; reports failures through gtest.
void run_scalar_cases(const std::vector<ScalarCase>& cases, const std::string& prefix);

}  // namespace k100::emu::test
