// reduce_sum1_k(part, y, nbpr): y[0] = sum of part[0 .. nbpr-1] (0 when
// nbpr = 0). One wave (grid = 1, wg = 64) of any nbpr: lanes stream the
// partials 16 bytes at a time (1 KiB per load instruction, 4 loads in
// flight), the tail one dword per lane, then a DPP reduction; lane 63 writes
// y[0]. The reference package limited nbpr to 64; this one loops. Workgroups
// past the first and waves past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.text
	.globl	reduce_sum1_k
	.p2align	8
	.type	reduce_sum1_k,@function
reduce_sum1_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0        // part, y
	s_load_dword s22, s[4:5], 0x10             // nbpr
	v_readfirstlane_b32 s7, v0
	s_cmp_ge_u32 s7, 64
	s_cbranch_scc1 .Lexit                      // not the first wave
	s_cmp_lg_u32 s6, 0
	s_cbranch_scc1 .Lexit                      // not the first workgroup
	v_mov_b32 v1, 0                            // per-lane partial sum
	v_lshlrev_b32 v2, 4, v0                    // 16 * lane
	s_waitcnt lgkmcnt(0)
	s_mov_b64 s[20:21], s[8:9]                 // running pointer
	// 1024 values per step: four 1 KiB loads
	s_lshr_b32 s23, s22, 10
	s_cmp_eq_u32 s23, 0
	s_cbranch_scc1 .Lg256
.Lg1024:
	global_load_dwordx4 v[4:7], v2, s[20:21]
	global_load_dwordx4 v[8:11], v2, s[20:21] offset:1024
	global_load_dwordx4 v[12:15], v2, s[20:21] offset:2048
	global_load_dwordx4 v[16:19], v2, s[20:21] offset:3072
	s_add_u32 s20, s20, 0x1000
	s_addc_u32 s21, s21, 0
	s_sub_u32 s23, s23, 1
	s_waitcnt vmcnt(0)
	v_add_f32 v4, v4, v5
	v_add_f32 v6, v6, v7
	v_add_f32 v8, v8, v9
	v_add_f32 v10, v10, v11
	v_add_f32 v12, v12, v13
	v_add_f32 v14, v14, v15
	v_add_f32 v16, v16, v17
	v_add_f32 v18, v18, v19
	v_add_f32 v4, v4, v6
	v_add_f32 v8, v8, v10
	v_add_f32 v12, v12, v14
	v_add_f32 v16, v16, v18
	v_add_f32 v4, v4, v8
	v_add_f32 v12, v12, v16
	v_add_f32 v4, v4, v12
	v_add_f32 v1, v1, v4
	s_cmp_lg_u32 s23, 0
	s_cbranch_scc1 .Lg1024
.Lg256:
	// then up to three 256-value steps
	s_bfe_u32 s23, s22, 0x20008
	s_cmp_eq_u32 s23, 0
	s_cbranch_scc1 .Ltail
.Lg256_step:
	global_load_dwordx4 v[4:7], v2, s[20:21]
	s_add_u32 s20, s20, 0x400
	s_addc_u32 s21, s21, 0
	s_sub_u32 s23, s23, 1
	s_waitcnt vmcnt(0)
	v_add_f32 v4, v4, v5
	v_add_f32 v6, v6, v7
	v_add_f32 v4, v4, v6
	v_add_f32 v1, v1, v4
	s_cmp_lg_u32 s23, 0
	s_cbranch_scc1 .Lg256_step
.Ltail:
	// the last (< 256) values: lane l takes l, l+64, l+128, l+192 when present
	s_and_b32 s23, s22, 0xff
	s_cmp_eq_u32 s23, 0
	s_cbranch_scc1 .Lreduce
	v_mov_b32 v4, 0
	v_mov_b32 v5, 0
	v_mov_b32 v6, 0
	v_mov_b32 v7, 0
	v_lshlrev_b32 v3, 2, v0
	v_add_u32 v8, 64, v0
	v_add_u32 v9, 0x80, v0
	v_add_u32 v10, 0xc0, v0
	v_cmp_gt_u32 vcc, s23, v0
	s_and_saveexec_b64 s[24:25], vcc
	global_load_dword v4, v3, s[20:21]
	s_mov_b64 exec, s[24:25]
	v_cmp_gt_u32 vcc, s23, v8
	s_and_saveexec_b64 s[24:25], vcc
	global_load_dword v5, v3, s[20:21] offset:256
	s_mov_b64 exec, s[24:25]
	v_cmp_gt_u32 vcc, s23, v9
	s_and_saveexec_b64 s[24:25], vcc
	global_load_dword v6, v3, s[20:21] offset:512
	s_mov_b64 exec, s[24:25]
	v_cmp_gt_u32 vcc, s23, v10
	s_and_saveexec_b64 s[24:25], vcc
	global_load_dword v7, v3, s[20:21] offset:768
	s_mov_b64 exec, s[24:25]
	s_waitcnt vmcnt(0)
	v_add_f32 v4, v4, v5
	v_add_f32 v6, v6, v7
	v_add_f32 v4, v4, v6
	v_add_f32 v1, v1, v4
.Lreduce:
	// sum of the 64 lanes into lane 63. Two wait states (s_nop 1) between the
	// write of any VGPR a DPP instruction reads and the DPP instruction; lanes
	// whose DPP source is outside the row are not written (no bound_ctrl).
	v_mov_b32 v3, v1
	v_mov_b32 v2, 0
	s_nop 1
	v_add_f32_dpp v1, v3, v1 row_shr:1
	s_nop 1
	v_add_f32_dpp v1, v3, v1 row_shr:2
	s_nop 1
	v_add_f32_dpp v1, v3, v1 row_shr:3
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_shr:4 bank_mask:0xe
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_shr:8 bank_mask:0xc
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_bcast:15 row_mask:0xa
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_bcast:31 row_mask:0xc
	s_mov_b32 exec_lo, 0
	s_mov_b32 exec_hi, 0x80000000              // lane 63 writes y[0]
	global_store_dword v2, v1, s[10:11]
.Lexit:
	s_endpgm
.Lreduce_sum1_k_end:
	.size	reduce_sum1_k, .Lreduce_sum1_k_end-reduce_sum1_k

	.rodata
	.p2align 6
	.amdhsa_kernel reduce_sum1_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_kernarg_size 24
		.k100_arg part, global_buffer, const f32*, read_only
		.k100_arg y, global_buffer, f32*, write_only
		.k100_arg nbpr, by_value, u32
		.k100_hidden_args none
	.end_amdhsa_kernel
