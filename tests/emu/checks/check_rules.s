// Minimal kernels for the emulator checks: for every rule a kernel that
// breaks it (<case>_bad) and its corrected twin (<case>_good). Each takes one
// argument, out (u32*, 4096 bytes), runs as one workgroup of 128 work-items
// (two waves) and stores v2 of every lane to out[lane & 127] at the end.
// check_rules.txt lists the cases and the rule each bad kernel must report.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx926"

// Kernel prologue: s[8:9] = out, v1 = byte offset of this lane's word,
// v2 = 0, v10 = 0 (an LDS address), vcc = lanes of wave 0.
.macro BEGIN name
	.text
	.globl \name
	.p2align 8
	.type \name,@function
\name:
	s_load_dwordx2 s[8:9], s[4:5], 0x0
	v_and_b32 v1, 0x7f, v0
	v_lshlrev_b32 v1, 2, v1
	v_mov_b32 v2, 0
	v_mov_b32 v10, 0
	v_cmp_gt_u32 vcc, 64, v0
	s_waitcnt lgkmcnt(0)
.endm

// Epilogue and descriptor; lds = bytes of LDS.
.macro END name, lds=0
	s_waitcnt vmcnt(0) lgkmcnt(0)
	global_store_dword v1, v2, s[8:9]
	s_endpgm
	.rodata
	.p2align 6
	.amdhsa_kernel \name
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_group_segment_fixed_size \lds
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 24
		.k100_arg out, global_buffer, u32*, read_write
	.end_amdhsa_kernel
.endm

// ------------------------------------------------------------ waits ---

// A loaded VGPR is read before vmcnt says it has returned.
BEGIN vmem_read_bad
	global_load_dword v2, v1, s[8:9]
	v_add_u32 v2, v2, v2
END vmem_read_bad
BEGIN vmem_read_good
	global_load_dword v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	v_add_u32 v2, v2, v2
END vmem_read_good

// Two scalar loads return in any order: lgkmcnt(1) orders neither.
BEGIN smem_order_bad
	s_load_dword s10, s[4:5], 0x0
	s_load_dword s11, s[4:5], 0x4
	s_waitcnt lgkmcnt(1)
	v_mov_b32 v2, s10
END smem_order_bad
BEGIN smem_order_good
	s_load_dword s10, s[4:5], 0x0
	s_load_dword s11, s[4:5], 0x4
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v2, s10
END smem_order_good

// LDS reads return in order: lgkmcnt(1) covers the older one only.
BEGIN lds_read_bad
	ds_write_b32 v1, v0
	ds_read_b32 v3, v1
	ds_read_b32 v2, v1
	s_waitcnt lgkmcnt(1)
	v_add_u32 v2, v2, v3
END lds_read_bad, 512
BEGIN lds_read_good
	ds_write_b32 v1, v0
	ds_read_b32 v3, v1
	ds_read_b32 v2, v1
	s_waitcnt lgkmcnt(1)
	v_add_u32 v4, v3, v3
	s_waitcnt lgkmcnt(0)
	v_add_u32 v2, v2, v3
END lds_read_good, 512

// A VALU write lands before the pending load's data, which then overwrites it.
BEGIN overwrite_bad
	global_load_dword v2, v1, s[8:9]
	v_mov_b32 v2, 7
END overwrite_bad
BEGIN overwrite_good
	global_load_dword v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	v_mov_b32 v2, 7
END overwrite_good

// s_barrier with an LDS write still in flight.
BEGIN barrier_lds_bad
	ds_write_b32 v1, v0
	s_barrier
	ds_read_b32 v2, v1
END barrier_lds_bad, 512
BEGIN barrier_lds_good
	ds_write_b32 v1, v0
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v2, v1
END barrier_lds_good, 512

// ---------------------------------------------------------- hazards ---

// s_rfe_b64 after writing TRAPSTS (with `wait` s_nop between); it jumps
// over the v_mov of 5.
.macro SETREG_RFE name, wait
	s_mov_b32 s10, 0
	s_getpc_b64 s[12:13]
.L\name\()_pc:
	s_add_u32 s12, s12, .L\name\()_to - .L\name\()_pc
	s_addc_u32 s13, s13, 0
	s_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 1), s10
	.rept \wait
	s_nop 0
	.endr
	s_rfe_b64 s[12:13]
	v_mov_b32 v2, 5
.L\name\()_to:
	v_add_u32 v2, v2, 1
.endm
BEGIN setreg_rfe_bad
	SETREG_RFE setreg_rfe_bad, 0
END setreg_rfe_bad
BEGIN setreg_rfe_good
	SETREG_RFE setreg_rfe_good, 1
END setreg_rfe_good

BEGIN setreg_getreg_bad
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s10
	s_getreg_b32 s11, hwreg(HW_REG_MODE)
	v_mov_b32 v2, s11
END setreg_getreg_bad
BEGIN setreg_getreg_good
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s10
	s_nop 1
	s_getreg_b32 s11, hwreg(HW_REG_MODE)
	v_mov_b32 v2, s11
