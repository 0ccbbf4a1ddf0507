// k100lc codeobj: typed kernel and argument metadata records.
//
// KernelMeta / ArgMeta are the typed view of one entry of `amdhsa.kernels`
// (code object v3/v4/v5 keys, every value kind including every hidden_* kind).
// Keys the toolkit does not model (vendor keys such as `.fp64_status`, future
// LLVM keys) are kept in `extra` so a record converts back to the same tree.
// parse_*() validate types and required keys the way LLVM's metadata verifier
// does and name the kernel and key in their errors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/target.h"

namespace k100::codeobj {

enum class ValueKind : uint8_t {
  ByValue,
  GlobalBuffer,
  DynamicSharedPointer,
  Sampler,
  Image,
  Pipe,
  Queue,
  HiddenGlobalOffsetX,
  HiddenGlobalOffsetY,
  HiddenGlobalOffsetZ,
  HiddenNone,
  HiddenPrintfBuffer,
  HiddenHostcallBuffer,
  HiddenDefaultQueue,
  HiddenCompletionAction,
  HiddenMultigridSyncArg,
  // Code object v5.
  HiddenBlockCountX,
  HiddenBlockCountY,
  HiddenBlockCountZ,
  HiddenGroupSizeX,
  HiddenGroupSizeY,
  HiddenGroupSizeZ,
  HiddenRemainderX,
  HiddenRemainderY,
  HiddenRemainderZ,
  HiddenGridDims,
  HiddenHeapV1,
  HiddenPrivateBase,
  HiddenSharedBase,
  HiddenQueuePtr,
  HiddenDynamicLdsSize,
};

// "by_value", "hidden_block_count_x", ...
std::string_view value_kind_name(ValueKind k);
std::optional<ValueKind> parse_value_kind(std::string_view name);
bool is_hidden(ValueKind k);
// All kinds, in enum order.
std::vector<ValueKind> all_value_kinds();

enum class AddressSpace : uint8_t { Private, Global, Constant, Local, Generic, Region };
std::string_view address_space_name(AddressSpace a);
std::optional<AddressSpace> parse_address_space(std::string_view name);

enum class Access : uint8_t { ReadOnly, WriteOnly, ReadWrite };
std::string_view access_name(Access a);
std::optional<Access> parse_access(std::string_view name);

struct ArgMeta {
  std::optional<std::string> name;       // .name
  std::optional<std::string> type_name;  // .type_name
  uint32_t offset = 0;                   // .offset
  uint32_t size = 0;                     // .size
  ValueKind value_kind = ValueKind::ByValue;
  std::optional<std::string> value_type;  // .value_type (v3/v4, deprecated)
  std::optional<uint32_t> pointee_align;  // .pointee_align
  std::optional<AddressSpace> address_space;
  std::optional<Access> access;         // .access (source qualifier)
  std::optional<Access> actual_access;  // .actual_access (what the code does)
  std::optional<bool> is_const, is_restrict, is_volatile, is_pipe;
  MetaNode extra = MetaNode::map();  // keys not listed above

  bool operator==(const ArgMeta&) const = default;
};

struct KernelMeta {
  std::string name;                                      // .name
  std::string symbol;                                    // .symbol, normally name + ".kd"
  std::optional<std::string> language;                   // .language, e.g. "OpenCL C"
  std::optional<std::vector<int64_t>> language_version;  // .language_version [major, minor]
  std::vector<ArgMeta> args;                             // .args (absent and empty both give {})
  bool has_args_key = false;  // whether .args was present (to round-trip exactly)
  std::optional<std::array<uint32_t, 3>> reqd_workgroup_size;
  std::optional<std::array<uint32_t, 3>> workgroup_size_hint;
  std::optional<std::string> vec_type_hint;
  std::optional<std::string> device_enqueue_symbol;
  uint64_t kernarg_segment_size = 0;
  uint64_t group_segment_fixed_size = 0;
  uint64_t private_segment_fixed_size = 0;
  uint32_t kernarg_segment_align = 8;
  uint32_t wavefront_size = 64;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  std::optional<uint32_t> agpr_count;
  uint32_t max_flat_workgroup_size = 256;
  std::optional<uint32_t> sgpr_spill_count;
  std::optional<uint32_t> vgpr_spill_count;
  std::optional<std::string> kind;  // .kind: normal, init, fini
  std::optional<bool> uses_dynamic_stack;
  std::optional<bool> workgroup_processor_mode;
  std::optional<bool> uniform_work_group_size;
  MetaNode extra = MetaNode::map();  // keys not listed above, e.g. the vendor's .fp64_status

  bool operator==(const KernelMeta&) const = default;
};

// One `.args` entry. `where` names it in errors, e.g. "a.hsaco: kernel 'vadd' arg 2".
ArgMeta parse_arg_meta(const MetaNode& node, std::string_view where);
// One `amdhsa.kernels` entry; `where` names it in errors, e.g. "a.hsaco: amdhsa.kernels[3]".
KernelMeta parse_kernel_meta(const MetaNode& node, std::string_view where);
// All kernels of a metadata document (empty if it has no amdhsa.kernels).
std::vector<KernelMeta> parse_kernels(const MetaNode& document, std::string_view origin);

MetaNode to_node(const ArgMeta& a);
MetaNode to_node(const KernelMeta& k);

// A complete metadata document {amdhsa.kernels, amdhsa.target, amdhsa.version} for the
// given kernels. For targets whose table entry names a vendor kernel key (gfx926:
// ".fp64_status") the key is added with value 0 to kernels that lack it.
MetaNode make_metadata_document(CodeObjectVersion version, const Target& target,
                                const std::vector<KernelMeta>& kernels);

}  // namespace k100::codeobj
