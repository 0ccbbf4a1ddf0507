// f16 arithmetic (scalar and packed half2) and conversions.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void half_fma(__global const half* a, __global const half* b, __global half* c, uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = fma(a[i], b[i], c[i]) + (half)0.5f * a[i];
}

__kernel void half2_ops(__global const half2* a, __global const half2* b, __global half2* c, uint n) {
  uint i = get_global_id(0);
  if (i < n) {
    half2 x = a[i], y = b[i];
    c[i] = x * y + x - max(x, y);
  }
}

__kernel void half_convert(__global const float* f, __global half* h, __global float* back, uint n) {
  uint i = get_global_id(0);
  if (i < n) {
    vstore_half_rte(f[i], i, h);
    back[i] = vload_half(i, h) * 2.0f;
  }
}
