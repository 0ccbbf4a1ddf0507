// Registration of NVFP4 GEMVs and GEMM: their documentation, launch
// contracts, host references and test cases.
//
// The tests quantise the activations on the host (quant::quantize_activations,
// kActNvfp4: the codes nvfp4_quant_act produces) and the weights with the
// checkpoints' quantiser (quant::pack_nvfp4), or take random code bytes (every
// code, -0 included) and scale bytes (subnormal E4M3 included); the reference
// is quant::gemv_quantized_reference: exact integer dots per 16-wide group,
// the scales in double, rounded once.
#include <cmath>
#include <cstring>

#include "k100/base/error.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/activation_quant.h"
#include "k100/quant/nvfp4.h"
#include "nvfp4/nvfp4_generators.h"

namespace k100::kernels {

namespace {

using nvfp4::GemvForm;

// The kernels add per 16-group f32(exact dot) * (0.5 E4M3 * asc) in f32 (one
// product and one fused add rounded per group, partial sums per lane then a
// lane tree) and multiply by inv_gscale = 1 / global in f32. At the tests'
// sizes (|x| <= 1, weights ~ N(0, 1), K <= 1056) the sums stay within
// 1e-4 + 1e-5 |y| of the reference (max seen: see the report of
// k100-selftest --group nvfp4 -v).
Tolerance nvfp4_tolerance() { return Tolerance{1e-4, 1e-5}; }

// A weight matrix in the checkpoint layout and its host view.
struct Weights {
  std::vector<uint8_t> codes, scales;
  float global = 1.0f;
  quant::W4Matrix matrix(int64_t n, int64_t k) const {
    quant::W4Matrix w;
    w.format = &quant::kNvfp4;
    w.n = n;
    w.k = k;
    w.codes = codes;
    w.scales = scales;
    w.global = global;
    return w;
  }
};

// raw: random code bytes and scale bytes (E4M3 exponents 0..9: subnormals,
// zero and normal values up to 3.75), else pack_nvfp4 of N(0, 1) weights.
Weights make_weights(int64_t n, int64_t k, bool raw, uint32_t seed) {
  Weights w;
  Rng rng(seed);
  if (raw) {
    w.codes = rng.bytes(size_t(n * k / 2));
    w.scales = rng.bytes(size_t(n * k / 16));
    for (uint8_t& b : w.scales) b = uint8_t((b & 0x80) | (b % 80));
    w.global = 3.0f;
  } else {
    const quant::PackedNvfp4 p = quant::pack_nvfp4(rng.normal(size_t(n * k)), n, k);
    w.codes = p.packed;
    w.scales = p.scale;
    w.global = p.global;
  }
  return w;
}

quant::QuantizedActivations make_activations(int64_t m, int64_t k, uint32_t seed) {
  return quant::quantize_activations(quant::kActNvfp4, Rng(seed).uniform(size_t(m * k)), m, k);
}

std::vector<uint32_t> as_words(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> w(bytes.size() / 4);
  std::memcpy(w.data(), bytes.data(), w.size() * 4);
  return w;
}

CaseResult run_gemv(TestDevice& dev, const Case& c, const GemvForm& f) {
  const int64_t n = c["n"], k = c["k"], m = f.fast ? c["m"] : f.m;
  if (!f.fast) {
    const bool wide = f.groups == 2;
    if (auto bad = expect_contract_refusal(dev, f.name(), {{"n", n}, {"k", k + (wide ? 16 : 8)}},
                                  wide ? "k_multiple_of_32" : "k_multiple_of_16"))
      return *bad;
  }
  const Weights w = make_weights(n, k, c.dims.count("raw") && c["raw"], c.seed);
  const quant::QuantizedActivations a = make_activations(m, k, c.seed + 1000);
  const std::vector<float> want = quant::gemv_quantized_reference(w.matrix(n, k), a);
  DeviceBuffer<uint32_t> dw(dev, as_words(w.codes));
  DeviceBuffer<uint8_t> ds(dev, w.scales);
  DeviceBuffer<int8_t> de(dev, a.even), dodd(dev, a.odd);
  DeviceBuffer<float> dsc(dev, a.scale), dy(dev, std::vector<float>(size_t(m * n), std::nanf("")));
  std::map<std::string, int64_t> choices;
  for (const char* choice : {"wg", "wgs"})
    if (c.dims.count(choice) && c[choice]) choices[choice] = c[choice];
  std::map<std::string, int64_t> sizes = {{"n", n}, {"k", k}};
  if (f.fast) sizes["m"] = m;
  const LaunchContract lc = dev.launch_contract(f.name());
  const Launch l = lc.evaluate(sizes, choices);
  const float inv = 1.0f / w.global;
  uint32_t inv_bits;
  std::memcpy(&inv_bits, &inv, 4);
  const std::vector<uint64_t> argv =
      lc.argv(l, {{"wq", dw.addr()}, {"ws", ds.addr()}, {"ae", de.addr()}, {"ao", dodd.addr()}, {"asc", dsc.addr()},
                  {"y", dy.addr()}, {"inv_gscale", inv_bits}});
  launch(dev, f.name(), l, argv);
  return compare(dy.download(), want, nvfp4_tolerance());
}

CaseResult run_gemm(TestDevice& dev, const Case& c, bool guarded) {
  const int64_t m = c["m"], n = c["n"], k = c["k"];
  const std::string lookup = nvfp4::gemm_signature(guarded).kernel();
  if (auto bad = expect_contract_refusal(dev, lookup, {{"m", m}, {"n", n}, {"k", k + 16}}, "k_multiple_of_64")) return *bad;
  if (!guarded) {
    if (auto bad = expect_contract_refusal(dev, lookup, {{"m", m + 1}, {"n", n}, {"k", k}}, "m_multiple_of_64")) return *bad;
    if (auto bad = expect_contract_refusal(dev, lookup, {{"m", m}, {"n", n + 8}, {"k", k}}, "n_multiple_of_64")) return *bad;
  }
  const Weights w = make_weights(n, k, c.dims.count("raw") && c["raw"], c.seed);
  const quant::QuantizedActivations a = make_activations(m, k, c.seed + 1000);
  const std::vector<float> want = quant::gemv_quantized_reference(w.matrix(n, k), a);  // [m][n]
  DeviceBuffer<uint32_t> dw(dev, as_words(w.codes));
  DeviceBuffer<uint8_t> ds(dev, w.scales);
  DeviceBuffer<int8_t> de(dev, a.even), dodd(dev, a.odd);
  DeviceBuffer<float> dsc(dev, a.scale), dc(dev, std::vector<float>(size_t(m * n), std::nanf("")));
  const LaunchContract lc = dev.launch_contract(lookup);
  const Launch l = lc.evaluate({{"m", m}, {"n", n}, {"k", k}});
  const float inv = 1.0f / w.global;
  uint32_t inv_bits;
  std::memcpy(&inv_bits, &inv, 4);
  launch(dev, lookup, l,
         lc.argv(l, {{"wq", dw.addr()}, {"ws", ds.addr()}, {"ae", de.addr()}, {"ao", dodd.addr()},
                     {"asc", dsc.addr()}, {"c", dc.addr()}, {"inv_gscale", inv_bits}}));
  return compare(dc.download(), want, nvfp4_tolerance());
}

// Bytes a GEMV or GEMM must move: the weights' codes and scales, the
// activations' codes and scales, the outputs.
uint64_t nvfp4_bytes(int64_t m, int64_t n, int64_t k) {
  return uint64_t(n * k / 2 + n * k / 16 + m * (k + 4 * (k / 16)) + 4 * m * n);
}

const char* kFormatDoc =
    "Weights as compressed-tensors nvfp4-pack-quantized stores them (KERNELS.md 4.5): wq = E2M1 codes [N][K/2] bytes "
    "(even k in the low nibble), ws = E4M3 block scales [N][K/16], inv_gscale = 1 / weight_global_scale; "
    "activations as nvfp4_quant_act writes them: int8 even-k and odd-k streams ae, ao [M][K/2], f32 scales asc "
    "[M][K/16]. Each code word becomes two int8 words 2 * e2m1 by v_perm_b32 lookups (nvfp4_format.h), so the "
    "16-element group dot is four exact v_dot4_i32_i8; the E4M3 scale is decoded by bit manipulation to 0.5 * "
    "E4M3 (the 1/2 of the doubled codes folded in).";

void register_gemv(Registry& r, const GemvForm& f) {
  KernelDef d = generated_kernel("nvfp4", nvfp4::gemv_signature(f),
                                 [f](isa::Target t) { return nvfp4::build_gemv(t, f); });
  const std::string M = std::to_string(f.m), R = std::to_string(f.rows);
  d.description = "Decode GEMV over NVFP4 weights for " + M + " activation row(s)" +
                  (f.groups == 2 ? ", two 16-groups per lane and step (128-bit code loads, paired scale bytes)" : "") +
                  ". Template <M = " + M + " activation rows, NROW = " + R +
                  " weight rows per wave> (the source reading of the template, KERNELS.md 5): wave v of workgroup b "
                  "owns rows (b W + v) NROW .. + NROW - 1 (W waves per workgroup), lanes stride over the 16-wide "
                  "K groups, the activation words are shared by the NROW rows; lane sums reduced by DPP, lane 63 "
                  "stores. " + kFormatDoc;
  d.semantics = "y[m][n] = inv_gscale * sum_g 0.5 E4M3(ws[n][g]) * asc[m][g] * sum_(k in g) 2 E2M1(code[n][k]) * "
                "q[m][k] for m < " + M + ", n < N; q[m][2i] = ae[m][i], q[m][2i+1] = ao[m][i]";
  d.geometry = "grid = ceil(N / (W * " + R + ")), wg = 64 W (W = wg / 64 waves; the catalog's ceil(N/(4*" + R +
               ")) at wg = 256)";
  d.limits = f.groups == 2 ? "K % 32 = 0 (refused by the launch contract: k_multiple_of_32), N >= 1"
                           : "K % 16 = 0 (refused by the launch contract: k_multiple_of_16), N >= 1";
  d.launch = "sizes n k\nchoose wg = 256\nlet " + std::string(f.groups == 2 ? "k_multiple_of_32 = 1 / (k % 32 == 0)"
                                                                            : "k_multiple_of_16 = 1 / (k % 16 == 0)") +
             "\nworkgroup = wg\ngrid = ceil_div(n, (wg / 64) * " + R + ")\narg N = n\narg K = k";
  d.tolerance = nvfp4_tolerance();
  d.cases = [f](bool) {
    if (f.groups == 2)
      return case_table({"n", "k", "wg", "raw"}, {{37, 160, 256, 0}, {70, 1056, 128, 1}, {9, 32, 64, 1}, {21, 512, 192, 0}, {50, 96, 96, 1}});
    return case_table({"n", "k", "wg", "raw"}, {{37, 160, 256, 0}, {70, 1040, 128, 1}, {9, 48, 64, 1}, {21, 512, 192, 0}, {50, 96, 96, 1}});
  };
  d.run = [f](TestDevice& dev, const Case& c) { return run_gemv(dev, c, f); };
  d.ideal_bytes = [f](const Case& c) { return nvfp4_bytes(f.m, c["n"], c["k"]); };
  d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}, {"wg", 256}}); };
  r.add(std::move(d));
}

