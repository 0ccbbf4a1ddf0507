#include "k100/codeobj/descriptor_settings.h"

#include <algorithm>

#include "k100/base/closest_match.h"
#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

// Which GPU generation a directive belongs to. The toolkit's targets are GFX9
// (gfx906, gfx926), so the others are known but rejected, as llvm-mc does.
enum class Gen { Gfx9, Gfx90a, Gfx10, Gfx940, ArchitectedFlatScratch };

using S = DescriptorSettings;

struct Directive {
  const char* name;  // without ".amdhsa_"
  Gen gen;
  uint64_t max;  // largest accepted value
  void (*apply)(S&, uint64_t);
};

constexpr uint64_t kU32 = 0xffffffffull;

#define K100_BOOL(field) [](S& s, uint64_t v) { s.field = v != 0; }
#define K100_U32(field) [](S& s, uint64_t v) { s.field = static_cast<uint32_t>(v); }

const Directive kDirectives[] = {
    {"group_segment_fixed_size", Gen::Gfx9, kU32, K100_U32(group_segment_fixed_size)},
    {"private_segment_fixed_size", Gen::Gfx9, kU32, K100_U32(private_segment_fixed_size)},
    {"kernarg_size", Gen::Gfx9, kU32, K100_U32(kernarg_size)},
    {"user_sgpr_count", Gen::Gfx9, kU32, K100_U32(user_sgpr_count)},
    {"user_sgpr_private_segment_buffer", Gen::Gfx9, 1, K100_BOOL(user_sgpr_private_segment_buffer)},
    {"user_sgpr_dispatch_ptr", Gen::Gfx9, 1, K100_BOOL(user_sgpr_dispatch_ptr)},
    {"user_sgpr_queue_ptr", Gen::Gfx9, 1, K100_BOOL(user_sgpr_queue_ptr)},
    {"user_sgpr_kernarg_segment_ptr", Gen::Gfx9, 1, K100_BOOL(user_sgpr_kernarg_segment_ptr)},
    {"user_sgpr_dispatch_id", Gen::Gfx9, 1, K100_BOOL(user_sgpr_dispatch_id)},
    {"user_sgpr_flat_scratch_init", Gen::Gfx9, 1, K100_BOOL(user_sgpr_flat_scratch_init)},
    {"user_sgpr_private_segment_size", Gen::Gfx9, 1, K100_BOOL(user_sgpr_private_segment_size)},
    {"uses_dynamic_stack", Gen::Gfx9, 1, K100_BOOL(uses_dynamic_stack)},
    {"system_sgpr_private_segment_wavefront_offset", Gen::Gfx9, 1,
     K100_BOOL(system_sgpr_private_segment_wavefront_offset)},
    {"system_sgpr_workgroup_id_x", Gen::Gfx9, 1, K100_BOOL(system_sgpr_workgroup_id_x)},
    {"system_sgpr_workgroup_id_y", Gen::Gfx9, 1, K100_BOOL(system_sgpr_workgroup_id_y)},
    {"system_sgpr_workgroup_id_z", Gen::Gfx9, 1, K100_BOOL(system_sgpr_workgroup_id_z)},
    {"system_sgpr_workgroup_info", Gen::Gfx9, 1, K100_BOOL(system_sgpr_workgroup_info)},
    {"system_vgpr_workitem_id", Gen::Gfx9, 3, K100_U32(system_vgpr_workitem_id)},
    {"next_free_vgpr", Gen::Gfx9, kU32, K100_U32(next_free_vgpr)},
    {"next_free_sgpr", Gen::Gfx9, kU32, K100_U32(next_free_sgpr)},
    {"reserve_vcc", Gen::Gfx9, 1, K100_BOOL(reserve_vcc)},
    {"reserve_flat_scratch", Gen::Gfx9, 1, K100_BOOL(reserve_flat_scratch)},
    {"reserve_xnack_mask", Gen::Gfx9, 1, K100_BOOL(reserve_xnack_mask)},
    {"float_round_mode_32", Gen::Gfx9, 3, K100_U32(float_round_mode_32)},
    {"float_round_mode_16_64", Gen::Gfx9, 3, K100_U32(float_round_mode_16_64)},
    {"float_denorm_mode_32", Gen::Gfx9, 3, K100_U32(float_denorm_mode_32)},
    {"float_denorm_mode_16_64", Gen::Gfx9, 3, K100_U32(float_denorm_mode_16_64)},
    {"dx10_clamp", Gen::Gfx9, 1, K100_BOOL(dx10_clamp)},
    {"ieee_mode", Gen::Gfx9, 1, K100_BOOL(ieee_mode)},
    {"fp16_overflow", Gen::Gfx9, 1, K100_BOOL(fp16_overflow)},
    {"exception_fp_ieee_invalid_op", Gen::Gfx9, 1, K100_BOOL(exception_fp_ieee_invalid_op)},
    {"exception_fp_denorm_src", Gen::Gfx9, 1, K100_BOOL(exception_fp_denorm_src)},
    {"exception_fp_ieee_div_zero", Gen::Gfx9, 1, K100_BOOL(exception_fp_ieee_div_zero)},
    {"exception_fp_ieee_overflow", Gen::Gfx9, 1, K100_BOOL(exception_fp_ieee_overflow)},
    {"exception_fp_ieee_underflow", Gen::Gfx9, 1, K100_BOOL(exception_fp_ieee_underflow)},
    {"exception_fp_ieee_inexact", Gen::Gfx9, 1, K100_BOOL(exception_fp_ieee_inexact)},
    {"exception_int_div_zero", Gen::Gfx9, 1, K100_BOOL(exception_int_div_zero)},
    // Known to LLVM, but for other generations.
    {"accum_offset", Gen::Gfx90a, 0, nullptr},
    {"tg_split", Gen::Gfx90a, 0, nullptr},
    {"wavefront_size32", Gen::Gfx10, 0, nullptr},
    {"workgroup_processor_mode", Gen::Gfx10, 0, nullptr},
    {"memory_ordered", Gen::Gfx10, 0, nullptr},
    {"forward_progress", Gen::Gfx10, 0, nullptr},
    {"shared_vgpr_count", Gen::Gfx10, 0, nullptr},
    {"user_sgpr_kernarg_preload_length", Gen::Gfx940, 0, nullptr},
    {"user_sgpr_kernarg_preload_offset", Gen::Gfx940, 0, nullptr},
    {"enable_private_segment", Gen::ArchitectedFlatScratch, 0, nullptr},
};

