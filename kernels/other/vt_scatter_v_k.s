// vt_scatter_v_k(vt, vc, k, v, rows, dim, kstride, vstride, ystride, y0,
// cshift): multi-token KV append in one launch: K rows transposed into the
// K^T cache, vt[d * ystride + y0 + t] = k[t * kstride + d], and V rows copied
// into the row-major V cache, vc[(y0 + t) * dim + d] = v[t * vstride + d],
// for t < rows, d < dim. Workgroup id -> d tile = id & (2^cshift - 1), t tile
// = id >> cshift; each workgroup moves one 64 x 64 tile of both: 64-lane row
// loads of k and v (256 bytes each, sixteen in flight), v rows stored
// straight to vc, k rows written to an LDS tile padded to 65 floats per row
// (conflict-free both ways), whose columns are then stored as 256-byte runs of
// vt rows (eight in flight). Partial tiles are masked (any rows; any
// dim <= 64 * 2^cshift). Cache addresses are computed in 64 bits. Tiles past
// the end and waves past the first do nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.text
	.globl	vt_scatter_v_k
	.p2align	8
	.type	vt_scatter_v_k,@function
vt_scatter_v_k:
	// vt s[8:9], vc s[10:11], k s[12:13], v s[14:15], rows s16, dim s17,
	// kstride s18, vstride s19, ystride s20, y0 s21, cshift s22
	s_load_dwordx16 s[8:23], s[4:5], 0x0
	v_readfirstlane_b32 s7, v0
	s_cmp_ge_u32 s7, 64
	s_cbranch_scc1 .Lexit                      // not the first wave
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane: global offset, tile row write
	v_mul_u32_u24 v2, 0x104, v0                // 260 * lane: tile column read
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s24, 1, s22
	s_add_u32 s24, s24, -1
	s_and_b32 s25, s6, s24                     // d tile
	s_lshr_b32 s26, s6, s22                    // t tile
	s_lshr_b32 s28, s17, 6
	s_and_b32 s29, s17, 63
	s_cmp_lg_u32 s29, 0
	s_addc_u32 s28, s28, 0                     // ceil(dim / 64)
	s_cmp_ge_u32 s25, s28
	s_cbranch_scc1 .Lexit                      // d tile past dim
	s_lshr_b32 s28, s16, 6
	s_and_b32 s29, s16, 63
	s_cmp_lg_u32 s29, 0
	s_addc_u32 s28, s28, 0                     // ceil(rows / 64)
	s_cmp_ge_u32 s26, s28
	s_cbranch_scc1 .Lexit                      // t tile past rows
	s_lshl_b32 s24, s25, 6                     // D0
	s_lshl_b32 s25, s26, 6                     // T0
	s_sub_u32 s26, s17, s24
	s_min_u32 s26, s26, 64                     // nd: d values in the tile
	s_sub_u32 s27, s16, s25
	s_min_u32 s27, s27, 64                     // nt: rows in the tile
	// s[28:29] = k + 4 * (T0 * kstride + D0), stepping 4 * kstride (s[30:31])
	s_mul_i32 s28, s25, s18
	s_mul_hi_u32 s29, s25, s18
	s_add_u32 s28, s28, s24
	s_addc_u32 s29, s29, 0
	s_lshl_b64 s[28:29], s[28:29], 2
	s_add_u32 s28, s28, s12
	s_addc_u32 s29, s29, s13
	s_lshl_b32 s30, s18, 2
	s_lshr_b32 s31, s18, 30
	// s[32:33] = v + 4 * (T0 * vstride + D0), stepping 4 * vstride (s[34:35])
	s_mul_i32 s32, s25, s19
	s_mul_hi_u32 s33, s25, s19
	s_add_u32 s32, s32, s24
	s_addc_u32 s33, s33, 0
	s_lshl_b64 s[32:33], s[32:33], 2
	s_add_u32 s32, s32, s14
	s_addc_u32 s33, s33, s15
	s_lshl_b32 s34, s19, 2
	s_lshr_b32 s35, s19, 30
	// s[36:37] = vc + 4 * ((y0 + T0) * dim + D0), stepping 4 * dim (s[38:39])
	s_add_u32 s40, s21, s25                    // y0 + T0
	s_mul_i32 s36, s40, s17
	s_mul_hi_u32 s37, s40, s17
	s_add_u32 s36, s36, s24
	s_addc_u32 s37, s37, 0
	s_lshl_b64 s[36:37], s[36:37], 2
	s_add_u32 s36, s36, s10
	s_addc_u32 s37, s37, s11
	s_lshl_b32 s38, s17, 2
	s_lshr_b32 s39, s17, 30
	// s[40:41] = vt + 4 * (D0 * ystride + y0 + T0), stepping 4 * ystride (s[42:43])
	s_add_u32 s42, s21, s25
	s_addc_u32 s43, 0, 0
	s_mul_i32 s40, s24, s20
	s_mul_hi_u32 s41, s24, s20
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	s_lshl_b64 s[40:41], s[40:41], 2
	s_add_u32 s40, s40, s8
	s_addc_u32 s41, s41, s9
	s_lshl_b32 s42, s20, 2
	s_lshr_b32 s43, s20, 30
	s_mov_b64 s[44:45], exec
	// phase 1: vc rows copied, tile[t][l] = k[T0 + t][D0 + l] for t < nt, lanes l < nd
	v_cmp_gt_u32 vcc, s26, v0
	s_and_b64 exec, s[44:45], vcc
	v_mov_b32 v3, v1                           // LDS address of tile[t][lane]
	s_mov_b32 s46, s27                         // rows left
