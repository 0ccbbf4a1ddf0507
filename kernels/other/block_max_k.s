// block_max_k(part, x, cols, sh): blocked softmax step 1. The row x[0 .. cols)
// is split into nb = 2^sh blocks of chunk = cols >> sh values; workgroup b
// writes part[b] = max of its block. The last block also takes the cols % nb
// values past nb * chunk, so the blocks always cover the row (any cols, not
// only multiples of 256 * nb); a block without values writes -inf.
// One wave per block: lanes stream the block 16 bytes each (1 KiB per load
// instruction, four in flight), the tail (< 256 values) one dword per lane,
// then a DPP reduction; lane 63 writes part[b]. Workgroups b >= nb and waves
// past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"
	.include "common/wave_reduce.inc"

	.text
	.globl	block_max_k
	.p2align	8
	.type	block_max_k,@function
block_max_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0        // part, x
	s_load_dwordx2 s[12:13], s[4:5], 0x10      // cols, sh
	first_wave_only .Lexit
	v_mov_b32 v1, 0xff800000                   // per-lane maximum (-inf)
	v_lshlrev_b32 v2, 4, v0                    // 16 * lane
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s14, 1, s13                     // nb
	s_cmp_ge_u32 s6, s14
	s_cbranch_scc1 .Lexit                      // block past the end
	s_lshr_b32 s15, s12, s13                   // chunk
	s_mul_i32 s16, s6, s15                     // first value of the block (<= cols)
	s_sub_u32 s18, s12, s16                    // values left in the row
	s_add_u32 s17, s14, -1
	s_cmp_eq_u32 s6, s17
	s_cselect_b32 s22, s18, s15                // values in this block
	// s[20:21] = x + 4 * first (64-bit)
	add_index4 20, 10, s16, 18
	stream_reduce_f32 v_max_f32, 0xff800000
	// part[b] = maximum of the 64 lanes (lane 63)
	wave_reduce_to_part v_max_f32
.Lexit:
	s_endpgm
.Lblock_max_k_end:
	.size	block_max_k, .Lblock_max_k_end-block_max_k

	.rodata
	.p2align 6
	.amdhsa_kernel block_max_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_kernarg_size 24
		.k100_arg part, global_buffer, f32*, write_only
		.k100_arg x, global_buffer, const f32*, read_only
		.k100_arg cols, by_value, u32
		.k100_arg sh, by_value, u32
		.k100_hidden_args none
	.end_amdhsa_kernel
