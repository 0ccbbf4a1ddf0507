// k100lc asm: assembled program -> AMDHSA code object.
//
// Turns a Program (sections, symbols, `.amdhsa_kernel` blocks, compact
// `.k100_arg` argument lines or an `.amdgpu_metadata` document) into a
// codeobj::CodeObject: descriptors computed as llvm-mc computes them,
// register counts taken from the code when a kernel does not give them, and
// metadata built from the compact form or taken verbatim from the YAML.
// Problems are diagnostics at the directive that caused them.
#pragma once

#include <optional>
#include <string>

#include "k100/asm/assembler.h"
#include "k100/codeobj/code_object.h"
#include "k100/codeobj/descriptor_settings.h"

namespace k100::as {

// Returns nullopt (with diagnostics) when the program cannot become a code object.
std::optional<codeobj::CodeObject> build_code_object(const Program& program, const Options& options,
                                                     const std::string& origin, DiagnosticSink& diags);

// Assembles `source` and builds its code object in one step.
std::optional<codeobj::CodeObject> assemble_code_object(std::string_view source, const std::string& filename,
                                                        const Options& options, DiagnosticSink& diags);

// Highest VGPR and SGPR (s0..s101) the code in `bytes` refers to, by decoding it.
codeobj::RegisterUsage register_usage(std::span<const uint8_t> bytes, isa::Target target);

}  // namespace k100::as
