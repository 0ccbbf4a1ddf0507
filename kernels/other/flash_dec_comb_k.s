// flash_dec_comb_k(out, po, pm, pl, dh, nsplit, inv): combines the split
// partials of flash_dec_part_k for head h = workgroup id:
//   M = max_s pm[h][s], w_s = exp((pm[h][s] - M) * inv),
//   out[h][d] = sum_s w_s * po[h][s][d] / sum_s w_s * pl[h][s].
// Empty splits (pm = -inf) get w_s = 0 for any inv >= 0; a head whose splits
// are all empty (n_kv = 0), or nsplit = 0, gets out = 0 instead of 0/0.
// One wave per head: lanes over splits for M and the denominator (DPP
// reductions); then for each 64-wide slice of d, lanes over d, the weights of
// up to 64 splits in LDS (256 bytes, read back as broadcasts; computed once
// when nsplit <= 64, per slice otherwise) and the po rows loaded 256 bytes per
// instruction, sixteen splits in flight. Any nsplit and
// any dh. exp(t) = v_exp_f32(t * log2 e); 1/den by v_rcp_f32 (1 ulp).
// Waves past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id (head), v0 local id.

	.include "common/row_access_and_tiles.inc"
	.include "common/wave_reduce.inc"

	.text
	.globl	flash_dec_comb_k
	.p2align	8
	.type	flash_dec_comb_k,@function
flash_dec_comb_k:
	s_load_dwordx8 s[8:15], s[4:5], 0x0        // out, po, pm, pl
	s_load_dwordx2 s[16:17], s[4:5], 0x20      // dh, nsplit
	s_load_dword s18, s[4:5], 0x28             // inv
	first_wave_only .Lexit
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane
	v_mov_b32 v20, 0
	v_mov_b32 v45, 0xff800000                  // -inf
	v_mov_b32 v40, 0x3fb8aa3b                  // log2(e)
	s_mov_b64 s[40:41], exec                   // all 64 lanes
	s_waitcnt lgkmcnt(0)
	v_mul_f32 v40, s18, v40                    // c = inv * log2(e)
	// per-head pointers: pm/pl + 4 h nsplit, po + 4 h nsplit dh, out + 4 h dh (64-bit)
	s_mul_i32 s46, s6, s17                     // h * nsplit
	add_index4 20, 12, s46, 42
	s_add_u32 s22, s14, s42
	s_addc_u32 s23, s15, s43
	s_mul_i32 s24, s46, s16
	s_mul_hi_u32 s25, s46, s16
	s_lshl_b64 s[24:25], s[24:25], 2
	s_add_u32 s24, s24, s10
	s_addc_u32 s25, s25, s11
	s_mul_i32 s26, s6, s16
	s_mul_hi_u32 s27, s6, s16
	s_lshl_b64 s[26:27], s[26:27], 2
	s_add_u32 s26, s26, s8
	s_addc_u32 s27, s27, s9
	s_lshl_b32 s38, s16, 2                     // po row step 4 * dh
	s_lshr_b32 s39, s16, 30

	// M = max_s pm[s], lanes over splits
	v_mov_b32 v2, v45
	s_mov_b64 s[42:43], s[20:21]
	s_mov_b32 s34, s17                         // splits left
.Lmax:
	s_cmp_eq_u32 s34, 0
	s_cbranch_scc1 .Lmax_done
	v_cmp_gt_u32 vcc, s34, v0
	s_and_b64 exec, s[40:41], vcc
	global_load_dword v4, v1, s[42:43]
	s_min_u32 s46, s34, 64
	s_sub_u32 s34, s34, s46
	s_add_u32 s42, s42, 0x100
	s_addc_u32 s43, s43, 0
	s_waitcnt vmcnt(0)
	v_max_f32 v2, v2, v4
	s_mov_b64 exec, s[40:41]
	s_branch .Lmax
.Lmax_done:
	// wave maximum into lane 63
	v_mov_b32 v42, v2
	wave_reduce_dpp v_max_f32, v2, v42
	v_readlane_b32 s28, v2, 63
	s_cmp_eq_u32 s28, 0xff800000
	s_cselect_b32 s28, 0, s28                  // every split empty: M = 0, all weights 0

	// den = sum_s w_s * pl[s]
	v_mov_b32 v2, 0
	s_mov_b64 s[42:43], s[20:21]
	s_mov_b64 s[44:45], s[22:23]
	s_mov_b32 s34, s17
