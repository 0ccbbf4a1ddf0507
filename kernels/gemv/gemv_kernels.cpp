// GEMV / GEMM kernels (f32, int8): definitions, host references and tests.
// The kernels are generated (gemv_f32_wave.cpp, gemv_f32_rows8.cpp,
// gemv_i8.cpp); this file registers them with their documentation, test
// cases and host references.
#include <algorithm>
#include <cmath>
#include <limits>

#include "gemv/gemv_generators.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

using gemv::Rows8Gemv;
using gemv::WaveGemv;

uint32_t ceil_div(int64_t a, int64_t b) { return uint32_t((a + b - 1) / b); }

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------- references ---

// y[n] = init[n] + sum_c w[n * pitch + c] * v[c], c < k, accumulated in double.
std::vector<float> gemv_reference(const std::vector<float>& w, const std::vector<double>& v, int64_t n, int64_t k,
                                  int64_t pitch, const std::vector<float>* init = nullptr) {
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    double acc = init ? double((*init)[size_t(r)]) : 0.0;
    for (int64_t c = 0; c < k; ++c) acc += double(w[size_t(r * pitch + c)]) * v[size_t(c)];
    y[size_t(r)] = float(acc);
  }
  return y;
}

std::vector<double> widen(const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); }

// silu(gate[k]) * up[k] in double.
std::vector<double> swiglu_reference(const std::vector<float>& gate, const std::vector<float>& up) {
  std::vector<double> a(gate.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    double g = gate[i];
    a[i] = g / (1.0 + std::exp(-g)) * double(up[i]);
  }
  return a;
}

// f32 GEMV tolerance: sums of up to 17408 products of values in [-1, 1]
// (gated: silu(gate) * up with gate in [-4, 4]; i8: effective weights in
// [-1.5, 1.5]) in another order, v_exp/v_rcp at 1 ulp. The largest error the
// sweep measured is 3.4e-5 (gated, k = 17408); default sizes stay below 6e-6.
Tolerance gemv_tolerance() { return Tolerance{5e-5, 2e-5}; }

// An f32 GEMV case: w [n][k] and x [k] uniform, y NaN (every row must be
// written) or, with `acc`, random values the kernel adds to; argv (w, x, y,
// n, kdim, last), the workgroup size "wg" (64 by default).
CaseResult run_f32(TestDevice& dev, const Case& c, const codegen::Signature& sig, Dim3 grid, bool acc, int64_t kdim,
                   int64_t last) {
  int64_t n = c["n"], k = c["k"];
  Rng rng(c.seed);
  auto w = rng.uniform(size_t(n * k));
  auto x = rng.uniform(size_t(k));
  auto y0 = acc ? rng.uniform(size_t(n)) : std::vector<float>(size_t(n), kNaN);
  DeviceBuffer<float> dw(dev, w), dx(dev, x), dy(dev, y0);
  launch(dev, sig, grid, {uint32_t(dim(c, "wg", 64))}, {dw.addr(), dx.addr(), dy.addr(), n, kdim, last});
  return compare(dy.download(), gemv_reference(w, widen(x), n, k, k, acc ? &y0 : nullptr), gemv_tolerance());
}

// ------------------------------------------------------- one wave per row ---

std::vector<Case> wave_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "k"}, {{1, 64}, {3, 100}, {17, 256}, {64, 640}, {129, 1000}});
  if (sweep) {
    for (int64_t n : {1, 2, 63, 65, 300})
      for (int64_t k : {0, 1, 7, 63, 64, 65, 255, 257, 511, 512, 513, 1024, 2049, 5120, 17408})
        c.push_back(make_case({{"n", n}, {"k", k}}, uint32_t(n * 7 + k)));
    // Workgroups other than one wave, and grids larger than nrows.
    for (int64_t wg : {32, 128, 256}) c.push_back(make_case({{"n", 40}, {"k", 777}, {"wg", wg}}, uint32_t(wg)));
    c.push_back(make_case({{"n", 33}, {"k", 300}, {"grid", 50}}, 9));
  }
  return c;
}