END setreg_getreg_good

BEGIN setreg_setreg_bad
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s10
	s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s10
END setreg_setreg_bad
BEGIN setreg_setreg_good
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s10
	s_nop 0
	s_mov_b32 s11, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s10
END setreg_setreg_good

BEGIN setvskip_getreg_bad
	s_mov_b32 s10, 0
	s_setvskip s10, 0
	s_getreg_b32 s11, hwreg(HW_REG_MODE)
END setvskip_getreg_bad
BEGIN setvskip_getreg_good
	s_mov_b32 s10, 0
	s_setvskip s10, 0
	s_nop 1
	s_getreg_b32 s11, hwreg(HW_REG_MODE)
END setvskip_getreg_good

BEGIN setreg_vskip_bad
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 28, 1), s10
	v_mov_b32 v2, 5
END setreg_vskip_bad
BEGIN setreg_vskip_good
	s_mov_b32 s10, 0
	s_setreg_b32 hwreg(HW_REG_MODE, 28, 1), s10
	s_nop 1
	v_mov_b32 v2, 5
END setreg_vskip_good

BEGIN vccz_data_bad
	v_cmp_eq_u32 vcc, v0, v0
	v_mov_b32 v2, src_vccz
END vccz_data_bad
BEGIN vccz_data_good
	v_cmp_eq_u32 vcc, v0, v0
	s_nop 4
	v_mov_b32 v2, src_vccz
END vccz_data_good

BEGIN lane_select_bad
	v_readfirstlane_b32 s10, v0
	v_readlane_b32 s11, v0, s10
	v_mov_b32 v2, s11
END lane_select_bad
BEGIN lane_select_good
	v_readfirstlane_b32 s10, v0
	s_nop 3
	v_readlane_b32 s11, v0, s10
	v_mov_b32 v2, s11
END lane_select_good

BEGIN div_fmas_bad
	v_mov_b32 v3, 1.0
	v_div_scale_f32 v4, vcc, v3, v3, v3
	v_div_fmas_f32 v2, v4, v3, v3
END div_fmas_bad
BEGIN div_fmas_good
	v_mov_b32 v3, 1.0
	v_div_scale_f32 v4, vcc, v3, v3, v3
	s_nop 3
	v_div_fmas_f32 v2, v4, v3, v3
END div_fmas_good

BEGIN wide_store_bad
	v_mov_b32 v4, 1
	v_mov_b32 v5, 2
	v_mov_b32 v6, 3
	v_mov_b32 v7, 4
	v_lshlrev_b32 v11, 4, v0
	global_store_dwordx4 v11, v[4:7], s[8:9] offset:512
	v_mov_b32 v4, 0
END wide_store_bad
BEGIN wide_store_good
	v_mov_b32 v4, 1
	v_mov_b32 v5, 2
	v_mov_b32 v6, 3
	v_mov_b32 v7, 4
	v_lshlrev_b32 v11, 4, v0
	global_store_dwordx4 v11, v[4:7], s[8:9] offset:512
	s_nop 0
	v_mov_b32 v4, 0
END wide_store_good

BEGIN sgpr_vmem_bad
	v_mov_b32 v7, s8
	v_readfirstlane_b32 s8, v7
	global_load_dword v2, v1, s[8:9]
END sgpr_vmem_bad
BEGIN sgpr_vmem_good
	v_mov_b32 v7, s8
	v_readfirstlane_b32 s8, v7
	s_nop 4
	global_load_dword v2, v1, s[8:9]
END sgpr_vmem_good

BEGIN m0_sendmsg_bad
	s_mov_b32 m0, 0
	s_sendmsg sendmsg(MSG_INTERRUPT)
END m0_sendmsg_bad
BEGIN m0_sendmsg_good
	s_mov_b32 m0, 0
	s_nop 0
	s_sendmsg sendmsg(MSG_INTERRUPT)
END m0_sendmsg_good

BEGIN vgpr_dpp_bad
	v_add_u32 v3, v0, v0
	v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
END vgpr_dpp_bad
BEGIN vgpr_dpp_good
	v_add_u32 v3, v0, v0
	s_nop 1
	v_mov_b32_dpp v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
END vgpr_dpp_good

BEGIN exec_dpp_bad
	v_cmpx_eq_u32 vcc, v0, v0
	s_nop 1
	v_mov_b32_dpp v2, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
END exec_dpp_bad
BEGIN exec_dpp_good
	v_cmpx_eq_u32 vcc, v0, v0
	s_nop 4
	v_mov_b32_dpp v2, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
END exec_dpp_good

BEGIN m0_addtid_bad
	s_and_saveexec_b64 s[12:13], vcc   // wave 0 only: add-TID addresses repeat per wave
	s_mov_b32 m0, 0
	ds_write_addtid_b32 v0
	s_waitcnt lgkmcnt(0)
	s_or_b64 exec, exec, s[12:13]
