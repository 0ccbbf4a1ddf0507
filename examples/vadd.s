// vadd: c[i] = a[i] + b[i] for i < count (f32), one work-item per element.
// Hand-written GFX9 assembly with k100lc's compact argument declarations:
// no YAML needed, offsets, sizes and the metadata are computed by k100-as.
//
//   k100-as -o vadd.hsaco examples/vadd.s && k100-objdump -d vadd.hsaco

	.text
	.globl	vadd
	.p2align	8
	.type	vadd,@function
vadd:
	// s[0:3] = private segment buffer, s[4:5] = kernarg segment, s6 = workgroup id x, v0 = local id x
	s_load_dwordx4 s[8:11], s[4:5], 0x0      // a, b
	s_load_dwordx2 s[12:13], s[4:5], 0x10    // c
	s_load_dword s14, s[4:5], 0x18           // count
	s_lshl_b32 s15, s6, 6                    // first element of this workgroup (64 lanes)
	v_add_u32 v0, s15, v0
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_u32 vcc, s14, v0
	s_and_saveexec_b64 s[16:17], vcc
	s_cbranch_execz .Ldone
	v_lshlrev_b32 v1, 2, v0
	global_load_dword v2, v1, s[8:9]
	global_load_dword v3, v1, s[10:11]
	s_waitcnt vmcnt(0)
	v_add_f32 v2, v2, v3
	global_store_dword v1, v2, s[12:13]
.Ldone:
	s_endpgm
.Lvadd_end:
	.size	vadd, .Lvadd_end-vadd

	.rodata
	.p2align 6
	.amdhsa_kernel vadd
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.k100_arg a, global_buffer, const f32*, read_only
		.k100_arg b, global_buffer, const f32*, read_only
		.k100_arg c, global_buffer, f32*, write_only
		.k100_arg count, by_value, u32
	.end_amdhsa_kernel