CaseResult run_wave(TestDevice& dev, const Case& c, WaveGemv kind) {
  int64_t n = c["n"], k = c["k"];
  uint32_t wg = uint32_t(dim(c, "wg", 64)), grid = uint32_t(dim(c, "grid", n));
  if (kind != WaveGemv::GatedAcc)
    return run_f32(dev, c, gemv::wave_gemv_signature(kind), {grid}, kind == WaveGemv::Acc, k, 64);
  Rng rng(c.seed);
  auto w = rng.uniform(size_t(n * k));
  auto gate = rng.uniform(size_t(k), -4.f, 4.f);
  auto up = rng.uniform(size_t(k));
  auto y0 = rng.uniform(size_t(n));
  DeviceBuffer<float> dw(dev, w), dg(dev, gate), du(dev, up), dy(dev, y0);
  launch(dev, gemv::wave_gemv_signature(kind), {grid}, {wg}, {dw.addr(), dg.addr(), du.addr(), dy.addr(), n, k, 64});
  return compare(dy.download(), gemv_reference(w, swiglu_reference(gate, up), n, k, k, &y0), Tolerance{1e-4, 2e-5});
}

// ------------------------------------------------------ 8 rows per wave ---

std::vector<Case> rows8_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "k"}, {{8, 128}, {13, 100}, {64, 640}, {200, 1000}, {24, 1}});
  if (sweep) {
    for (int64_t n : {1, 7, 8, 9, 63, 65, 300})
      for (int64_t k : {0, 1, 7, 127, 128, 129, 255, 256, 640, 1000, 5120, 17408})
        c.push_back(make_case({{"n", n}, {"k", k}}, uint32_t(n * 5 + k)));
    for (int64_t wg : {32, 128}) c.push_back(make_case({{"n", 40}, {"k", 300}, {"wg", wg}}, uint32_t(wg)));
    c.push_back(make_case({{"n", 33}, {"k", 256}, {"grid", 10}}, 9));
  }
  return c;
}

CaseResult run_rows8(TestDevice& dev, const Case& c, bool acc) {
  const Dim3 grid{uint32_t(dim(c, "grid", ceil_div(c["n"], 8)))};
  return run_f32(dev, c, gemv::rows8_gemv_signature(acc ? Rows8Gemv::Acc : Rows8Gemv::Plain), grid, acc, c["k"], 64);
}

std::vector<Case> split_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "k", "stride", "sh"}, {{8, 128, 128, 0}, {16, 1000, 1024, 2},
                                                               {24, 2048, 2100, 4}, {13, 300, 333, 3}});
  if (sweep)
    for (int64_t n : {1, 8, 13, 64})
      for (int64_t k : {0, 1, 100, 128, 1000, 4096})
        for (int64_t sh : {0, 1, 4, 6})
          for (int64_t pad : {0, 3, 64})
            c.push_back(make_case({{"n", n}, {"k", k}, {"stride", k + pad}, {"sh", sh}}, uint32_t(n + k + sh + pad)));
  return c;
}

// The partials of each row summed on the host (what reduce_blocks_k with
// nbpr = 2^sh does) against the GEMV over the first k columns.
CaseResult run_split(TestDevice& dev, const Case& c) {
  int64_t n = c["n"], k = c["k"], stride = c["stride"], sh = c["sh"];
  int64_t slices = int64_t(1) << sh;
  Rng rng(c.seed);
  auto w = rng.uniform(size_t(std::max<int64_t>((n - 1) * stride + k, 0)));
  auto x = rng.uniform(size_t(k));
  DeviceBuffer<float> dw(dev, w), dx(dev, x), dp(dev, std::vector<float>(size_t(n * slices), kNaN));
  launch(dev, gemv::rows8_gemv_signature(Rows8Gemv::Split), {ceil_div(n, 8) << sh}, {64},
             {dw.addr(), dx.addr(), dp.addr(), n, k, stride, sh});
  auto part = dp.download();
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    double s = 0;
    for (int64_t j = 0; j < slices; ++j) s += part[size_t(r * slices + j)];  // NaN if a slot was not written
    y[size_t(r)] = float(s);
  }
  return compare(y, gemv_reference(w, widen(x), n, k, stride), gemv_tolerance());
}

// ----------------------------------------------- group_size rows per group ---

