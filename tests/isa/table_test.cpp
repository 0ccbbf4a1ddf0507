#include <gtest/gtest.h>

#include <set>

#include "k100/isa/table.h"

namespace k100::isa {
namespace {

TEST(Table, CoversEveryFamilyAndTheDotProducts) {
  const auto& rows = instructions();
  EXPECT_GT(rows.size(), 1000u);
  std::set<Family> fams;
  for (const auto& r : rows) fams.insert(r.family);
  EXPECT_EQ(fams.size(), size_t(kFamilyCount));
  for (const char* name : {"v_dot2_f32_f16", "v_dot2_i32_i16", "v_dot2_u32_u16", "v_dot4_i32_i8",
                           "v_dot4_u32_u8", "v_dot8_i32_i4", "v_dot8_u32_u4", "v_pk_fma_f16",
                           "v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16", "s_endpgm",
                           "global_atomic_cmpswap_x2", "scratch_store_dwordx4", "tbuffer_load_format_x",
                           "ds_bpermute_b32", "s_load_dwordx16", "v_mad_u64_u32"})
    EXPECT_NE(find_instruction(name), nullptr) << name;
}

TEST(Table, LooksUpByPrintedMnemonicAndOpcode) {
  const InstDesc* add = find_instruction("v_add_f32_e32");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->name, "v_add_f32");
  EXPECT_EQ(add->family, Family::VOP2);
  EXPECT_EQ(add->opcode, 1);
  EXPECT_EQ(add->e64_opcode, 0x101);
  EXPECT_EQ(lookup_opcode(Family::VOP3, 0x101), add);
  EXPECT_EQ(lookup_opcode(Family::VOP2, 1), add);
  EXPECT_TRUE(add->has(kFlagSdwa));
  EXPECT_TRUE(add->has(kFlagDpp));
  ASSERT_EQ(add->operands.size(), 3u);
  EXPECT_EQ(add->operands[1].field, Field::src0);
  EXPECT_EQ(add->operands[1].type, OpType::B32);
  EXPECT_TRUE(add->operands[1].accept & kAcceptLiteral);
  EXPECT_FALSE(add->e64_operands[1].accept & kAcceptLiteral);
}

TEST(Table, Vop3bCarryOutUsesItsOwnField) {
  const InstDesc* d = find_instruction("v_add_co_u32");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->e64_operands.size(), 4u);
  EXPECT_EQ(d->e64_operands[1].field, Field::sdst_vop3b);
  EXPECT_EQ(d->operands[1].field, Field::vcc);
}

}  // namespace
}  // namespace k100::isa