void register_gemm(Registry& r, bool guarded) {
  KernelDef d = generated_kernel("nvfp4", nvfp4::gemm_signature(guarded),
                                 [guarded](isa::Target t) { return nvfp4::build_gemm(t, guarded); });
  d.description = std::string("Prefill GEMM over NVFP4 weights and int8 activations") +
                  (guarded ? "" : ", without edge guards (exact shapes)") +
                  ": workgroup (x, y) of the 2D grid computes the 64 x 64 tile of c at rows 64 y, columns 64 x, "
                  "each of its 256 threads 4 x 4 outputs; per 64-wide K step the weight tile is decoded once into "
                  "LDS and reused by the 64 activation rows. " + kFormatDoc;
  d.semantics = "c[m][n] = inv_gscale * sum_g asc[m][g] * 0.5 E4M3(ws[n][g]) * sum_(k in g) 2 E2M1(code[n][k]) * "
                "q[m][k], c row-major [M][N]";
  d.geometry = "[2D] grid = (ceil(N/64), ceil(M/64)), wg = 256 (the y workgroups are rows of c)";
  d.limits = guarded ? "K % 64 = 0 (refused: k_multiple_of_64); M, N any (edges guarded); wg = 256 (the contract's)"
                     : "M, N, K multiples of 64 (refused: m_multiple_of_64, n_multiple_of_64, k_multiple_of_64); "
                       "wg = 256 (the contract's)";
  d.launch = std::string("sizes m n k\nlet k_multiple_of_64 = 1 / (k % 64 == 0)\n") +
             (guarded ? "" : "let m_multiple_of_64 = 1 / (m % 64 == 0)\nlet n_multiple_of_64 = 1 / (n % 64 == 0)\n") +
             "workgroup = 256\ngrid = ceil_div(n, 64), ceil_div(m, 64)\narg M = m\narg N = n\narg K = k";
  d.tolerance = nvfp4_tolerance();
  d.cases = [guarded](bool) {
    if (guarded) return case_table({"m", "n", "k", "raw"}, {{130, 70, 128, 0}, {65, 131, 192, 1}, {3, 64, 64, 0}});
    return case_table({"m", "n", "k", "raw"}, {{128, 64, 128, 0}, {192, 128, 64, 1}, {64, 192, 192, 0}});
  };
  d.run = [guarded](TestDevice& dev, const Case& c) { return run_gemm(dev, c, guarded); };
  d.ideal_bytes = [](const Case& c) { return nvfp4_bytes(c["m"], c["n"], c["k"]); };
  d.bench_case = [] { return make_case({{"m", 256}, {"n", 2048}, {"k", 1024}}); };
  r.add(std::move(d));
}

