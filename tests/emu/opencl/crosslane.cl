// Cross-lane operations: ds_bpermute, DPP moves, ds_swizzle, readlane and
// readfirstlane, and sub-group reductions/broadcasts (ockl uses DPP and swizzles).
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

__kernel void bpermute_rotate(__global const int* in, __global int* out, int shift) {
  uint g = get_global_id(0), lane = get_local_id(0) & 63;
  int src_lane = (lane + shift) & 63;
  out[g] = __builtin_amdgcn_ds_bpermute(src_lane * 4, in[g]);
}

// row_shr:1 (dpp_ctrl 0x111) with bound_ctrl: lane 0 of each row of 16 gets 0.
__kernel void dpp_row_shr(__global const int* in, __global int* out) {
  uint g = get_global_id(0);
  out[2 * g] = __builtin_amdgcn_update_dpp(0, in[g], 0x111, 0xf, 0xf, true);
  // quad_perm [3,2,1,0] (0x1b)
  out[2 * g + 1] = __builtin_amdgcn_mov_dpp(in[g], 0x1b, 0xf, 0xf, false);
}

// ds_swizzle: quad-perm mode (offset 0x8000 | perm) and bitmask mode (xor 0x1f within 32 lanes).
__kernel void swizzle(__global const int* in, __global int* out) {
  uint g = get_global_id(0);
  out[2 * g] = __builtin_amdgcn_ds_swizzle(in[g], 0x8000 | 0x1b);
  out[2 * g + 1] = __builtin_amdgcn_ds_swizzle(in[g], (0x1f << 10) | 0x1f);
}

__kernel void readlanes(__global const int* in, __global int* out) {
  uint g = get_global_id(0);
  int v = in[g];
  out[2 * g] = __builtin_amdgcn_readfirstlane(v) + __builtin_amdgcn_readlane(v, 5);
  out[2 * g + 1] = __builtin_amdgcn_readlane(v * 3, 63);
}

__kernel void subgroup_reduce(__global const int* in, __global int* out, __global float* fout) {
  uint g = get_global_id(0);
  int v = in[g];
  out[4 * g + 0] = sub_group_reduce_add(v);
  out[4 * g + 1] = sub_group_reduce_max(v);
  out[4 * g + 2] = sub_group_scan_inclusive_add(v);
  out[4 * g + 3] = sub_group_broadcast(v, 7);
  fout[g] = sub_group_reduce_add((float)(v & 255));
}

// Sub-group collectives must be reached by the whole sub-group (OpenCL), so
// per-lane selection happens in the data: the minimum over the odd lanes.
__kernel void subgroup_masked(__global const int* in, __global int* out) {
  uint g = get_global_id(0);
  int v = (g & 1) ? in[g] : INT_MAX;
  int r = sub_group_reduce_min(v);
  out[g] = r + sub_group_any(in[g] == 42) * 1000 + sub_group_all(in[g] >= 0) * 10000;
}
