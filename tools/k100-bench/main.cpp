// k100-bench: benchmarks (not tests). Subcommands live in bench_<name>.cpp
// files next to this one and register themselves in the table below.
#include <cstdio>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "command_table.h"

int main(int argc, char** argv) {
  std::vector<k100::tools::Command> commands;
  for (const auto& b : k100::bench::registry()) commands.push_back({b.name, b.summary});
  const k100::tools::CommandTable table(
      "k100-bench", "benchmarks the assembler and the emulator, models each kernel's K100_LC time, checks the timing model against measurements",
      commands,
      "'k100-bench COMMAND --help' shows a command's options.\n"
      "exit status: 0 success, 1 a failed measurement or check, 2 a usage error.\n");
  int status = 0;
  int index = table.dispatch(argc, argv, status);
  if (index < 0) return status;
  return k100::bench::registry()[size_t(index)].run(argc - 1, argv + 1);
}
