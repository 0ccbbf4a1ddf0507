#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/codeobj/descriptor_settings.h"
#include "k100/codeobj/kernel_descriptor.h"

namespace k100::codeobj {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelDescriptor, EncodeDecodeRoundTripsEveryByte) {
  std::array<uint8_t, 64> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 37 + 11);
  KernelDescriptor kd = KernelDescriptor::decode(bytes);
  EXPECT_EQ(kd.encode(), bytes);
  EXPECT_THROW(KernelDescriptor::decode(std::span<const uint8_t>(bytes.data(), 63)), Error);
}

TEST(KernelDescriptor, DecodesTheVaddDescriptorFromOracles) {
  // llvm-objdump -s -j .rodata of ORACLES.md §2's vadd.hsaco.
  const uint8_t raw[64] = {0,    0,    0,    0, 0,    0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0,
                           0xc0, 0x10, 0,    0, 0,    0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0,
                           0,    0,    0,    0, 0,    0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0,
                           0x80, 0,    0xac, 0, 0x88, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0};
  KernelDescriptor kd = KernelDescriptor::decode(raw);
  EXPECT_EQ(kd.kernarg_size, 28u);
  EXPECT_EQ(kd.kernel_code_entry_byte_offset, 0x10c0);
  EXPECT_EQ(kd.compute_pgm_rsrc1, 0x00ac0080u);
  EXPECT_EQ(rsrc1::kSgprBlocks.get(kd.compute_pgm_rsrc1), 2u);
  EXPECT_EQ(rsrc1::kFloatDenormMode16_64.get(kd.compute_pgm_rsrc1), 3u);
  EXPECT_EQ(rsrc2::kUserSgprCount.get(kd.compute_pgm_rsrc2), 4u);
  EXPECT_EQ(rsrc2::kWorkgroupIdX.get(kd.compute_pgm_rsrc2), 1u);
  EXPECT_EQ(props::kKernargSegmentPtr.get(kd.kernel_code_properties), 1u);
  std::string text = format_descriptor(kd);
  EXPECT_NE(text.find("COMPUTE_PGM_RSRC1.ENABLE_IEEE_MODE"), std::string::npos);
  EXPECT_NE(text.find("sgpr_count (from granule)"), std::string::npos);
}

TEST(DescriptorSettings, VaddSettingsGiveLlvmMcsDescriptor) {
  Target t = default_target("gfx906");
  DescriptorSettings s;
  set_amdhsa_directive(s, ".amdhsa_user_sgpr_dispatch_ptr", 1, t);
  set_amdhsa_directive(s, "user_sgpr_kernarg_segment_ptr", 1, t);
  set_amdhsa_directive(s, "kernarg_size", 28, t);
  set_amdhsa_directive(s, "next_free_vgpr", 4, t);
  set_amdhsa_directive(s, "next_free_sgpr", 15, t);
  KernelDescriptor kd = compute_descriptor(s, t);
  EXPECT_EQ(kd.compute_pgm_rsrc1, 0x00ac0080u);
  EXPECT_EQ(kd.compute_pgm_rsrc2, 0x88u);
  EXPECT_EQ(kd.kernel_code_properties, 0x0au);
  EXPECT_EQ(metadata_register_counts(s, t).sgpr_count, 21u);
  EXPECT_EQ(metadata_register_counts(s, t).vgpr_count, 4u);
}

TEST(DescriptorSettings, ExtraSgprsFollowXnackAndReservations) {
  DescriptorSettings s;
  Target any = default_target("gfx906"), off = parse_target_id("gfx906:xnack-");
  EXPECT_EQ(extra_sgprs(s, any), 6u);  // flat scratch reserved by default
  s.reserve_flat_scratch = false;
  EXPECT_EQ(extra_sgprs(s, any), 4u);  // xnack mask
  EXPECT_EQ(extra_sgprs(s, off), 2u);  // vcc
  s.reserve_vcc = false;
  EXPECT_EQ(extra_sgprs(s, off), 0u);
}

TEST(DescriptorSettings, ErrorsAreNamed) {
  Target t = default_target("gfx906");
  DescriptorSettings s;
  EXPECT_NE(error_of([&] {
              set_amdhsa_directive(s, ".amdhsa_next_free_vgp", 1, t);
            }).find("did you mean '.amdhsa_next_free_vgpr'"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { set_amdhsa_directive(s, "float_round_mode_32", 4, t); }).find("out of range"),
      std::string::npos);
  set_amdhsa_directive(s, "ieee_mode", 0, t);
  EXPECT_NE(error_of([&] { set_amdhsa_directive(s, "ieee_mode", 0, t); }).find("repeated"),
            std::string::npos);
  EXPECT_NE(error_of([&] { set_amdhsa_directive(s, "accum_offset", 4, t); }).find("gfx90a"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              set_amdhsa_directive(s, "reserve_xnack_mask", 0, t);
            }).find("does not match target id"),
            std::string::npos);
  EXPECT_NE(error_of([&] { compute_descriptor(s, t); }).find("missing .amdhsa_next_free_vgpr"),
            std::string::npos);
  EXPECT_EQ(amdhsa_directive_names().size(), 47u);
}

TEST(DescriptorSettings, RegisterCountsFromUsage) {
  Target t = default_target("gfx906");
  DescriptorSettings s;
  s.user_sgpr_kernarg_segment_ptr = true;
  s.system_vgpr_workitem_id = 1;
  apply_register_usage(s, {9, 3});
  EXPECT_EQ(*s.next_free_vgpr, 10u);
  EXPECT_EQ(*s.next_free_sgpr, 4u);  // s0..s3 used
  DescriptorSettings quiet;
  quiet.user_sgpr_private_segment_buffer = true;
  quiet.user_sgpr_kernarg_segment_ptr = true;
  apply_register_usage(quiet, {-1, -1});
  EXPECT_EQ(*quiet.next_free_vgpr, 1u);  // v0 holds the workitem id
  EXPECT_EQ(*quiet.next_free_sgpr, 7u);  // 6 user SGPRs + workgroup id x
  DescriptorSettings given;
  given.next_free_vgpr = 32;
  apply_register_usage(given, {3, 3});
  EXPECT_EQ(*given.next_free_vgpr, 32u);  // explicit counts are kept
  (void)t;
}

}  // namespace
}  // namespace k100::codeobj