std::vector<Case> groups_cases(bool sweep, bool i8) {
  const char* kdim = i8 ? "ngroups" : "k";
  std::vector<Case> c;
  auto add = [&](int64_t n, int64_t k, int64_t group, int64_t wg, int64_t grid, uint32_t seed) {
    c.push_back(make_case({{"n", n}, {kdim, k}, {"group", group}, {"wg", wg}, {"grid", grid}}, seed));
  };
  // grid 0: ceil(n / group).
  if (i8) {
    add(1, 1, 64, 64, 0, 1);
    add(37, 33, 64, 64, 0, 2);     // a 1024-column step plus one group
    add(130, 40, 256, 256, 0, 3);
    add(50, 20, 16, 128, 0, 4);    // workgroup larger than group_size
  } else {
    add(1, 4, 64, 64, 0, 1);
    add(100, 260, 64, 64, 0, 2);
    add(70, 512, 32, 128, 0, 3);   // workgroup larger than group_size
    add(65, 100, 64, 64, 65, 4);   // the package examples' grid = nrows
  }
  if (sweep) {
    const std::vector<int64_t> ks = i8 ? std::vector<int64_t>{0, 1, 31, 32, 33, 100, 160}
                                       : std::vector<int64_t>{0, 4, 64, 100, 1024, 5120, 17408};
    for (int64_t n : {1, 63, 65, 300})
      for (int64_t k : ks)
        for (auto [group, wg] : std::vector<std::pair<int64_t, int64_t>>{
                 {64, 64}, {256, 256}, {64, 128}, {100, 64}, {0, 192}, {32, 32}, {1, 64}, {7, 256}})
          add(n, k, group, wg, 0, uint32_t(n * 3 + k + group + wg));
    for (int64_t n : {1, 300}) add(n, i8 ? 33 : 100, 64, 64, n, 7);
  }
  return c;
}

uint32_t groups_grid(const Case& c) {
  int64_t n = c["n"], group = dim(c, "group", 64), wg = dim(c, "wg", 64), grid = dim(c, "grid", 0);
  if (grid) return uint32_t(grid);
  return ceil_div(n, group ? group : wg);
}

CaseResult run_gemv_f32(TestDevice& dev, const Case& c) {
  return run_f32(dev, c, gemv::rows8_gemv_signature(Rows8Gemv::Groups), {groups_grid(c)}, false, c["k"] / 4,
                 dim(c, "group", 64));
}

// gemv_i8_k: weight rows padded to `rowbytes` (k + 4 * wpad), scale rows to
// `ws_stride` (4 * (ngroups + spad)); padding holds values that must not count.
CaseResult run_gemv_i8(TestDevice& dev, const Case& c) {
  int64_t n = c["n"], ngroups = c["ngroups"], k = 32 * ngroups;
  int64_t rowbytes = k + 4 * dim(c, "wpad", 1), ws_stride = 4 * (ngroups + dim(c, "spad", 3));
  uint32_t wg = uint32_t(dim(c, "wg", 64)), group = uint32_t(dim(c, "group", 64));
  Rng rng(c.seed);
  auto wb = rng.bytes(size_t(n * rowbytes));
  auto ws = rng.uniform(size_t(n * ws_stride / 4), 0.5f / 127, 1.5f / 127);
  auto x = rng.uniform(size_t(k));
  DeviceBuffer<uint8_t> dw(dev, wb);
  DeviceBuffer<float> dws(dev, ws), dx(dev, x), dy(dev, std::vector<float>(size_t(n), kNaN));
  launch(dev, gemv::i8_gemv_signature(), {groups_grid(c)}, {wg},
             {dw.addr(), dws.addr(), dx.addr(), dy.addr(), n, ngroups, rowbytes, ws_stride,
              group});
  std::vector<float> want(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    double acc = 0;
    for (int64_t s = 0; s < ngroups; ++s) {
      double g = 0;
      for (int64_t j = 0; j < 32; ++j)
        g += double(int8_t(wb[size_t(r * rowbytes + 32 * s + j)])) * double(x[size_t(32 * s + j)]);
      acc += double(ws[size_t(r * ws_stride / 4 + s)]) * g;
    }
    want[size_t(r)] = float(acc);
  }
  return compare(dy.download(), want, gemv_tolerance());
}

// ------------------------------------------------------------ registry ---

