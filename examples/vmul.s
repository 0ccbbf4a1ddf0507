// vmul and vsub: c[i] = a[i] * b[i] and c[i] = a[i] - b[i] (f32), two
// kernels from one macro in an included file (-I says where to look).
//
//   k100-as -I examples/include -o vmul.hsaco examples/vmul.s && k100-objdump -d vmul.hsaco

	.include "elementwise.inc"
	ELEMENTWISE vmul, v_mul_f32
	ELEMENTWISE vsub, v_sub_f32
