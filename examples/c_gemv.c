/* The quick start in C: y = W x with gemv_f32_warp_k through the C ABI
 * (fm_engine.h), checked against a double-precision host loop. Runs on the
 * DCU when there is one, else on the emulator (K100_BACKEND=auto|emu|hsa).
 *
 *   cc -std=c99 examples/c_gemv.c $(pkg-config --cflags --libs fm_engine) -o c_gemv
 *   ./c_gemv [PACKAGE.hsaco]         (default: the installed or built kernel package)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fm_engine.h"

static float next_value(uint32_t* s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 16) & 0x7fff) / 16384.0f - 1.0f;
}

int main(int argc, char** argv) {
  const uint32_t n = 256, k = 640;
  if (fm_init(argc > 1 ? argv[1] : NULL) != 0) {
    fprintf(stderr, "c_gemv: %s\n", fm_last_error());
    return 1;
  }
  float* w = malloc(sizeof(float) * n * k);
  float* x = malloc(sizeof(float) * k);
  float* y = malloc(sizeof(float) * n);
  if (!w || !x || !y) return 1;
  uint32_t seed = 1;
  for (uint32_t i = 0; i < n * k; ++i) w[i] = next_value(&seed);
  for (uint32_t i = 0; i < k; ++i) x[i] = next_value(&seed);

  void* dw = fm_alloc(sizeof(float) * n * k);
  void* dx = fm_alloc(sizeof(float) * k);
  void* dy = fm_alloc(sizeof(float) * n);
  uint64_t args[6] = {(uint64_t)(uintptr_t)dw, (uint64_t)(uintptr_t)dx, (uint64_t)(uintptr_t)dy, n, k, 64};
  /* grid = n WORKGROUPS of 64 work-items: one wave per row */
  if (!dw || !dx || !dy || fm_upload(dw, w, sizeof(float) * n * k) != 0 || fm_upload(dx, x, sizeof(float) * k) != 0 ||
      fm_launch("gemv_f32_warp_k", n, 64, args, 6) != 0 || fm_sync() != 0 ||
      fm_download(y, dy, sizeof(float) * n) != 0) {
    fprintf(stderr, "c_gemv: %s\n", fm_last_error());
    return 1;
  }
  double err = 0, scale = 0;
  for (uint32_t r = 0; r < n; ++r) {
    double ref = 0;
    for (uint32_t c = 0; c < k; ++c) ref += (double)w[r * k + c] * (double)x[c];
    err = fmax(err, fabs((double)y[r] - ref));
    scale = fmax(scale, fabs(ref));
  }
  printf("backend %s: gemv %ux%u max error %.3g\n", fm_backend(), n, k, err);
  fm_free(dw);
  fm_free(dx);
  fm_free(dy);
  fm_shutdown();
  free(w);
  free(x);
  free(y);
  return err <= 1e-5 * scale ? 0 : 1;
}
