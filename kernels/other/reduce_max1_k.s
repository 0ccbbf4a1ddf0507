// reduce_max1_k(part, y, nbpr): y[0] = max of part[0 .. nbpr-1] (-inf when
// nbpr = 0), any nbpr, one wave; the reference package limited nbpr to 64.
// The kernel is reduce1_kernel (common/reduce1_kernel.inc), shared with reduce_sum1_k.

	.include "common/reduce1_kernel.inc"

	reduce1_kernel reduce_max1_k, v_max_f32, 0xff800000
