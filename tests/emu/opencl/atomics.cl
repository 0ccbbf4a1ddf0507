// Global and local atomics.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void atomic_counter(__global const int* in, __global int* counters, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  atomic_add(&counters[0], in[i]);
  atomic_inc(&counters[1]);
  if (in[i] < 0) atomic_sub(&counters[2], in[i]);
}

__kernel void atomic_minmax(__global const int* in, __global int* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  atomic_min(&out[0], in[i]);
  atomic_max(&out[1], in[i]);
  atomic_min((volatile __global uint*)&out[2], (uint)in[i]);
  atomic_max((volatile __global uint*)&out[3], (uint)in[i]);
}

__kernel void atomic_bits(__global const uint* in, __global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  atomic_or(&out[0], in[i]);
  atomic_and(&out[1], ~(1u << (in[i] & 31)));
  atomic_xor(&out[2], in[i]);
}

// Float sum through a compare-exchange loop (order-independent inputs: small integers).
__kernel void atomic_float_cas(__global const float* in, __global float* sum, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  volatile __global uint* p = (volatile __global uint*)sum;
  uint old = *p, assumed;
  do {
    assumed = old;
    old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + in[i]));
  } while (old != assumed);
}

// Local atomics then one global update per group; atomic_xchg elects a winner.
__kernel void local_atomics(__global const uint* in, __global uint* out, uint n) {
  __local uint count, winner, total;
  uint l = get_local_id(0), g = get_global_id(0);
  if (l == 0) { count = 0; winner = 0xffffffffu; total = 0; }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (g < n) {
    uint v = in[g];
    atomic_add(&total, v);
    if (v & 1) atomic_inc(&count);
    atomic_min(&winner, v);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    uint grp = get_group_id(0);
    out[3 * grp + 0] = count;
    out[3 * grp + 1] = winner;
    out[3 * grp + 2] = atomic_xchg(&total, 0u);
  }
}

__kernel void atomic_int64(__global const long* in, __global long* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  atom_add(&out[0], in[i]);
  atom_max(&out[1], in[i]);
  atom_min(&out[2], in[i]);
}

// A program-scope global variable (.data of the code object, reached PC-relative).
__global int g_total = 100;
__kernel void add_to_global(__global const int* in, uint n) {
  uint i = get_global_id(0);
  if (i < n) atomic_add(&g_total, in[i]);
}
__kernel void read_global(__global int* out) { out[0] = g_total; }
