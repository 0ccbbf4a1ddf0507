// Shared by the dsl tests that run compiled kernels: compile a source, check
// the IR's classification against the front end's, and launch the result on
// the emulator with every check on.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "k100/dsl/compiler.h"
#include "k100/dsl/ir.h"
#include "k100/dsl/typing.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"

namespace k100::dsl::testing {

// Inputs and references the tests share.
inline std::vector<float> ramp(size_t n, float lo, float hi) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = lo + (hi - lo) * float(i) / float(n > 1 ? n - 1 : 1);
  return v;
}

// A deterministic spread of values with both signs, not on a grid.
inline std::vector<float> wobble(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = float(int32_t(s >> 8) % 2001 - 1000) / 97.0f;
  }
  return v;
}

inline uint32_t cdiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// Kernel text: the six comparisons of a and b as `if` statements, each
// setting one bit of r (bit `first` for <, then <=, >, >=, ==, !=).
inline std::string six_comparisons(const std::string& a, const std::string& b, const std::string& r, int first,
                                   const std::string& indent) {
  static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
  std::string out;
  for (int c = 0; c < 6; ++c)
    out += indent + "if " + a + " " + ops[c] + " " + b + ":\n" + indent + "    " + r + " = " + r + " | " +
           std::to_string(1u << (first + c)) + "\n";
  return out;
}

// Whether the layer spilled: spilled dwords reported, and scratch stores and
// loads in the assembly.
inline bool spills_with_traffic(const CompiledKernel& k) {
  return k.vgpr_spills > 0 && k.assembly.find("buffer_store_dword") != std::string::npos &&
         k.assembly.find("buffer_load_dword") != std::string::npos;
}

// The same on the host: bit 0 for <, then <=, >, >=, ==, !=.
template <class T>
uint32_t six_comparison_bits(T x, T y) {
  return uint32_t((x < y ? 1 : 0) | (x <= y ? 2 : 0) | (x > y ? 4 : 0) | (x >= y ? 8 : 0) | (x == y ? 16 : 0) |
                  (x != y ? 32 : 0));
}

// IEEE half → float, written from the format (the reference of f16_to_f32).
inline float half_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return sign * std::ldexp(float(m), -24);
  if (e == 31) return m ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  return sign * std::ldexp(float(m + 1024), e - 25);
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// An example of the tests (tests/dsl/kkl) and a package kernel written in the DSL (kernels/dsl).
inline std::string read_kkl(const std::string& name) {
  return read_text(std::string(K100_SOURCE_DIR) + "/tests/dsl/kkl/" + name);
}
inline std::string read_package_kkl(const std::string& name) {
  return read_text(std::string(K100_SOURCE_DIR) + "/kernels/dsl/" + name);
}

// Where the IR's divergence analysis and the front end disagree, over every
// kernel of `source` (empty: they agree).
inline std::string divergence_disagreements(const std::string& source) {
  SourceText src("t.kkl", source);
  DiagnosticSink sink;
  auto kernels = check_source(src, sink);
  std::string out = sink.format_all();
  for (const auto& k : kernels) {
    ir::Function f;
    if (!ir::build(k, src, sink, f)) out += sink.format_all();
    for (const auto& d : f.disagreements) out += k.name + ": " + d + "\n";
  }
  return out;
}

// One compiled kernel on its own emulator device.
class DslKernel {
 public:
  explicit DslKernel(const std::string& source, const std::string& name = "", CompileOptions o = {}) {
    o.only = name;
    CompileResult r = compile(source, "t.kkl", o);
    EXPECT_TRUE(r.ok()) << r.diagnostics;
    if (!r.ok() || r.kernels.empty()) return;
    EXPECT_EQ(divergence_disagreements(source), "");
    kernel_ = std::make_shared<CompiledKernel>(std::move(r.kernels[0]));
    kernels::Registry reg;
    auto k = kernel_;
    kernels::KernelDef d =
        kernels::generated_kernel("dsl", k->signature, [k](isa::Target) { return k->object; });
    d.cases = [](bool) { return std::vector<kernels::Case>{kernels::make_case({})}; };
    d.run = [](kernels::TestDevice&, const kernels::Case&) { return kernels::CaseResult{}; };
    reg.add(std::move(d));
    dev_ = std::make_unique<kernels::EmuTestDevice>(reg, std::string(K100_SOURCE_DIR) + "/kernels");
    EXPECT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
    dev_->options().checks = {};  // every check on
  }
  bool ok() const { return dev_ != nullptr; }
  kernels::EmuTestDevice& dev() { return *dev_; }
  const CompiledKernel& kernel() const { return *kernel_; }
  // grid in workgroups
  void launch(kernels::Dim3 grid, kernels::Dim3 wg, std::initializer_list<codegen::ArgInit> args) {
    dev_->launch(kernel_->name, grid, wg, kernel_->signature.pack(args));
  }

 private:
  std::shared_ptr<CompiledKernel> kernel_;
  std::unique_ptr<kernels::EmuTestDevice> dev_;
};

}  // namespace k100::dsl::testing
