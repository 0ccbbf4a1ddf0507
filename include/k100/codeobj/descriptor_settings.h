// k100lc codeobj: `.amdhsa_*` kernel settings and the descriptor they produce.
//
// DescriptorSettings holds every `.amdhsa_kernel` directive LLVM accepts for
// GFX9 with llvm-mc's default values. set_amdhsa_directive() applies one
// directive with llvm-mc's checks (unknown key with a "did you mean", value out
// of range, directive repeated, directive for another GPU generation), and
// compute_descriptor() turns the settings into the 64-byte descriptor exactly
// as llvm-mc does: VGPR/SGPR granules (including the SGPRs reserved for VCC,
// FLAT_SCRATCH and XNACK_MASK on GFX9), the user SGPR count, the mode and
// exception bits. The differential test checks this against llvm-mc-14/15.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "k100/codeobj/kernel_descriptor.h"
#include "k100/codeobj/target.h"

namespace k100::codeobj {

struct DescriptorSettings {
  // Segment sizes (bytes).
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;
  // User SGPRs, in the order the hardware assigns them (counts: 4, 2, 2, 2, 2, 2, 1).
  bool user_sgpr_private_segment_buffer = false;
  bool user_sgpr_dispatch_ptr = false;
  bool user_sgpr_queue_ptr = false;
  bool user_sgpr_kernarg_segment_ptr = false;
  bool user_sgpr_dispatch_id = false;
  bool user_sgpr_flat_scratch_init = false;
  bool user_sgpr_private_segment_size = false;
  std::optional<uint32_t> user_sgpr_count;  // explicit override (>= the implied count)
  bool uses_dynamic_stack = false;          // kernel_code_properties bit 11 (llvm-mc 15+)
  // System SGPRs / VGPRs.
  bool system_sgpr_private_segment_wavefront_offset = false;
  bool system_sgpr_workgroup_id_x = true;
  bool system_sgpr_workgroup_id_y = false;
  bool system_sgpr_workgroup_id_z = false;
  bool system_sgpr_workgroup_info = false;
  uint32_t system_vgpr_workitem_id = 0;  // 0: x, 1: x and y, 2: x, y and z
  // Register counts: required (llvm-mc refuses a kernel without them).
  std::optional<uint32_t> next_free_vgpr;
  std::optional<uint32_t> next_free_sgpr;
  bool reserve_vcc = true;
  bool reserve_flat_scratch = true;
  std::optional<bool> reserve_xnack_mask;  // must equal "xnack on or any" of the target
  // Modes (COMPUTE_PGM_RSRC1).
  uint32_t float_round_mode_32 = 0;  // 0 round to nearest even
  uint32_t float_round_mode_16_64 = 0;
  uint32_t float_denorm_mode_32 = 0;     // 0 flush source and destination
  uint32_t float_denorm_mode_16_64 = 3;  // 3 flush none
  bool dx10_clamp = true;
  bool ieee_mode = true;
  bool fp16_overflow = false;
  // Exceptions (COMPUTE_PGM_RSRC2).
  bool exception_fp_ieee_invalid_op = false;
  bool exception_fp_denorm_src = false;
  bool exception_fp_ieee_div_zero = false;
  bool exception_fp_ieee_overflow = false;
  bool exception_fp_ieee_underflow = false;
  bool exception_fp_ieee_inexact = false;
  bool exception_int_div_zero = false;

  // Directives applied so far (without the ".amdhsa_" prefix); a repeat is an error.
  std::set<std::string> given;
};

// Every directive name set_amdhsa_directive() knows, with the ".amdhsa_" prefix, including
// the ones that exist only for other GPU generations (they are rejected with a named error).
std::vector<std::string> amdhsa_directive_names();

// Applies one `.amdhsa_<key> <value>` directive. `key` may be given with or without the
// ".amdhsa_" prefix. Throws k100::Error for an unknown key (with the closest known one),
// a repeated key, a negative or too large value, a directive for another GPU generation,
// and a reserve_xnack_mask that disagrees with the target's xnack setting.
void set_amdhsa_directive(DescriptorSettings& s, std::string_view key, int64_t value,
                          const Target& target);

// The user SGPR count implied by the enabled user SGPRs.
uint32_t implied_user_sgpr_count(const DescriptorSettings& s);

// SGPRs the hardware reserves after next_free_sgpr on GFX9: VCC 2, XNACK_MASK 4 (xnack on
// or any), FLAT_SCRATCH 6 (these overlap: the largest applicable count is used).
uint32_t extra_sgprs(const DescriptorSettings& s, const Target& target);

// The descriptor llvm-mc writes for these settings (kernel_code_entry_byte_offset 0; the
// writer fills it in). Throws k100::Error when next_free_vgpr/sgpr are missing or out of
// range, or the user SGPR count is inconsistent.
KernelDescriptor compute_descriptor(const DescriptorSettings& s, const Target& target);

// Register usage found in a kernel's code, for kernels that do not give counts.
struct RegisterUsage {
  int max_vgpr = -1;  // highest VGPR index used, -1 for none
  int max_sgpr = -1;  // highest SGPR index used (s0..s101), -1 for none
};

// Fills next_free_vgpr / next_free_sgpr when they were not given: one past the highest
// register used, and at least past the registers the hardware initialises (user and
// system SGPRs, workitem id VGPRs), so the granule covers everything the wave starts with.
void apply_register_usage(DescriptorSettings& s, const RegisterUsage& usage);

// The `.sgpr_count` / `.vgpr_count` metadata values LLVM reports for these settings:
// next_free_sgpr plus the reserved extra SGPRs, and next_free_vgpr.
struct MetadataRegisterCounts {
  uint32_t sgpr_count;
  uint32_t vgpr_count;
};
MetadataRegisterCounts metadata_register_counts(const DescriptorSettings& s, const Target& target);

}  // namespace k100::codeobj
