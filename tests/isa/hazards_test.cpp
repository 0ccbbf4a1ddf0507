#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "isa_text.h"
#include "k100/isa/hazards.h"

namespace k100::isa {
namespace {

using test::inst_of;

std::vector<Inst> insts(std::initializer_list<const char*> lines) {
  std::vector<Inst> v;
  for (const char* l : lines) v.push_back(inst_of(l));
  return v;
}

// The rule hit by the last line after the others, or "" with no hazard.
std::string rule_after(std::initializer_list<const char*> lines, int* missing = nullptr) {
  std::vector<Inst> v = insts(lines);
  Inst next = v.back();
  v.pop_back();
  HazardHit h = check_window(v, next);
  if (missing) *missing = h.missing;
  return h ? h.rule->id : "";
}

TEST(Hazards, TableRowsAreCompleteAndNamed) {
  std::set<std::string> ids;
  for (const HazardRule& r : hazard_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_NE(std::string(r.source).find("Vega ISA"), std::string::npos) << r.id;
    EXPECT_GT(r.wait_states, 0) << r.id;
    EXPECT_EQ(find_hazard_rule(r.id), &r);
  }
  EXPECT_GE(ids.size(), 16u);
}

TEST(Hazards, WaitStatesCountInstructionsAndNops) {
  EXPECT_EQ(wait_states_of(inst_of("s_nop 0")), 1);
  EXPECT_EQ(wait_states_of(inst_of("s_nop 4")), 5);
  EXPECT_EQ(wait_states_of(inst_of("v_mov_b32_e32 v0, v1")), 1);
}

TEST(Hazards, ValuSgprThenVmemNeedsFive) {
  int missing = 0;
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s4, v0", "buffer_load_dword v1, v2, s[4:7], 0 offen"}, &missing),
            "valu_sgpr_vmem");
  EXPECT_EQ(missing, 5);
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s4, v0", "s_nop 3", "buffer_load_dword v1, v2, s[4:7], 0 offen"},
                       &missing),
            "valu_sgpr_vmem");
  EXPECT_EQ(missing, 1);
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s4, v0", "s_nop 4", "buffer_load_dword v1, v2, s[4:7], 0 offen"}), "");
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s4, v0", "v_mov_b32_e32 v3, v4", "s_nop 3",
                        "buffer_load_dword v1, v2, s[4:7], 0 offen"}),
            "");
  // An SALU producer needs nothing.
  EXPECT_EQ(rule_after({"s_mov_b32 s4, 0", "buffer_load_dword v1, v2, s[4:7], 0 offen"}), "");
  // VCC written by a VALU compare, read by a global access as saddr.
  EXPECT_EQ(rule_after({"v_cmp_eq_u32_e32 vcc, v1, v2", "global_load_dword v1, v2, vcc"}), "valu_sgpr_vmem");
}

TEST(Hazards, LaneSelectDivFmasDpp) {
  int missing = 0;
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s5, v0", "v_readlane_b32 s4, v1, s5"}, &missing), "valu_sgpr_lane_select");
  EXPECT_EQ(missing, 4);
  EXPECT_EQ(rule_after({"v_readfirstlane_b32 s5, v0", "s_nop 3", "v_readlane_b32 s4, v1, s5"}), "");
  EXPECT_EQ(rule_after({"v_div_scale_f32 v0, vcc, v1, v2, v1", "v_div_fmas_f32 v0, v1, v2, v3"}), "valu_vcc_div_fmas");
  EXPECT_EQ(rule_after({"v_div_scale_f32 v0, vcc, v1, v2, v1", "s_nop 3", "v_div_fmas_f32 v0, v1, v2, v3"}), "");
  EXPECT_EQ(rule_after({"v_add_f32_e32 v2, v1, v1", "v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"},
                       &missing),
            "valu_vgpr_dpp");
  EXPECT_EQ(missing, 2);
  EXPECT_EQ(rule_after({"v_add_f32_e32 v2, v1, v1", "s_nop 1",
                        "v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"}),
            "");
  EXPECT_EQ(rule_after({"v_cmpx_eq_u32_e32 vcc, v1, v2", "s_nop 1",
                        "v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"}),
            "valu_exec_dpp");
  // A SALU write of EXEC is forwarded.
  EXPECT_EQ(rule_after({"s_mov_b64 exec, -1", "v_mov_b32_dpp v3, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"}), "");
}