#undef K100_BOOL
#undef K100_U32

bool xnack_on_or_any(const Target& t) {
  return t.xnack == FeatureSetting::Any || t.xnack == FeatureSetting::On;
}

// GFX9 limits: 102 addressable SGPRs; granules of 4 VGPRs (wave64) and 8 SGPRs; the
// granule fields are 6 and 4 bits wide.
constexpr uint32_t kMaxAddressableSgprs = 102;

}  // namespace

std::vector<std::string> amdhsa_directive_names() {
  std::vector<std::string> out;
  for (const auto& d : kDirectives) out.push_back(std::string(".amdhsa_") + d.name);
  return out;
}

void set_amdhsa_directive(S& s, std::string_view key, int64_t value, const Target& target) {
  std::string_view bare = key;
  if (bare.rfind(".amdhsa_", 0) == 0) bare.remove_prefix(8);
  std::string full = ".amdhsa_" + std::string(bare);
  const Directive* d = nullptr;
  for (const auto& e : kDirectives)
    if (bare == e.name) d = &e;
  if (!d) {
    std::string msg = "unknown .amdhsa_kernel directive '" + std::string(key) + "'";
    std::string near = closest_match(full, amdhsa_directive_names());
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    throw Error(msg);
  }
  switch (d->gen) {
    case Gen::Gfx9:
      break;
    case Gen::Gfx90a:
      throw Error(full + ": directive requires gfx90a+ (target is " + target.processor + ")");
    case Gen::Gfx10:
      throw Error(full + ": directive requires gfx10+ (target is " + target.processor + ")");
    case Gen::Gfx940:
      throw Error(full + ": directive requires gfx940+ (target is " + target.processor + ")");
    case Gen::ArchitectedFlatScratch:
      throw Error(full +
                  ": directive is not supported without architected flat scratch (use "
                  ".amdhsa_system_sgpr_private_segment_wavefront_offset)");
  }
  if (s.given.count(d->name)) throw Error(full + ": .amdhsa_ directives cannot be repeated");
  if (value < 0 || static_cast<uint64_t>(value) > d->max)
    throw Error(full + ": value " + std::to_string(value) + " out of range (0.." +
                std::to_string(d->max) + ")");
  if (bare == "reserve_xnack_mask" && (value != 0) != xnack_on_or_any(target))
    throw Error(full + " " + std::to_string(value) + " does not match target id " + target.id() +
                " (xnack " + (xnack_on_or_any(target) ? "on or any" : "off") + " needs " +
                (xnack_on_or_any(target) ? "1" : "0") + ")");
  d->apply(s, static_cast<uint64_t>(value));
  s.given.insert(d->name);
}

