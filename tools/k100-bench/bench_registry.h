// Registration of k100-bench subcommands: each bench_<name>.cpp defines one
// static k100::bench::Register object.
#pragma once

#include <vector>

namespace k100::bench {

struct Benchmark {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // argv[0] is the benchmark name
};

inline std::vector<Benchmark>& registry() {
  static std::vector<Benchmark> r;
  return r;
}

struct Register {
  Register(const char* name, const char* summary, int (*run)(int, char**)) {
    registry().push_back({name, summary, run});
  }
};

}  // namespace k100::bench
