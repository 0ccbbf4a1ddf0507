/* The C ABI from C: the seed's quick start (GEMV by name, grid = workgroups)
 * and every error path returning codes plus fm_last_error() text, never a crash.
 * Usage: c_abi_test RUNTIME_TEST.hsaco EXTRA.hsaco SPIN.hsaco */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fm_engine.h"

static int failures = 0;

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n  last error: %s\n", __FILE__, __LINE__, #cond, \
              fm_last_error());                                                   \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

#define CHECK_ERR(expr, code, text)                                               \
  do {                                                                            \
    int rc_ = (expr);                                                             \
    if (rc_ != (code) || !strstr(fm_last_error(), (text))) {                      \
      fprintf(stderr, "%s:%d: %s returned %d (want %d), last error: %s\n  (want text: %s)\n", \
              __FILE__, __LINE__, #expr, rc_, (code), fm_last_error(), (text));   \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

static uint64_t f32(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}

static uint64_t ptr(void* p) { return (uint64_t)(uintptr_t)p; }

static void quick_start(uint32_t n, uint32_t k) {
  float* w = malloc(sizeof(float) * n * k);
  float* x = malloc(sizeof(float) * k);
  float* y = malloc(sizeof(float) * n);
  unsigned s = 12345;
  for (uint32_t i = 0; i < n * k; ++i) w[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 0x7fff) / 16384.0f - 1.0f;
  for (uint32_t i = 0; i < k; ++i) x[i] = (float)((s = s * 1103515245u + 12345u) >> 16 & 0x7fff) / 16384.0f - 1.0f;
  void* pw = fm_alloc(sizeof(float) * n * k);
  void* px = fm_alloc(sizeof(float) * k);
  void* py = fm_alloc(sizeof(float) * n);
  CHECK(pw && px && py);
  CHECK(fm_upload(pw, w, sizeof(float) * n * k) == 0);
  CHECK(fm_upload(px, x, sizeof(float) * k) == 0);
  uint64_t argv[6] = {ptr(pw), ptr(px), ptr(py), n, k, 64};
  CHECK(fm_launch("gemv_f32_warp_k", n, 64, argv, 6) == 0); /* grid = n workgroups */
  CHECK(fm_sync() == 0);
  CHECK(fm_download(y, py, sizeof(float) * n) == 0);
  double err = 0, scale = 0;
  for (uint32_t r = 0; r < n; ++r) {
    double ref = 0;
    for (uint32_t i = 0; i < k; ++i) ref += (double)w[r * k + i] * x[i];
    if (fabs(ref) > scale) scale = fabs(ref);
    if (fabs(ref - y[r]) > err) err = fabs(ref - y[r]);
  }
  printf("gemv %ux%u: max error %.3g (relative %.3g)\n", n, k, err, err / scale);
  CHECK(err / scale < 1e-5);
  fm_free(pw);
  fm_free(px);
  fm_free(py);
  free(w);
  free(x);
  free(y);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: c_abi_test RUNTIME_TEST.hsaco EXTRA.hsaco SPIN.hsaco\n");
    return 2;
  }
  /* before fm_init */
  CHECK(fm_alloc(16) == NULL);
  CHECK(strstr(fm_last_error(), "fm_init first") != NULL);
  CHECK_ERR(fm_launch("gemv_f32_warp_k", 1, 64, NULL, 0), FM_ERR_LAUNCH, "not initialised");
  CHECK_ERR(fm_init("/nonexistent/pkg.hsaco"), FM_ERR, "/nonexistent/pkg.hsaco");

  CHECK(fm_init(argv[1]) == 0);
  CHECK(fm_init(argv[1]) == 0); /* the same package again: nothing happens */
  CHECK(strcmp(fm_backend(), "emu") == 0);
  quick_start(256, 640);
  quick_start(7, 65);

  /* the table */
  CHECK(fm_has_kernel("gemv_f32_warp_k") == 1);
  CHECK(fm_has_kernel("gemv_f32_warp") == 0);
  CHECK(fm_kernel_id("fault_k") == 0); /* sorted by mangled name */
  CHECK(fm_kernel_id("nope") == -1);

  void* buf = fm_alloc(1024);
  void* x = fm_alloc(64);
  char host[2048];
  uint64_t a6[6] = {ptr(buf), ptr(buf), ptr(buf), 1, 1, 64};
  CHECK_ERR(fm_launch("gemv_f32_wrap_k", 1, 64, a6, 6), FM_ERR, "did you mean 'gemv_f32_warp_k'");
  CHECK_ERR(fm_launch("gemv_f32_warp_k", 1, 64, a6, 5), FM_ERR_ARGC, "takes 6 explicit arguments, 5 given");
  CHECK_ERR(fm_launch("gemv_f32_warp_k", 0, 64, a6, 6), FM_ERR_LAUNCH, "grid x is 0 workgroups");
  CHECK_ERR(fm_launch(NULL, 1, 64, a6, 6), FM_ERR, "NULL");
  CHECK_ERR(fm_launch("gemv_f32_warp_k", 1, 64, NULL, 6), FM_ERR_LAUNCH, "argv is NULL");
  CHECK_ERR(fm_download(host, buf, 1028), FM_ERR, "runs 4 bytes past the end");
  CHECK_ERR(fm_upload((char*)buf + 1024, host, 1), FM_ERR, "is not inside any buffer");
  CHECK_ERR(fm_download(host, (void*)0x10, 4), FM_ERR, "0x10 is not inside any buffer");
  CHECK_ERR(fm_memset(buf, 0, 2000), FM_ERR, "past the end");
  CHECK_ERR(fm_copy(x, buf, 128), FM_ERR, "destination");

  /* use after free, double free */
  CHECK(fm_release(x) == 0);
  CHECK_ERR(fm_upload(x, host, 4), FM_ERR, "use after free");
  uint64_t fill[3] = {ptr(x), f32(1.0f), 16};
  CHECK_ERR(fm_launch("fill_f32_k", 1, 64, fill, 3), FM_ERR_LAUNCH, "use after free");
  CHECK_ERR(fm_release(x), FM_ERR, "double free");
  fm_free(x); /* void: the error only lands in fm_last_error */
  CHECK(strstr(fm_last_error(), "double free") != NULL);
  fm_free(NULL);

  /* a kernel that faults: the report reaches fm_sync */
  uint64_t f[1] = {ptr(buf)};
  CHECK(fm_launch("fault_k", 1, 64, f, 1) == 0);
  CHECK_ERR(fm_sync(), FM_ERR, "emulator fault: out-of-bounds access");
  CHECK(strstr(fm_last_error(), "kernel 'fault_k' faulted") != NULL);
  CHECK(fm_sync() == 0);

  /* f32 scalar as bits, 2-D launch, memset, copy */
  uint64_t fa[3] = {ptr(buf), f32(0.75f), 256};
  CHECK(fm_launch2d("fill_f32_k", 4, 1, 64, 1, fa, 3) == 0);
  float v[256];
  CHECK(fm_download(v, buf, sizeof v) == 0);
  CHECK(v[0] == 0.75f && v[255] == 0.75f);
  CHECK(fm_memset(buf, 0, 8) == 0);
  CHECK(fm_download(v, buf, 12) == 0);
  CHECK(v[0] == 0.0f && v[1] == 0.0f && v[2] == 0.75f);

  /* a second package, and a run-time module for dynamic launches */
  CHECK(fm_load(argv[2]) == 0);
  CHECK(fm_has_kernel("vscale_k") == 1);
  CHECK_ERR(fm_load(argv[1]), 0, "");  /* already loaded: nothing to do */
  uint64_t vs[3] = {ptr(buf), f32(2.0f), 256};
  CHECK(fm_launch("vscale_k", 4, 64, vs, 3) == 0);
  CHECK(fm_download(v, buf, 12) == 0);
  CHECK(v[2] == 1.5f);
  uint32_t layout[9] = {0, 8, 0, 8, 4, 0, 12, 4, 0};
  CHECK(fm_launch_dyn("vscale_k", 4, 1, 64, 1, layout, 3, 0, 0, 16, vs, 3) == 0);
  CHECK_ERR(fm_launch_dyn("vscale_k", 4, 1, 64, 1, layout, 3, 0, 0, 16, vs, 2), FM_ERR_ARGC, "3 explicit arguments, 2 given");
  CHECK_ERR(fm_launch_dyn("vscale_k", 4, 1, 64, 1, layout, 3, 0, 0, 4096, vs, 3), FM_ERR_KERNARG, "4096");
  CHECK_ERR(fm_launch_dyn("vscal_k", 4, 1, 64, 1, layout, 3, 0, 0, 16, vs, 3), FM_ERR, "did you mean 'vscale_k'");
  CHECK(fm_download(v, buf, 12) == 0);
  CHECK(v[2] == 3.0f);

  /* batches: [id, grid, wg, nargs, argv...]; stops at the first invalid record */
  int id = fm_kernel_id("vscale_k");
  uint64_t plan[] = {(uint64_t)id, 4, 64, 3, ptr(buf), f32(0.5f), 256,
                     (uint64_t)id, 4, 64, 3, ptr(buf), f32(0.5f), 256,
                     (uint64_t)id, 4, 64, 2, ptr(buf), f32(0.5f)};
  CHECK_ERR(fm_launch_batch(plan, 3), 2, "record 2");
  CHECK(fm_download(v, buf, 12) == 0);
  CHECK(v[2] == 0.75f);
  CHECK(fm_launch_batch(plan, -1) == 0);

  /* timing events */
  int e0 = fm_event_record();
  CHECK(fm_launch("vscale_k", 4, 64, vs, 3) == 0);
  int e1 = fm_event_record();
  double ms = -1;
  CHECK(e0 >= 0 && e1 >= 0);
  CHECK(fm_event_elapsed(e0, e1, &ms) == 0 && ms >= 0);
  CHECK_ERR(fm_event_elapsed(e0, 999, &ms), FM_ERR, "no event 999");
  CHECK(fm_event_release(e0) == 0 && fm_event_release(e1) == 0);

  /* the catalog */
  int len = fm_catalog_json(NULL, NULL, 0);
  CHECK(len > 100);
  char* json = malloc((size_t)len + 1);
  CHECK(fm_catalog_json(argv[2], json, (size_t)len + 1) > 0);
  CHECK(strstr(json, "vscale_k") != NULL && strstr(json, "gemv_f32_warp_k") == NULL);
  free(json);

  /* a runaway kernel: the instruction budget ends it, fm_cancel stops it */
  CHECK(fm_load(argv[3]) == 0);
  CHECK(fm_budget() > 0);
  CHECK(fm_set_budget(20000) == 0 && fm_budget() == 20000);
  uint64_t trips[1] = {1000000};
  CHECK(fm_launch("spin_k", 1, 64, trips, 1) == 0);
  CHECK_ERR(fm_sync(), FM_ERR, "instruction budget of 20000");
  trips[0] = 100;
  CHECK(fm_launch("spin_k", 1, 64, trips, 1) == 0);
  CHECK(fm_sync() == 0);
  CHECK(fm_set_budget(0) == 0 && fm_budget() > 20000); /* the default again */
  trips[0] = 0; /* forever */
  CHECK(fm_launch("spin_k", 1, 64, trips, 1) == 0);
  CHECK(fm_launch("vscale_k", 4, 64, vs, 3) == 0); /* queued behind it: dropped */
  CHECK(fm_wait(20) == 1);                         /* still running */
  CHECK(fm_cancel() == 0);
  CHECK(fm_wait(0) == 0);
  CHECK_ERR(fm_sync(), FM_ERR_CANCELLED, "cancelled");
  CHECK(fm_sync() == 0); /* reported once */
  CHECK_ERR(fm_wait(-1), FM_ERR, "negative timeout");

  fm_free(buf);
  CHECK(fm_shutdown() == 0);
  CHECK(fm_alloc(4) == NULL); /* closed */
  CHECK(fm_shutdown() == 0);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("c_abi_test: all checks passed\n");
  return 0;
}
