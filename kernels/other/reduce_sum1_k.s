// reduce_sum1_k(part, y, nbpr): y[0] = sum of part[0 .. nbpr-1] (0 when
// nbpr = 0), any nbpr, one wave; the reference package limited nbpr to 64.
// The kernel is reduce1_kernel (common/reduce1_kernel.inc), shared with reduce_max1_k.

	.include "common/reduce1_kernel.inc"

	reduce1_kernel reduce_sum1_k, v_add_f32, 0
