#include "k100/codeobj/kernel_metadata.h"

#include <array>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

struct KindName {
  ValueKind kind;
  std::string_view name;
  bool hidden;
};

constexpr KindName kKinds[] = {
    {ValueKind::ByValue, "by_value", false},
    {ValueKind::GlobalBuffer, "global_buffer", false},
    {ValueKind::DynamicSharedPointer, "dynamic_shared_pointer", false},
    {ValueKind::Sampler, "sampler", false},
    {ValueKind::Image, "image", false},
    {ValueKind::Pipe, "pipe", false},
    {ValueKind::Queue, "queue", false},
    {ValueKind::HiddenGlobalOffsetX, "hidden_global_offset_x", true},
    {ValueKind::HiddenGlobalOffsetY, "hidden_global_offset_y", true},
    {ValueKind::HiddenGlobalOffsetZ, "hidden_global_offset_z", true},
    {ValueKind::HiddenNone, "hidden_none", true},
    {ValueKind::HiddenPrintfBuffer, "hidden_printf_buffer", true},
    {ValueKind::HiddenHostcallBuffer, "hidden_hostcall_buffer", true},
    {ValueKind::HiddenDefaultQueue, "hidden_default_queue", true},
    {ValueKind::HiddenCompletionAction, "hidden_completion_action", true},
    {ValueKind::HiddenMultigridSyncArg, "hidden_multigrid_sync_arg", true},
    {ValueKind::HiddenBlockCountX, "hidden_block_count_x", true},
    {ValueKind::HiddenBlockCountY, "hidden_block_count_y", true},
    {ValueKind::HiddenBlockCountZ, "hidden_block_count_z", true},
    {ValueKind::HiddenGroupSizeX, "hidden_group_size_x", true},
    {ValueKind::HiddenGroupSizeY, "hidden_group_size_y", true},
    {ValueKind::HiddenGroupSizeZ, "hidden_group_size_z", true},
    {ValueKind::HiddenRemainderX, "hidden_remainder_x", true},
    {ValueKind::HiddenRemainderY, "hidden_remainder_y", true},
    {ValueKind::HiddenRemainderZ, "hidden_remainder_z", true},
    {ValueKind::HiddenGridDims, "hidden_grid_dims", true},
    {ValueKind::HiddenHeapV1, "hidden_heap_v1", true},
    {ValueKind::HiddenPrivateBase, "hidden_private_base", true},
    {ValueKind::HiddenSharedBase, "hidden_shared_base", true},
    {ValueKind::HiddenQueuePtr, "hidden_queue_ptr", true},
    {ValueKind::HiddenDynamicLdsSize, "hidden_dynamic_lds_size", true},
};

constexpr std::array<std::string_view, 6> kAddressSpaces = {"private", "global",  "constant",
                                                            "local",   "generic", "region"};
constexpr std::array<std::string_view, 3> kAccess = {"read_only", "write_only", "read_write"};

// Reads typed fields out of one metadata map, naming the map (`where`) in every error,
// and remembers which keys were consumed so the rest can go to `extra`.
class MapReader {
 public:
  MapReader(const MetaNode& node, std::string_view where) : node_(node), where_(where) {
    if (!node.is_map())
      throw Error(where_ + ": expected a map, found " +
                  std::string(MetaNode::kind_name(node.kind())));
  }

  const MetaNode* get(std::string_view key, bool required) {
    used_.push_back(std::string(key));
    const MetaNode* v = node_.find(key);
    if (!v && required) throw Error(where_ + ": missing required key " + std::string(key));
    return v;
  }

  std::optional<std::string> str(std::string_view key, bool required = false) {
    const MetaNode* v = get(key, required);
    if (!v) return std::nullopt;
    if (!v->is_string()) bad(key, *v, "a string");
    return v->as_string();
  }

  std::optional<uint64_t> uint(std::string_view key, bool required = false,
                               uint64_t max = UINT32_MAX) {
    const MetaNode* v = get(key, required);
    if (!v) return std::nullopt;
    if (!v->is_integer()) bad(key, *v, "an integer");
    if (v->kind() == MetaNode::Kind::Int && v->as_int() < 0)
      throw Error(where_ + ": " + std::string(key) + " is negative (" +
                  std::to_string(v->as_int()) + ")");
    uint64_t u = v->as_uint();
    if (u > max)
      throw Error(where_ + ": " + std::string(key) + " value " + std::to_string(u) +
                  " is too large");
    return u;
  }

  std::optional<bool> boolean(std::string_view key) {
    const MetaNode* v = get(key, false);
    if (!v) return std::nullopt;
    if (!v->is_bool()) bad(key, *v, "a boolean");
    return v->as_bool();
  }

