// Kernels of the runtime tests: the seed's GEMV, a chained saxpy, a 3-D id
// map that also dumps its hidden arguments, a fill with an f32 scalar, a
// kernel that faults and one that declares scratch.
//
// Register conventions (every kernel): s[0:3] private segment buffer,
// s[4:5] kernarg segment, s6/s7/s8 workgroup id x/y/z (as enabled),
// v0/v1/v2 work-item id x/y/z.

	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx926"

// y[row] = sum_i w[row*k + i] * x[i]; one wave per row, grid = nrows workgroups of 64.
	.globl	gemv_f32_warp_k
	.p2align	8
	.type	gemv_f32_warp_k,@function
gemv_f32_warp_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0       // w, x
	s_load_dwordx2 s[12:13], s[4:5], 0x10     // y
	s_load_dwordx2 s[14:15], s[4:5], 0x18     // nrows, k
	s_waitcnt lgkmcnt(0)
	s_cmp_ge_u32 s6, s14
	s_cbranch_scc1 .Lgemv_done
	s_mul_i32 s16, s6, s15                    // row * k, 64-bit
	s_mul_hi_u32 s17, s6, s15
	s_lshl_b64 s[16:17], s[16:17], 2
	s_add_u32 s16, s8, s16                    // &w[row * k]
	s_addc_u32 s17, s9, s17
	v_mov_b32 v1, 0                           // partial sum
	v_mov_b32 v2, v0                          // i = lane
	s_mov_b64 s[18:19], exec
.Lgemv_loop:
	v_cmp_gt_u32 vcc, s15, v2
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .Lgemv_reduce
	v_lshlrev_b32 v3, 2, v2
	global_load_dword v4, v3, s[16:17]
	global_load_dword v5, v3, s[10:11]
	v_add_u32 v2, 64, v2
	s_waitcnt vmcnt(0)
	v_fma_f32 v1, v4, v5, v1
	s_branch .Lgemv_loop
.Lgemv_reduce:
	s_mov_b64 exec, s[18:19]
	v_lshlrev_b32 v6, 2, v0
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 32, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:128
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 16, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:64
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 8, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:32
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 4, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:16
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 2, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:8
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7
	ds_write_b32 v6, v1
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, 1, v0
	s_and_b64 exec, exec, vcc
	ds_read_b32 v7, v6 offset:4
	s_waitcnt lgkmcnt(0)
	v_add_f32 v1, v1, v7                      // lane 0 holds the row's sum
	s_lshl_b32 s20, s6, 2
	v_mov_b32 v8, s20
	global_store_dword v8, v1, s[12:13]
.Lgemv_done:
	s_endpgm
.Lgemv_end:
	.size	gemv_f32_warp_k, .Lgemv_end-gemv_f32_warp_k

// y[i] += a * x[i] for i < n; i = group * hidden_group_size_x + lane.
	.globl	saxpy_k
	.p2align	8
	.type	saxpy_k,@function
saxpy_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0       // y, x
	s_load_dwordx2 s[12:13], s[4:5], 0x10     // a, n
	s_load_dword s14, s[4:5], 0x24            // hidden_group_size_x (H = 24, +12)
	s_waitcnt lgkmcnt(0)
	s_and_b32 s14, s14, 0xffff
	s_mul_i32 s15, s6, s14
	v_add_u32 v1, s15, v0
	v_cmp_gt_u32 vcc, s13, v1
	s_and_saveexec_b64 s[16:17], vcc
	s_cbranch_execz .Lsaxpy_done
	v_lshlrev_b32 v1, 2, v1
	global_load_dword v2, v1, s[8:9]
	global_load_dword v3, v1, s[10:11]
	s_waitcnt vmcnt(0)
	v_fma_f32 v2, s12, v3, v2
	global_store_dword v1, v2, s[8:9]
.Lsaxpy_done:
	s_endpgm
.Lsaxpy_end:
	.size	saxpy_k, .Lsaxpy_end-saxpy_k

// out[(gz*H + gy)*W + gx] = gx | gy << 10 | gz << 20 with W, H and the
// group sizes taken from the hidden arguments; work-item (0,0,0) of group
// (0,0,0) also copies kernarg bytes [16, 80) (the hidden block) to hid.
	.globl	ids3d_k
	.p2align	8
	.type	ids3d_k,@function
