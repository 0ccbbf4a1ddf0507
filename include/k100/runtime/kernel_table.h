// k100lc runtime: the table of launchable kernels.
//
// Every code object loaded as a package contributes its kernels (from the
// code object's metadata, in the catalog's order: sorted by mangled name),
// appended in load order; a kernel's id is its index in the table, which for
// the first package equals its index in the generated C header's k_table.
// Lookups are the catalog's caller-facing names (template arguments without
// spaces; whitespace in a query is ignored); a lookup or mangled name defined
// by two packages is an error at load time, and the table stays unchanged.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "k100/codeobj/code_object.h"
#include "k100/runtime/kernarg.h"

namespace k100::runtime {

struct ArgInfo {
  std::string name;  // "" when the metadata has none
  uint32_t offset = 0;
  uint32_t size = 0;
  uint8_t kind = kExplicit;  // kind code
  std::string value_kind;    // metadata spelling, e.g. "global_buffer", "hidden_block_count_x"
  std::string type;          // metadata .type_name ("f32", "const f32*", "float"), "" when absent
};

struct KernelInfo {
  int id = -1;
  int package = -1;           // index of the package that defined it
  int module = -1;            // backend module handle
  std::string name;           // mangled symbol
  std::string lookup;         // caller-facing name
  std::vector<ArgInfo> args;  // explicit first, then hidden
  size_t explicit_args = 0;
  uint32_t kernarg_size = 0;
  uint32_t group_segment = 0;
  uint32_t private_segment = 0;
  uint32_t sgpr_count = 0, vgpr_count = 0;
  uint32_t max_workgroup = 0;       // metadata .max_flat_workgroup_size; 0 = not stated
  std::vector<std::string> launch;  // the launch contract's lines (catalog "launch"), empty when none

  std::vector<LayoutEntry> layout() const;
  // "gemv_f32_warp_k(w: const f32*, x: const f32*, y: f32*, nrows: u32, k: u32, wg: u32)"
  std::string signature() const;
};

// The catalog entries of one code object as KernelInfo records (ids, package
// and module left unset), sorted by mangled name. Throws k100::Error for two
// kernels with the same lookup.
std::vector<KernelInfo> kernels_of(const codeobj::CodeObject& co);

// Whitespace removed: the form lookups are compared in.
std::string normalize_lookup(std::string_view name);

class KernelTable {
 public:
  // Adds one package's kernels; throws RuntimeError(Package) naming both
  // origins on a duplicate lookup or mangled name (nothing is added then).
  int add_package(std::vector<KernelInfo> kernels, int module, const std::string& origin);
  // The checks of add_package alone (throws the same errors, changes nothing).
  void check_package(const std::vector<KernelInfo>& kernels, const std::string& origin) const;

  const KernelInfo* find(std::string_view lookup) const;         // lookup, then mangled name
  const KernelInfo* find_lookup(std::string_view lookup) const;  // lookup only (the C table rule)
  const KernelInfo* at(int id) const;
  // find() or RuntimeError(UnknownKernel) with a closest-match suggestion.
  const KernelInfo& get(std::string_view lookup) const;
  // "unknown kernel 'x' (did you mean 'y'?)" or a line saying what is loaded.
  std::string unknown_message(std::string_view lookup) const;

  size_t size() const { return kernels_.size(); }
  // Entries never move once added: pointers and references to them stay valid.
  const std::deque<KernelInfo>& all() const { return kernels_; }
  const std::vector<std::string>& packages() const { return origins_; }

 private:
  std::deque<KernelInfo> kernels_;
  std::vector<std::string> origins_;
  std::unordered_map<std::string, int> by_lookup_, by_name_;
};

}  // namespace k100::runtime
