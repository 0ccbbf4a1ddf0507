// Unit cases for every scalar ALU opcode (SOP1, SOP2, SOPK, SOPC, SOPP).
#include "scalar_harness.h"

namespace k100::emu::test {

const std::vector<ScalarCase>& salu_cases() {
  static const std::vector<ScalarCase> cases = {
      // ---- SOP2
      {"s_mov_b32 s2, -1\n s_add_u32 s3, s2, 2", {{"s3", 1}, {"scc", 1}}},
      {"s_sub_u32 s3, 1, 2", {{"s3", 0xffffffff}, {"scc", 1}}},
      {"s_mov_b32 s2, 0x7fffffff\n s_add_i32 s3, s2, 1", {{"s3", 0x80000000}, {"scc", 1}}},
      {"s_mov_b32 s2, 0x80000000\n s_sub_i32 s3, s2, 1", {{"s3", 0x7fffffff}, {"scc", 1}}},
      {"s_cmp_eq_u32 0, 0\n s_addc_u32 s3, 5, 6", {{"s3", 12}, {"scc", 0}}},
      {"s_cmp_eq_u32 0, 0\n s_subb_u32 s3, 5, 5", {{"s3", 0xffffffff}, {"scc", 1}}},
      {"s_min_i32 s3, -5, 3", {{"s3", 0xfffffffb}, {"scc", 1}}},
      {"s_min_u32 s3, -5, 3", {{"s3", 3}, {"scc", 0}}},
      {"s_max_i32 s3, -5, 3", {{"s3", 3}, {"scc", 0}}},
      {"s_max_u32 s3, -5, 3", {{"s3", 0xfffffffb}, {"scc", 1}}},
      {"s_cmp_eq_u32 1, 1\n s_cselect_b32 s3, 7, 9", {{"s3", 7}}},
      {"s_mov_b32 s2, 0x9abcdef0\n s_mov_b32 s3, 0x12345678\n s_cmp_eq_u32 0, 1\n s_cselect_b64 s[4:5], s[2:3], -1",
       {{"s[4:5]", ~0ull}}},
      {"s_mov_b32 s2, 0xf0f0\n s_and_b32 s3, s2, 0xff00", {{"s3", 0xf000}, {"scc", 1}}},
      {"s_mov_b32 s2, 0x12345678\n s_mov_b32 s3, 0x9abcdef0\n s_and_b64 s[4:5], s[2:3], -1",
       {{"s[4:5]", 0x9abcdef012345678ull}, {"scc", 1}}},
      {"s_or_b32 s3, 0xf0, 15", {{"s3", 0xff}, {"scc", 1}}},
      {"s_mov_b64 s[2:3], 1\n s_mov_b32 s3, 0x80000000\n s_mov_b64 s[6:7], 2\n s_or_b64 s[4:5], s[2:3], s[6:7]",
       {{"s[4:5]", 0x8000000000000003ull}}},
      {"s_xor_b32 s3, 0xff, 15", {{"s3", 0xf0}}},
      {"s_mov_b64 s[2:3], -1\n s_xor_b64 s[4:5], s[2:3], s[2:3]", {{"s[4:5]", 0}, {"scc", 0}}},
      {"s_andn2_b32 s3, 0xff, 15", {{"s3", 0xf0}}},
      {"s_mov_b64 s[2:3], 0xff\n s_andn2_b64 s[4:5], -1, s[2:3]", {{"s[4:5]", ~0xffull}}},
      {"s_orn2_b32 s3, 0, 0xffffff00", {{"s3", 0xff}}},
      {"s_mov_b64 s[2:3], -1\n s_mov_b32 s2, 0\n s_orn2_b64 s[4:5], 0, s[2:3]", {{"s[4:5]", 0xffffffffull}}},
      {"s_nand_b32 s3, 0xff, 15", {{"s3", 0xfffffff0}}},
      {"s_mov_b64 s[2:3], 15\n s_nand_b64 s[4:5], s[2:3], 3", {{"s[4:5]", ~3ull}}},
      {"s_nor_b32 s3, 0xf0, 15", {{"s3", 0xffffff00}}},
      {"s_mov_b64 s[2:3], 0xf0\n s_nor_b64 s[4:5], s[2:3], 15", {{"s[4:5]", ~0xffull}}},
      {"s_xnor_b32 s3, 0xff, 15", {{"s3", 0xffffff0f}}},
      {"s_mov_b64 s[2:3], 0xff\n s_xnor_b64 s[4:5], s[2:3], 15", {{"s[4:5]", ~0xf0ull}}},
      {"s_lshl_b32 s3, 1, 33", {{"s3", 2}, {"scc", 1}}},
      {"s_mov_b64 s[2:3], 1\n s_lshl_b64 s[4:5], s[2:3], 40", {{"s[4:5]", 1ull << 40}}},
      {"s_mov_b32 s2, 0x80000000\n s_lshr_b32 s3, s2, 31", {{"s3", 1}}},
      {"s_mov_b32 s2, 0\n s_mov_b32 s3, 1\n s_lshr_b64 s[4:5], s[2:3], 1", {{"s[4:5]", 0x80000000ull}}},
      {"s_mov_b32 s2, 0x80000000\n s_ashr_i32 s3, s2, 4", {{"s3", 0xf8000000}}},
      {"s_mov_b32 s2, 0\n s_mov_b32 s3, 0x80000000\n s_ashr_i64 s[4:5], s[2:3], 36", {{"s[4:5]", 0xfffffffff8000000ull}}},
      {"s_bfm_b32 s3, 4, 8", {{"s3", 0xf00}}},
      {"s_bfm_b64 s[4:5], 4, 36", {{"s[4:5]", 0xf000000000ull}}},
      {"s_mul_i32 s3, -3, 7", {{"s3", uint32_t(-21)}}},
      {"s_mov_b32 s2, 0x12345678\n s_bfe_u32 s3, s2, 0x80008", {{"s3", 0x56}, {"scc", 1}}},
      {"s_mov_b32 s2, 0xf000\n s_bfe_i32 s3, s2, 0x4000c", {{"s3", 0xffffffff}}},
      {"s_mov_b32 s2, 0\n s_mov_b32 s3, 0xabcd\n s_bfe_u64 s[4:5], s[2:3], 0x100020", {{"s[4:5]", 0xabcd}}},
      {"s_mov_b32 s2, 0\n s_mov_b32 s3, 0x8000\n s_bfe_i64 s[4:5], s[2:3], 0x100020", {{"s[4:5]", 0xffffffffffff8000ull}}},
      {"s_absdiff_i32 s3, -5, 10", {{"s3", 15}, {"scc", 1}}},
      {"s_mov_b32 s2, 0x80000000\n s_mul_hi_u32 s3, s2, 4", {{"s3", 2}}},
      {"s_mov_b32 s2, 0x80000000\n s_mul_hi_i32 s3, s2, 4", {{"s3", 0xfffffffe}}},
      {"s_lshl1_add_u32 s3, 3, 4\n s_lshl2_add_u32 s4, 3, 4\n s_lshl3_add_u32 s5, 3, 4\n s_lshl4_add_u32 s6, 3, 4\n"
       " s_mov_b32 s2, 0x80000000\n s_lshl1_add_u32 s7, s2, 1",
       {{"s3", 10}, {"s4", 16}, {"s5", 28}, {"s6", 52}, {"s7", 1}, {"scc", 1}}},
      {"s_mov_b32 s2, 0x11112222\n s_mov_b32 s4, 0x33334444\n s_pack_ll_b32_b16 s5, s2, s4\n"
       " s_pack_lh_b32_b16 s6, s2, s4\n s_pack_hh_b32_b16 s7, s2, s4",
       {{"s5", 0x44442222}, {"s6", 0x33332222}, {"s7", 0x33331111}}},
      // ---- SOPK
      {"s_movk_i32 s3, -16", {{"s3", 0xfffffff0}}},
      {"s_cmp_eq_u32 0, 0\n s_cmovk_i32 s3, 5\n s_cmp_eq_u32 0, 1\n s_cmovk_i32 s4, 6", {{"s3", 5}, {"s4", 0}}},
      {"s_mov_b32 s2, -1\n s_cmpk_eq_i32 s2, -1\n s_cselect_b32 s3, 1, 0\n s_cmpk_lg_i32 s2, 5\n s_cselect_b32 s4, 1, 0\n"
       " s_cmpk_gt_i32 s2, -2\n s_cselect_b32 s5, 1, 0\n s_cmpk_ge_i32 s2, -1\n s_cselect_b32 s6, 1, 0\n"
       " s_cmpk_lt_i32 s2, 0\n s_cselect_b32 s7, 1, 0\n s_cmpk_le_i32 s2, -2\n s_cselect_b32 s8, 1, 0",
       {{"s3", 1}, {"s4", 1}, {"s5", 1}, {"s6", 1}, {"s7", 1}, {"s8", 0}}},
      {"s_mov_b32 s2, 0xffff\n s_cmpk_eq_u32 s2, 0xffff\n s_cselect_b32 s3, 1, 0\n s_cmpk_lg_u32 s2, 0xffff\n"
       " s_cselect_b32 s4, 1, 0\n s_mov_b32 s2, 0x10000\n s_cmpk_gt_u32 s2, 0xffff\n s_cselect_b32 s5, 1, 0\n"
       " s_mov_b32 s2, 0xffff\n s_cmpk_ge_u32 s2, 0xffff\n s_cselect_b32 s6, 1, 0\n s_mov_b32 s2, 5\n"
       " s_cmpk_lt_u32 s2, 0x8000\n s_cselect_b32 s7, 1, 0\n s_mov_b32 s2, 0x8001\n s_cmpk_le_u32 s2, 0x8000\n"
       " s_cselect_b32 s8, 1, 0",
       {{"s3", 1}, {"s4", 0}, {"s5", 1}, {"s6", 1}, {"s7", 1}, {"s8", 0}}},
      {"s_mov_b32 s3, 0x7fffffff\n s_addk_i32 s3, 1", {{"s3", 0x80000000}, {"scc", 1}}},
      {"s_mov_b32 s3, 7\n s_mulk_i32 s3, -3", {{"s3", uint32_t(-21)}}},
      {"s_getreg_b32 s3, hwreg(HW_REG_MODE)\n s_mov_b32 s2, 10\n s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s2\n s_nop 1\n"
       " s_getreg_b32 s4, hwreg(HW_REG_MODE)\n s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0\n s_nop 1\n"
       " s_getreg_b32 s5, hwreg(HW_REG_MODE)\n s_getreg_b32 s6, hwreg(HW_REG_SH_MEM_BASES, 16, 16)",
       {{"s3", 0x3f0}, {"s4", 0x3fa}, {"s5", 0x3ca}, {"s6", 1}}},
      {"s_call_b64 s[4:5], .Lcall_target\n s_mov_b32 s3, 1\n s_branch .Lcall_done\n.Lcall_target:\n s_mov_b32 s6, 7\n"
       " s_setpc_b64 s[4:5]\n.Lcall_done:\n s_mov_b32 s7, 9",
       {{"s3", 1}, {"s6", 7}, {"s7", 9}}},
      // ---- SOP1
      {"s_mov_b32 s3, 0x12345678\n s_mov_b64 s[4:5], 0x80000000\n s_mov_b64 s[6:7], -1",
       {{"s3", 0x12345678}, {"s[4:5]", 0x80000000ull}, {"s[6:7]", ~0ull}}},
      {"s_mov_b32 s3, 1\n s_cmp_eq_u32 0, 1\n s_cmov_b32 s3, 2\n s_cmp_eq_u32 0, 0\n s_cmov_b32 s4, 3\n"
       " s_cmov_b64 s[6:7], -1\n s_cmp_eq_u32 0, 1\n s_cmov_b64 s[8:9], -1",
       {{"s3", 1}, {"s4", 3}, {"s[6:7]", ~0ull}, {"s[8:9]", 0}}},
      {"s_not_b32 s3, 0\n s_mov_b64 s[6:7], -1\n s_not_b64 s[4:5], s[6:7]", {{"s3", 0xffffffff}, {"s[4:5]", 0}, {"scc", 0}}},
      {"s_wqm_b32 s3, 0x110\n s_mov_b32 s6, 0\n s_mov_b32 s7, 0x10\n s_wqm_b64 s[4:5], s[6:7]",
       {{"s3", 0xff0}, {"s[4:5]", 0xf000000000ull}}},
      {"s_brev_b32 s3, 1\n s_brev_b64 s[4:5], 1", {{"s3", 0x80000000}, {"s[4:5]", 0x8000000000000000ull}}},
      {"s_bcnt0_i32_b32 s3, 0xff\n s_mov_b64 s[6:7], 0xff\n s_bcnt0_i32_b64 s4, s[6:7]\n s_bcnt1_i32_b32 s5, 0xff\n"
       " s_mov_b32 s7, 15\n s_bcnt1_i32_b64 s8, s[6:7]",
       {{"s3", 24}, {"s4", 56}, {"s5", 8}, {"s8", 12}}},
      {"s_ff0_i32_b32 s3, 0xff\n s_mov_b32 s6, -1\n s_mov_b32 s7, 0xfffffffe\n s_ff0_i32_b64 s4, s[6:7]\n"
       " s_ff1_i32_b32 s5, 0x100\n s_mov_b32 s6, 0\n s_mov_b32 s7, 4\n s_ff1_i32_b64 s8, s[6:7]\n s_ff1_i32_b32 s9, 0",
       {{"s3", 8}, {"s4", 32}, {"s5", 8}, {"s8", 34}, {"s9", 0xffffffff}}},
      {"s_flbit_i32_b32 s3, 0x10000\n s_mov_b32 s6, 0\n s_mov_b32 s7, 1\n s_flbit_i32_b64 s4, s[6:7]\n"
       " s_flbit_i32 s5, -1\n s_flbit_i32 s8, 0xf0000000\n s_mov_b32 s7, 0xffff0000\n s_flbit_i32_i64 s9, s[6:7]",
       {{"s3", 15}, {"s4", 31}, {"s5", 0xffffffff}, {"s8", 4}, {"s9", 16}}},
      {"s_sext_i32_i8 s3, 0x80\n s_sext_i32_i16 s4, 0x8000", {{"s3", 0xffffff80}, {"s4", 0xffff8000}}},
      {"s_mov_b32 s3, -1\n s_bitset0_b32 s3, 31\n s_mov_b64 s[4:5], -1\n s_bitset0_b64 s[4:5], 63\n s_mov_b32 s6, 0\n"
       " s_bitset1_b32 s6, 4\n s_mov_b64 s[8:9], 0\n s_bitset1_b64 s[8:9], 40",
       {{"s3", 0x7fffffff}, {"s[4:5]", 0x7fffffffffffffffull}, {"s6", 16}, {"s[8:9]", 1ull << 40}}},
      {"s_getpc_b64 s[4:5]\n s_getpc_b64 s[6:7]\n s_sub_u32 s3, s6, s4", {{"s3", 4}}},
      {"s_getpc_b64 s[4:5]\n.Lswap_base:\n s_add_u32 s4, s4, .Lswap_target-.Lswap_base\n s_addc_u32 s5, s5, 0\n"
       " s_swappc_b64 s[8:9], s[4:5]\n s_mov_b32 s3, 5\n s_branch .Lswap_done\n.Lswap_target:\n s_mov_b32 s10, 6\n"
       " s_setpc_b64 s[8:9]\n.Lswap_done:",
       {{"s3", 5}, {"s10", 6}}},
      // s_rfe_b64 jumps to S0 (over the s_mov of 5)
      {"s_mov_b32 s3, 1\n s_getpc_b64 s[4:5]\n.Lrfe_base:\n s_add_u32 s4, s4, .Lrfe_target-.Lrfe_base\n"
       " s_addc_u32 s5, s5, 0\n s_rfe_b64 s[4:5]\n s_mov_b32 s3, 5\n.Lrfe_target:\n s_mov_b32 s10, 6",
       {{"s3", 1}, {"s10", 6}}},
      // saveexec family: EXEC = 0x00000000ffffffff, S0 = 0x0000ffff0000ffff
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_and_saveexec_b64 s[6:7], s[4:5]",
       {{"s[6:7]", 0xffffffffull}, {"exec", 0xffffull}, {"scc", 1}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_or_saveexec_b64 s[6:7], s[4:5]",
       {{"s[6:7]", 0xffffffffull}, {"exec", 0x0000ffffffffffffull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_xor_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0x0000ffffffff0000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_andn2_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0x0000ffff00000000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_orn2_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0xffffffff0000ffffull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_nand_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0xffffffffffff0000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_nor_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0xffff000000000000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_xnor_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0xffff00000000ffffull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_andn1_saveexec_b64 s[6:7], s[4:5]",
       {{"s[6:7]", 0xffffffffull}, {"exec", 0x00000000ffff0000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_orn1_saveexec_b64 s[6:7], s[4:5]",
       {{"exec", 0xffff0000ffffffffull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_andn1_wrexec_b64 s[6:7], s[4:5]",
       {{"s[6:7]", 0x00000000ffff0000ull}, {"exec", 0x00000000ffff0000ull}}},
      {"s_mov_b32 s2, -1\n s_mov_b32 s3, 0\n s_mov_b64 exec, s[2:3]\n s_mov_b32 s4, 0xffff\n s_mov_b32 s5, 0xffff\n"
       " s_andn2_wrexec_b64 s[6:7], s[4:5]",
       {{"s[6:7]", 0x0000ffff00000000ull}, {"exec", 0x0000ffff00000000ull}}},
      {"s_quadmask_b32 s3, 0xf01\n s_mov_b32 s6, 0\n s_mov_b32 s7, 0x10\n s_quadmask_b64 s[4:5], s[6:7]",
       {{"s3", 5}, {"s[4:5]", 0x200}}},
      {"s_mov_b32 s10, 77\n s_mov_b32 s11, 78\n s_mov_b32 m0, 8\n s_nop 0\n s_movrels_b32 s3, s2\n s_movrels_b64 s[4:5], s[2:3]\n"
       " s_mov_b32 m0, 20\n s_nop 0\n s_movreld_b32 s2, 99\n s_mov_b64 s[30:31], -1\n s_mov_b32 m0, 4\n s_nop 0\n s_movreld_b64 s[30:31], s[30:31]",
       {{"s3", 77}, {"s[4:5]", 0x0000004e0000004dull}, {"s22", 99}, {"s[34:35]", ~0ull}}},
      {"s_abs_i32 s3, -7\n s_mov_b32 s2, 0x80000000\n s_abs_i32 s4, s2", {{"s3", 7}, {"s4", 0x80000000}}},
      {"s_mov_b32 m0, 0x1234ff00\n s_mov_b32 s2, 0x155\n s_set_gpr_idx_idx s2", {{"m0", 0x1234ff55}}},
      {"s_bitreplicate_b64_b32 s[4:5], 5", {{"s[4:5]", 0x33}}},
      // ---- SOPC
      {"s_cmp_eq_i32 5, 5\n s_cselect_b32 s3, 1, 0\n s_cmp_lg_i32 5, 5\n s_cselect_b32 s4, 1, 0\n"
       " s_cmp_gt_i32 -1, 0\n s_cselect_b32 s5, 1, 0\n s_cmp_ge_i32 -1, -1\n s_cselect_b32 s6, 1, 0\n"
       " s_cmp_lt_i32 -1, 0\n s_cselect_b32 s7, 1, 0\n s_cmp_le_i32 0, -1\n s_cselect_b32 s8, 1, 0",
       {{"s3", 1}, {"s4", 0}, {"s5", 0}, {"s6", 1}, {"s7", 1}, {"s8", 0}}},
      {"s_cmp_eq_u32 5, 6\n s_cselect_b32 s3, 1, 0\n s_cmp_lg_u32 5, 6\n s_cselect_b32 s4, 1, 0\n"
       " s_cmp_gt_u32 -1, 0\n s_cselect_b32 s5, 1, 0\n s_cmp_ge_u32 0, -1\n s_cselect_b32 s6, 1, 0\n"
       " s_cmp_lt_u32 -1, 0\n s_cselect_b32 s7, 1, 0\n s_cmp_le_u32 3, 3\n s_cselect_b32 s8, 1, 0",
       {{"s3", 0}, {"s4", 1}, {"s5", 1}, {"s6", 0}, {"s7", 0}, {"s8", 1}}},
      {"s_mov_b32 s2, 0x10\n s_bitcmp0_b32 s2, 4\n s_cselect_b32 s3, 1, 0\n s_bitcmp1_b32 s2, 4\n s_cselect_b32 s4, 1, 0\n"
       " s_mov_b32 s6, 0\n s_mov_b32 s7, 1\n s_bitcmp0_b64 s[6:7], 32\n s_cselect_b32 s5, 1, 0\n"
       " s_bitcmp1_b64 s[6:7], 32\n s_cselect_b32 s8, 1, 0",
       {{"s3", 0}, {"s4", 1}, {"s5", 0}, {"s8", 1}}},
      {"s_mov_b32 s2, 1\n s_setvskip s2, 0\n s_nop 1\n s_getreg_b32 s3, hwreg(HW_REG_MODE, 28, 1)\n s_setvskip 0, 0\n s_nop 1\n"
       " s_getreg_b32 s4, hwreg(HW_REG_MODE, 28, 1)",
       {{"s3", 1}, {"s4", 0}}},
      {"s_mov_b32 s2, 3\n s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)\n s_mov_b32 s3, m0\n"
       " s_getreg_b32 s4, hwreg(HW_REG_MODE, 27, 1)\n s_set_gpr_idx_mode gpr_idx(SRC1)\n s_mov_b32 s5, m0\n"
       " s_set_gpr_idx_off\n s_getreg_b32 s6, hwreg(HW_REG_MODE, 27, 1)",
       {{"s3", 0x9003}, {"s4", 1}, {"s5", 0x2003}, {"s6", 0}}},
      {"s_mov_b64 s[2:3], -1\n s_mov_b64 s[4:5], -1\n s_cmp_eq_u64 s[2:3], s[4:5]\n s_cselect_b32 s6, 1, 0\n"
       " s_cmp_lg_u64 s[2:3], s[4:5]\n s_cselect_b32 s7, 1, 0",
       {{"s6", 1}, {"s7", 0}}},
      // ---- SOPP
      {"s_nop 3\n s_branch .Lbr1\n s_mov_b32 s3, 1\n.Lbr1:\n s_mov_b32 s4, 2\n s_wakeup\n s_setkill 0\n s_waitcnt 0\n"
       " s_sleep 1\n s_setprio 1\n s_sendmsg sendmsg(MSG_INTERRUPT)\n s_icache_inv\n s_incperflevel 1\n"
       " s_decperflevel 1\n s_ttracedata\n s_sethalt 0\n s_barrier",
       {{"s3", 0}, {"s4", 2}}},
      {"s_cbranch_cdbgsys .Lcd\n s_cbranch_cdbguser .Lcd\n s_cbranch_cdbgsys_or_user .Lcd\n"
       " s_cbranch_cdbgsys_and_user .Lcd\n s_mov_b32 s3, 1\n.Lcd:",
       {{"s3", 1}}},
      {"s_cmp_eq_u32 0, 1\n s_cbranch_scc0 .Lb0\n s_mov_b32 s3, 1\n.Lb0:\n s_cbranch_scc1 .Lb1\n s_mov_b32 s4, 1\n.Lb1:\n"
       " s_mov_b64 vcc, 0\n s_cbranch_vccz .Lb2\n s_mov_b32 s5, 1\n.Lb2:\n s_cbranch_vccnz .Lb3\n s_mov_b32 s6, 1\n.Lb3:\n"
       " s_mov_b64 exec, 0\n s_cbranch_execz .Lb4\n s_mov_b32 s7, 1\n.Lb4:\n s_cbranch_execnz .Lb5\n s_mov_b32 s8, 1\n.Lb5:\n"
       " s_mov_b64 exec, -1\n s_cbranch_execnz .Lb6\n s_mov_b32 s9, 1\n.Lb6:",
       {{"s3", 0}, {"s4", 1}, {"s5", 0}, {"s6", 1}, {"s7", 0}, {"s8", 1}, {"s9", 0}}},
      {"s_mov_b32 s3, 11", {{"s3", 11}}, "s_endpgm_saved"},
      {"s_mov_b32 s3, 12", {{"s3", 12}}, "s_endpgm_ordered_ps_done"},
      {"s_mov_b32 s3, 13", {{"s3", 13}}, "s_sendmsghalt sendmsg(MSG_INTERRUPT)"},
  };
  return cases;
}

}  // namespace k100::emu::test
