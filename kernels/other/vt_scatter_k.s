// vt_scatter_k(vt, v, rows, dim, vstride, ystride, y0, cshift): transposes
// new V rows into a V^T cache, vt[d * ystride + y0 + t] = v[t * vstride + d]
// for t < rows, d < dim; only columns [y0, y0 + rows) of vt change.
// Workgroup id -> d tile = id & (2^cshift - 1), t tile = id >> cshift; each
// workgroup moves one 64 x 64 tile through LDS padded to 65 floats per row
// (conflict-free both ways): 64-lane row loads of v (256 bytes each, eight in
// flight) written as tile rows, then tile columns read back and stored as
// 256-byte runs of vt rows (eight in flight). Partial tiles are masked (any
// rows; any dim <= 64 * 2^cshift, so dim % 64 != 0 works too). Cache
// addresses are computed in 64 bits. Tiles past the end and waves past the
// first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"

	.text
	.globl	vt_scatter_k
	.p2align	8
	.type	vt_scatter_k,@function
vt_scatter_k:
	s_load_dwordx8 s[8:15], s[4:5], 0x0        // vt, v, rows, dim, vstride, ystride
	s_load_dwordx2 s[16:17], s[4:5], 0x20      // y0, cshift
	first_wave_only .Lexit
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane: global offset, tile row write
	v_mul_u32_u24 v2, 0x104, v0                // 260 * lane: tile column read
	s_waitcnt lgkmcnt(0)
	tile64_split s6, s17, s18, s19, s20        // d tile s19, t tile s20
	branch_if_past_tiles64 s19, s13, s22, s23, .Lexit  // d tile past dim
	branch_if_past_tiles64 s20, s12, s22, s23, .Lexit  // t tile past rows
	tile64_extent s21, s22, s19, s20, s24, s25, s13, s12  // D0 s21, T0 s22, nd s24, nt s25
	// s[26:27] = v + 4 * (T0 * vstride + D0), stepping 4 * vstride (s[28:29])
	row_ptr 26, s22, s14, s21, 10, 28
	// s[30:31] = vt + 4 * (D0 * ystride + y0 + T0), stepping 4 * ystride (s[34:35])
	s_mul_i32 s30, s21, s15
	s_mul_hi_u32 s31, s21, s15
	s_add_u32 s32, s16, s22
	s_addc_u32 s33, 0, 0
	s_add_u32 s30, s30, s32
	s_addc_u32 s31, s31, s33
	s_lshl_b64 s[30:31], s[30:31], 2
	s_add_u32 s30, s30, s8
	s_addc_u32 s31, s31, s9
	s_lshl_b32 s34, s15, 2
	s_lshr_b32 s35, s15, 30
	s_mov_b64 s[36:37], exec
	// phase 1: tile[t][l] = v[T0 + t][D0 + l] for t < nt, lanes l < nd
	v_cmp_gt_u32 vcc, s24, v0
	s_and_b64 exec, s[36:37], vcc
	v_mov_b32 v3, v1                           // LDS address of tile[t][lane]
	s_mov_b32 s38, s25                         // rows left
.Lrow8:
	s_cmp_lt_u32 s38, 8
	s_cbranch_scc1 .Lrow1
	load_rows v1, 26, 28, 4, 5, 6, 7, 8, 9, 10, 11  // v rows t .. t+7
	s_sub_u32 s38, s38, 8
	s_waitcnt vmcnt(0)
	tile64_write_rows8
	s_branch .Lrow8
.Lrow1:
	s_cmp_eq_u32 s38, 0
	s_cbranch_scc1 .Lphase2
	load_rows v1, 26, 28, 4                   // v row t
	s_sub_u32 s38, s38, 1
	s_waitcnt vmcnt(0)
	ds_write_b32 v3, v4
	v_add_u32 v3, 0x104, v3
	s_branch .Lrow1
.Lphase2:
	// phase 2: vt[D0 + d][y0 + T0 + l] = tile[l][d] for d < nd, lanes l < nt
	tile64_store_cols 36, s25, s24, s38, 30, 34, .Lexit
.Lexit:
	s_endpgm
.Lvt_scatter_k_end:
	.size	vt_scatter_k, .Lvt_scatter_k_end-vt_scatter_k

	.rodata
	.p2align 6
	.amdhsa_kernel vt_scatter_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_group_segment_fixed_size 16640
		.k100_arg vt, global_buffer, f32*, write_only
		.k100_arg v, global_buffer, const f32*, read_only
		.k100_arg rows, by_value, u32
		.k100_arg dim, by_value, u32
		.k100_arg vstride, by_value, u32
		.k100_arg ystride, by_value, u32
		.k100_arg y0, by_value, u32
		.k100_arg cshift, by_value, u32
		.k100_hidden_args compact
	.end_amdhsa_kernel
