// k100-bench dsl: the compile-time part, callable by the other parts of the
// `dsl` benchmark (bench_dsl.cpp).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace k100::bench {

struct DslSource {
  std::string name;  // file stem or synthetic kernel's description
  std::string text;
};

// The .kkl files of tests/dsl/kkl (in name order), then the synthetic large
// kernels: 150 variables, a 300-term expression, 300 live values (spilled).
std::vector<DslSource> dsl_bench_sources();

struct DslCompileTime {
  std::string source, kernel;  // kernel "" when the file is refused
  double front_end_ms = 0;     // lex, parse, check of the whole file (median)
  double total_ms = 0;         // dsl::compile of this kernel: front end, IR, lowering, layer passes, encoding, ELF (median)
  double best_ms = 0;          // fastest total
  size_t instructions = 0;     // lines of instructions in the assembly
  int vgpr_spills = 0;
  bool refused = false;        // the source is an error example
};

// Times the whole compile of every kernel of `sources`, `repeat` runs each.
std::vector<DslCompileTime> measure_dsl_compile_times(const std::vector<DslSource>& sources, int repeat);

// Prints the table and the slowest median against the 50 ms budget;
// returns the slowest median total in ms.
double print_dsl_compile_times(std::FILE* out, const std::vector<DslCompileTime>& times);

}  // namespace k100::bench
