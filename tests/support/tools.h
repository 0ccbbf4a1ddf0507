// Shared by the tests of every module: finding the oracle tools (llvm-mc,
// ld.lld, llvm-objcopy, ...) and running a shell command with its output.
#pragma once

#include <string>

namespace k100::test {

// Full path of an executable found on PATH, in /usr/bin or in /usr/lib/llvm-N/bin
// (N = 14, 15, 16, 19), or "" when there is none.
std::string find_tool(const std::string& name);

// Runs `cmd` through /bin/sh with stderr joined to stdout, appends what it
// printed to *output, and returns its exit status (-1 when it could not run or
// was killed by a signal).
int run_shell(const std::string& cmd, std::string* output);

}  // namespace k100::test
