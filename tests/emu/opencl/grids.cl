// Work-item functions on 1D/2D/3D grids with partial workgroups, global
// offsets and the work dimension.
__kernel void grid2d_ids(__global uint* out, uint width, uint height) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x >= width || y >= height) return;
  uint i = y * width + x;
  out[4 * i + 0] = get_local_id(0) | get_local_id(1) << 16;
  out[4 * i + 1] = get_group_id(0) | get_group_id(1) << 16;
  out[4 * i + 2] = get_local_size(0) | get_local_size(1) << 16;
  out[4 * i + 3] = get_global_size(0) | get_global_size(1) << 16;
}

__kernel void grid3d_ids(__global uint* out, uint nx, uint ny, uint nz) {
  uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
  uint i = (z * ny + y) * nx + x;
  out[4 * i + 0] = get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16;
  out[4 * i + 1] = get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16;
  out[4 * i + 2] = get_local_size(0) | get_local_size(1) << 8 | get_local_size(2) << 16;
  out[4 * i + 3] = get_num_groups(0) | get_num_groups(1) << 8 | get_num_groups(2) << 16 | get_work_dim() << 24;
}

__kernel void global_offset(__global uint* out) {
  uint x = get_global_id(0), y = get_global_id(1);
  uint i = (y - get_global_offset(1)) * get_global_size(0) + (x - get_global_offset(0));
  out[2 * i] = x;
  out[2 * i + 1] = y;
}

__kernel void linear_ids(__global uint* out) {
  uint i = get_global_linear_id();
  out[2 * i] = get_local_linear_id();
  out[2 * i + 1] = get_enqueued_local_size(0) * 1000 + get_local_size(0);
}
