#include <gtest/gtest.h>

#include <set>
#include <string>

#include "isa_text.h"
#include "k100/isa/effects.h"

namespace k100::isa {
namespace {

using test::inst_of;

// "v[2:3]:memory destination" style descriptions, sorted, for compact checks.
std::set<std::string> reads(const std::string& line) {
  std::set<std::string> out;
  Effects e = effects_of(inst_of(line));
  for (const RegUse& u : e.read_list()) out.insert(reg_range_name(u.regs));
  return out;
}
std::set<std::string> writes(const std::string& line) {
  std::set<std::string> out;
  Effects e = effects_of(inst_of(line));
  for (const RegUse& u : e.write_list()) out.insert(reg_range_name(u.regs));
  return out;
}
using S = std::set<std::string>;

TEST(Effects, ScalarAluWithSccAndExec) {
  EXPECT_EQ(reads("s_add_u32 s0, s1, s2"), (S{"s1", "s2"}));
  EXPECT_EQ(writes("s_add_u32 s0, s1, s2"), (S{"s0", "scc"}));
  EXPECT_EQ(reads("s_addc_u32 s0, s1, 4"), (S{"s1", "scc"}));
  EXPECT_EQ(writes("s_mov_b32 m0, s3"), (S{"m0"}));
  EXPECT_EQ(reads("s_cselect_b64 s[0:1], s[2:3], 0"), (S{"s[2:3]", "scc"}));
  EXPECT_EQ(writes("s_and_saveexec_b64 s[4:5], vcc"), (S{"s[4:5]", "exec", "scc"}));
  EXPECT_EQ(reads("s_and_saveexec_b64 s[4:5], vcc"), (S{"vcc", "exec"}));
  EXPECT_EQ(reads("s_cmpk_eq_i32 s7, 0x10"), (S{"s7"}));
  EXPECT_EQ(writes("s_cmpk_eq_i32 s7, 0x10"), (S{"scc"}));
  EXPECT_EQ(reads("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3"), (S{"s3"}));
  EXPECT_TRUE(writes("s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3").empty());
  EXPECT_EQ(reads("s_cbranch_vccz 2"), (S{"vcc"}));
  EXPECT_EQ(reads("s_sendmsg sendmsg(MSG_INTERRUPT)"), (S{"m0"}));
  // the old destination is kept (all of it but one bit, or all of it when SCC is clear)
  EXPECT_EQ(reads("s_bitset1_b64 s[6:7], s2"), (S{"s[6:7]", "s2"}));
  EXPECT_EQ(writes("s_bitset0_b32 s6, s2"), (S{"s6"}));
  EXPECT_EQ(reads("s_cmov_b32 s6, s2"), (S{"s6", "s2", "scc"}));
  EXPECT_EQ(reads("s_cmovk_i32 s6, 0x10"), (S{"s6", "scc"}));
}

TEST(Effects, VectorAluImplicitVccAndExec) {
  EXPECT_EQ(reads("v_add_f32_e32 v0, v1, v2"), (S{"v1", "v2", "exec"}));
  EXPECT_EQ(writes("v_add_co_u32_e32 v0, vcc, v1, v2"), (S{"v0", "vcc"}));
  EXPECT_EQ(reads("v_addc_co_u32_e32 v0, vcc, v1, v2, vcc"), (S{"v1", "v2", "vcc", "exec"}));
  EXPECT_EQ(writes("v_addc_co_u32_e32 v0, vcc, v1, v2, vcc"), (S{"v0", "vcc"}));
  EXPECT_EQ(reads("v_addc_co_u32_e64 v0, s[2:3], v1, v2, s[4:5]"), (S{"v1", "v2", "s[4:5]", "exec"}));
  EXPECT_EQ(writes("v_addc_co_u32_e64 v0, s[2:3], v1, v2, s[4:5]"), (S{"v0", "s[2:3]"}));
  EXPECT_EQ(reads("v_cndmask_b32_e32 v0, v1, v2, vcc"), (S{"v1", "v2", "vcc", "exec"}));
  EXPECT_EQ(writes("v_cmp_eq_u32_e32 vcc, v1, v2"), (S{"vcc"}));
  EXPECT_EQ(writes("v_cmpx_eq_u32_e32 vcc, v1, v2"), (S{"vcc", "exec"}));
  EXPECT_EQ(writes("v_cmpx_eq_u32_e64 s[4:5], v1, v2"), (S{"s[4:5]", "exec"}));
  EXPECT_EQ(reads("v_div_fmas_f32 v0, v1, v2, v3"), (S{"v1", "v2", "v3", "vcc", "exec"}));
  EXPECT_EQ(writes("v_div_scale_f32 v0, vcc, v1, v2, v1"), (S{"v0", "vcc"}));
  EXPECT_EQ(writes("v_readlane_b32 s4, v1, s5"), (S{"s4"}));
  EXPECT_EQ(reads("v_mac_f32_e32 v0, v1, v2"), (S{"v0", "v1", "v2", "exec"}));
  EXPECT_EQ(reads("v_mov_b32_e32 v1, src_vccz"), (S{"vcc", "exec"}));
  EXPECT_EQ(reads("v_add_f32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD"),
            (S{"v1", "v2", "v3", "exec"}));
  Effects e = effects_of(inst_of("v_readlane_b32 s4, v1, s5"));
  const RegUse* lane = e.read_overlapping({5, 1});
  ASSERT_TRUE(lane);
  EXPECT_EQ(lane->role, Role::LaneSelect);
}

TEST(Effects, ScalarMemoryDirection) {
  EXPECT_EQ(writes("s_load_dwordx4 s[4:7], s[0:1], 0x10"), (S{"s[4:7]"}));
  EXPECT_EQ(reads("s_load_dwordx4 s[4:7], s[0:1], 0x10"), (S{"s[0:1]"}));
  EXPECT_EQ(reads("s_store_dword s3, s[0:1], 0x0"), (S{"s3", "s[0:1]"}));
  EXPECT_TRUE(writes("s_store_dword s3, s[0:1], 0x0").empty());
  EXPECT_EQ(writes("s_atomic_add s3, s[0:1], 0x0 glc"), (S{"s3"}));
  EXPECT_TRUE(writes("s_atomic_add s3, s[0:1], 0x0").empty());
  Effects e = effects_of(inst_of("s_load_dword s4, s[0:1], 0x0"));
  ASSERT_EQ(e.num_writes, 1);
  EXPECT_EQ(e.writes[0].role, Role::MemDest);
}

TEST(Effects, VectorMemoryWidthsFromModifiers) {
  EXPECT_EQ(writes("buffer_load_dword v1, v2, s[4:7], 0 offen tfe"), (S{"v[1:2]"}));
  EXPECT_EQ(reads("buffer_load_dword v1, v2, s[4:7], 0 offen tfe"), (S{"v2", "s[4:7]", "exec"}));
  EXPECT_TRUE(writes("buffer_load_dword v1, off, s[4:7], s1 lds").empty());
  EXPECT_EQ(reads("buffer_load_dword v1, off, s[4:7], s1 lds"), (S{"s[4:7]", "s1", "m0", "exec"}));
  EXPECT_EQ(reads("buffer_store_dwordx4 v[4:7], v1, s[8:11], 0 offen"), (S{"v[4:7]", "v1", "s[8:11]", "exec"}));
  EXPECT_TRUE(writes("buffer_store_dwordx4 v[4:7], v1, s[8:11], 0 offen").empty());
  EXPECT_EQ(writes("buffer_atomic_cmpswap v[4:5], v2, s[4:7], 0 offen glc"), (S{"v4"}));
  EXPECT_TRUE(writes("buffer_atomic_add v4, v2, s[4:7], 0 offen").empty());
  EXPECT_EQ(writes("global_atomic_cmpswap_x2 v[4:5], v2, v[6:9], s[2:3] glc"), (S{"v[4:5]"}));
  EXPECT_EQ(reads("global_atomic_cmpswap_x2 v[4:5], v2, v[6:9], s[2:3] glc"), (S{"v2", "v[6:9]", "s[2:3]", "exec"}));
  EXPECT_EQ(writes("global_load_short_d16_hi v1, v[2:3], off"), (S{"v1"}));
  EXPECT_EQ(writes("flat_load_dwordx2 v[0:1], v[2:3]"), (S{"v[0:1]"}));
  EXPECT_EQ(reads("flat_load_dwordx2 v[0:1], v[2:3]"), (S{"v[2:3]", "flat_scratch", "exec"}));
  EXPECT_EQ(reads("global_store_dword v[2:3], v4, off"), (S{"v[2:3]", "v4", "exec"}));
}

TEST(Effects, LdsReadWrite2AndM0) {
  EXPECT_EQ(writes("ds_read2_b32 v[2:3], v1 offset1:4"), (S{"v[2:3]"}));
  EXPECT_EQ(reads("ds_write2_b64 v1, v[2:3], v[4:5] offset1:2"), (S{"v1", "v[2:3]", "v[4:5]", "exec"}));
  EXPECT_EQ(writes("ds_read_b128 v[4:7], v1"), (S{"v[4:7]"}));
  EXPECT_EQ(reads("ds_add_rtn_u32 v2, v1, v3"), (S{"v1", "v3", "exec"}));
  EXPECT_EQ(writes("ds_add_rtn_u32 v2, v1, v3"), (S{"v2"}));
  EXPECT_EQ(reads("ds_write_addtid_b32 v2"), (S{"v2", "m0", "exec"}));
  EXPECT_EQ(reads("ds_add_u32 v1, v2 gds"), (S{"v1", "v2", "m0", "exec"}));
  EXPECT_TRUE(is_store(inst_of("ds_write_b32 v1, v2")));
  EXPECT_TRUE(is_store(inst_of("ds_add_u32 v1, v2")));
  EXPECT_FALSE(is_store(inst_of("ds_add_rtn_u32 v2, v1, v3")));
}

TEST(Effects, RangeNames) {
  EXPECT_EQ(reg_range_name({code::kVgprFirst + 4, 4}), "v[4:7]");
  EXPECT_EQ(reg_range_name({3, 1}), "s3");
  EXPECT_EQ(reg_range_name(kVccRange), "vcc");
  EXPECT_EQ(reg_range_name(kM0Range), "m0");
  EXPECT_EQ(reg_range_name({code::kVccHi, 1}), "vcc_hi");
  EXPECT_TRUE(RegRange({10, 4}).overlaps({13, 2}));
  EXPECT_FALSE(RegRange({10, 4}).overlaps({14, 2}));
}

}  // namespace
}  // namespace k100::isa
