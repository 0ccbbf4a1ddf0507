// k100lc codeobj: the kernel catalog (JSON) and the C header of kernel layouts.
//
// Both are generated from a code object's metadata: per kernel its mangled
// name, lookup name (demangled, no spaces), every kernarg entry (offset, size,
// value kind; explicit ones first), kernarg size, LDS and scratch sizes and
// register counts. The JSON follows PYTHON_API.md §2.1 and the header §9
// (`struct RtArg`, `struct RtKernel`, `k_table` sorted by mangled name, kind
// codes of §8, MAX_KERNARG 1024).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "k100/codeobj/code_object.h"

namespace k100::codeobj {

struct CatalogArg {
  std::optional<std::string> name;
  uint32_t offset = 0;
  uint32_t size = 0;
  std::string kind;  // metadata value kind, e.g. "global_buffer", "hidden_group_size_x"
  std::optional<std::string> type;  // metadata .type_name, e.g. "f32", "const f32*", "float"
};

struct CatalogEntry {
  std::string name;    // mangled symbol
  std::string lookup;  // caller-facing name
  std::vector<CatalogArg> args;
  uint64_t kernarg_size = 0;
  uint64_t group_segment = 0;
  uint64_t private_segment = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  // metadata .max_flat_workgroup_size: the largest workgroup (work-items) the
  // code was built for; 0 when the metadata leaves it out
  uint32_t max_flat_workgroup_size = 0;
  // The kernel's launch contract (metadata `.k100_launch`, k100/kernels/launch_contract.h),
  // one declaration per line; empty when the code object has none.
  std::vector<std::string> launch;
};

constexpr uint32_t kMaxKernarg = 1024;

// Entries for every kernel with metadata, sorted by mangled name (the header's k_table
// order, so a kernel id is the same in both). Throws k100::Error if two kernels have the
// same lookup name.
std::vector<CatalogEntry> make_catalog(const CodeObject& co);

// {"version":1,"kernels":[{name, lookup, args:[{name?, off, size, kind, type?}], kernarg_size,
//  group_segment, private_segment, sgpr_count, vgpr_count, launch?: [lines]}]}, indented by 2, newline-terminated.
std::string catalog_json(const std::vector<CatalogEntry>& entries);

// Kind code of PYTHON_API.md §8: 0 explicit (every non-hidden kind), 1-3 block count x/y/z,
// 4-6 group size, 7-9 remainder, 10-12 global offset, 13 grid dims. Other hidden kinds get
// k100lc extension codes from 14 (hidden_none) on, which runtimes fill with zero.
uint8_t kind_code(std::string_view kind);

// The C header. `origin` is named in its first comment line. Throws k100::Error naming the
// kernel if a kernarg segment exceeds MAX_KERNARG.
std::string catalog_header(const std::vector<CatalogEntry>& entries, const std::string& origin);

}  // namespace k100::codeobj
