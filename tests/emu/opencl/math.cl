// Library math (ocml through the device libraries): exp/log, sqrt/rsqrt,
// sin/cos with large arguments (Payne-Hanek reduction reads constant tables
// from .rodata), pow/tanh/erf, and double precision.
__kernel void exp_log(__global const float* x, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float v = x[i];
  out[4 * i + 0] = exp(v);
  out[4 * i + 1] = log(fabs(v) + 1e-3f);
  out[4 * i + 2] = exp2(v * 0.5f);
  out[4 * i + 3] = log2(fabs(v) + 0.5f);
}

__kernel void sqrt_rsqrt(__global const float* x, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float v = fabs(x[i]);
  out[3 * i + 0] = sqrt(v);
  out[3 * i + 1] = rsqrt(v + 1.0f);
  out[3 * i + 2] = native_recip(v + 2.0f);
}

__kernel void sin_cos(__global const float* x, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float c;
  out[3 * i + 0] = sin(x[i]);
  out[3 * i + 1] = sincos(x[i], &c);
  out[3 * i + 2] = c;
}

__kernel void pow_tanh(__global const float* x, __global float* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  float v = x[i];
  out[3 * i + 0] = pow(fabs(v) + 0.1f, 1.7f);
  out[3 * i + 1] = tanh(v);
  out[3 * i + 2] = erf(v * 0.3f);
}

__kernel void math_f64(__global const double* x, __global double* out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  double v = x[i];
  out[3 * i + 0] = sqrt(fabs(v));
  out[3 * i + 1] = exp(v * 0.01);
  out[3 * i + 2] = fma(v, v, 1.0) / (fabs(v) + 1.0);
}
