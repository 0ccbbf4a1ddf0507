// The activation quantisers of the W4 and NVFP4 paths: their declarations
// (signature, format, generator) shared by the generators and the registry
// entries of kernels/w4act/.
#pragma once

#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/quant/w4_formats.h"
#include "w4act/activation_quantiser.h"

namespace k100::kernels::w4act {

// A quantiser that takes one group per workgroup on a (groups, rows) grid.
struct GroupKernel {
  codegen::Signature signature;
  const char* family;
  const quant::ActivationFormat* format;  // its host reference's format
  CodeRange range;
  bool int8;              // int8 even/odd streams ae, ao (else nibbles in aq)
  bool sums;              // int32 group sums in asu
  int workgroup;          // the catalog's workgroup size
  const char* scale_arg;  // the scales' argument name
  int group() const { return int(format->group); }
};
const std::vector<GroupKernel>& group_kernels();
codeobj::CodeObject build_group_kernel(isa::Target target, const GroupKernel& g);

// The prefill row quantisers (grid = rows, group-major scales).
enum class RowsKind {
  Serial,  // quant_rows_k: a thread per group, the group's units in a loop
  Fast,    // quant_rows_fast_k: G/8 lanes per group, 8 f32 a lane
  Digits,  // quant_rows_a8_k: serial, int8 codes split into two int4 digits
};
codegen::Signature rows_signature(RowsKind kind);
codeobj::CodeObject build_rows_kernel(isa::Target target, RowsKind kind);

// Every quantiser's registry entry (w4_activation_kernels.cpp).
void register_quantisers(Registry& r);

}  // namespace k100::kernels::w4act
