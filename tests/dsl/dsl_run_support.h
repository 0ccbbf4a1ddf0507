// Shared by the dsl tests that run compiled kernels: compile a source, check
// the IR's classification against the front end's, and launch the result on
// the emulator with every check on.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "k100/dsl/compiler.h"
#include "k100/dsl/ir.h"
#include "k100/dsl/typing.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"

namespace k100::dsl::testing {

inline std::string read_kkl(const std::string& name) {
  std::ifstream f(std::string(K100_SOURCE_DIR) + "/tests/dsl/kkl/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
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
  explicit DslKernel(const std::string& source, const std::string& name = "") {
    CompileOptions o;
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
