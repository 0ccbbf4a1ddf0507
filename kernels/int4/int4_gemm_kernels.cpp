// Registration of the W4A4 prefill GEMM: gemm_w4a4 (2D grid, or per-slab 1D
// launches) and gemm_w4a4_flat (one 1D launch, tile from a magic division).
// Tested against quant::gemv_quantized_reference (weights in the GEMM's
// layout kRt4Int4Gemm, activations kActW4A4Prefill).
#include <algorithm>
#include <cstring>
#include <limits>
#include <span>
#include <map>

#include "int4/gemm_w4a4.h"
#include "k100/codegen/division.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/activation_quant.h"

namespace k100::kernels {

namespace int4 {

namespace {

// Tolerance of the f32 accumulation over the groups: every group's integer
// dot is exact; scale products and sums are rounded in f32 (the reference
// rounds once, from double). Stated for scales of the order 2^-4..2^-6 (a
// quantiser's outputs for inputs of order 1) and K <= 5120.
Tolerance gemm_tolerance() { return Tolerance{2e-5, 2e-5}; }

struct GemmInputs {
  std::vector<uint8_t> aq, wq;     // [M][K/2], [N][K/2] bytes
  std::vector<float> asc, wsc;     // [K/128][M], [K/128][N]
};

// Random codes; scales of order 2^-4..2^-6, or all 1 (`unit`: then every
// output is an integer sum below 2^24 and the f32 result must be exact).
GemmInputs gemm_inputs(uint32_t seed, int64_t M, int64_t N, int64_t K, bool unit) {
  Rng rng(seed);
  GemmInputs in{rng.bytes(size_t(M * K / 2)), rng.bytes(size_t(N * K / 2)), {}, {}};
  in.asc = unit ? std::vector<float>(size_t(K / 128 * M), 1.0f) : rng.uniform(size_t(K / 128 * M), 1.0f / 64, 1.0f / 16);
  in.wsc = unit ? std::vector<float>(size_t(K / 128 * N), 1.0f) : rng.uniform(size_t(K / 128 * N), 1.0f / 64, 1.0f / 16);
  return in;
}

// The reference of rows `rows` (all of them, or a sample for the benchmark).
std::vector<float> gemm_reference(const GemmInputs& in, int64_t M, int64_t N, int64_t K,
                                  const std::vector<int64_t>& rows) {
  quant::W4Matrix w;
  w.format = &quant::kRt4Int4Gemm;
  w.n = N;
  w.k = K;
  w.codes = in.wq;
  w.scales = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(in.wsc.data()), in.wsc.size() * 4);
  quant::QuantizedActivations a;
  a.format = &quant::kActW4A4Prefill;
  a.m = int64_t(rows.size());
  a.k = K;
  const int64_t groups = K / 128;
  for (int64_t r : rows) a.packed.insert(a.packed.end(), in.aq.begin() + r * K / 2, in.aq.begin() + (r + 1) * K / 2);
  a.scale.resize(size_t(groups * a.m));
  for (int64_t g = 0; g < groups; ++g)
    for (size_t i = 0; i < rows.size(); ++i) a.scale[size_t(g * a.m) + i] = in.asc[size_t(g * M + rows[i])];
  return quant::gemv_quantized_reference(w, a);
}

CaseResult run_gemm(TestDevice& dev, GemmGrid grid, const Case& c) {
  const int64_t M = c["m"], N = c["n"], K = c["k"];
  const bool unit = c["unit"] != 0, slabs = grid == GemmGrid::TwoD && c["slabs"] != 0;
  const std::string name = gemm_w4a4_signature(grid).kernel();
  const GemmInputs in = gemm_inputs(c.seed, M, N, K, unit);
  DeviceBuffer<uint8_t> daq(dev, in.aq), dwq(dev, in.wq);
  DeviceBuffer<float> dasc(dev, in.asc), dwsc(dev, in.wsc);
  DeviceBuffer<float> dc(dev, std::vector<float>(size_t(M * N), std::numeric_limits<float>::quiet_NaN()));
  const LaunchContract lc = dev.launch_contract(name);
  const Launch l = lc.evaluate({{"m", M}, {"n", N}, {"k", K}});
  if (grid == GemmGrid::Flat) {
    // The contract's multiplier is the exact one over the grid.
    const auto magic = codegen::magic_multiplier(uint32_t(N / 64), uint64_t(l.grid[0]));
    if (N / 64 > 1 && (!magic || *magic != l.args.at("magic"))) {
      CaseResult bad;
      bad.note = "the launch contract's magic " + std::to_string(l.args.at("magic")) + " is not the exact multiplier of " +
                 std::to_string(N / 64) + " over the grid";
      return bad;
    }
  }
  std::map<std::string, uint64_t> given = {
      {"aq", daq.addr()}, {"wq", dwq.addr()}, {"asc", dasc.addr()}, {"wsc", dwsc.addr()}, {"c", dc.addr()}};
  if (!slabs) {
    launch(dev, name, l, lc.argv(l, given));
  } else {
    // One 1D launch of N/64 workgroups per 128-row slab: aq, asc and c
    // advanced to the slab, M the full row count (asc is group-major).
    Launch slab = l;
    slab.grid = {l.grid[0], 1, 1};
    for (int64_t s = 0; s < M / 128; ++s) {
      std::map<std::string, uint64_t> at = given;
      at["aq"] += uint64_t(s * 128 * K / 2);
      at["asc"] += uint64_t(s * 128 * 4);
      at["c"] += uint64_t(s * 128 * N * 4);
      launch(dev, name, slab, lc.argv(slab, at));
    }
  }
  const std::vector<float> got = dc.download();
  // Every row, or (large cases) every 61st row and the last.
  std::vector<int64_t> rows;
  const bool sample = M * N * K > (int64_t(1) << 32);
  for (int64_t r = 0; r < M; r += sample ? 61 : 1) rows.push_back(r);
  if (rows.back() != M - 1) rows.push_back(M - 1);
  const std::vector<float> want = gemm_reference(in, M, N, K, rows);
  std::vector<float> picked;
  for (int64_t r : rows) picked.insert(picked.end(), got.begin() + r * N, got.begin() + (r + 1) * N);
  CaseResult res = compare(picked, want, gemm_tolerance());
  if (unit) res = combine({compare_exact_u32(bits_of(picked), bits_of(want)), res});  // integer outputs: exact
  if (sample) res.note += (res.note.empty() ? "" : "; ") + std::to_string(rows.size()) + " sampled rows checked";
  return res;
}

const char* kGemmDescription =
    "W4A4 prefill GEMM, one 128 x 64 tile of c per workgroup of 256 threads. Per 128-wide K group the tile's 128 "
    "activation rows and 64 weight rows (16 u32 each, rows padded to 20 dwords) and the group's 192 scales are staged "
    "in LDS, double-buffered (the next group's loads are in flight while a group is computed; one barrier per group). "
    "Thread (tm, tn) owns rows tm + 16 i (i < 8) and columns tn + 16 j (j < 4): per two dwords of K it reads 8 + 4 "
    "pairs with ds_read_b64 (a half-wave reads 4 rows and 8 columns in distinct banks) and does 64 v_dot8_i32_i4, so "
    "each output's integer dot over the group is exact; then c += f32(dot) * wsc * asc with the scales read from "
    "LDS. The reads are software-pipelined (the next pairs in flight while the current ones are multiplied; the "
    "previous group's scaling fills the wait for a group's first pairs). 32 KiB of LDS and <= 128 VGPRs: two "
    "workgroups per CU.";

void document(KernelDef& d, GemmGrid grid) {
  d.description = kGemmDescription;
  d.semantics = "c[m][n] = sum_g asc[g][m] * wsc[g][n] * sum_(k in g) qa[m][k] * qw[n][k], g = 128-wide K groups; qa, qw "
                "int4 two's complement 8 per u32 (low nibble = smaller k), aq [M][K/8], wq [N][K/8]; asc [K/128][M], "
                "wsc [K/128][N] f32 (group-major); c [M][N] f32";
  const std::string conditions = "((m % 128) == 0) * ((n % 64) == 0) * ((k % 128) == 0) * (k > 0)";
  if (grid == GemmGrid::TwoD) {
    d.description += " The tile is (workgroup id y, workgroup id x): a 2D dispatch and per-slab 1D launches give the "
                     "same c.";
    d.geometry = "[2D] grid = (N/64, M/128), wg = 256; or per 128-row slab s: grid = N/64 with aq, asc, c advanced by "
                 "s*128*K/2, s*128*4, s*128*N*4 bytes and M the full row count";
    d.launch = "sizes m n k\nworkgroup = select(" + conditions + ", 256, 0)\ngrid = n / 64, m / 128\narg M = m\narg N = n\n"
               "arg K = k";
  } else {
    d.description += " The tile comes from the 1D workgroup id f: row block = f / nbn by the magic multiplier "
                     "((f * magic) >> 32; nbn = 1: f), column block = f - row block * nbn.";
    d.geometry = "grid = (N/64) * (M/128), wg = 256";
    d.launch = "sizes m n k\nworkgroup = select(" + conditions + " * ((n / 64) * (n / 64) * (m / 128) < 4294967296), 256, "
               "0)\ngrid = (n / 64) * (m / 128)\narg M = m\narg N = n\narg K = k\narg nbn = n / 64\n"
               "arg magic = select(n / 64 > 1, 4294967296 / (n / 64) + 1, 0)";
  }
  d.limits = "M % 128 == 0, N % 64 == 0, K % 128 == 0, K > 0 (the contract refuses others: its workgroup is 0; "
             "workgroups past M or N write nothing); workgroup exactly 256 threads (the contract's; the thread "
             "layout is fixed); |sum of a group's products| < 2^31";
  if (grid == GemmGrid::Flat)
    d.limits += "; magic = floor(2^32 / nbn) + 1 must be exact for every f < grid: the contract takes nbn^2 * (M/128) "
                "< 2^32, where it is (codegen::magic_multiplier checks it)";
  d.tolerance = gemm_tolerance();
  d.ideal_bytes = [](const Case& c) {
    const uint64_t M = uint64_t(c["m"]), N = uint64_t(c["n"]), K = uint64_t(c["k"]);
    return (M + N) * K / 2 + (M + N) * (K / 128) * 4 + M * N * 4;
  };
}

KernelDef gemm_def(GemmGrid grid) {
  KernelDef d = generated_kernel("int4", gemm_w4a4_signature(grid), [grid](isa::Target t) { return build_gemm_w4a4(t, grid); });
  document(d, grid);
  d.cases = [grid](bool sweep) {
    // slabs: per-slab 1D launches (gemm_w4a4 only); unit: all scales 1 (exact)
    std::vector<Case> c = case_table({"m", "n", "k", "slabs", "unit"},
                                     {{128, 64, 128, 0, 1}, {128, 192, 384, 0, 0}, {256, 128, 640, 0, 0},
                                      {256, 192, 256, 0, 1}, {256, 64, 384, 1, 0}});
    // (gemm_w4a4_flat launches the slabs case whole: N/64 = 1 with two row blocks, where f / nbn is f)
    if (sweep) {
      auto more = case_table({"m", "n", "k", "slabs", "unit", "seed"},
                             {{384, 320, 1280, 0, 0, 31}, {512, 256, 512, grid == GemmGrid::TwoD ? 1 : 0, 1, 32}});
      c.insert(c.end(), more.begin(), more.end());
    }
    return c;
  };
  d.run = [grid](TestDevice& dev, const Case& c) { return run_gemm(dev, grid, c); };
  d.bench_case = [] { return make_case({{"m", 2048}, {"n", 17408}, {"k", 5120}, {"slabs", 0}, {"unit", 0}}); };
  return d;
}

}  // namespace

}  // namespace int4

void register_int4_gemm_kernels(Registry& r) {
  r.add(int4::gemm_def(int4::GemmGrid::TwoD));
  r.add(int4::gemm_def(int4::GemmGrid::Flat));
}

}  // namespace k100::kernels