uint32_t implied_user_sgpr_count(const S& s) {
  uint32_t n = 0;
  if (s.user_sgpr_private_segment_buffer) n += 4;
  if (s.user_sgpr_dispatch_ptr) n += 2;
  if (s.user_sgpr_queue_ptr) n += 2;
  if (s.user_sgpr_kernarg_segment_ptr) n += 2;
  if (s.user_sgpr_dispatch_id) n += 2;
  if (s.user_sgpr_flat_scratch_init) n += 2;
  if (s.user_sgpr_private_segment_size) n += 1;
  return n;
}

uint32_t extra_sgprs(const S& s, const Target& target) {
  uint32_t extra = 0;
  if (s.reserve_vcc) extra = 2;
  if (xnack_on_or_any(target)) extra = 4;
  if (s.reserve_flat_scratch) extra = 6;
  return extra;
}

KernelDescriptor compute_descriptor(const S& s, const Target& target) {
  if (!s.next_free_vgpr) throw Error("missing .amdhsa_next_free_vgpr directive");
  if (!s.next_free_sgpr) throw Error("missing .amdhsa_next_free_sgpr directive");
  if (s.reserve_xnack_mask && *s.reserve_xnack_mask != xnack_on_or_any(target))
    throw Error(".amdhsa_reserve_xnack_mask does not match target id " + target.id());

  uint64_t sgprs = *s.next_free_sgpr;
  if (sgprs > kMaxAddressableSgprs)
    throw Error(".amdhsa_next_free_sgpr: value " + std::to_string(sgprs) +
                " out of range (GFX9 has " + std::to_string(kMaxAddressableSgprs) +
                " addressable SGPRs)");
  sgprs += extra_sgprs(s, target);
  uint64_t vgprs = *s.next_free_vgpr;
  uint64_t vgpr_blocks = (std::max<uint64_t>(vgprs, 1) + 3) / 4 - 1;
  uint64_t sgpr_blocks = (std::max<uint64_t>(sgprs, 1) + 7) / 8 - 1;
  if (vgpr_blocks > 63)
    throw Error(".amdhsa_next_free_vgpr: value " + std::to_string(vgprs) +
                " out of range (at most 256 VGPRs)");
  if (sgpr_blocks > 15)
    throw Error(".amdhsa_next_free_sgpr: value " + std::to_string(*s.next_free_sgpr) +
                " out of range");

  uint32_t implied = implied_user_sgpr_count(s);
  if (s.user_sgpr_count && *s.user_sgpr_count < implied)
    throw Error(".amdhsa_user_sgpr_count " + std::to_string(*s.user_sgpr_count) +
                " is smaller than the " + std::to_string(implied) +
                " implied by the enabled user SGPRs");
  uint32_t user_sgprs = s.user_sgpr_count.value_or(implied);
  if (user_sgprs > 31)
    throw Error("too many user SGPRs enabled (" + std::to_string(user_sgprs) + ", at most 31)");

  KernelDescriptor kd;
  kd.group_segment_fixed_size = s.group_segment_fixed_size;
  kd.private_segment_fixed_size = s.private_segment_fixed_size;
  kd.kernarg_size = s.kernarg_size;

  uint32_t r1 = 0;
  r1 = rsrc1::kVgprBlocks.set(r1, static_cast<uint32_t>(vgpr_blocks));
  r1 = rsrc1::kSgprBlocks.set(r1, static_cast<uint32_t>(sgpr_blocks));
  r1 = rsrc1::kFloatRoundMode32.set(r1, s.float_round_mode_32);
  r1 = rsrc1::kFloatRoundMode16_64.set(r1, s.float_round_mode_16_64);
  r1 = rsrc1::kFloatDenormMode32.set(r1, s.float_denorm_mode_32);
  r1 = rsrc1::kFloatDenormMode16_64.set(r1, s.float_denorm_mode_16_64);
  r1 = rsrc1::kDx10Clamp.set(r1, s.dx10_clamp);
  r1 = rsrc1::kIeeeMode.set(r1, s.ieee_mode);
  r1 = rsrc1::kFp16Ovfl.set(r1, s.fp16_overflow);
  kd.compute_pgm_rsrc1 = r1;

  uint32_t r2 = 0;
  r2 = rsrc2::kPrivateSegmentWaveOffset.set(r2, s.system_sgpr_private_segment_wavefront_offset);
  r2 = rsrc2::kUserSgprCount.set(r2, user_sgprs);
  r2 = rsrc2::kWorkgroupIdX.set(r2, s.system_sgpr_workgroup_id_x);
  r2 = rsrc2::kWorkgroupIdY.set(r2, s.system_sgpr_workgroup_id_y);
  r2 = rsrc2::kWorkgroupIdZ.set(r2, s.system_sgpr_workgroup_id_z);
  r2 = rsrc2::kWorkgroupInfo.set(r2, s.system_sgpr_workgroup_info);
  r2 = rsrc2::kWorkitemId.set(r2, s.system_vgpr_workitem_id);
  r2 = rsrc2::kExcFpInvalid.set(r2, s.exception_fp_ieee_invalid_op);
  r2 = rsrc2::kExcFpDenormSrc.set(r2, s.exception_fp_denorm_src);
  r2 = rsrc2::kExcFpDivZero.set(r2, s.exception_fp_ieee_div_zero);
  r2 = rsrc2::kExcFpOverflow.set(r2, s.exception_fp_ieee_overflow);
  r2 = rsrc2::kExcFpUnderflow.set(r2, s.exception_fp_ieee_underflow);
  r2 = rsrc2::kExcFpInexact.set(r2, s.exception_fp_ieee_inexact);
  r2 = rsrc2::kExcIntDivZero.set(r2, s.exception_int_div_zero);
  kd.compute_pgm_rsrc2 = r2;

  uint32_t p = 0;
  p = props::kPrivateSegmentBuffer.set(p, s.user_sgpr_private_segment_buffer);
  p = props::kDispatchPtr.set(p, s.user_sgpr_dispatch_ptr);
  p = props::kQueuePtr.set(p, s.user_sgpr_queue_ptr);
  p = props::kKernargSegmentPtr.set(p, s.user_sgpr_kernarg_segment_ptr);
  p = props::kDispatchId.set(p, s.user_sgpr_dispatch_id);
  p = props::kFlatScratchInit.set(p, s.user_sgpr_flat_scratch_init);
  p = props::kPrivateSegmentSize.set(p, s.user_sgpr_private_segment_size);
  p = props::kUsesDynamicStack.set(p, s.uses_dynamic_stack);
  kd.kernel_code_properties = static_cast<uint16_t>(p);
  return kd;
}