ids3d_k:
	s_load_dwordx4 s[12:15], s[4:5], 0x0      // out, hid
	s_load_dwordx4 s[16:19], s[4:5], 0x10     // block counts x, y, z; group sizes x | y << 16
	s_load_dword s20, s[4:5], 0x20            // group size z | remainder x << 16
	s_waitcnt lgkmcnt(0)
	s_and_b32 s21, s19, 0xffff                // group size x
	s_lshr_b32 s22, s19, 16                   // group size y
	s_and_b32 s23, s20, 0xffff                // group size z
	s_mul_i32 s24, s6, s21
	v_add_u32 v3, s24, v0                     // gx
	s_mul_i32 s25, s7, s22
	v_add_u32 v4, s25, v1                     // gy
	s_mul_i32 s26, s8, s23
	v_add_u32 v5, s26, v2                     // gz
	s_mul_i32 s27, s16, s21                   // W
	s_mul_i32 s28, s17, s22                   // H
	v_mul_lo_u32 v6, v5, s28
	v_add_u32 v6, v6, v4
	v_mul_lo_u32 v6, v6, s27
	v_add_u32 v6, v6, v3
	v_lshlrev_b32 v7, 10, v4
	v_or_b32 v7, v7, v3
	v_lshlrev_b32 v8, 20, v5
	v_or_b32 v7, v7, v8
	v_lshlrev_b32 v6, 2, v6
	global_store_dword v6, v7, s[12:13]
	s_or_b32 s29, s6, s7
	s_or_b32 s29, s29, s8
	s_cmp_eq_u32 s29, 0
	s_cbranch_scc0 .Lids_done
	v_or_b32 v9, v0, v1
	v_or_b32 v9, v9, v2
	v_cmp_eq_u32 vcc, 0, v9
	s_and_saveexec_b64 s[30:31], vcc
	s_cbranch_execz .Lids_done
	s_load_dwordx8 s[32:39], s[4:5], 0x10
	s_load_dwordx8 s[40:47], s[4:5], 0x30
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v10, 0
	v_mov_b32 v12, s32
	v_mov_b32 v13, s33
	v_mov_b32 v14, s34
	v_mov_b32 v15, s35
	global_store_dwordx4 v10, v[12:15], s[14:15]
	s_nop 0                                   // a 16-byte store's data VGPRs: one wait state before they are rewritten
	v_mov_b32 v12, s36
	v_mov_b32 v13, s37
	v_mov_b32 v14, s38
	v_mov_b32 v15, s39
	global_store_dwordx4 v10, v[12:15], s[14:15] offset:16
	s_nop 0
	v_mov_b32 v12, s40
	v_mov_b32 v13, s41
	v_mov_b32 v14, s42
	v_mov_b32 v15, s43
	global_store_dwordx4 v10, v[12:15], s[14:15] offset:32
	s_nop 0
	v_mov_b32 v12, s44
	v_mov_b32 v13, s45
	v_mov_b32 v14, s46
	v_mov_b32 v15, s47
	global_store_dwordx4 v10, v[12:15], s[14:15] offset:48
.Lids_done:
	s_endpgm
.Lids_end:
	.size	ids3d_k, .Lids_end-ids3d_k

// y[i] = value for i < n, one element per work-item (workgroups of 64).
	.globl	fill_f32_k
	.p2align	8
	.type	fill_f32_k,@function
fill_f32_k:
	s_load_dwordx2 s[8:9], s[4:5], 0x0        // y
	s_load_dwordx2 s[10:11], s[4:5], 0x8      // value, n
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s12, s6, 6
	v_add_u32 v1, s12, v0
	v_cmp_gt_u32 vcc, s11, v1
	s_and_saveexec_b64 s[14:15], vcc
	s_cbranch_execz .Lfill_done
	v_lshlrev_b32 v1, 2, v1
	v_mov_b32 v2, s10
	global_store_dword v1, v2, s[8:9]
.Lfill_done:
	s_endpgm
.Lfill_end:
	.size	fill_f32_k, .Lfill_end-fill_f32_k

// Stores 4 MiB past p: an out-of-bounds write the emulator reports.
	.globl	fault_k
	.p2align	8
	.type	fault_k,@function
fault_k:
	s_load_dwordx2 s[8:9], s[4:5], 0x0
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v1, 0x400000
	v_mov_b32 v2, 1.0
	global_store_dword v1, v2, s[8:9]
	s_endpgm
.Lfault_end:
	.size	fault_k, .Lfault_end-fault_k

// Declares 16 bytes of scratch per work-item (and does nothing).
	.globl	scratch_k
	.p2align	8
	.type	scratch_k,@function
scratch_k:
	s_endpgm
.Lscratch_end:
	.size	scratch_k, .Lscratch_end-scratch_k

	.rodata
	.p2align 6
	.amdhsa_kernel gemv_f32_warp_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_group_segment_fixed_size 256
		.k100_arg w, global_buffer, const f32*, read_only
		.k100_arg x, global_buffer, const f32*, read_only
		.k100_arg y, global_buffer, f32*, write_only
		.k100_arg nrows, by_value, u32
		.k100_arg k, by_value, u32
		.k100_arg wg, by_value, u32
	.end_amdhsa_kernel

	.amdhsa_kernel saxpy_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg y, global_buffer, f32*, read_write
		.k100_arg x, global_buffer, const f32*, read_only
		.k100_arg a, by_value, f32
		.k100_arg n, by_value, u32
		.k100_hidden_args compact
	.end_amdhsa_kernel

	.amdhsa_kernel ids3d_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 1
		.amdhsa_system_vgpr_workitem_id 2
		.k100_arg out, global_buffer, u32*, write_only
		.k100_arg hid, global_buffer, u32*, write_only
		.k100_hidden_args compact
	.end_amdhsa_kernel

	.amdhsa_kernel fill_f32_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg y, global_buffer, f32*, write_only
		.k100_arg value, by_value, f32
		.k100_arg n, by_value, u32
	.end_amdhsa_kernel

	.amdhsa_kernel fault_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg p, global_buffer, f32*, write_only
	.end_amdhsa_kernel

	.amdhsa_kernel scratch_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_private_segment_fixed_size 16
		.k100_arg p, global_buffer, f32*, read_write
	.end_amdhsa_kernel