KernelDef generated(codegen::Signature sig, std::function<codeobj::CodeObject(isa::Target)> gen) {
  KernelDef d = generated_kernel("gemv", std::move(sig), std::move(gen));
  d.tolerance = gemv_tolerance();
  return d;
}

uint64_t f32_gemv_bytes(const Case& c, int64_t y_passes) {
  return uint64_t(c["n"] * c["k"] + c["k"] + y_passes * c["n"]) * 4;
}

}  // namespace

void register_gemv_kernels(Registry& r) {
  const std::string one_wave_limits =
      "any nrows >= 1 and k >= 0 (k < 2^30; k = 0 gives a sum of 0); group_size is ignored: any workgroup size works (the first wave "
      "computes the row, lanes a workgroup smaller than 64 did not launch are enabled), rows past nrows do nothing";
  {
    KernelDef d = generated(gemv::wave_gemv_signature(WaveGemv::Plain), [](isa::Target t) { return gemv::build_wave_gemv(t, WaveGemv::Plain); });
    d.description =
        "General f32 GEMV, one wave per output row: each lane streams 16-byte pieces of the row (one 1 KiB load per "
        "wave step, two steps per loop trip, every weight line requested once), a DPP reduction gives the row sum. "
        "LDS 0 (the reference build declared 1024 bytes for an LDS tree reduction).";
    d.semantics = "y[n] = sum_k w[n][k] * x[k], w row-major [nrows][k]";
    d.geometry = "grid = nrows (rows past nrows do nothing), wg = 64";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = nrows";
    d.limits = one_wave_limits;
    d.cases = wave_cases;
    d.run = [](TestDevice& dev, const Case& c) { return run_wave(dev, c, WaveGemv::Plain); };
    d.ideal_bytes = [](const Case& c) { return f32_gemv_bytes(c, 1); };
    d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated(gemv::wave_gemv_signature(WaveGemv::Acc), [](isa::Target t) { return gemv::build_wave_gemv(t, WaveGemv::Acc); });
    d.description =
        "Accumulating f32 GEMV (a residual folded into the GEMV), one wave per output row, same streaming and DPP "
        "reduction as gemv_f32_warp_k; lane 0 reads y[n], adds the row sum and writes it back. LDS 0 (the reference "
        "build declared 1024 bytes).";
    d.semantics = "y[n] += sum_k w[n][k] * x[k], w row-major [nrows][k]";
    d.geometry = "grid = nrows (rows past nrows do nothing), wg = 64";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = nrows";
    d.limits = one_wave_limits;
    d.cases = wave_cases;
    d.run = [](TestDevice& dev, const Case& c) { return run_wave(dev, c, WaveGemv::Acc); };
    d.ideal_bytes = [](const Case& c) { return f32_gemv_bytes(c, 2); };
    d.bench_case = [] { return make_case({{"n", 5120}, {"k", 5120}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d =
        generated(gemv::wave_gemv_signature(WaveGemv::GatedAcc), [](isa::Target t) { return gemv::build_wave_gemv(t, WaveGemv::GatedAcc); });
    d.description =
        "Accumulating f32 GEMV with the SwiGLU input fused (the MLP down projection plus residual): one wave per "
        "output row streams w, gate and up in 1 KiB loads, forms silu(gate) * up = gate * up / (1 + 2^(-gate * "
        "log2 e)) with v_exp_f32 and v_rcp_f32 on the fly, and reduces with DPP; lane 0 adds the sum into y[n]. "
        "LDS 0 (the reference build declared 1024 bytes).";
    d.semantics = "y[n] += sum_k w[n][k] * silu(gate[k]) * up[k], silu(g) = g / (1 + e^-g), w row-major [nrows][k]";
    d.geometry = "grid = nrows (rows past nrows do nothing), wg = 64";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = nrows";
    d.limits = one_wave_limits;
    d.tolerance = Tolerance{1e-4, 2e-5};  // silu(gate) * up reaches 4: sums twice as wide as the plain GEMV's
    d.cases = wave_cases;
    d.run = [](TestDevice& dev, const Case& c) { return run_wave(dev, c, WaveGemv::GatedAcc); };
    d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"] * c["k"] + 2 * c["k"] + 2 * c["n"]) * 4; };
    d.bench_case = [] { return make_case({{"n", 5120}, {"k", 17408}}); };
    r.add(std::move(d));
  }
  const std::string rows8_limits =
      "any nrows >= 1 (a partial last block is masked) and any k >= 0 (k % 128 columns run as a dword tail; the "
      "reference build required nrows % 8 = 0 and k % 128 = 0), k < 2^27; group_size is ignored: any workgroup size "
      "works (the first wave computes the block), blocks past ceil(nrows/8) do nothing";
  const char* rows8_how =
      "8 rows per single-wave workgroup: lane >> 3 picks the row, lane & 7 a column slot; per 128-column chunk each "
      "lane loads 4 dwordx4 pieces of its row at 32 i + 4 (lane & 7), so each load covers 2 whole lines of each of "
      "the 8 rows and no weight line is requested twice; 3 DPP steps sum each row. Best for short rows (k <= 512). "
      "LDS 0 (the reference build declared 256 bytes).";
  {
    KernelDef d = generated(gemv::rows8_gemv_signature(Rows8Gemv::Plain), [](isa::Target t) { return gemv::build_rows8_gemv(t, Rows8Gemv::Plain); });
    d.description = std::string("f32 GEMV with ") + rows8_how;
    d.semantics = "y[n] = sum_k w[n][k] * x[k], w row-major [nrows][k]";
    d.geometry = "grid = ceil(nrows/8) (nrows/8 when nrows % 8 = 0), wg = 64";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = ceil_div(nrows, 8)";
    d.limits = rows8_limits;
    d.cases = rows8_cases;
    d.run = [](TestDevice& dev, const Case& c) { return run_rows8(dev, c, false); };
    d.ideal_bytes = [](const Case& c) { return f32_gemv_bytes(c, 1); };
    d.bench_case = [] { return make_case({{"n", 16384}, {"k", 128}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated(gemv::rows8_gemv_signature(Rows8Gemv::Acc), [](isa::Target t) { return gemv::build_rows8_gemv(t, Rows8Gemv::Acc); });
    d.description = std::string("Accumulating f32 GEMV (residual folded in, y[n] += ...) with ") + rows8_how;
    d.semantics = "y[n] += sum_k w[n][k] * x[k], w row-major [nrows][k]";
    d.geometry = "grid = ceil(nrows/8) (nrows/8 when nrows % 8 = 0), wg = 64";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = ceil_div(nrows, 8)";
    d.limits = rows8_limits;
    d.cases = rows8_cases;
    d.run = [](TestDevice& dev, const Case& c) { return run_rows8(dev, c, true); };
    d.ideal_bytes = [](const Case& c) { return f32_gemv_bytes(c, 2); };
    d.bench_case = [] { return make_case({{"n", 16384}, {"k", 128}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d =
        generated(gemv::rows8_gemv_signature(Rows8Gemv::Split), [](isa::Target t) { return gemv::build_rows8_gemv(t, Rows8Gemv::Split); });
    d.description =
        std::string("Split-K f32 GEMV over the first k columns of rows with pitch `stride` (e.g. a V^T cache of width "
                    "max_len): workgroup id = (row block << sh) | slice; the ceil(k/128) 128-column chunks are cut "
                    "into 2^sh contiguous slices of ceil(chunks / 2^sh) chunks, and slice s of row n writes its "
                    "partial dot to part[n * 2^sh + s] (0 for a slice past the end), so the 2^sh partials of a row "
                    "sum to the row's dot product (reduce_blocks_k with nbpr = 2^sh). Inside a slice: ") +
        rows8_how;
    d.semantics =
        "part[n * 2^sh + s] = sum_(c in slice s) w[n * stride + c] * x[c], slice s = columns [s * L, min(k, (s+1) * "
        "L)), L = 128 * ceil(ceil(k/128) / 2^sh); sum_s part[n * 2^sh + s] = sum_(c<k) w[n * stride + c] * x[c]";
    d.geometry = "grid = ceil(nrows/8) << sh, wg = 64";
    d.launch = "sizes nrows splits\nworkgroup = 64\ngrid = ceil_div(nrows, 8) * splits\narg sh = log2_ceil(splits)";
    d.limits =
        "any nrows >= 1, any k >= 0 and stride < 2^27, stride >= k in the usual case (w must hold (nrows-1) * stride + k "
        "floats), sh <= 24 (larger sh writes nothing); part holds nrows * 2^sh floats; any workgroup size works";
    d.cases = split_cases;
    d.run = run_split;
    d.ideal_bytes = [](const Case& c) {
      return uint64_t(c["n"] * c["k"] + c["k"] + (c["n"] << dim(c, "sh", 4))) * 4;
    };
    d.bench_case = [] { return make_case({{"n", 1024}, {"k", 4096}, {"stride", 8192}, {"sh", 4}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated(gemv::rows8_gemv_signature(Rows8Gemv::Groups), [](isa::Target t) { return gemv::build_rows8_gemv(t, Rows8Gemv::Groups); });
    d.description =
        "Plain f32 GEMV (the fallback path; k = 4 * nchunks): workgroup id takes rows [id * group_size, (id + 1) * "
        "group_size); its waves split them into 8-row blocks computed like gemv_f32_rows8_k (8 lanes per row, "
        "dwordx4 loads covering whole lines, DPP row sums) instead of the reference build's one work-item per row, "
        "whose per-lane row loops requested every line four times. The kernel reads the real workgroup size from "
        "the dispatch packet, so group_size no longer has to equal it.";
    d.semantics = "y[n] = sum_(k < 4 * nchunks) w[n][k] * x[k], w row-major [nrows][4 * nchunks]";
    d.geometry =
        "grid = ceil(nrows/group_size), wg = group_size (any wg works; the package examples' grid = nrows, wg = 64 "
        "is correct with idle workgroups)";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = ceil_div(nrows, 64)";
    d.limits =
        "any nrows >= 1, nchunks >= 0 (nchunks < 2^25); group_size = rows per workgroup, 0 means the workgroup size; "
        "grid * group_size must cover nrows; wg <= 256";
    d.cases = [](bool sweep) { return groups_cases(sweep, false); };
    d.run = run_gemv_f32;
    d.ideal_bytes = [](const Case& c) { return f32_gemv_bytes(c, 1); };
    d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}, {"group", 64}, {"wg", 64}, {"grid", 0}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated(gemv::i8_gemv_signature(), [](isa::Target t) { return gemv::build_i8_gemv(t); });
    d.description =
        "int8-weight GEMV with one f32 scale per 32 weights (the second half of the 'decode to int8, then generic "
        "GEMV' route): workgroup id takes rows [id * group_size, (id + 1) * group_size), each wave computes 4 rows "
        "at a time so every x load serves 4 rows; per 1024 columns a lane reads one weight dword per row (256 "
        "contiguous bytes per load), x as dwordx4 (1 KiB per load) and the 32 scales of a row with one load, "
        "picked per lane by ds_bpermute_b32; SDWA conversions sign-extend the bytes, DPP reduces the rows. The "
        "kernel reads the real workgroup size from the dispatch packet, so group_size no longer has to equal it. "
        "LDS 0.";
    d.semantics =
        "y[n] = sum_(s < ngroups) ws[n][s] * sum_(j<32) w[n][32 s + j] * x[32 s + j]; row n of w at byte n * "
        "rowbytes, row n of ws at byte n * ws_stride";
    d.geometry =
        "grid = ceil(nrows/group_size), wg = group_size (any wg works; the docs' grid = nrows, wg = 64 is correct "
        "with idle workgroups)";
    d.launch = "sizes nrows\nworkgroup = 64\ngrid = ceil_div(nrows, 64)";
    d.limits =
        "any nrows >= 1, ngroups >= 0 (ngroups < 2^25); rowbytes >= 32 * ngroups and ws_stride >= 4 * ngroups, both "
        "multiples of 4 (w, ws, x 4-byte aligned); group_size = rows per workgroup, 0 means the workgroup size; grid "
        "* group_size must cover nrows; wg <= 256";
    d.cases = [](bool sweep) { return groups_cases(sweep, true); };
    d.run = run_gemv_i8;
    d.ideal_bytes = [](const Case& c) {
      int64_t n = c["n"], g = c["ngroups"];
      return uint64_t(n * 32 * g + 4 * (n * g + 32 * g + n));
    };
    d.bench_case = [] {
      return make_case({{"n", 17408}, {"ngroups", 160}, {"group", 64}, {"wg", 64}, {"grid", 0}, {"wpad", 0},
                        {"spad", 0}});
    };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
