// Workgroup cooperation through LDS and barriers: reductions, scan, histogram,
// tiled matrix multiply and transpose (2D grids with partial workgroups).
__kernel void reduce_sum_f32(__global const float* in, __global float* out, uint n) {
  __local float tmp[256];
  uint l = get_local_id(0), g = get_global_id(0);
  tmp[l] = g < n ? in[g] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}

__kernel void reduce_max_i32(__global const int* in, __global int* out, uint n) {
  __local int tmp[128];
  uint l = get_local_id(0), g = get_global_id(0);
  int v = INT_MIN;
  for (uint i = g; i < n; i += get_global_size(0)) v = max(v, in[i]);
  tmp[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] = max(tmp[l], tmp[l + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}

// Inclusive scan of each 256-element block (Hillis-Steele, double-buffered).
__kernel void block_scan(__global const uint* in, __global uint* out) {
  __local uint buf[2][256];
  uint l = get_local_id(0), g = get_global_id(0);
  int cur = 0;
  buf[0][l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < 256; off <<= 1) {
    uint v = buf[cur][l];
    if (l >= off) v += buf[cur][l - off];
    buf[1 - cur][l] = v;
    cur = 1 - cur;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[g] = buf[cur][l];
}

__kernel void histogram(__global const uchar* data, uint n, __global uint* hist) {
  __local uint local_hist[64];
  uint l = get_local_id(0);
  if (l < 64) local_hist[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&local_hist[data[i] & 63]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 64) atomic_add(&hist[l], local_hist[l]);
}

#define TILE 16
__kernel void matmul_tiled(__global const float* A, __global const float* B, __global float* C, int M, int N, int K) {
  __local float As[TILE][TILE], Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_group_id(0) * TILE + tx, row = get_group_id(1) * TILE + ty;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + tx, kb = t * TILE + ty;
    As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[ty][tx] = (col < N && kb < K) ? B[kb * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) acc = fma(As[ty][k], Bs[k][tx], acc);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

__kernel void transpose_tiled(__global const float* in, __global float* out, int rows, int cols) {
  __local float tile[TILE][TILE + 1];
  int x = get_global_id(0), y = get_global_id(1);
  if (x < cols && y < rows) tile[get_local_id(1)][get_local_id(0)] = in[y * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * TILE + get_local_id(0), oy = get_group_id(0) * TILE + get_local_id(1);
  if (ox < rows && oy < cols) out[oy * rows + ox] = tile[get_local_id(0)][get_local_id(1)];
}
