// flash_dec_part_k(po, pm, pl, q, kt, v, n_kv, dh, pad, max_len, cshift, inv,
// vstride): multi-head f32 decode attention, split part. Workgroup id ->
// head h = id >> cshift, split s = id & (2^cshift - 1); the split covers rows
// [s*R, s*R + R) with R = pad >> cshift, of which it uses those below n_kv and
// below max_len. With scores s_j = sum_d q[h*dh + d] * kt[(h*dh + d)*max_len + j]
// (K transposed: kt [heads][dh][max_len]) and m = max s_j over the split:
//   pm[id] = m, pl[id] = sum_j p_j, po[id*dh + d] = sum_j p_j * v[j*vstride + h*dh + d],
//   p_j = exp((s_j - m) * inv).
// A split without rows writes pm = -inf, pl = 0, po = 0.
// One wave per split, 64 rows at a time, with an online maximum: lanes over
// rows compute scores (each kt row segment one 256-byte load, q broadcast from
// SGPRs by s_load_dwordx16, sixteen loads in flight); the block maximum (DPP)
// updates the running m, earlier sums are rescaled by exp((m_old - m) * inv);
// the block's p_j go to LDS and, for each 64-wide slice of d, lanes over d
// accumulate p_j * v rows (256-byte loads, sixteen rows in flight, p_j read
// back as LDS broadcasts) into accumulators kept in LDS (LDS: 256 bytes of p
// plus 4 * 512 bytes of accumulators = 2304 bytes; the reference used 16640
// and required R % 64 == 0, R <= 4096: here any R works). Needs dh <= 512
// (dh > 512 writes pm = pl = NaN and nothing else) and inv >= 0. exp(t) =
// v_exp_f32(t * log2 e). Waves past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"
	.include "common/wave_reduce.inc"

	.text
	.globl	flash_dec_part_k
	.p2align	8
	.type	flash_dec_part_k,@function
flash_dec_part_k:
	// po s[8:9], pm s[10:11], pl s[12:13], q s[14:15], kt s[16:17], v s[18:19],
	// n_kv s20, dh s21, pad s22, max_len s23, cshift s24, inv s25, vstride s26
	s_load_dwordx16 s[8:23], s[4:5], 0x0
	s_load_dwordx4 s[24:27], s[4:5], 0x40
	first_wave_only .Lexit
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane
	v_mov_b32 v20, 0
	v_mov_b32 v3, 0                            // per-lane sum of p
	v_mov_b32 v45, 0xff800000                  // -inf
	v_mov_b32 v40, 0x3fb8aa3b                  // log2(e)
	s_mov_b64 s[60:61], exec                   // all 64 lanes
	s_waitcnt lgkmcnt(0)
	v_mul_f32 v40, s25, v40                    // c = inv * log2(e)
	s_lshr_b32 s28, s6, s24                    // head
	s_lshl_b32 s29, 1, s24
	s_add_u32 s29, s29, -1
	s_and_b32 s29, s6, s29                     // split
	s_lshr_b32 s30, s22, s24                   // R
	s_mul_i32 s31, s29, s30                    // j0, first row of the split
	s_add_u32 s33, s31, s30
	s_cselect_b32 s33, -1, s33                 // j0 + R (saturated)
	s_min_u32 s33, s33, s20
	s_min_u32 s33, s33, s23                    // end = min(j0 + R, n_kv, max_len)
	s_sub_u32 s32, s33, s31
	s_cmp_gt_u32 s33, s31
	s_cselect_b32 s32, s32, 0                  // rows of the split
	s_mov_b32 s46, 0xff800000                  // running maximum m
	// outputs: pm + 4 id, pl + 4 id, po + 4 id dh (64-bit)
	add_index4 10, 10, s6, 48
	s_add_u32 s12, s12, s48
	s_addc_u32 s13, s13, s49
	s_mul_i32 s48, s6, s21
	s_mul_hi_u32 s49, s6, s21
	s_lshl_b64 s[48:49], s[48:49], 2
	s_add_u32 s8, s8, s48
	s_addc_u32 s9, s9, s49
	s_cmp_gt_u32 s21, 0x200
	s_cbranch_scc1 .Lbad_dh
	s_add_u32 s80, s21, 63
	s_lshr_b32 s80, s80, 6                     // 64-wide slices of d
	// accumulators LDS[256 + 4 d] = 0 for d < dh
	v_mov_b32 v44, v1                          // 4 * (64 * slice + lane)
	s_mov_b32 s53, 0
