// The quick start in C++: y = W x with gemv_f32_warp_k through k100::Runtime,
// checked against a double-precision host loop. Runs on the DCU when there is
// one, else on the emulator (K100_BACKEND=auto|emu|hsa chooses).
//
//   build/bin/cpp_gemv [n k]          (built with the project: cmake --build build)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <vector>

#include "k100/runtime/runtime.h"

int main(int argc, char** argv) {
  uint32_t n = argc > 2 ? uint32_t(std::strtoul(argv[1], nullptr, 10)) : 256;
  uint32_t k = argc > 2 ? uint32_t(std::strtoul(argv[2], nullptr, 10)) : 640;
  if (n == 0 || k == 0) {
    std::fprintf(stderr, "usage: cpp_gemv [n k] (both at least 1)\n");
    return 2;
  }
  std::mt19937 gen(0);
  std::normal_distribution<float> normal;
  std::vector<float> w(size_t(n) * k), x(k), y(n);
  for (float& v : w) v = normal(gen);
  for (float& v : x) v = normal(gen);
  try {
    k100::Runtime rt;  // the default kernel package on the backend K100_BACKEND picks
    uint64_t dw = rt.alloc(w.size() * 4), dx = rt.alloc(k * 4), dy = rt.alloc(n * 4);
    rt.upload(dw, w.data(), w.size() * 4);
    rt.upload(dx, x.data(), x.size() * 4);
    // grid = n WORKGROUPS of 64 work-items: one wave per row
    rt.launch("gemv_f32_warp_k", n, 64, k100::runtime::args(dw, dx, dy, n, k, 64u));
    rt.sync();
    rt.download(y.data(), dy, n * 4);
    double err = 0, scale = 1;
    for (uint32_t r = 0; r < n; ++r) {
      double ref = 0;
      for (uint32_t c = 0; c < k; ++c) ref += double(w[size_t(r) * k + c]) * double(x[c]);
      err = std::max(err, std::fabs(double(y[r]) - ref));
      scale = std::max(scale, std::fabs(ref) / 100);
    }
    std::printf("backend %s: gemv %ux%u max error %.3g\n", rt.backend_name().c_str(), n, k, err);
    rt.free(dw);
    rt.free(dx);
    rt.free(dy);
    return err < 1e-4 * scale ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpp_gemv: %s\n", e.what());
    return 1;
  }
}
