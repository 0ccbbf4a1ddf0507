// block_exp_sum_k(part, y, x, m, cols, sh, inv): blocked softmax step 3. With
// M = m[0] read from device memory (the output of reduce_max1_k), workgroup b
// writes y[i] = exp((x[i] - M) * inv) for the values of its block and
// part[b] = their sum. Blocks as in block_max_k: nb = 2^sh blocks of
// chunk = cols >> sh values, the last one also taking the cols % nb values
// past nb * chunk (any cols; a block without values writes part[b] = 0).
// exp(t) is computed as v_exp_f32(t * log2(e)) with t = (x - M) * inv, so
// t = (x - M) * (inv * log2 e) rounded twice, then 1 ulp for v_exp_f32.
// One wave per block: lanes stream 16 bytes each (1 KiB per load and store
// instruction, four in flight), the tail (< 256 values) one dword per lane,
// then a DPP reduction of the per-lane sums; lane 63 writes part[b].
// Workgroups b >= nb and waves past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"
	.include "common/wave_reduce.inc"

// exp_scaled R...: vR = exp((vR - M) * inv) for each register number R, as
// v_exp_f32((vR - s19) * v20) with s19 = M and v20 = inv * log2(e).
.macro exp_scaled regs:vararg
	.irp r, \regs
	v_subrev_f32 v\r, s19, v\r
	.endr
	.irp r, \regs
	v_mul_f32 v\r, v\r, v20
	.endr
	.irp r, \regs
	v_exp_f32 v\r, v\r
	.endr
.endm

// sum_into_v1 R...: v1 += vR for each register number R, in order.
.macro sum_into_v1 regs:vararg
	.irp r, \regs
	v_add_f32 v1, v1, v\r
	.endr
.endm

// tail_exp_store MASK, R, OFFSET: in the lanes of s[MASK:MASK+1], vR becomes
// its exp_scaled value, is stored at s[26:27] + v3 + OFFSET and added to v1.
.macro tail_exp_store mask, r, offset
	s_mov_b64 exec, s[\mask:\mask+1]
	exp_scaled \r
	global_store_dword v3, v\r, s[26:27] offset:\offset
	v_add_f32 v1, v1, v\r
.endm

	.text
	.globl	block_exp_sum_k
	.p2align	8
	.type	block_exp_sum_k,@function
block_exp_sum_k:
	s_load_dwordx8 s[8:15], s[4:5], 0x0        // part, y, x, m
	s_load_dwordx2 s[16:17], s[4:5], 0x20      // cols, sh
	s_load_dword s18, s[4:5], 0x28             // inv
	first_wave_only .Lexit
	v_mov_b32 v1, 0                            // per-lane sum
	v_lshlrev_b32 v2, 4, v0                    // 16 * lane
	v_mov_b32 v20, 0x3fb8aa3b                  // log2(e)
	s_waitcnt lgkmcnt(0)
	s_load_dword s19, s[14:15], 0x0            // M = m[0]
	s_lshl_b32 s30, 1, s17                     // nb
	s_cmp_ge_u32 s6, s30
	s_cbranch_scc1 .Lexit                      // block past the end
	v_mul_f32 v20, s18, v20                    // c = inv * log2(e)
	s_lshr_b32 s29, s16, s17                   // chunk
	s_mul_i32 s31, s6, s29                     // first value of the block (<= cols)
	s_sub_u32 s28, s16, s31                    // values left in the row
	s_add_u32 s17, s30, -1
	s_cmp_eq_u32 s6, s17
	s_cselect_b32 s22, s28, s29                // values in this block
	// s[20:21] = x + 4 * first, s[26:27] = y + 4 * first (64-bit)
	add_index4 20, 12, s31, 28
	s_add_u32 s26, s10, s28
	s_addc_u32 s27, s11, s29
	s_waitcnt lgkmcnt(0)
	// 1024 values per step: four 1 KiB loads and stores
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
	exp_scaled 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19
	global_store_dwordx4 v2, v[4:7], s[26:27]
	global_store_dwordx4 v2, v[8:11], s[26:27] offset:1024
	global_store_dwordx4 v2, v[12:15], s[26:27] offset:2048
	global_store_dwordx4 v2, v[16:19], s[26:27] offset:3072
	s_add_u32 s26, s26, 0x1000
	s_addc_u32 s27, s27, 0
	// the stored registers are only read until the next loads overwrite them
	sum_into_v1 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19
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
	exp_scaled 4, 5, 6, 7
	global_store_dwordx4 v2, v[4:7], s[26:27]
	s_add_u32 s26, s26, 0x400
	s_addc_u32 s27, s27, 0
	sum_into_v1 4, 5, 6, 7
	s_cmp_lg_u32 s23, 0
	s_cbranch_scc1 .Lg256_step
.Ltail:
	// the last (< 256) values: lane l takes l, l+64, l+128, l+192 when present;
	// the four lane masks are kept in s[32:39] for the compute and store steps
	s_and_b32 s23, s22, 0xff
	s_cmp_eq_u32 s23, 0
	s_cbranch_scc1 .Lreduce
	v_lshlrev_b32 v3, 2, v0
	v_add_u32 v8, 64, v0
	v_add_u32 v9, 0x80, v0
	v_add_u32 v10, 0xc0, v0
	s_mov_b64 s[24:25], exec
	v_cmp_gt_u32 s[32:33], s23, v0
	v_cmp_gt_u32 s[34:35], s23, v8
	v_cmp_gt_u32 s[36:37], s23, v9
	v_cmp_gt_u32 s[38:39], s23, v10
	s_mov_b64 exec, s[32:33]
	global_load_dword v4, v3, s[20:21]
	s_mov_b64 exec, s[34:35]
	global_load_dword v5, v3, s[20:21] offset:256
	s_mov_b64 exec, s[36:37]
	global_load_dword v6, v3, s[20:21] offset:512
	s_mov_b64 exec, s[38:39]
	global_load_dword v7, v3, s[20:21] offset:768
	s_waitcnt vmcnt(0)
	tail_exp_store 32, 4, 0
	tail_exp_store 34, 5, 256
	tail_exp_store 36, 6, 512
	tail_exp_store 38, 7, 768
	s_mov_b64 exec, s[24:25]
.Lreduce:
	// part[b] = sum of the 64 lanes (lane 63)
	wave_reduce_to_part v_add_f32
.Lexit:
	s_endpgm
.Lblock_exp_sum_k_end:
	.size	block_exp_sum_k, .Lblock_exp_sum_k_end-block_exp_sum_k

	.rodata
	.p2align 6
	.amdhsa_kernel block_exp_sum_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_kernarg_size 48
		.k100_arg part, global_buffer, f32*, write_only
		.k100_arg y, global_buffer, f32*, write_only
		.k100_arg x, global_buffer, const f32*, read_only
		.k100_arg m, global_buffer, const f32*, read_only
		.k100_arg cols, by_value, u32
		.k100_arg sh, by_value, u32
		.k100_arg inv, by_value, f32
		.k100_hidden_args none
	.end_amdhsa_kernel