.Lzero:
	s_cmp_ge_u32 s53, s80
	s_cbranch_scc1 .Lzero_done
	s_lshl_b32 s51, s53, 6
	s_sub_u32 s51, s21, s51
	v_cmp_gt_u32 vcc, s51, v0
	s_and_b64 exec, s[60:61], vcc
	ds_write_b32 v44, v20 offset:256
	s_mov_b64 exec, s[60:61]
	v_add_u32 v44, 0x100, v44
	s_add_u32 s53, s53, 1
	s_branch .Lzero
.Lzero_done:
	s_cmp_eq_u32 s32, 0
	s_cbranch_scc1 .Lfinish                    // no rows: pm = -inf, pl = 0, po = 0
	// q of the head: s[34:35] = q + 4 h dh
	s_mul_i32 s48, s28, s21                    // h * dh
	s_lshl_b32 s34, s48, 2
	s_lshr_b32 s35, s48, 30
	s_add_u32 s34, s34, s14
	s_addc_u32 s35, s35, s15
	// kt of the block's first row and d = 0: s[36:37] = kt + 4 (h dh max_len + j0), d step 4 max_len
	row_ptr 36, s48, s23, s31, 16, 38
	// v row of the block's first row: s[40:41] = v + 4 (j0 vstride + h dh), row step 4 vstride, block step 256 vstride
	row_ptr 40, s31, s26, s48, 18, 42
	s_lshl_b32 s44, s26, 8
	s_lshr_b32 s45, s26, 24
.Lblock:
	s_min_u32 s50, s32, 64                     // rows in this block
	// ---- scores, lane l = row l of the block
	v_cmp_gt_u32 s[58:59], s50, v0
	s_mov_b64 exec, s[58:59]
	v_mov_b32 v2, 0
	s_mov_b64 s[54:55], s[36:37]               // kt row of d
	s_mov_b64 s[56:57], s[34:35]               // q + 4 d
	s_mov_b32 s52, s21                         // d left
.Ld16:
	s_cmp_lt_u32 s52, 16
	s_cbranch_scc1 .Ld1
	s_load_dwordx16 s[64:79], s[56:57], 0x0
	s_add_u32 s56, s56, 64
	s_addc_u32 s57, s57, 0
	load_rows v1, 54, 38, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19  // kt rows d .. d+15
	s_sub_u32 s52, s52, 16
	s_waitcnt vmcnt(0) lgkmcnt(0)
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	v_fmac_f32 v2, s[64+\i], v[4+\i]
	.endr
	s_branch .Ld16
.Ld1:
	s_cmp_eq_u32 s52, 0
	s_cbranch_scc1 .Ld_done
	s_load_dword s64, s[56:57], 0x0
	s_add_u32 s56, s56, 4
	s_addc_u32 s57, s57, 0
	load_rows v1, 54, 38, 4                   // kt row d
	s_sub_u32 s52, s52, 1
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_fmac_f32 v2, s64, v4
	s_branch .Ld1
.Ld_done:
	s_mov_b64 exec, s[60:61]
	v_cndmask_b32 v2, v45, v2, s[58:59]        // rows past the end: -inf
	// block maximum (lane 63) -> new running maximum s49
	v_mov_b32 v41, v2
	v_mov_b32 v42, v41
	wave_reduce_dpp v_max_f32, v41, v42
	v_readlane_b32 s48, v41, 63
	v_mov_b32 v39, s48
	v_max_f32 v39, s46, v39
	v_readfirstlane_b32 s49, v39
	// alpha = exp((m_old - m) * inv) rescales what was accumulated (0 before the first block)
	s_mov_b32 s47, 0
	s_cmp_eq_u32 s46, 0xff800000
	s_cbranch_scc1 .Lalpha_done
	v_mov_b32 v39, s46
	v_subrev_f32 v39, s49, v39
	v_mul_f32 v39, v39, v40
	v_exp_f32 v39, v39
	v_readfirstlane_b32 s47, v39
.Lalpha_done:
	s_mov_b32 s46, s49
	// p = exp((s - m) * inv) for the block's rows, 0 past the end
	v_subrev_f32 v2, s46, v2
	v_mul_f32 v2, v2, v40
	v_exp_f32 v2, v2
	v_cndmask_b32 v2, 0, v2, s[58:59]
	v_fma_f32 v3, v3, s47, v2                  // per-lane sum of p, rescaled
	ds_write_b32 v1, v2                        // p to LDS[4 * row]
	s_waitcnt lgkmcnt(0)
	s_barrier
	// ---- acc[d] = alpha * acc[d] + sum_j p_j v[j][h dh + d], lanes over d, one slice at a time
	v_mov_b32 v44, v1
	s_mov_b32 s53, 0
