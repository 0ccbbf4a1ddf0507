// Divergent control flow: nested branches, per-lane loop counts, switch,
// data-dependent loops and non-inlined calls (s_swappc / s_setpc, stack in scratch).
__kernel void divergent_if(__global const int* in, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int v = in[i], r;
  if (v & 1) {
    if (v & 2) r = v * 3;
    else r = v - 100;
  } else if (v % 3 == 0) {
    r = -v;
  } else {
    r = v ^ 0x5a5a;
    if (r < 0) r = 0;
  }
  out[i] = r;
}

__kernel void loops_variable(__global const uint* in, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint count = in[i] % 97, acc = 1;
  for (uint k = 0; k < count; ++k) {
    acc = acc * 31 + k;
    if (acc % 11 == 0) continue;
    acc ^= k << 3;
  }
  out[i] = acc;
}

__kernel void switch_case(__global const int* in, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int r;
  switch (in[i] & 7) {
    case 0: r = 10; break;
    case 1: r = in[i] * 2; break;
    case 2: r = in[i] / 3; break;
    case 3: r = -1; break;
    case 5: r = in[i] << 4; break;
    case 6: r = 77; break;
    default: r = in[i];
  }
  out[i] = r;
}

__kernel void collatz(__global const uint* in, __global uint* steps, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  ulong x = in[i] % 10000 + 1;
  uint s = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++s;
  }
  steps[i] = s;
}

__attribute__((noinline)) int poly(int x, int k) {
  int acc = 0;
  for (int j = 0; j <= k; ++j) acc = acc * x + j;
  return acc;
}
__attribute__((noinline)) float mix_call(float a, float b, int depth) {
  return depth <= 0 ? a + b : mix_call(a * 0.5f, b + 1.0f, depth - 1);
}
__kernel void calls(__global const int* in, __global int* out, __global float* fout, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  out[i] = poly(in[i] & 15, (int)(i % 5));
  fout[i] = mix_call((float)in[i], 1.0f, (int)(i % 4));
}
