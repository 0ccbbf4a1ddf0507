// k100lc dsl: the whole compiler, .kkl source → per kernel the assembly, a
// launchable code object and its catalog entry (DSL.md §9), or diagnostics.
//
// The steps are the front end (typing.h), the IR (ir.h) and the lowering onto
// codegen::Kernel, whose build() allocates registers and inserts waits and
// wait states. Bad input never throws: every problem is a diagnostic with
// file:line:col, the source line and a caret.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/codegen/signature.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::dsl {

struct CompileOptions {
  std::string only;  // compile only the kernel of this name ("" = all)
  isa::Target target = isa::Target::gfx926;
  // The layer's s_nop where the GFX9 hazard table asks for wait states; off
  // only to show that the emulator's hazard check catches their absence.
  bool wait_states = true;
};

struct CompiledKernel {
  std::string name;
  codegen::Signature signature;      // the kernarg layout; pack() builds a launch's argv
  std::string assembly;              // the layer's text in llvm syntax
  codeobj::CodeObject object;        // a single-kernel code object
  std::vector<uint8_t> code_object;  // its ELF bytes (<name>.hsaco)
  std::string catalog_json;          // its catalog (<name>.catalog.json)
  double compile_ms = 0;             // IR, lowering and build of this kernel (the front end is per file)
  int vgpr_spills = 0, sgpr_spills = 0;  // dwords the layer spilled (codegen::BuildReport)
};

struct CompileResult {
  std::vector<CompiledKernel> kernels;  // in source order
  std::string diagnostics;              // formatted, empty when there are none
  bool ok() const { return errors == 0; }
  size_t errors = 0;
};

CompileResult compile(std::string_view source, const std::string& file, const CompileOptions& options = {});

}  // namespace k100::dsl
