// vt_scatter_v1_k(vt, vc, k, v, dim, ystride, y0): single-token KV append in
// one launch: column y0 of the transposed K cache, vt[d * ystride + y0] = k[d],
// and row y0 of the row-major V cache, vc[y0 * dim + d] = v[d], for d < dim.
// One d per lane, 64 per workgroup (grid = ceil(dim / 64)): the k and v loads
// and the vc store are coalesced 256-byte rows; the vt stores are one dword
// per cache row, inherent to the transposed layout. Cache addresses are
// computed in 64 bits. Workgroups past the end and waves past the first do
// nothing.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"

	.text
	.globl	vt_scatter_v1_k
	.p2align	8
	.type	vt_scatter_v1_k,@function
vt_scatter_v1_k:
	s_load_dwordx8 s[8:15], s[4:5], 0x0        // vt, vc, k, v
	s_load_dwordx2 s[16:17], s[4:5], 0x20      // dim, ystride
	s_load_dword s18, s[4:5], 0x28             // y0
	first_wave_only .Lexit
	s_waitcnt lgkmcnt(0)
	branch_if_past_tiles64 s6, s16, s19, s20, .Lexit  // workgroup past the end
	s_lshl_b32 s20, s6, 6                      // first d of this workgroup
	s_sub_u32 s21, s16, s20
	s_min_u32 s21, s21, 64                     // d values here
	v_cmp_gt_u32 vcc, s21, v0
	s_and_b64 exec, exec, vcc
	v_add_u32 v1, s20, v0                      // d
	v_lshlrev_b32 v2, 2, v1                    // 4 * d
	global_load_dword v3, v2, s[12:13]         // k[d]
	global_load_dword v4, v2, s[14:15]         // v[d]
	// vt + 4 * (d * ystride + y0)
	add_index4 22, 8, s18, 22
	v_mad_u64_u32 v[6:7], s[24:25], v1, s17, 0
	v_lshlrev_b64 v[6:7], 2, v[6:7]
	v_mov_b32 v8, s23
	v_add_co_u32 v6, vcc, s22, v6
	v_addc_co_u32 v7, vcc, v8, v7, vcc
	// vc + 4 * y0 * dim (64-bit), then + 4 * d per lane
	s_mul_i32 s26, s18, s16
	s_mul_hi_u32 s27, s18, s16
	s_lshl_b64 s[26:27], s[26:27], 2
	s_add_u32 s26, s10, s26
	s_addc_u32 s27, s11, s27
	s_waitcnt vmcnt(0)
	global_store_dword v[6:7], v3, off
	global_store_dword v2, v4, s[26:27]
.Lexit:
	s_endpgm
.Lvt_scatter_v1_k_end:
	.size	vt_scatter_v1_k, .Lvt_scatter_v1_k_end-vt_scatter_v1_k

	.rodata
	.p2align 6
	.amdhsa_kernel vt_scatter_v1_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_kernarg_size 48
		.k100_arg vt, global_buffer, f32*, write_only
		.k100_arg vc, global_buffer, f32*, write_only
		.k100_arg k, global_buffer, const f32*, read_only
		.k100_arg v, global_buffer, const f32*, read_only
		.k100_arg dim, by_value, u32
		.k100_arg ystride, by_value, u32
		.k100_arg y0, by_value, u32
		.k100_hidden_args none
	.end_amdhsa_kernel
