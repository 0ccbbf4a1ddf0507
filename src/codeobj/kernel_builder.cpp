#include "k100/codeobj/kernel_builder.h"

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

[[noreturn]] void fail_kernel(const std::string& kernel, const std::string& msg) {
  throw Error("kernel '" + kernel + "': " + msg);
}

}  // namespace

Kernel build_kernel(const KernelSpec& spec, const Target& target, CodeObjectVersion version) {
  auto fail = [&](const std::string& msg) { fail_kernel(spec.name, msg); };
  DescriptorSettings s = spec.settings;
  ArgLayout layout;
  try {
    layout = layout_kernel_args(spec.args, version, spec.layout);
  } catch (const Error& e) {
    fail(e.what());
  }
  if (s.given.count("kernarg_size")) {
    if (s.kernarg_size < layout.kernarg_segment_size)
      fail(".amdhsa_kernarg_size " + std::to_string(s.kernarg_size) + " is smaller than the " +
           std::to_string(layout.kernarg_segment_size) + " bytes its arguments need");
  } else {
    s.kernarg_size = layout.kernarg_segment_size;
  }
  if (spec.usage) {
    if (s.next_free_vgpr && int64_t(*s.next_free_vgpr) <= spec.usage->max_vgpr)
      fail(".amdhsa_next_free_vgpr " + std::to_string(*s.next_free_vgpr) +
           " is too small: the code uses v" + std::to_string(spec.usage->max_vgpr));
    if (s.next_free_sgpr && int64_t(*s.next_free_sgpr) <= spec.usage->max_sgpr)
      fail(".amdhsa_next_free_sgpr " + std::to_string(*s.next_free_sgpr) +
           " is too small: the code uses s" + std::to_string(spec.usage->max_sgpr));
    apply_register_usage(s, *spec.usage);
  }
  Kernel k;
  try {
    k.descriptor = compute_descriptor(s, target);
  } catch (const Error& e) {
    fail(e.what());
  }
  k.name = spec.name;
  k.code_offset = spec.code_offset;
  k.code_size = spec.code_size;

  KernelMeta m;
  m.name = spec.name;
  m.symbol = spec.name + ".kd";
  m.language = spec.language;
  m.args = layout.args;
  m.kernarg_segment_size = s.kernarg_size;
  m.kernarg_segment_align = layout.kernarg_segment_align;
  m.group_segment_fixed_size = s.group_segment_fixed_size;
  m.private_segment_fixed_size = s.private_segment_fixed_size;
  m.wavefront_size = 64;
  MetadataRegisterCounts counts = metadata_register_counts(s, target);
  m.sgpr_count = counts.sgpr_count;
  m.vgpr_count = counts.vgpr_count;
  m.max_flat_workgroup_size = spec.max_flat_workgroup_size;
  if (s.given.count("uses_dynamic_stack")) m.uses_dynamic_stack = s.uses_dynamic_stack;
  k.meta = std::move(m);
  return k;
}

}  // namespace k100::codeobj