void register_fast(Registry& r) {
  const GemvForm f{1, 1, 2, true};
  KernelDef d = generated_kernel("nvfp4", nvfp4::gemv_signature(f), [](isa::Target t) { return nvfp4::build_gemv_fast(t); });
  d.description =
      "Decode GEMV over NVFP4 weights for 1 to 4 activation rows in one launch (our own form beside nvfp4_gemv<M,NROW>, "
      "the same arguments plus m): units of one weight row (M = 1) or two (M > 1, the activation words serving both), workgroup b takes P consecutive units (P from m), its W "
      "waves every W-th of them; a wave walks its units step by step (64 G groups of the row, G = 2 for M <= 2, 1 "
      "above) with the next step's loads in flight while it decodes the current one, into the next unit before the "
      "current one's lane reduction and store. Wave 0 alone reads the arguments (one 64-byte line over the host "
      "link) and hands them and the workgroup's lane count to the other waves through LDS. " + std::string(kFormatDoc);
  d.semantics = "y[j][n] = inv_gscale * sum_g 0.5 E4M3(ws[n][g]) * asc[j][g] * sum_(k in g) 2 E2M1(code[n][k]) * "
                "q[j][k] for j < M, n < N; M = m & 255 (1..4; other values write nothing), P = m >> 8";
  d.geometry = "grid = ceil(U / P), wg = 64 W, U = ceil(N / R) units (R = 1 for M = 1, else 2), P = ceil(U / wgs) (the contract's choice wgs "
               "= 120: one workgroup per CU)";
  d.limits = "K % 32 = 0 (refused: k_multiple_of_32), m = 1..4 (refused: m_from_1_to_4), N >= 1";
  d.launch = "sizes n k m\nchoose wg = 256\nchoose wgs = 120\nlet k_multiple_of_32 = 1 / (k % 32 == 0)\n"
             "let m_from_1_to_4 = 1 / ((m >= 1) * (m <= 4))\nlet units = ceil_div(n, select(m == 1, 1, 2))\n"
             "let wg_at_least_64 = 1 / (wg >= 64)\nlet per = (wg / 64) * ceil_div(units, wgs * (wg / 64))\nworkgroup = wg\ngrid = ceil_div(units, per)\narg N = n\narg K = k\n"
             "arg m = m + 256 * per";
  d.tolerance = nvfp4_tolerance();
  d.cases = [](bool) {
    // several steps per unit (the last one partial) and several units per wave: n = 600, 260
    return case_table({"n", "k", "m", "wg", "wgs", "raw"}, {{37, 160, 1, 256, 0, 0},
                                                             {70, 1056, 2, 128, 0, 1},
                                                             {301, 96, 3, 256, 0, 0},
                                                             {21, 512, 4, 192, 0, 1},
                                                             {1000, 64, 1, 64, 0, 1},
                                                             {600, 4160, 1, 64, 0, 1},
                                                             {260, 2080, 3, 128, 20, 0},
                                                             {150, 2592, 4, 256, 7, 1},
                                                             {123, 320, 2, 96, 0, 1}});
  };
  d.run = [f](TestDevice& dev, const Case& c) {
    if (auto bad = expect_contract_refusal(dev, f.name(), {{"n", c["n"]}, {"k", c["k"] + 16}, {"m", c["m"]}}, "k_multiple_of_32"))
      return *bad;
    if (auto bad = expect_contract_refusal(dev, f.name(), {{"n", c["n"]}, {"k", c["k"]}, {"m", 5}}, "m_from_1_to_4")) return *bad;
    return run_gemv(dev, c, f);
  };
  d.ideal_bytes = [](const Case& c) { return nvfp4_bytes(c["m"], c["n"], c["k"]); };
  d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}, {"m", 1}, {"wg", 256}, {"wgs", 120}}); };
  r.add(std::move(d));
}

}  // namespace

void register_nvfp4_kernels(Registry& r) {
  register_fast(r);
  register_gemm(r, true);
  register_gemm(r, false);
  for (int m = 1; m <= 4; ++m)
    for (int rows = 1; rows <= 4; ++rows) register_gemv(r, GemvForm{m, rows, 1, false});
  for (int m = 1; m <= 4; ++m)
    for (int rows = 1; rows <= 2; ++rows) register_gemv(r, GemvForm{m, rows, 2, false});
}

}  // namespace k100::kernels
