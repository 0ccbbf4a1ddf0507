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

	.include "common/row_access_and_tiles.inc"

// load_kv_row R: vR = k row t, v(R+8) = v row t at lane offset v1 (s[28:29] and
// s[32:33]), then both pointers one row on (steps s[30:31] and s[34:35]).
.macro load_kv_row r
	global_load_dword v\r, v1, s[28:29]
	global_load_dword v[\r+8], v1, s[32:33]
	s_add_u32 s28, s28, s30
	s_addc_u32 s29, s29, s31
	s_add_u32 s32, s32, s34
	s_addc_u32 s33, s33, s35
.endm

	.text
	.globl	vt_scatter_v_k
	.p2align	8
	.type	vt_scatter_v_k,@function
vt_scatter_v_k:
	// vt s[8:9], vc s[10:11], k s[12:13], v s[14:15], rows s16, dim s17,
	// kstride s18, vstride s19, ystride s20, y0 s21, cshift s22
	s_load_dwordx16 s[8:23], s[4:5], 0x0
	first_wave_only .Lexit
	v_lshlrev_b32 v1, 2, v0                    // 4 * lane: global offset, tile row write
	v_mul_u32_u24 v2, 0x104, v0                // 260 * lane: tile column read
	s_waitcnt lgkmcnt(0)
	tile64_split s6, s22, s24, s25, s26        // d tile s25, t tile s26
	branch_if_past_tiles64 s25, s17, s28, s29, .Lexit  // d tile past dim
	branch_if_past_tiles64 s26, s16, s28, s29, .Lexit  // t tile past rows
	tile64_extent s24, s25, s25, s26, s26, s27, s17, s16  // D0 s24, T0 s25, nd s26, nt s27
	// s[28:29] = k + 4 * (T0 * kstride + D0), stepping 4 * kstride (s[30:31])
	row_ptr 28, s25, s18, s24, 12, 30
	// s[32:33] = v + 4 * (T0 * vstride + D0), stepping 4 * vstride (s[34:35])
	row_ptr 32, s25, s19, s24, 14, 34
	// s[36:37] = vc + 4 * ((y0 + T0) * dim + D0), stepping 4 * dim (s[38:39])
	s_add_u32 s40, s21, s25                    // y0 + T0
	row_ptr 36, s40, s17, s24, 10, 38
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
	.irp r, 4, 5, 6, 7, 8, 9, 10, 11
	load_kv_row \r
	.endr
	s_sub_u32 s46, s46, 8
	s_waitcnt vmcnt(0)
	tile64_write_rows8
	store_rows v1, 36, 38, 12, 13, 14, 15, 16, 17, 18, 19  // vc rows t .. t+7
	s_branch .Lrow8
.Lrow1:
	s_cmp_eq_u32 s46, 0
	s_cbranch_scc1 .Lphase2
	load_kv_row 4
	s_sub_u32 s46, s46, 1
	s_waitcnt vmcnt(0)
	ds_write_b32 v3, v4
	v_add_u32 v3, 0x104, v3
	store_rows v1, 36, 38, 12                 // vc row t
	s_branch .Lrow1
.Lphase2:
	// phase 2: vt[D0 + d][y0 + T0 + l] = tile[l][d] for d < nd, lanes l < nt
	tile64_store_cols 44, s27, s26, s46, 40, 42, .Lexit
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
