// k100-bench: benchmarks (not tests). Subcommands live in bench_<name>.cpp
// files next to this one and register themselves in the table below.
#include <cstdio>
#include <cstring>
#include <string>

#include "bench_registry.h"

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::printf("usage: k100-bench <benchmark> [options]\n\nbenchmarks:\n");
    for (const auto& b : k100::bench::registry()) std::printf("  %-10s %s\n", b.name, b.summary);
    return argc < 2 ? 2 : 0;
  }
  for (const auto& b : k100::bench::registry())
    if (std::string(argv[1]) == b.name) return b.run(argc - 1, argv + 1);
  std::fprintf(stderr, "k100-bench: unknown benchmark '%s' (try --help)\n", argv[1]);
  return 2;
}
