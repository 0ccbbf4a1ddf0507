// Integer and f16 dot products (v_dot4_i32_i8, v_dot8_i32_i4, v_dot2_f32_f16, ...).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void dot4_i8(__global const int* a, __global const int* b, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = __builtin_amdgcn_sdot4(a[i], b[i], (int)i, false);
}
__kernel void dot4_u8(__global const uint* a, __global const uint* b, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = __builtin_amdgcn_udot4(a[i], b[i], i, false);
}
__kernel void dot8_i4(__global const int* a, __global const int* b, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = __builtin_amdgcn_sdot8(a[i], b[i], -(int)i, false);
}
__kernel void dot2_i16(__global const short2* a, __global const short2* b, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = __builtin_amdgcn_sdot2(a[i], b[i], 100, false);
}
__kernel void dot2_f16(__global const half2* a, __global const half2* b, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = __builtin_amdgcn_fdot2(a[i], b[i], 1.0f, false);
}
