// k100-bench dsl: time of the DSL front end (lex, parse, check) per kernel.
//
// The whole compile of a kernel has a budget of 50 ms; this measures the
// front end's share on the example kernels of tests/dsl/kkl and on two
// synthetic large kernels (many variables, a long expression).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/dsl/typing.h"

namespace {

struct Source {
  std::string name, text;
};

// 150 named variables summed, then one 300-term expression of loads.
std::vector<Source> synthetic() {
  std::string many = "def many_vars(x: ptr[f32], y: ptr[f32], n: u32):\n    i = gid()\n";
  for (int v = 0; v < 150; ++v) many += "    v" + std::to_string(v) + " = x[i + " + std::to_string(v) + "] * 2.0\n";
  many += "    acc = 0.0\n";
  for (int v = 0; v < 150; ++v) many += "    acc = acc + v" + std::to_string(v) + "\n";
  many += "    y[i] = acc\n";
  std::string lng = "def long_expr(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    y[i] = x[i]";
  for (int t = 1; t < 300; ++t) lng += " + x[i + " + std::to_string(t) + "]";
  lng += "\n";
  return {{"many_vars (150 variables)", many}, {"long_expr (300 terms)", lng}};
}

int run(int argc, char** argv) {
  int repeat = 200;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--repeat=", 0) == 0) {
      repeat = std::max(1, std::atoi(a.c_str() + 9));
    } else {
      std::printf("usage: k100-bench dsl [--repeat=N]\n"
                  "  front-end time (lex, parse, type-check) per example kernel of tests/dsl/kkl and two large\n"
                  "  synthetic kernels; median and best of N runs (default 200). Budget of the whole compile: 50 ms.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  std::vector<Source> sources;
  std::filesystem::path dir = std::filesystem::path(K100_SOURCE_DIR) / "tests/dsl/kkl";
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".kkl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    sources.push_back({f.stem().string(), ss.str()});
  }
  for (auto& s : synthetic()) sources.push_back(std::move(s));

  std::printf("%-28s %8s %10s %10s\n", "kernel", "lines", "median ms", "best ms");
  double worst = 0;
  for (const auto& s : sources) {
    std::vector<double> ms;
    size_t errors = 0;
    for (int r = 0; r < repeat; ++r) {
      k100::dsl::SourceText src(s.name + ".kkl", s.text);
      k100::DiagnosticSink sink;
      auto t0 = std::chrono::steady_clock::now();
      auto kernels = k100::dsl::check_source(src, sink);
      auto t1 = std::chrono::steady_clock::now();
      errors = sink.error_count();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    size_t lines = static_cast<size_t>(std::count(s.text.begin(), s.text.end(), '\n'));
    std::printf("%-28s %8zu %10.3f %10.3f%s\n", s.name.c_str(), lines, ms[ms.size() / 2], ms[0],
                errors ? "  (refused, as intended)" : "");
    worst = std::max(worst, ms[ms.size() / 2]);
  }
  std::printf("slowest median: %.3f ms of the 50 ms budget per kernel (front end only)\n", worst);
  return 0;
}

const k100::bench::Register kRegister("dsl", "DSL front end (lex, parse, check) time per kernel", run);

}  // namespace