.Lrow8:
	s_cmp_lt_u32 s46, 8
	s_cbranch_scc1 .Lrow1
	global_load_dword v4, v1, s[28:29]
	global_load_dword v12, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v5, v1, s[28:29]
	global_load_dword v13, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v6, v1, s[28:29]
	global_load_dword v14, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v7, v1, s[28:29]
	global_load_dword v15, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v8, v1, s[28:29]
	global_load_dword v16, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v9, v1, s[28:29]
	global_load_dword v17, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v10, v1, s[28:29]
	global_load_dword v18, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	global_load_dword v11, v1, s[28:29]
	global_load_dword v19, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	s_sub_u32 s46, s46, 8
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
	global_store_dword v1, v12, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v13, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v14, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v15, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v16, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v17, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v18, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	global_store_dword v1, v19, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	s_branch .Lrow8
.Lrow1:
	s_cmp_eq_u32 s46, 0
	s_cbranch_scc1 .Lphase2
	global_load_dword v4, v1, s[28:29]
	global_load_dword v12, v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
	s_sub_u32 s46, s46, 1
	s_waitcnt vmcnt(0)
	ds_write_b32 v3, v4
	v_add_u32 v3, 0x104, v3
	global_store_dword v1, v12, s[36:37]
	s_add_u32 s36, s36, s38
	s_addc_u32 s37, s37, s39
	s_branch .Lrow1
.Lphase2:
	// phase 2: vt[D0 + d][y0 + T0 + l] = tile[l][d] for d < nd, lanes l < nt
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_mov_b64 exec, s[44:45]
	v_cmp_gt_u32 vcc, s27, v0
	s_and_b64 exec, s[44:45], vcc
	s_mov_b32 s46, s26                         // columns left
.Lcol8:
	s_cmp_lt_u32 s46, 8
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
	s_sub_u32 s46, s46, 8
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v4, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v5, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v6, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v7, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v8, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v9, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v10, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	global_store_dword v1, v11, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	s_branch .Lcol8
.Lcol1:
	s_cmp_eq_u32 s46, 0
	s_cbranch_scc1 .Lexit
	ds_read_b32 v4, v2
	v_add_u32 v2, 4, v2
	s_sub_u32 s46, s46, 1
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v4, s[40:41]
	s_add_u32 s40, s40, s42
	s_addc_u32 s41, s41, s43
	s_branch .Lcol1
.Lexit:
	s_endpgm
.Lvt_scatter_v_k_end:
	.size	vt_scatter_v_k, .Lvt_scatter_v_k_end-vt_scatter_v_k

	.rodata
	.p2align 6
	.amdhsa_kernel vt_scatter_v_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_group_segment_fixed_size 16640
		.k100_arg vt, global_buffer, f32*, write_only
		.k100_arg vc, global_buffer, f32*, write_only
		.k100_arg k, global_buffer, const f32*, read_only
		.k100_arg v, global_buffer, const f32*, read_only
		.k100_arg rows, by_value, u32
		.k100_arg dim, by_value, u32
		.k100_arg kstride, by_value, u32
		.k100_arg vstride, by_value, u32
		.k100_arg ystride, by_value, u32
		.k100_arg y0, by_value, u32
		.k100_arg cshift, by_value, u32
		.k100_hidden_args compact
	.end_amdhsa_kernel