.Lden:
	s_cmp_eq_u32 s34, 0
	s_cbranch_scc1 .Lden_done
	v_cmp_gt_u32 vcc, s34, v0
	s_and_b64 exec, s[40:41], vcc
	global_load_dword v4, v1, s[42:43]
	global_load_dword v5, v1, s[44:45]
	s_min_u32 s46, s34, 64
	s_sub_u32 s34, s34, s46
	s_add_u32 s42, s42, 0x100
	s_addc_u32 s43, s43, 0
	s_add_u32 s44, s44, 0x100
	s_addc_u32 s45, s45, 0
	s_waitcnt vmcnt(0)
	v_subrev_f32 v6, s28, v4
	v_mul_f32 v6, v6, v40
	v_exp_f32 v6, v6
	v_cmp_neq_f32 vcc, v45, v4
	v_cndmask_b32 v6, 0, v6, vcc               // empty split: w = 0 (even for inv = 0)
	v_fmac_f32 v2, v6, v5
	ds_write_b32 v1, v6                        // the weights stay in LDS when nsplit <= 64
	s_mov_b64 exec, s[40:41]
	s_branch .Lden
.Lden_done:
	s_waitcnt lgkmcnt(0)
	s_barrier
	v_mov_b32 v42, v2
	wave_reduce_dpp v_add_f32, v2, v42
	v_readlane_b32 s46, v2, 63
	v_rcp_f32 v3, s46
	v_readfirstlane_b32 s29, v3
	s_cmp_eq_u32 s46, 0
	s_cselect_b32 s29, 0, s29                  // 1 / den, 0 when nothing was accumulated

	// out[d] = rden * sum_s w_s po[s][d], one 64-wide slice of d at a time
	s_add_u32 s31, s16, 63
	s_lshr_b32 s31, s31, 6                     // slices
	s_mov_b32 s30, 0
	v_mov_b32 v44, v1                          // 4 * (64 * slice + lane)
.Lslice:
	s_cmp_ge_u32 s30, s31
	s_cbranch_scc1 .Lexit
	s_lshl_b32 s46, s30, 6
	s_sub_u32 s46, s16, s46
	v_cmp_gt_u32 s[48:49], s46, v0             // lanes of this slice (d < dh)
	v_mov_b32 v21, 0
	s_mov_b64 s[42:43], s[20:21]               // pm of the group's first split
	s_mov_b64 s[36:37], s[24:25]               // po row of the next split
	s_mov_b32 s34, s17                         // splits left
.Lgroup:
	s_cmp_eq_u32 s34, 0
	s_cbranch_scc1 .Lslice_done
	s_min_u32 s33, s34, 64                     // splits in this group
	s_cmp_le_u32 s17, 64
	s_cbranch_scc1 .Lweights_ready             // one group: its weights are in LDS already
	// weights of the group's splits to LDS[4 * lane]
	v_cmp_gt_u32 vcc, s33, v0
	s_and_b64 exec, s[40:41], vcc
	global_load_dword v4, v1, s[42:43]
	s_waitcnt vmcnt(0)
	v_subrev_f32 v6, s28, v4
	v_mul_f32 v6, v6, v40
	v_exp_f32 v6, v6
	v_cmp_neq_f32 vcc, v45, v4
	v_cndmask_b32 v6, 0, v6, vcc
	ds_write_b32 v1, v6
	s_waitcnt lgkmcnt(0)
	s_barrier
.Lweights_ready:
	s_mov_b64 exec, s[48:49]
	v_mov_b32 v43, 0                           // LDS address of the next weight
	s_mov_b32 s35, s33
.Lg16:
	s_cmp_lt_u32 s35, 16
	s_cbranch_scc1 .Lg1
	lds_weighted_rows16 36, 38, s35
	s_branch .Lg16
.Lg1:
	s_cmp_eq_u32 s35, 0
	s_cbranch_scc1 .Lgroup_next
	lds_weighted_row1 36, 38, s35
	s_branch .Lg1
.Lgroup_next:
	s_mov_b64 exec, s[40:41]
	s_sub_u32 s34, s34, s33
	s_add_u32 s42, s42, 0x100
	s_addc_u32 s43, s43, 0
	s_barrier                                  // the weights were read before the next group writes them
	s_branch .Lgroup
.Lslice_done:
	s_mov_b64 exec, s[48:49]
	v_mul_f32 v21, s29, v21
	global_store_dword v44, v21, s[26:27]
	s_mov_b64 exec, s[40:41]
	v_add_u32 v44, 0x100, v44
	s_add_u32 s30, s30, 1
	s_branch .Lslice
.Lexit:
	s_endpgm
.Lflash_dec_comb_k_end:
	.size	flash_dec_comb_k, .Lflash_dec_comb_k_end-flash_dec_comb_k

	.rodata
	.p2align 6
	.amdhsa_kernel flash_dec_comb_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_group_segment_fixed_size 256
		.amdhsa_kernarg_size 48
		.k100_arg out, global_buffer, f32*, write_only
		.k100_arg po, global_buffer, const f32*, read_only
		.k100_arg pm, global_buffer, const f32*, read_only
		.k100_arg pl, global_buffer, const f32*, read_only
		.k100_arg dh, by_value, u32
		.k100_arg nsplit, by_value, u32
		.k100_arg inv, by_value, f32
		.k100_hidden_args none
	.end_amdhsa_kernel
