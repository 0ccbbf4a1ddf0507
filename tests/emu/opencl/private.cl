// Private memory in scratch: dynamically indexed arrays, a generic pointer to
// private memory (flat access through the private aperture), and spills.
__kernel void private_array(__global const uint* in, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint arr[64];
  for (int k = 0; k < 64; ++k) arr[k] = in[i] * (k + 1) + k;
  uint idx = in[i] % 64, acc = 0;
  for (int k = 0; k < 16; ++k) {
    acc += arr[idx];
    arr[(idx * 7 + 3) % 64] ^= acc;
    idx = (idx + arr[idx]) % 64;
  }
  out[i] = acc;
}

// Not inlined: the callee cannot know its pointer is private, so it uses flat
// instructions and the private aperture.
__attribute__((noinline)) void fill_generic(uint* p, uint count, uint seed) {
  for (uint k = 0; k < count; ++k) p[k] = seed * 2654435761u + k;
}
__attribute__((noinline)) uint read_generic(const uint* p, uint k) { return p[k]; }
__kernel void private_generic(__global const uint* in, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint buf[24];
  fill_generic(buf, 24, in[i]);
  uint* p = buf;  // generic pointer to private memory
  uint acc = 0;
  for (uint k = 0; k < 24; k += 1 + (in[i] & 1)) acc ^= read_generic(p, (k * 5 + in[i]) % 24);
  out[i] = acc;
}

// Enough live values to exceed the register budget we ask for.
__attribute__((amdgpu_num_vgpr(24)))
__kernel void private_spill(__global const float* in, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float v[40];
  for (int k = 0; k < 40; ++k) v[k] = in[(i + k) % n] * (float)(k + 1);
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 40; ++k) v[k] = v[k] * 0.5f + v[(k + 7) % 40];
  float s = 0.0f;
  for (int k = 0; k < 40; ++k) s += v[k] * (float)(k & 3);
  out[i] = s;
}
