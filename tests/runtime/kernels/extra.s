// A second package for the runtime tests: vscale_k(y, s: f32, n) scales y in place.
	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx926"
	.globl	vscale_k
	.p2align	8
	.type	vscale_k,@function
vscale_k:
	s_load_dwordx2 s[8:9], s[4:5], 0x0
	s_load_dwordx2 s[10:11], s[4:5], 0x8      // s, n
	s_waitcnt lgkmcnt(0)
	s_lshl_b32 s12, s6, 6
	v_add_u32 v1, s12, v0
	v_cmp_gt_u32 vcc, s11, v1
	s_and_saveexec_b64 s[14:15], vcc
	s_cbranch_execz .Lvscale_done
	v_lshlrev_b32 v1, 2, v1
	global_load_dword v2, v1, s[8:9]
	s_waitcnt vmcnt(0)
	v_mul_f32 v2, s10, v2
	global_store_dword v1, v2, s[8:9]
.Lvscale_done:
	s_endpgm
.Lvscale_end:
	.size	vscale_k, .Lvscale_end-vscale_k

	.rodata
	.p2align 6
	.amdhsa_kernel vscale_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg y, global_buffer, f32*, read_write
		.k100_arg s, by_value, f32
		.k100_arg n, by_value, u32
	.end_amdhsa_kernel