  template <typename E, size_t N>
  std::optional<E> enumerated(std::string_view key, const std::array<std::string_view, N>& names) {
    auto s = str(key);
    if (!s) return std::nullopt;
    for (size_t i = 0; i < N; ++i)
      if (*s == names[i]) return static_cast<E>(i);
    std::string list;
    for (auto n : names) list += (list.empty() ? "" : ", ") + std::string(n);
    throw Error(where_ + ": " + std::string(key) + " '" + *s + "' is not one of " + list);
  }

  std::optional<std::vector<int64_t>> int_list(std::string_view key, size_t exact_size) {
    const MetaNode* v = get(key, false);
    if (!v) return std::nullopt;
    if (!v->is_array()) bad(key, *v, "an array of integers");
    if (exact_size && v->items().size() != exact_size)
      throw Error(where_ + ": " + std::string(key) + " must have " + std::to_string(exact_size) +
                  " elements, has " + std::to_string(v->items().size()));
    std::vector<int64_t> out;
    for (const auto& e : v->items()) {
      if (!e.is_integer()) bad(key, e, "an array of integers");
      if (e.kind() == MetaNode::Kind::UInt && e.as_uint() > uint64_t(INT64_MAX))
        throw Error(where_ + ": " + std::string(key) + " element is too large");
      out.push_back(e.as_int());
    }
    return out;
  }

  std::optional<std::array<uint32_t, 3>> dims(std::string_view key) {
    auto l = int_list(key, 3);
    if (!l) return std::nullopt;
    std::array<uint32_t, 3> a{};
    for (size_t i = 0; i < 3; ++i) {
      if ((*l)[i] < 0 || (*l)[i] > int64_t(UINT32_MAX))
        throw Error(where_ + ": " + std::string(key) + " element out of range");
      a[i] = static_cast<uint32_t>((*l)[i]);
    }
    return a;
  }

  MetaNode rest() const {
    MetaNode extra = MetaNode::map();
    for (const auto& [k, v] : node_.entries()) {
      bool used = false;
      for (const auto& u : used_) used = used || u == k;
      if (!used) extra.set(k, v);
    }
    return extra;
  }

  const std::string& where() const { return where_; }

 private:
  [[noreturn]] void bad(std::string_view key, const MetaNode& v, const char* want) {
    throw Error(where_ + ": " + std::string(key) + " must be " + want + ", found " +
                std::string(MetaNode::kind_name(v.kind())));
  }

  const MetaNode& node_;
  std::string where_;
  std::vector<std::string> used_;
};

void put_opt_str(MetaNode& m, std::string_view key, const std::optional<std::string>& v) {
  if (v) m.set(key, MetaNode::string(*v));
}
void put_opt_uint(MetaNode& m, std::string_view key, const std::optional<uint32_t>& v) {
  if (v) m.set(key, MetaNode::uinteger(*v));
}
void put_opt_bool(MetaNode& m, std::string_view key, const std::optional<bool>& v) {
  if (v) m.set(key, MetaNode::boolean(*v));
}
void put_dims(MetaNode& m, std::string_view key, const std::optional<std::array<uint32_t, 3>>& v) {
  if (!v) return;
  MetaNode a = MetaNode::array();
  for (uint32_t d : *v) a.push_back(MetaNode::uinteger(d));
  m.set(key, std::move(a));
}

}  // namespace

std::string_view value_kind_name(ValueKind k) {
  for (const auto& e : kKinds)
    if (e.kind == k) return e.name;
  return "?";
}

std::optional<ValueKind> parse_value_kind(std::string_view name) {
  for (const auto& e : kKinds)
    if (e.name == name) return e.kind;
  return std::nullopt;
}

bool is_hidden(ValueKind k) {
  for (const auto& e : kKinds)
    if (e.kind == k) return e.hidden;
  return false;
}

std::vector<ValueKind> all_value_kinds() {
  std::vector<ValueKind> out;
  for (const auto& e : kKinds) out.push_back(e.kind);
  return out;
}

std::string_view address_space_name(AddressSpace a) {
  return kAddressSpaces[size_t(a)];
}
std::optional<AddressSpace> parse_address_space(std::string_view name) {
  for (size_t i = 0; i < kAddressSpaces.size(); ++i)
    if (kAddressSpaces[i] == name) return static_cast<AddressSpace>(i);
  return std::nullopt;
}

std::string_view access_name(Access a) {
  return kAccess[size_t(a)];
}
std::optional<Access> parse_access(std::string_view name) {
  for (size_t i = 0; i < kAccess.size(); ++i)
    if (kAccess[i] == name) return static_cast<Access>(i);
  return std::nullopt;
}

