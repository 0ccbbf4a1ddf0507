// k100-bench dsl: compile time per kernel of the kernel language, the whole
// compile (front end, IR, lowering, the layer's passes, encoding and the
// code object) of every kernel of tests/dsl/kkl and of three synthetic
// large kernels, against the budget of 50 ms per kernel. A file holding
// several kernels is compiled once per kernel (dsl::compile with `only`),
// so each row includes the front end of its file.
#include "bench_dsl.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/dsl/compiler.h"
#include "k100/dsl/typing.h"

namespace k100::bench {

namespace {

constexpr double kBudgetMs = 50.0;

std::vector<DslSource> synthetic() {
  // 150 named variables summed
  std::string many = "def many_vars(x: ptr[f32], y: ptr[f32], n: u32):\n    i = gid()\n";
  for (int v = 0; v < 150; ++v) many += "    v" + std::to_string(v) + " = x[i + " + std::to_string(v) + "] * 2.0\n";
  many += "    acc = 0.0\n";
  for (int v = 0; v < 150; ++v) many += "    acc = acc + v" + std::to_string(v) + "\n";
  many += "    y[i] = acc\n";
  // one 300-term expression of loads
  std::string lng = "def long_expr(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    y[i] = x[i]";
  for (int t = 1; t < 300; ++t) lng += " + x[i + " + std::to_string(t) + "]";
  lng += "\n";
  // 300 values loaded before any is used: the layer spills
  std::string live = "def live300(x: ptr[f32], y: ptr[f32]):\n    i = gid()\n    b = i * 300\n";
  for (int j = 0; j < 300; ++j) live += "    v" + std::to_string(j) + " = x[b + " + std::to_string(j) + "]\n";
  live += "    s = 0.0\n";
  for (int j = 299; j >= 0; --j)
    live += "    s = s * 0.5 + v" + std::to_string(j) + " * " + std::to_string(j % 7 + 1) + ".0\n";
  live += "    y[i] = s\n";
  return {{"many_vars (150 variables)", many}, {"long_expr (300 terms)", lng}, {"live300 (300 live, spilled)", live}};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

size_t instruction_lines(const std::string& assembly) {
  size_t n = 0;
  std::istringstream in(assembly);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] == '\t' && l.size() > 1 && l[1] != '.') ++n;
  return n;
}

}  // namespace

std::vector<DslSource> dsl_bench_sources() {
  std::vector<DslSource> sources;
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
  return sources;
}

std::vector<DslCompileTime> measure_dsl_compile_times(const std::vector<DslSource>& sources, int repeat) {
  std::vector<DslCompileTime> out;
  for (const auto& s : sources) {
    const std::string file = s.name + ".kkl";
    std::vector<double> front;
    std::vector<std::string> names;
    bool refused = false;
    for (int r = 0; r < repeat; ++r) {
      dsl::SourceText src(file, s.text);
      DiagnosticSink sink;
      auto t0 = std::chrono::steady_clock::now();
      auto kernels = dsl::check_source(src, sink);
      front.push_back(ms_since(t0));
      refused = sink.has_errors();
      names.clear();
      for (const auto& k : kernels) names.push_back(k.name);
    }
    if (refused || names.empty()) {
      DslCompileTime t;
      t.source = s.name;
      t.front_end_ms = t.total_ms = t.best_ms = median(front);
      t.refused = true;
      out.push_back(t);
      continue;
    }
    for (const auto& name : names) {
      DslCompileTime t;
      t.source = s.name;
      t.kernel = name;
      t.front_end_ms = median(front);
      std::vector<double> total;
      dsl::CompileOptions o;
      o.only = name;
      for (int r = 0; r < repeat; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        dsl::CompileResult res = dsl::compile(s.text, file, o);
        total.push_back(ms_since(t0));
        if (!res.ok() || res.kernels.empty()) {
          t.refused = true;
          break;
        }
        t.instructions = instruction_lines(res.kernels[0].assembly);
        t.vgpr_spills = res.kernels[0].vgpr_spills;
      }
      t.total_ms = median(total);
      t.best_ms = *std::min_element(total.begin(), total.end());
      out.push_back(t);
    }
  }
  return out;
}

double print_dsl_compile_times(std::FILE* out, const std::vector<DslCompileTime>& times) {
  std::fprintf(out, "%-30s %-16s %9s %9s %9s %7s %7s\n", "source", "kernel", "front ms", "total ms", "best ms",
               "instrs", "spills");
  double worst = 0;
  std::string worst_name;
  for (const auto& t : times) {
    if (t.refused) {
      std::fprintf(out, "%-30s %-16s %9.3f %9s %9s %7s %7s  (refused, as intended)\n", t.source.c_str(), "-",
                   t.front_end_ms, "-", "-", "-", "-");
      continue;
    }
    std::fprintf(out, "%-30s %-16s %9.3f %9.3f %9.3f %7zu %7d%s\n", t.source.c_str(), t.kernel.c_str(),
                 t.front_end_ms, t.total_ms, t.best_ms, t.instructions, t.vgpr_spills,
                 t.total_ms > kBudgetMs ? "  OVER BUDGET" : "");
    if (t.total_ms > worst) worst = t.total_ms, worst_name = t.kernel;
  }
  std::fprintf(out, "slowest median whole compile: %.3f ms (%s) of the %.0f ms budget per kernel\n", worst,
               worst_name.c_str(), kBudgetMs);
  return worst;
}

namespace {

int run(int argc, char** argv) {
  int repeat = 10;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--repeat=", 0) == 0) {
      repeat = std::max(1, std::atoi(a.c_str() + 9));
    } else {
      std::printf("usage: k100-bench dsl [--repeat=N]\n"
                  "  whole compile time (front end, IR, lowering, the layer's passes, encoding, code object) of\n"
                  "  every kernel of tests/dsl/kkl and three large synthetic kernels; median and best of N runs\n"
                  "  (default 10), against the budget of 50 ms per kernel. 'front ms' is the front end's share.\n");
      return a == "--help" ? 0 : 2;
    }
  }
  print_dsl_compile_times(stdout, measure_dsl_compile_times(dsl_bench_sources(), repeat));
  return 0;
}

const Register kRegister("dsl", "DSL compile time per kernel (whole compile, 50 ms budget)", run);

}  // namespace

}  // namespace k100::bench
