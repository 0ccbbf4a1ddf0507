// A runaway kernel for the instruction-budget and cancellation tests: one
// scalar loop of `trips` iterations, forever when trips is 0.
	.text
	.globl	spin_k
	.p2align	8
	.type	spin_k,@function
spin_k:
	s_load_dword s8, s[4:5], 0x0      // trips
	s_waitcnt lgkmcnt(0)
.Lspin:
	s_cmp_eq_u32 s8, 0
	s_cbranch_scc1 .Lspin             // trips 0: never ends
	s_sub_u32 s8, s8, 1
	s_cmp_lg_u32 s8, 0
	s_cbranch_scc1 .Lspin
	s_endpgm
.Lspin_end:
	.size	spin_k, .Lspin_end-spin_k

	.rodata
	.p2align 6
	.amdhsa_kernel spin_k
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg trips, by_value, u32
	.end_amdhsa_kernel
