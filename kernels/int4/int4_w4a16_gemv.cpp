// int4_gemv_k (int4_w4a16_gemv.h): signature, generator, registry entry with
// its launch contract, test cases and host reference (quant::W4Matrix over
// kCompressedTensorsInt4 and quant::gemv_reference, written independently of
// the kernel).
#include "int4/int4_w4a16_gemv.h"

#include <cmath>
#include <limits>
#include <random>

#include "int4/int4_dot_generators.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/half.h"
#include "k100/quant/w4_formats.h"

namespace k100::kernels::int4 {

namespace {

// Waves of a workgroup per 64-row tile (the rest of the workgroup's waves
// take tiles of their own): chosen by the MODELED benchmark at 17408 x 5120.
constexpr int kSplit = 1;
// Threads per workgroup by default.
constexpr int kWorkgroup = 64;

}  // namespace

codegen::Signature int4_gemv_signature() {
  using namespace codegen;
  return Signature("int4_gemv_k",
                   {in("w", "u32"), in("scale", "bf16"), in("x", "f32"), out("y", "f32"), value("nrows", "u32"),
                    value("k", "u32"), value("m", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

codeobj::CodeObject build_int4_gemv(isa::Target target) {
  std::unique_ptr<gguf_gemv::GemvDecoder> dec = make_w4a16_decoder();
  return gguf_gemv::build_gemv_rows(target, int4_gemv_signature(), w4a16_group_shape(), *dec, kSplit);
}

}  // namespace k100::kernels::int4

namespace k100::kernels {

namespace {

using namespace int4;

// y has RMS about that of x (0.58) at any k: codes uniform (RMS of code - 8
// is 4.64), scales 0.5..1 over 4.64 sqrt(k) with a random sign. The kernel
// sums in f32 in another order than the double reference, the offset taken
// off per block with its sums of x.
Tolerance w4a16_gemv_tolerance() { return Tolerance{2e-5, 2e-5}; }

std::string launch_contract() {
  const std::string split = std::to_string(kSplit);
  // The kernel's own rule: W = the power of two at or below min(wg / 64, 8)
  // waves, min(split, W) of them per tile, the others on tiles of their own.
  return "sizes nrows k m\nchoose wg = " + std::to_string(kWorkgroup) +
         "\nlet m_is_1_to_4 = select(m >= 1, select(m <= 4, 1, 0), 0)\n"
         "let k_is_a_positive_multiple_of_128 = select(k >= 128, select(k % 128 == 0, 1, 0), 0)\n"
         "let wg_is_64_to_512_whole_waves = select(wg >= 64, select(wg <= 512, select(wg % 64 == 0, 1, 0), 0), 0)\n"
         "workgroup = wg\nlet waves = pow2_floor(min(wg / 64, 8))\nlet per = waves / min(" + split +
         ", waves)\n"
         "grid = ceil_div(ceil_div(nrows, 64), per) * m_is_1_to_4 * k_is_a_positive_multiple_of_128 * "
         "wg_is_64_to_512_whole_waves\narg nrows = nrows\narg k = k\narg m = m";
}

// Codes (random bytes) and bf16 scales of an n x k matrix, y of RMS ~0.58 for x uniform in [-1, 1].
struct Matrix {
  std::vector<uint8_t> codes, scales;
  quant::W4Matrix view(int64_t n, int64_t k) const {
    quant::W4Matrix m;
    m.format = &quant::kCompressedTensorsInt4;
    m.n = n;
    m.k = k;
    m.codes = codes;
    m.scales = scales;
    m.check("int4_gemv_k test matrix");
    return m;
  }
};

Matrix random_matrix(int64_t n, int64_t k, std::mt19937& rng) {
  Matrix m;
  m.codes.resize(size_t(n * k / 2));
  for (auto& b : m.codes) b = uint8_t(rng());
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  const float unit = float(1.0 / (4.64 * std::sqrt(double(k))));
  for (int64_t i = 0; i < n * k / kBlockElems; ++i) {
    const uint16_t b = quant::f32_to_bf16(u(rng) * unit * ((rng() & 1) ? -1.0f : 1.0f));
    m.scales.push_back(uint8_t(b));
    m.scales.push_back(uint8_t(b >> 8));
  }
  return m;
}

std::vector<Case> gemv_cases(bool sweep) {
  std::vector<Case> c;
  uint32_t seed = 1;
  auto add = [&](std::map<std::string, int64_t> d) { c.push_back(make_case(std::move(d), seed++)); };
  const int64_t b = kBlockElems;
  // Tails: rows not a multiple of 64, one to four rows of x, several 128-groups;
  // workgroups of 1 to 8 waves (tiles side by side), 3 waves (2 used).
  add({{"n", 64}, {"k", b}, {"m", 1}, {"wg", 64}});
  add({{"n", 70}, {"k", 3 * b}, {"m", 2}, {"wg", 128}});
  add({{"n", 33}, {"k", 5 * b}, {"m", 3}, {"wg", 256}});
  add({{"n", 130}, {"k", 4 * b}, {"m", 4}, {"wg", 512}});
  add({{"n", 200}, {"k", 7 * b}, {"m", 1}, {"wg", 192}});
  add({{"n", 1}, {"k", 2 * b}, {"m", 4}});  // the contract's default workgroup
  if (sweep)
    for (int64_t n : {1, 63, 65, 129})
      for (int64_t kk : {1, 2, 9})
        for (int64_t m : {1, 2, 3, 4})
          for (int64_t wg : {64, 256}) add({{"n", n}, {"k", kk * b}, {"m", m}, {"wg", wg}});
  return c;
}

CaseResult run_gemv(TestDevice& dev, const Case& c) {
  const int64_t n = c["n"], k = c["k"], m = c["m"];
  std::mt19937 rng(c.seed);
  const Matrix w = random_matrix(n, k, rng);
  Rng xr(c.seed + 11);
  const std::vector<float> x = xr.uniform(size_t(m * k));
  DeviceBuffer<uint8_t> dw(dev, w.codes), ds(dev, w.scales);
  DeviceBuffer<float> dx(dev, x);
  DeviceBuffer<float> dy(dev, std::vector<float>(size_t(m * n), std::numeric_limits<float>::quiet_NaN()));
  const std::string lookup = int4_gemv_signature().kernel();
  const LaunchContract lc = dev.launch_contract(lookup);
  std::map<std::string, int64_t> choices;
  if (c.dims.count("wg")) choices["wg"] = c["wg"];
  const Launch l = lc.evaluate({{"nrows", n}, {"k", k}, {"m", m}}, choices);
  launch(dev, lookup, l, lc.argv(l, {{"w", dw.addr()}, {"scale", ds.addr()}, {"x", dx.addr()}, {"y", dy.addr()}}));
  const std::vector<float> want = quant::gemv_reference(w.view(n, k), x, m);
  return compare(dy.download(), want, w4a16_gemv_tolerance());
}

}  // namespace

KernelDef int4_w4a16_gemv_def() {
  KernelDef d = generated_kernel("int4", int4_gemv_signature(), build_int4_gemv);
  d.description =
      "Fast decode GEMV over compressed-tensors INT4 weights (W4A16) as the checkpoint stores them (codes [N][K/8] "
      "u32, offset-binary; bf16 scales [N][K/128]; nothing repacked), for 1 to 4 activation rows in one launch: the "
      "fast GEMVs' skeleton (the GGUF *_gemv_k kernels') over row storage. Lane l of a 64-row tile owns row l (a "
      "lane past the matrix reads the last row and stores nothing); its 128-weight blocks are its row's 64-byte "
      "runs, read with 16-byte loads (four per block, two blocks in flight ahead), and its scale comes from the "
      "scale array (2-byte loads) as the group's header; x is lane-uniform and read into SGPRs (s_load). Codes "
      "become f16 denormals by one AND per pair and v_fma_mix_f32 multiplies them by x; per block the offset "
      "(code - 8) comes off with two 64-element sums of x (DPP) and the scale multiplies the block's sum once. " +
      std::to_string(kSplit) + " wave(s) of a workgroup per tile, the others on tiles of their own; wave 0 of a "
      "tile writes y (no partials).";
  d.semantics = "y[j][n] = sum_k (((w[n][k / 8] >> 4 (k % 8)) & 15) - 8) * bf16(scale[n][k / 128]) * x[j][k], j < m, "
                "n < nrows; x is [m][k], y [m][nrows] f32";
  d.geometry = "grid = ceil(ceil(nrows/64) / per), wg = 64 W (W = 1..8 waves; the power of two at or below is used), "
               "per = W / min(" + std::to_string(kSplit) + ", W) tiles of 64 rows per workgroup";
  d.launch = launch_contract();
  d.limits = "k a positive multiple of 128, k < 2^24; nrows >= 1, nrows * k / 2 < 2^32; m = 1..4; the contract "
             "refuses other m, k or workgroups (grid 0); w 4-byte aligned, scale 2-byte aligned; x and y may not "
             "overlap. Tolerance against quant::gemv_reference (double) for rows of RMS 1 / sqrt(k) and |x| <= 1.";
  d.tolerance = w4a16_gemv_tolerance();
  d.cases = gemv_cases;
  d.run = run_gemv;
  d.ideal_bytes = [](const Case& c) {
    const uint64_t n = uint64_t(c["n"]), k = uint64_t(c["k"]), m = uint64_t(c["m"]);
    return n * k / 2 + n * (k / kBlockElems) * 2 + 4 * (m * k + m * n);
  };
  d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}, {"m", 1}}); };
  return d;
}

}  // namespace k100::kernels
