// Where VGPR spills go, on the text form: into the LDS after the kernel's own
// while the workgroup has room (ds_write_b32 / ds_read_b32 at 4 x the local
// id, one slot of 64 x waves-per-workgroup dwords each), else to scratch
// (buffer_store_dword / buffer_load_dword through s[0:3]).
#include <gtest/gtest.h>

#include <string>

#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"

namespace {

using namespace k100::codegen;

// `n` values tid + i live at once, then summed.
std::string many_live_values(int n) {
  std::string t = ".kernel many_live\n.entry vgpr %tid = v0\n.vgpr %acc\n";
  for (int i = 0; i < n; ++i) t += ".vgpr %v" + std::to_string(i) + "\n";
  t += "bb0:\n";
  for (int i = 0; i < n; ++i) t += "  v_add_u32 %v" + std::to_string(i) + ", " + std::to_string(i) + ", %tid\n";
  t += "  v_mov_b32 %acc, 0\n";
  for (int i = 0; i < n; ++i) t += "  v_add_u32 %acc, %acc, %v" + std::to_string(i) + "\n";
  t += "  v_mov_b32 %tid, %acc\n  s_endpgm\n";
  return t;
}

struct Placed {
  AllocationResult result;
  std::string text;
};

Placed allocate(uint32_t lds_bytes, uint32_t max_workgroup, int workitem_dims = 1) {
  MFunction f = parse_ir(many_live_values(40));
  build_cfg(f);
  AllocationOptions o;
  o.vgpr_budget = 32;
  o.waves_per_simd = 4;  // 16 waves per CU
  o.lds_bytes = lds_bytes;
  o.max_workgroup = max_workgroup;
  o.workitem_dims = workitem_dims;
  o.scratch_offset_sgpr = 8;
  Placed p;
  p.result = allocate_registers(f, o);
  p.text = print_ir(f);
  return p;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(SpillPlacement, VgprSpillsGoToLdsAfterTheKernelsOwnWhenTheWorkgroupHasRoom) {
  // one-wave workgroups: 16 per CU, 4 KiB each; 102 bytes of the kernel's own
  // LDS, so slots begin at 104, 256 bytes apart
  const Placed p = allocate(102, 64);
  const AllocationResult& r = p.result;
  ASSERT_GT(r.vgpr_spills, 0);
  EXPECT_EQ(r.vgpr_spills_to_lds, r.vgpr_spills);
  EXPECT_EQ(r.scratch_bytes, 0u);
  EXPECT_EQ(r.lds_spill_base, 104u);
  EXPECT_EQ(r.lds_spill_bytes, 256u * uint32_t(r.vgpr_spills));
  // the address: 4 x the local id, first thing
  EXPECT_EQ(p.text.find("bb0:\n  v_lshlrev_b32_e32 "), p.text.find("bb0:")) << p.text;
  EXPECT_NE(p.text.find(", 2, v0\n"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("ds_write_b32 v"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find(" offset:104\n"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find(" offset:360\n"), std::string::npos) << p.text;  // the second slot
  EXPECT_EQ(count(p.text, "ds_write_b32"), size_t(r.vgpr_spills));  // each value written once
  EXPECT_GE(count(p.text, "ds_read_b32"), size_t(r.vgpr_spills));
  EXPECT_EQ(p.text.find("buffer_"), std::string::npos) << p.text;
}

TEST(SpillPlacement, SlotsOfAWorkgroupOfFourWavesAreFourWavesWide) {
  const Placed p = allocate(0, 256);  // 4 workgroups per CU: 16 KiB each
  EXPECT_EQ(p.result.vgpr_spills_to_lds, p.result.vgpr_spills);
  EXPECT_EQ(p.result.lds_spill_bytes, 1024u * uint32_t(p.result.vgpr_spills));
  EXPECT_NE(p.text.find(" offset:1024\n"), std::string::npos) << p.text;
}

TEST(SpillPlacement, WithNoLdsToSpareVgprSpillsGoToScratch) {
  // 4 KiB of the kernel's own already allow only 16 one-wave workgroups per CU
  const Placed p = allocate(4096, 64);
  ASSERT_GT(p.result.vgpr_spills, 0);
  EXPECT_EQ(p.result.vgpr_spills_to_lds, 0);
  EXPECT_EQ(p.result.lds_spill_bytes, 0u);
  EXPECT_EQ(p.result.scratch_bytes, 4u * uint32_t(p.result.vgpr_spills));
  EXPECT_EQ(p.text.find("ds_"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("buffer_store_dword"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("buffer_load_dword"), std::string::npos) << p.text;
}

TEST(SpillPlacement, TwoDimensionalWorkgroupsOfManyWavesSpillToScratch) {
  // the local id x alone does not tell the work-items of a 2D workgroup apart
  const Placed p = allocate(0, 256, 2);
  ASSERT_GT(p.result.vgpr_spills, 0);
  EXPECT_EQ(p.result.vgpr_spills_to_lds, 0);
  EXPECT_EQ(p.text.find("ds_"), std::string::npos) << p.text;
}

TEST(SpillPlacement, AOneWaveWorkgroupOfMoreDimensionsAddressesLdsByLane) {
  const Placed p = allocate(0, 64, 3);
  ASSERT_GT(p.result.vgpr_spills, 0);
  EXPECT_EQ(p.result.vgpr_spills_to_lds, p.result.vgpr_spills);
  EXPECT_NE(p.text.find("bb0:\n  v_mbcnt_lo_u32_b32 v1, -1, 0\n  v_mbcnt_hi_u32_b32 v1, -1, v1\n  v_lshlrev_b32_e32 v1, 2, v1\n"),
            std::string::npos)
      << p.text;
  EXPECT_NE(p.text.find("ds_write_b32 v1, "), std::string::npos) << p.text;
}

TEST(SpillPlacement, WhatLdsCannotHoldGoesToScratch) {
  // 8 waves per SIMD, 4-wave workgroups: 8 KiB per workgroup, 8 slots
  MFunction f = parse_ir(many_live_values(60));
  build_cfg(f);
  AllocationOptions o;
  o.vgpr_budget = 32;
  o.waves_per_simd = 8;
  o.max_workgroup = 256;
  o.scratch_offset_sgpr = 8;
  const AllocationResult r = allocate_registers(f, o);
  EXPECT_EQ(r.vgpr_spills_to_lds, 8);
  EXPECT_EQ(r.lds_spill_bytes, 8u * 1024);
  EXPECT_EQ(r.scratch_bytes, 4u * uint32_t(r.vgpr_spills - 8));
  const std::string t = print_ir(f);
  EXPECT_NE(t.find("ds_read_b32"), std::string::npos) << t;
  EXPECT_NE(t.find("buffer_load_dword"), std::string::npos) << t;
}

}  // namespace
