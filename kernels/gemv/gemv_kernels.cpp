// GEMV / GEMM kernels (f32, int8): definitions, host references and tests.
#include <cmath>

#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

// y[n] = sum_k w[n][k] * x[k], accumulated in double for the reference.
std::vector<float> gemv_reference(const std::vector<float>& w, const std::vector<float>& x, int64_t n, int64_t k) {
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    double acc = 0;
    for (int64_t c = 0; c < k; ++c) acc += double(w[size_t(r * k + c)]) * double(x[size_t(c)]);
    y[size_t(r)] = float(acc);
  }
  return y;
}

// f32 GEMV tolerance: sums of k products of values in [-1, 1] in another order.
Tolerance gemv_tolerance() { return Tolerance{2e-5, 2e-5}; }

std::vector<Case> gemv_cases(bool sweep) {
  std::vector<Case> c = {make_case({{"n", 1}, {"k", 64}}), make_case({{"n", 3}, {"k", 100}}, 2),
                         make_case({{"n", 17}, {"k", 256}}, 3), make_case({{"n", 64}, {"k", 640}}, 4),
                         make_case({{"n", 129}, {"k", 1000}}, 5)};
  if (sweep)
    for (int64_t n : {1, 2, 63, 65, 300})
      for (int64_t k : {1, 7, 63, 64, 65, 255, 257, 1024, 2049, 5120}) c.push_back(make_case({{"n", n}, {"k", k}}, uint32_t(n * 7 + k)));
  return c;
}

}  // namespace

void register_gemv_kernels(Registry& r) {
  KernelDef d;
  d.lookup = "gemv_f32_warp_k";
  d.family = "gemv";
  d.source = "gemv/gemv_f32_warp_k.s";
  d.description =
      "General f32 GEMV, one wave per output row: each lane streams 16-byte pieces of the row "
      "(one 1 KiB load per wave step, every weight line requested once), a DPP reduction gives the row sum.";
  d.semantics = "y[n] = sum_k w[n][k] * x[k], w row-major [nrows][k]";
  d.geometry = "grid = nrows (rows past nrows do nothing), wg = 64";
  d.limits = "group_size must be 64 (the workgroup size); any k >= 1";
  d.tolerance = gemv_tolerance();
  d.cases = gemv_cases;
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t n = c["n"], k = c["k"];
    Rng rng(c.seed);
    auto w = rng.uniform(size_t(n * k));
    auto x = rng.uniform(size_t(k));
    DeviceBuffer<float> dw(dev, w), dx(dev, x), dy(dev, size_t(n));
    dev.launch("gemv_f32_warp_k", {uint32_t(n)}, {64}, {dw.addr(), dx.addr(), dy.addr(), u32(n), u32(k), 64});
    return compare(dy.download(), gemv_reference(w, x, n, k), gemv_tolerance());
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"] * c["k"] + c["k"] + c["n"]) * 4; };
  d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}}); };
  r.add(std::move(d));
}

}  // namespace k100::kernels
