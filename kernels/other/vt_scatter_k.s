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

	.text
	.globl	vt_scatter_k
	.p2align	8
	.type	vt_scatter_k,@function
vt_scatter_k:
	s_load_dwordx8 s[8:15], s[4:5], 0x0        // vt, v, rows, dim, vstride, ystride
	s_load_dwordx2 s[16:17], s[4:5], 0x20      // y0, cshift
	v_readfirstlane_b32 s7, v0
	s_cmp_ge_u32 s7, 64
	s_cbranch_scc1 .Lexit                      // not the first wave
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane: global offset, tile row write
	v_mul_u32_u24 v2, 0x104, v0                // 260 * lane: tile column read
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s18, 1, s17
	s_add_u32 s18, s18, -1
	s_and_b32 s19, s6, s18                     // d tile
	s_lshr_b32 s20, s6, s17                    // t tile
	s_lshr_b32 s22, s13, 6
	s_and_b32 s23, s13, 63
	s_cmp_lg_u32 s23, 0
	s_addc_u32 s22, s22, 0                     // ceil(dim / 64)
	s_cmp_ge_u32 s19, s22
	s_cbranch_scc1 .Lexit                      // d tile past dim
	s_lshr_b32 s22, s12, 6
	s_and_b32 s23, s12, 63
	s_cmp_lg_u32 s23, 0
	s_addc_u32 s22, s22, 0                     // ceil(rows / 64)
	s_cmp_ge_u32 s20, s22
	s_cbranch_scc1 .Lexit                      // t tile past rows
	s_lshl_b32 s21, s19, 6                     // D0
	s_lshl_b32 s22, s20, 6                     // T0
	s_sub_u32 s24, s13, s21
	s_min_u32 s24, s24, 64                     // nd: d values in the tile
	s_sub_u32 s25, s12, s22
	s_min_u32 s25, s25, 64                     // nt: rows in the tile
	// s[26:27] = v + 4 * (T0 * vstride + D0), stepping 4 * vstride (s[28:29])
	s_mul_i32 s26, s22, s14
	s_mul_hi_u32 s27, s22, s14
	s_add_u32 s26, s26, s21
	s_addc_u32 s27, s27, 0
	s_lshl_b64 s[26:27], s[26:27], 2
	s_add_u32 s26, s26, s10
	s_addc_u32 s27, s27, s11
	s_lshl_b32 s28, s14, 2
	s_lshr_b32 s29, s14, 30
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
	global_load_dword v4, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v5, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v6, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v7, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v8, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v9, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v10, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	global_load_dword v11, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	s_sub_u32 s38, s38, 8
	s_waitcnt vmcnt(0)
	ds_write_b32 v3, v4
	ds_write_b32 v3, v5 offset:260
	ds_write_b32 v3, v6 offset:520
	ds_write_b32 v3, v7 offset:780
	ds_write_b32 v3, v8 offset:1040
	ds_write_b32 v3, v9 offset:1300
	ds_write_b32 v3, v10 offset:1560
	ds_write_b32 v3, v11 offset:1820
	v_add_u32 v3, 0x820, v3
	s_branch .Lrow8
.Lrow1:
	s_cmp_eq_u32 s38, 0
	s_cbranch_scc1 .Lphase2
	global_load_dword v4, v1, s[26:27]
	s_add_u32 s26, s26, s28
	s_addc_u32 s27, s27, s29
	s_sub_u32 s38, s38, 1
	s_waitcnt vmcnt(0)
	ds_write_b32 v3, v4
	v_add_u32 v3, 0x104, v3
	s_branch .Lrow1
.Lphase2:
	// phase 2: vt[D0 + d][y0 + T0 + l] = tile[l][d] for d < nd, lanes l < nt
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_mov_b64 exec, s[36:37]
	v_cmp_gt_u32 vcc, s25, v0
	s_and_b64 exec, s[36:37], vcc
	s_mov_b32 s38, s24                         // columns left
.Lcol8:
	s_cmp_lt_u32 s38, 8
	s_cbranch_scc1 .Lcol1
	ds_read_b32 v4, v2
	ds_read_b32 v5, v2 offset:4
	ds_read_b32 v6, v2 offset:8
	ds_read_b32 v7, v2 offset:12
	ds_read_b32 v8, v2 offset:16
	ds_read_b32 v9, v2 offset:20
	ds_read_b32 v10, v2 offset:24
	ds_read_b32 v11, v2 offset:28
	v_add_u32 v2, 32, v2
	s_sub_u32 s38, s38, 8
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v4, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v5, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v6, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v7, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v8, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v9, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v10, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	global_store_dword v1, v11, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	s_branch .Lcol8
.Lcol1:
	s_cmp_eq_u32 s38, 0
	s_cbranch_scc1 .Lexit
	ds_read_b32 v4, v2
	v_add_u32 v2, 4, v2
	s_sub_u32 s38, s38, 1
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v4, s[30:31]
	s_add_u32 s30, s30, s34
	s_addc_u32 s31, s31, s35
	s_branch .Lcol1
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
