// Elementwise kernels: float and integer arithmetic, conversions, bit operations.
__kernel void vadd_f32(__global const float* a, __global const float* b, __global float* c, uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void saxpy(float alpha, __global const float* x, __global float* y, uint n) {
  uint i = get_global_id(0);
  if (i < n) y[i] = fma(alpha, x[i], y[i]);
}

__kernel void int_ops(__global const int* a, __global const int* b, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = a[i], y = b[i];
  out[4 * i + 0] = x * y + (x >> 3) - (y << 2);
  out[4 * i + 1] = (x ^ y) | (x & 0x0ff0);
  out[4 * i + 2] = mul24(x & 0x7fffff, y & 0x7fff) + mad_hi(x, y, 7);
  out[4 * i + 3] = abs_diff(x, y) + add_sat(x, y) / 3;
}

__kernel void uint_divmod(__global const uint* a, __global const uint* b, __global uint* q, __global uint* r, uint n) {
  uint i = get_global_id(0);
  if (i < n) {
    uint d = b[i] | 1u;
    q[i] = a[i] / d;
    r[i] = a[i] % d;
  }
}

__kernel void int_divmod(__global const int* a, __global const int* b, __global int* q, uint n) {
  uint i = get_global_id(0);
  if (i < n) {
    int d = b[i] == 0 ? 3 : b[i];
    q[2 * i] = a[i] / d;
    q[2 * i + 1] = a[i] % d;
  }
}

__kernel void conversions(__global const float* f, __global const int* k, __global int* oi, __global float* of, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  oi[4 * i + 0] = convert_int_rtz(f[i]);
  oi[4 * i + 1] = convert_int_sat_rte(f[i] * 1000.0f);
  oi[4 * i + 2] = (int)convert_uint_sat(f[i]);
  oi[4 * i + 3] = convert_int(floor(f[i]));
  of[2 * i + 0] = convert_float(k[i]);
  of[2 * i + 1] = convert_float((uint)k[i]);
}

__kernel void minmax_select(__global const float* a, __global const float* b, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float x = a[i], y = b[i];
  out[4 * i + 0] = fmin(x, y);
  out[4 * i + 1] = fmax(x, y);
  out[4 * i + 2] = clamp(x, -1.0f, 1.0f);
  out[4 * i + 3] = select(x, y, (int)(x < y)) + fabs(x) - copysign(1.5f, y);
}

__kernel void bit_ops(__global const uint* a, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint x = a[i];
  out[4 * i + 0] = popcount(x);
  out[4 * i + 1] = clz(x);
  out[4 * i + 2] = rotate(x, (uint)(i & 31));
  out[4 * i + 3] = mul_hi(x, 0x9e3779b1u) + upsample((ushort)(x >> 16), (ushort)x) ;
}
