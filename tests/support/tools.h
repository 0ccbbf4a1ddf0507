// Shared by the tests of every module: finding the oracle tools (llvm-mc,
// ld.lld, llvm-objcopy, ...) and running commands with their output.
#pragma once

#include <string>
#include <vector>

namespace k100::test {

// Full path of an executable found on PATH, or "" when there is none. Only
// PATH counts, so a PATH without the LLVM tools makes their oracle tests skip.
std::string find_tool(const std::string& name);
// find_tool(name) is not "", or `name` is an absolute path to an executable.
bool have_tool(const std::string& name);

// True when CI=true: a missing oracle tool is then a failure, not a skip.
bool oracle_required();

// Runs `cmd` through /bin/sh with stderr joined to stdout, appends what it
// printed to *output, and returns its exit status (-1 when it could not run or
// was killed by a signal).
int run_shell(const std::string& cmd, std::string* output);

struct CommandResult {
  int rc = -1;  // exit status, 128 + signal when killed, 127 when it could not start
  std::string out;
  std::string err;
};
// Runs argv without a shell (argv[0] looked up on PATH), feeding stdin_text.
CommandResult run(const std::vector<std::string>& argv, const std::string& stdin_text = "");

}  // namespace k100::test

// In a GoogleTest body: an oracle tool is missing. Skips the test (CTest
// reports it as skipped), or fails it under CI=true, where CI installs them.
#define K100_ORACLE_MISSING(why)                                                              \
  do {                                                                                          \
    if (::k100::test::oracle_required()) GTEST_FAIL() << (why) << " (CI=true: oracle tools are required)"; \
    GTEST_SKIP() << (why);                                                                      \
  } while (0)