ArgMeta parse_arg_meta(const MetaNode& node, std::string_view where) {
  MapReader r(node, where);
  ArgMeta a;
  a.name = r.str(".name");
  a.type_name = r.str(".type_name");
  a.size = static_cast<uint32_t>(*r.uint(".size", true));
  a.offset = static_cast<uint32_t>(*r.uint(".offset", true));
  std::string kind = *r.str(".value_kind", true);
  auto vk = parse_value_kind(kind);
  if (!vk) throw Error(r.where() + ": unknown .value_kind '" + kind + "'");
  a.value_kind = *vk;
  a.value_type = r.str(".value_type");
  if (auto p = r.uint(".pointee_align")) a.pointee_align = static_cast<uint32_t>(*p);
  a.address_space = r.enumerated<AddressSpace>(".address_space", kAddressSpaces);
  a.access = r.enumerated<Access>(".access", kAccess);
  a.actual_access = r.enumerated<Access>(".actual_access", kAccess);
  a.is_const = r.boolean(".is_const");
  a.is_restrict = r.boolean(".is_restrict");
  a.is_volatile = r.boolean(".is_volatile");
  a.is_pipe = r.boolean(".is_pipe");
  a.extra = r.rest();
  return a;
}

KernelMeta parse_kernel_meta(const MetaNode& node, std::string_view where) {
  MapReader r(node, where);
  KernelMeta k;
  k.name = *r.str(".name", true);
  std::string w = std::string(where) + " (kernel '" + k.name + "')";
  MapReader rk(node, w);
  rk.get(".name", true);
  k.symbol = *rk.str(".symbol", true);
  k.language = rk.str(".language");
  k.language_version = rk.int_list(".language_version", 0);
  if (const MetaNode* args = rk.get(".args", false)) {
    k.has_args_key = true;
    if (!args->is_array())
      throw Error(w + ": .args must be an array, found " +
                  std::string(MetaNode::kind_name(args->kind())));
    size_t i = 0;
    for (const auto& a : args->items())
      k.args.push_back(parse_arg_meta(a, w + " arg " + std::to_string(i++)));
  }
  k.reqd_workgroup_size = rk.dims(".reqd_workgroup_size");
  k.workgroup_size_hint = rk.dims(".workgroup_size_hint");
  k.vec_type_hint = rk.str(".vec_type_hint");
  k.device_enqueue_symbol = rk.str(".device_enqueue_symbol");
  k.kernarg_segment_size = *rk.uint(".kernarg_segment_size", true);
  k.group_segment_fixed_size = *rk.uint(".group_segment_fixed_size", true);
  k.private_segment_fixed_size = *rk.uint(".private_segment_fixed_size", true);
  k.kernarg_segment_align = static_cast<uint32_t>(*rk.uint(".kernarg_segment_align", true));
  k.wavefront_size = static_cast<uint32_t>(*rk.uint(".wavefront_size", true));
  k.sgpr_count = static_cast<uint32_t>(*rk.uint(".sgpr_count", true));
  k.vgpr_count = static_cast<uint32_t>(*rk.uint(".vgpr_count", true));
  if (auto v = rk.uint(".agpr_count")) k.agpr_count = static_cast<uint32_t>(*v);
  k.max_flat_workgroup_size = static_cast<uint32_t>(*rk.uint(".max_flat_workgroup_size", true));
  if (auto v = rk.uint(".sgpr_spill_count")) k.sgpr_spill_count = static_cast<uint32_t>(*v);
  if (auto v = rk.uint(".vgpr_spill_count")) k.vgpr_spill_count = static_cast<uint32_t>(*v);
  k.kind = rk.str(".kind");
  k.uses_dynamic_stack = rk.boolean(".uses_dynamic_stack");
  k.workgroup_processor_mode = rk.boolean(".workgroup_processor_mode");
  k.uniform_work_group_size = rk.boolean(".uniform_work_group_size");
  k.extra = rk.rest();
  return k;
}

std::vector<KernelMeta> parse_kernels(const MetaNode& document, std::string_view origin) {
  std::vector<KernelMeta> out;
  if (document.is_nil()) return out;
  if (!document.is_map())
    throw Error(std::string(origin) + ": metadata document must be a map, found " +
                std::string(MetaNode::kind_name(document.kind())));
  const MetaNode* ks = document.find("amdhsa.kernels");
  if (!ks) return out;
  if (!ks->is_array())
    throw Error(std::string(origin) + ": amdhsa.kernels must be an array, found " +
                std::string(MetaNode::kind_name(ks->kind())));
  size_t i = 0;
  for (const auto& k : ks->items())
    out.push_back(parse_kernel_meta(
        k, std::string(origin) + ": amdhsa.kernels[" + std::to_string(i++) + "]"));
  return out;
}