void apply_register_usage(S& s, const RegisterUsage& usage) {
  if (!s.next_free_vgpr) {
    uint32_t n = static_cast<uint32_t>(std::max(usage.max_vgpr + 1, 0));
    n = std::max(n, std::min<uint32_t>(s.system_vgpr_workitem_id, 2) + 1);
    s.next_free_vgpr = n;
  }
  if (!s.next_free_sgpr) {
    uint32_t n = static_cast<uint32_t>(std::max(usage.max_sgpr + 1, 0));
    uint32_t initialised = s.user_sgpr_count.value_or(implied_user_sgpr_count(s));
    initialised += s.system_sgpr_workgroup_id_x + s.system_sgpr_workgroup_id_y +
                   s.system_sgpr_workgroup_id_z + s.system_sgpr_workgroup_info +
                   s.system_sgpr_private_segment_wavefront_offset;
    s.next_free_sgpr = std::max(n, initialised);
  }
}

MetadataRegisterCounts metadata_register_counts(const S& s, const Target& target) {
  MetadataRegisterCounts c{};
  c.sgpr_count = s.next_free_sgpr.value_or(0) + extra_sgprs(s, target);
  c.vgpr_count = s.next_free_vgpr.value_or(0);
  return c;
}

}  // namespace k100::codeobj