.Lslice:
	s_lshl_b32 s51, s53, 6
	s_sub_u32 s51, s21, s51
	v_cmp_gt_u32 vcc, s51, v0
	s_and_b64 exec, s[60:61], vcc
	ds_read_b32 v21, v44 offset:256
	v_mov_b32 v43, 0                           // LDS address of p_j
	s_mov_b64 s[54:55], s[40:41]               // v row j
	s_mov_b32 s52, s50                         // rows left
	s_waitcnt lgkmcnt(0)
	v_mul_f32 v21, s47, v21
.Lr16:
	s_cmp_lt_u32 s52, 16
	s_cbranch_scc1 .Lr1
	lds_weighted_rows16 54, 42, s52
	s_branch .Lr16
.Lr1:
	s_cmp_eq_u32 s52, 0
	s_cbranch_scc1 .Lr_done
	lds_weighted_row1 54, 42, s52
	s_branch .Lr1
.Lr_done:
	ds_write_b32 v44, v21 offset:256
	s_mov_b64 exec, s[60:61]
	v_add_u32 v44, 0x100, v44
	s_add_u32 s53, s53, 1
	s_cmp_lt_u32 s53, s80
	s_cbranch_scc1 .Lslice
	s_waitcnt lgkmcnt(0)
	s_barrier                                  // p was read before the next block writes it
	s_sub_u32 s32, s32, s50
	s_cmp_eq_u32 s32, 0
	s_cbranch_scc1 .Lfinish
	s_add_u32 s36, s36, 0x100                  // kt: 64 rows on
	s_addc_u32 s37, s37, 0
	s_add_u32 s40, s40, s44                    // v: 64 rows on
	s_addc_u32 s41, s41, s45
	s_branch .Lblock
.Lfinish:
	// pl = sum over lanes (lane 63), pm = m; po[d] = acc[d]
	v_mov_b32 v42, v3
	wave_reduce_dpp v_add_f32, v3, v42
	v_mov_b32 v2, s46
	exec_lane63
	global_store_dword v20, v3, s[12:13]
	global_store_dword v20, v2, s[10:11]
	s_mov_b64 exec, s[60:61]
	v_mov_b32 v44, v1
	s_mov_b32 s53, 0
.Lout:
	s_cmp_ge_u32 s53, s80
	s_cbranch_scc1 .Lexit
	s_lshl_b32 s51, s53, 6
	s_sub_u32 s51, s21, s51
	v_cmp_gt_u32 vcc, s51, v0
	s_and_b64 exec, s[60:61], vcc
	ds_read_b32 v21, v44 offset:256
	s_waitcnt lgkmcnt(0)
	global_store_dword v44, v21, s[8:9]
	s_mov_b64 exec, s[60:61]
	v_add_u32 v44, 0x100, v44
	s_add_u32 s53, s53, 1
	s_branch .Lout
.Lbad_dh:
	// dh > 512 is not supported: pm = pl = NaN makes the combined result NaN
	v_mov_b32 v2, 0x7fc00000
	s_mov_b64 exec, 1
	global_store_dword v20, v2, s[10:11]
	global_store_dword v20, v2, s[12:13]
.Lexit:
	s_endpgm
.Lflash_dec_part_k_end:
	.size	flash_dec_part_k, .Lflash_dec_part_k_end-flash_dec_part_k

	.rodata
	.p2align 6
	.amdhsa_kernel flash_dec_part_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_group_segment_fixed_size 2304
		.amdhsa_kernarg_size 80
		.k100_arg po, global_buffer, f32*, write_only
		.k100_arg pm, global_buffer, f32*, write_only
		.k100_arg pl, global_buffer, f32*, write_only
		.k100_arg q, global_buffer, const f32*, read_only
		.k100_arg kt, global_buffer, const f32*, read_only
		.k100_arg v, global_buffer, const f32*, read_only
		.k100_arg n_kv, by_value, u32
		.k100_arg dh, by_value, u32
		.k100_arg pad, by_value, u32
		.k100_arg max_len, by_value, u32
		.k100_arg cshift, by_value, u32
		.k100_arg inv, by_value, f32
		.k100_arg vstride, by_value, u32
		.k100_hidden_args none
	.end_amdhsa_kernel
