// k100lc codeobj: one kernel from its settings, arguments and code.
//
// What the assembler's `.amdhsa_kernel` block plus the compact argument lines
// (or a kernel generator) know about a kernel becomes a complete Kernel here:
// the argument layout with hidden arguments, the descriptor (LLVM's
// computation), and the metadata record with counts that agree with the
// descriptor. It also checks what llvm-mc does not: a kernarg size smaller than
// the arguments, and register counts smaller than the registers the code uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "k100/codeobj/arg_layout.h"
#include "k100/codeobj/code_object.h"
#include "k100/codeobj/descriptor_settings.h"

namespace k100::codeobj {

struct KernelSpec {
  std::string name;
  DescriptorSettings settings;         // the .amdhsa_* directives given
  std::vector<ExplicitArg> args;       // explicit arguments, in order
  ArgLayoutOptions layout;             // which hidden arguments to add
  std::optional<RegisterUsage> usage;  // registers the code uses, if known
  uint64_t code_offset = 0;            // entry point in .text
  uint64_t code_size = 0;
  uint32_t max_flat_workgroup_size = 256;
  std::optional<std::string> language;  // e.g. "OpenCL C"; omitted when unset
};

// Builds the kernel: next_free_vgpr/sgpr default to the usage (apply_register_usage),
// kernarg_size defaults to the layout's size, and group/private segment sizes come from
// the settings. Throws k100::Error naming the kernel when the given kernarg size is
// smaller than the arguments, when given register counts are smaller than the usage, and
// for everything compute_descriptor() / layout_kernel_args() reject.
Kernel build_kernel(const KernelSpec& spec, const Target& target, CodeObjectVersion version);

}  // namespace k100::codeobj