TEST(Hazards, SetregGetregAndM0) {
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3", "s_getreg_b32 s4, hwreg(HW_REG_MODE)"}),
            "setreg_getreg");
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3", "s_nop 1", "s_getreg_b32 s4, hwreg(HW_REG_MODE)"}),
            "");
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3", "s_getreg_b32 s4, hwreg(HW_REG_TRAPSTS)"}), "");
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3", "s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s3"}),
            "setreg_setreg");
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 28, 1), s3", "v_mov_b32_e32 v0, v1"}), "setreg_vskip_vector");
  EXPECT_EQ(rule_after({"s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s3", "v_mov_b32_e32 v0, v1"}), "");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "s_sendmsg sendmsg(MSG_INTERRUPT)"}), "salu_m0_gds_sendmsg");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "s_nop 0", "s_sendmsg sendmsg(MSG_INTERRUPT)"}), "");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "buffer_load_dword v1, off, s[4:7], s1 lds"}), "salu_m0_lds_addtid_dma");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "ds_write_addtid_b32 v2"}), "salu_m0_lds_addtid_dma");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "s_movrels_b32 s0, s1"}), "salu_m0_movrel");
  EXPECT_EQ(rule_after({"s_mov_b32 m0, s2", "ds_write_b32 v1, v2"}), "");  // gfx9 LDS ignores M0
}

TEST(Hazards, WideStoreDataOverwrite) {
  EXPECT_EQ(rule_after({"global_store_dwordx4 v[0:1], v[4:7], off", "v_mov_b32_e32 v5, 0"}), "wide_store_data");
  EXPECT_EQ(rule_after({"global_store_dwordx4 v[0:1], v[4:7], off", "s_nop 0", "v_mov_b32_e32 v5, 0"}), "");
  EXPECT_EQ(rule_after({"global_store_dwordx2 v[0:1], v[4:5], off", "v_mov_b32_e32 v5, 0"}), "");
  EXPECT_EQ(rule_after({"buffer_store_dwordx4 v[4:7], v1, s[8:11], 0 offen", "v_mov_b32_e32 v4, 0"}), "wide_store_data");
  EXPECT_EQ(rule_after({"buffer_store_dwordx4 v[4:7], v1, s[8:11], s2 offen", "v_mov_b32_e32 v4, 0"}), "");
  EXPECT_EQ(rule_after({"global_atomic_cmpswap_x2 v[4:5], v2, v[6:9], s[2:3] glc", "v_mov_b32_e32 v8, 0"}),
            "wide_store_data");
}

TEST(Hazards, VcczExeczAsData) {
  EXPECT_EQ(rule_after({"v_cmp_eq_u32_e32 vcc, v1, v2", "v_mov_b32_e32 v1, src_vccz"}), "valu_vcc_exec_vccz_execz");
  EXPECT_EQ(rule_after({"v_cmp_eq_u32_e32 vcc, v1, v2", "s_nop 4", "v_mov_b32_e32 v1, src_vccz"}), "");
}

TEST(Hazards, TrackerMatchesWindowAndReports) {
  HazardTracker t;
  t.issue(inst_of("v_readfirstlane_b32 s4, v0"), 0x40);
  t.issue(inst_of("v_mov_b32_e32 v3, v4"), 0x44);
  HazardHit h = t.check(inst_of("buffer_load_dword v1, v2, s[4:7], 0 offen"));
  ASSERT_TRUE(h);
  EXPECT_EQ(h.missing, 4);
  EXPECT_EQ(h.have, 1);
  EXPECT_EQ(h.reg, 4);
  EXPECT_EQ(h.producer_tag, 0x40u);
  t.reset();
  EXPECT_FALSE(t.check(inst_of("buffer_load_dword v1, v2, s[4:7], 0 offen")));
}

}  // namespace
}  // namespace k100::isa