MetaNode to_node(const ArgMeta& a) {
  MetaNode m = a.extra.is_map() ? a.extra : MetaNode::map();
  put_opt_str(m, ".name", a.name);
  put_opt_str(m, ".type_name", a.type_name);
  m.set(".offset", MetaNode::uinteger(a.offset));
  m.set(".size", MetaNode::uinteger(a.size));
  m.set(".value_kind", MetaNode::string(std::string(value_kind_name(a.value_kind))));
  put_opt_str(m, ".value_type", a.value_type);
  put_opt_uint(m, ".pointee_align", a.pointee_align);
  if (a.address_space)
    m.set(".address_space", MetaNode::string(std::string(address_space_name(*a.address_space))));
  if (a.access) m.set(".access", MetaNode::string(std::string(access_name(*a.access))));
  if (a.actual_access)
    m.set(".actual_access", MetaNode::string(std::string(access_name(*a.actual_access))));
  put_opt_bool(m, ".is_const", a.is_const);
  put_opt_bool(m, ".is_restrict", a.is_restrict);
  put_opt_bool(m, ".is_volatile", a.is_volatile);
  put_opt_bool(m, ".is_pipe", a.is_pipe);
  return m;
}

MetaNode to_node(const KernelMeta& k) {
  MetaNode m = k.extra.is_map() ? k.extra : MetaNode::map();
  m.set(".name", MetaNode::string(k.name));
  m.set(".symbol", MetaNode::string(k.symbol));
  put_opt_str(m, ".language", k.language);
  if (k.language_version) {
    MetaNode v = MetaNode::array();
    for (int64_t x : *k.language_version) v.push_back(MetaNode::integer(x));
    m.set(".language_version", std::move(v));
  }
  if (k.has_args_key || !k.args.empty()) {
    MetaNode args = MetaNode::array();
    for (const auto& a : k.args) args.push_back(to_node(a));
    m.set(".args", std::move(args));
  }
  put_dims(m, ".reqd_workgroup_size", k.reqd_workgroup_size);
  put_dims(m, ".workgroup_size_hint", k.workgroup_size_hint);
  put_opt_str(m, ".vec_type_hint", k.vec_type_hint);
  put_opt_str(m, ".device_enqueue_symbol", k.device_enqueue_symbol);
  m.set(".kernarg_segment_size", MetaNode::uinteger(k.kernarg_segment_size));
  m.set(".group_segment_fixed_size", MetaNode::uinteger(k.group_segment_fixed_size));
  m.set(".private_segment_fixed_size", MetaNode::uinteger(k.private_segment_fixed_size));
  m.set(".kernarg_segment_align", MetaNode::uinteger(k.kernarg_segment_align));
  m.set(".wavefront_size", MetaNode::uinteger(k.wavefront_size));
  m.set(".sgpr_count", MetaNode::uinteger(k.sgpr_count));
  m.set(".vgpr_count", MetaNode::uinteger(k.vgpr_count));
  put_opt_uint(m, ".agpr_count", k.agpr_count);
  m.set(".max_flat_workgroup_size", MetaNode::uinteger(k.max_flat_workgroup_size));
  put_opt_uint(m, ".sgpr_spill_count", k.sgpr_spill_count);
  put_opt_uint(m, ".vgpr_spill_count", k.vgpr_spill_count);
  put_opt_str(m, ".kind", k.kind);
  put_opt_bool(m, ".uses_dynamic_stack", k.uses_dynamic_stack);
  put_opt_bool(m, ".workgroup_processor_mode", k.workgroup_processor_mode);
  put_opt_bool(m, ".uniform_work_group_size", k.uniform_work_group_size);
  return m;
}

MetaNode make_metadata_document(CodeObjectVersion version, const Target& target,
                                const std::vector<KernelMeta>& kernels) {
  std::string_view vendor_key;
  if (const ProcessorInfo* p = find_processor(target.processor)) vendor_key = p->extra_kernel_key;
  MetaNode doc = MetaNode::map();
  MetaNode list = MetaNode::array();
  for (const auto& k : kernels) {
    MetaNode node = to_node(k);
    if (!vendor_key.empty() && !node.find(vendor_key)) node.set(vendor_key, MetaNode::uinteger(0));
    list.push_back(std::move(node));
  }
  doc.set("amdhsa.kernels", std::move(list));
  doc.set("amdhsa.target", MetaNode::string(target.id()));
  auto [major, minor] = metadata_version(version);
  MetaNode v = MetaNode::array();
  v.push_back(MetaNode::uinteger(uint64_t(major)));
  v.push_back(MetaNode::uinteger(uint64_t(minor)));
  doc.set("amdhsa.version", std::move(v));
  return doc;
}

}  // namespace k100::codeobj
