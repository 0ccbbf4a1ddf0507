// 64-bit integer arithmetic.
__kernel void int64_arith(__global const long* a, __global const long* b, __global long* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  long x = a[i], y = b[i];
  long d = y == 0 ? 7 : y;
  out[6 * i + 0] = x * y + (x >> 17);
  out[6 * i + 1] = x / d;
  out[6 * i + 2] = x % d;
  out[6 * i + 3] = (long)((ulong)x / (ulong)(d | 1));
  out[6 * i + 4] = (x << (y & 63)) ^ (long)((ulong)x >> (i & 63));
  out[6 * i + 5] = (x < y) ? x - y : max(x, y) + min(x, y);
}

__kernel void int64_bits(__global const ulong* a, __global ulong* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  ulong x = a[i];
  out[4 * i + 0] = popcount(x);
  out[4 * i + 1] = clz(x);
  out[4 * i + 2] = mul_hi(x, 0x9e3779b97f4a7c15ul);
  out[4 * i + 3] = rotate(x, (ulong)(i % 64));
}
