// div_scalar_k(y, s, n): y[i] *= 1 / s[0] for i < n, the divisor read from
// device memory (the final normalisation of blocked softmax: s is the sum
// written by reduce_sum1_k). Reciprocal (v_rcp_f32, 1 ulp) then multiply.
// One element per lane: workgroup g handles y[64g .. 64g+63], grid =
// ceil(n / 64) workgroups of 64. Workgroups past the end, and waves past the
// first of a larger workgroup, do nothing, so every element is scaled once.
//
// s[0:3] private segment buffer, s[4:5] kernarg pointer, s6 workgroup id, v0 local id.

	.include "common/row_access_and_tiles.inc"

	.text
	.globl	div_scalar_k
	.p2align	8
	.type	div_scalar_k,@function
div_scalar_k:
	s_load_dwordx4 s[8:11], s[4:5], 0x0        // y, s
	s_load_dword s12, s[4:5], 0x10             // n
	first_wave_only .Lexit
	s_waitcnt lgkmcnt(0)
	s_load_dword s13, s[10:11], 0x0            // the divisor s[0]
	branch_if_past_tiles64 s6, s12, s14, s15, .Lexit  // workgroup past the end
	s_lshl_b32 s15, s6, 6                      // first element of this workgroup
	s_sub_u32 s16, s12, s15                    // elements left from there
	s_min_u32 s16, s16, 64
	v_cmp_gt_u32 vcc, s16, v0
	s_and_b64 exec, exec, vcc
	// s[8:9] = y + 256 * g (64-bit)
	s_lshl_b32 s18, s6, 8
	s_lshr_b32 s19, s6, 24
	s_add_u32 s8, s8, s18
	s_addc_u32 s9, s9, s19
	v_lshlrev_b32 v1, 2, v0
	global_load_dword v2, v1, s[8:9]
	s_waitcnt lgkmcnt(0)
	v_rcp_f32 v3, s13
	s_waitcnt vmcnt(0)
	v_mul_f32 v2, v2, v3
	global_store_dword v1, v2, s[8:9]
.Lexit:
	s_endpgm
.Ldiv_scalar_k_end:
	.size	div_scalar_k, .Ldiv_scalar_k_end-div_scalar_k

	.rodata
	.p2align 6
	.amdhsa_kernel div_scalar_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_kernarg_size 24
		.k100_arg y, global_buffer, f32*, read_write
		.k100_arg s, global_buffer, const f32*, read_only
		.k100_arg n, by_value, u32
		.k100_hidden_args none
	.end_amdhsa_kernel
