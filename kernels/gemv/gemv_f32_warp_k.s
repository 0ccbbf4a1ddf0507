// gemv_f32_warp_k(w, x, y, nrows, k, group_size): y[n] = sum_k w[n][k] * x[k]
// One wave per output row (grid = nrows workgroups of 64). Each lane streams
// 16-byte pieces of the row: lane l reads w[n][256*i + 4*l .. +3], so one
// global_load_dwordx4 covers 1 KiB of the row, 16 whole 64-byte lines, and no
// line is requested twice. A tail of fewer than 256 columns is read one dword
// per lane. The 64 partial sums are reduced with DPP and lane 63 holds the
// row's result. group_size must be 64 (the workgroup size); rows past nrows
// do nothing, so a larger grid is harmless.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id (row), v0 lane.

	.text
	.globl	gemv_f32_warp_k
	.p2align	8
	.type	gemv_f32_warp_k,@function
gemv_f32_warp_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0        // w, x
	s_load_dwordx2 s[12:13], s[4:5], 0x10      // y
	s_load_dwordx2 s[14:15], s[4:5], 0x18      // nrows, k
	s_waitcnt lgkmcnt(0)
	s_cmp_ge_u32 s6, s14
	s_cbranch_scc1 .Lexit                      // row past the end
	// s[16:17] = w + row * k * 4
	s_mul_i32 s16, s6, s15
	s_mul_hi_u32 s17, s6, s15
	s_lshl_b64 s[16:17], s[16:17], 2
	s_add_u32 s16, s8, s16
	s_addc_u32 s17, s9, s17
	v_mov_b32 v1, 0                            // partial sum
	v_lshlrev_b32 v2, 4, v0                    // byte offset of this lane's piece: 16 * lane
	s_lshr_b32 s18, s15, 8                     // full 256-column blocks
	s_cmp_eq_u32 s18, 0
	s_cbranch_scc1 .Ltail
	s_mov_b64 s[20:21], s[16:17]               // running row pointer
	s_mov_b64 s[22:23], s[10:11]               // running x pointer
.Lblock:
	global_load_dwordx4 v[4:7], v2, s[20:21]
	global_load_dwordx4 v[8:11], v2, s[22:23]
	s_add_u32 s20, s20, 0x400
	s_addc_u32 s21, s21, 0
	s_add_u32 s22, s22, 0x400
	s_addc_u32 s23, s23, 0
	s_sub_u32 s18, s18, 1
	s_waitcnt vmcnt(0)
	v_fmac_f32 v1, v4, v8
	v_fmac_f32 v1, v5, v9
	v_fmac_f32 v1, v6, v10
	v_fmac_f32 v1, v7, v11
	s_cmp_lg_u32 s18, 0
	s_cbranch_scc1 .Lblock
.Ltail:
	// columns [256 * blocks, k): lane l takes column base + l + 64 * j, j = 0..3
	s_and_b32 s18, s15, 0xffffff00            // base column
	s_cmp_eq_u32 s18, s15
	s_cbranch_scc1 .Lreduce
	v_add_u32 v3, s18, v0                      // column of this lane, first step
	s_mov_b32 s19, 4                           // steps left
.Ltail_step:
	v_cmp_gt_u32 vcc, s15, v3                  // column < k
	s_and_saveexec_b64 s[24:25], vcc
	s_cbranch_execz .Ltail_done
	v_lshlrev_b32 v12, 2, v3
	global_load_dword v4, v12, s[16:17]
	global_load_dword v8, v12, s[10:11]
	s_waitcnt vmcnt(0)
	v_fmac_f32 v1, v4, v8
	s_mov_b64 exec, s[24:25]
	v_add_u32 v3, 64, v3
	s_sub_u32 s19, s19, 1
	s_cmp_lg_u32 s19, 0
	s_cbranch_scc1 .Ltail_step
	s_branch .Lreduce
.Ltail_done:
	s_mov_b64 exec, s[24:25]
.Lreduce:
	// sum of the 64 lanes into lane 63; the first three steps shift the
	// original partial sums (v13), the rest the running ones. DPP reads of a
	// VGPR written by the previous VALU instruction need two wait states.
	v_mov_b32 v13, v1
	s_nop 1
	v_add_f32_dpp v1, v13, v13 row_shr:1 bound_ctrl:0
	v_add_f32_dpp v1, v13, v1 row_shr:2 bound_ctrl:0
	v_add_f32_dpp v1, v13, v1 row_shr:3 bound_ctrl:0
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_shr:4 bank_mask:0xe
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_shr:8 bank_mask:0xc
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_bcast:15 row_mask:0xa
	s_nop 1
	v_add_f32_dpp v1, v1, v1 row_bcast:31 row_mask:0xc
	s_nop 1
	v_readlane_b32 s26, v1, 63
	// y[row] = sum, written by lane 0
	s_lshl_b32 s27, s6, 2
	s_add_u32 s12, s12, s27
	s_addc_u32 s13, s13, 0
	v_mov_b32 v1, s26
	v_mov_b32 v2, 0
	s_mov_b64 exec, 1
	global_store_dword v2, v1, s[12:13]
.Lexit:
	s_endpgm
.Lgemv_f32_warp_k_end:
	.size	gemv_f32_warp_k, .Lgemv_f32_warp_k_end-gemv_f32_warp_k

	.rodata
	.p2align 6
	.amdhsa_kernel gemv_f32_warp_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.k100_arg w, global_buffer, const f32*, read_only
		.k100_arg x, global_buffer, const f32*, read_only
		.k100_arg y, global_buffer, f32*, write_only
		.k100_arg nrows, by_value, u32
		.k100_arg k, by_value, u32
		.k100_arg group_size, by_value, u32
	.end_amdhsa_kernel
