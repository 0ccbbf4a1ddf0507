// HIP kernels for the emulator tests (compiled by Debian's hipcc for gfx906).
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void grid_stride_scale(const float* in, float* out, int n, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i] * s;
}

extern "C" __global__ void reduce_shared(const int* in, int* out, int n) {
  __shared__ int tmp[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tmp[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) tmp[t] += tmp[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = tmp[0];
}

// Wave-level reduction with shuffles (ds_bpermute / DPP underneath).
extern "C" __global__ void warp_shuffle(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int down = __shfl_down(v, 3);
  int x = v;
  for (int off = 32; off > 0; off >>= 1) x += __shfl_xor(x, off);
  out[2 * i] = down;
  out[2 * i + 1] = x;
}

extern "C" __global__ void atomic_add_float(const float* in, float* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, in[i]);
}

extern "C" __global__ void matmul_2d(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(A[row * K + k], B[k * N + col], acc);
  C[row * N + col] = acc;
}

// Dynamic LDS: the size comes from the launch.
extern "C" __global__ void dynamic_shared(const float* in, float* out, int n) {
  extern __shared__ float buf[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  float v = buf[blockDim.x - 1 - t];
  if (i < n) out[i] = v;
}

extern "C" __global__ void half_ops(const __half* a, const __half* b, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hadd(__hmul(a[i], b[i]), a[i]);
}

extern "C" __global__ void math_ops(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = expf(x[i]);
  out[4 * i + 1] = sinf(x[i]);
  out[4 * i + 2] = sqrtf(fabsf(x[i]));
  out[4 * i + 3] = logf(fabsf(x[i]) + 1.0f);
}

extern "C" __global__ void int64_ops(const long long* a, const long long* b, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long d = b[i] == 0 ? 3 : b[i];
  out[3 * i + 0] = a[i] * b[i];
  out[3 * i + 1] = a[i] / d;
  out[3 * i + 2] = (long long)((unsigned long long)a[i] >> (i & 63));
}

extern "C" __global__ void block3d_ids(unsigned* out) {
  unsigned lin = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned idx = blk * blockDim.x * blockDim.y * blockDim.z + lin;
  out[2 * idx] = threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16;
  out[2 * idx + 1] = blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16 | gridDim.x << 24;
}

extern "C" __global__ void ballot_vote(const int* in, unsigned long long* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long b = __ballot(in[i] > 0);
  int any = __any(in[i] == 7), all = __all(in[i] >= 0);
  out[2 * i] = b;
  out[2 * i + 1] = (unsigned long long)(__popcll(b) + any * 1000 + all * 100000);
}