END m0_addtid_bad, 512
BEGIN m0_addtid_good
	s_and_saveexec_b64 s[12:13], vcc   // wave 0 only: add-TID addresses repeat per wave
	s_mov_b32 m0, 0
	s_nop 0
	ds_write_addtid_b32 v0
	s_waitcnt lgkmcnt(0)
	s_or_b64 exec, exec, s[12:13]
END m0_addtid_good, 512

BEGIN m0_movrel_bad
	s_mov_b32 s11, 9
	s_mov_b32 m0, 1
	s_movrels_b32 s12, s10
	v_mov_b32 v2, s12
END m0_movrel_bad
BEGIN m0_movrel_good
	s_mov_b32 s11, 9
	s_mov_b32 m0, 1
	s_nop 0
	s_movrels_b32 s12, s10
	v_mov_b32 v2, s12
END m0_movrel_good

// Wave 0 writes 7 to LDS[0]; after the barrier every lane reads it as
// lds_direct (M0 = 0x20000: address 0, dword), right after writing M0.
.macro LDS_DIRECT_SETUP
	s_and_saveexec_b64 s[12:13], vcc
	v_mov_b32 v3, 7
	ds_write_b32 v10, v3
	s_or_b64 exec, exec, s[12:13]
	s_waitcnt lgkmcnt(0)
	s_barrier
.endm
BEGIN m0_lds_direct_bad
	LDS_DIRECT_SETUP
	s_mov_b32 m0, 0x20000
	v_mov_b32 v2, lds_direct
END m0_lds_direct_bad, 512
BEGIN m0_lds_direct_good
	LDS_DIRECT_SETUP
	s_mov_b32 m0, 0x20000
	s_nop 0
	v_mov_b32 v2, lds_direct
END m0_lds_direct_good, 512

// A GDS atomic (M0: GDS base 0, 4096 bytes) reads its data VGPR v3 until
// expcnt says so; the VALU overwrites it before that.
.macro GDS_ADD
	s_mov_b32 m0, 0x1000
	v_mov_b32 v3, 1
	ds_add_u32 v10, v3 gds
.endm
BEGIN gds_data_bad
	GDS_ADD
	v_mov_b32 v3, 2
	s_waitcnt lgkmcnt(0)
	ds_read_b32 v2, v10 gds
END gds_data_bad
BEGIN gds_data_good
	GDS_ADD
	s_waitcnt expcnt(0)
	v_mov_b32 v3, 2
	s_waitcnt lgkmcnt(0)
	ds_read_b32 v2, v10 gds
END gds_data_good

// -------------------------------------------------------- LDS races ---

// Wave 0 writes LDS[0]; every lane then reads it. Wave 1's read races.
BEGIN race_write_read_bad
	s_and_saveexec_b64 s[12:13], vcc
	v_mov_b32 v3, 1
	ds_write_b32 v10, v3
	s_or_b64 exec, exec, s[12:13]
	ds_read_b32 v2, v10
END race_write_read_bad, 512
BEGIN race_write_read_good
	s_and_saveexec_b64 s[12:13], vcc
	v_mov_b32 v3, 1
	ds_write_b32 v10, v3
	s_or_b64 exec, exec, s[12:13]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v2, v10
END race_write_read_good, 512

// Every lane reads LDS[0]; then wave 1 writes it while wave 0 may still read.
BEGIN race_read_write_bad
	ds_read_b32 v2, v10
	s_waitcnt lgkmcnt(0)
	s_xor_b64 exec, exec, vcc
	v_mov_b32 v3, 2
	ds_write_b32 v10, v3
	s_mov_b64 exec, -1
END race_read_write_bad, 512
BEGIN race_read_write_good
	ds_read_b32 v2, v10
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_xor_b64 exec, exec, vcc
	v_mov_b32 v3, 2
	ds_write_b32 v10, v3
	s_mov_b64 exec, -1
END race_read_write_good, 512

// Both waves store their lane id to one dword; corrected: a dword per wave.
BEGIN race_write_write_bad
	ds_write_b32 v10, v0
END race_write_write_bad, 512
BEGIN race_write_write_good
	v_lshrrev_b32 v3, 6, v0
	v_lshlrev_b32 v3, 2, v3
	ds_write_b32 v3, v0
END race_write_write_good, 512

// Atomics on one dword from both waves are not a race (no bad twin).
BEGIN race_atomics_good
	v_mov_b32 v3, 1
	ds_add_u32 v10, v3
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v2, v10
END race_atomics_good, 512

// Order-dependent on purpose: wave 1 reads what wave 0 may or may not have
// written yet (for the random schedule test, with the checks off).
BEGIN order_dependent
	s_and_saveexec_b64 s[12:13], vcc
	v_mov_b32 v3, 1
	ds_write_b32 v10, v3
	s_or_b64 exec, exec, s[12:13]
	s_nop 7
	s_nop 7
	s_nop 7
	s_nop 7
	s_xor_b64 exec, exec, vcc
	ds_read_b32 v2, v10
	s_mov_b64 exec, -1
END order_dependent, 512
