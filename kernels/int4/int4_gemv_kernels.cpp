// Registration of the INT4 decode GEMVs (RT4 weights; W4A4 and W4A8
// activations): the catalog's gemv_w4a4<M>, gemv_w4a4_r2_k,
// gemv_w4a4_r2_m3_k, gemv_w4a8<M,SMEM,NROW>, and the fast forms
// gemv_w4a4_fast_k / gemv_w4a8_fast_k. One generator builds them all
// (w4_gemv_generator.cpp); the host reference is quant's
// gemv_quantized_reference over activations quantised on the host
// (quantize_activations), written independently of the kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "int4/w4_gemv_generator.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/activation_quant.h"
#include "k100/quant/half.h"

namespace k100::kernels {

namespace {

using int4_gemv::W4Act;
using int4_gemv::W4GemvSpec;
using int4_gemv::W4Schedule;

// Tolerance: per 32-group the integer dot is exact (and exact in f32, |dot| <
// 2^24); the kernel rounds dot * activation scale, then the fused multiply-add
// with the weight scale, per lane over ceil(K/2048) trips, then 6 DPP
// additions: at most (K/2048 + 8) roundings of 2^-24 relative to the sum of
// the |group terms|. With the cases' data (weight scales |s| <= 0.02,
// activations N(0, 1)) that sum stays below 60 at K = 5120, so the error is
// below 60 * 11 * 6e-8 = 4e-5; measured at most ~2e-6 (see the report of
// `k100-selftest --group int4`).
Tolerance w4_gemv_tolerance() { return Tolerance{5e-5, 1e-5}; }

// The RT4 weights of a case: random int4 codes, f16 scales in [-0.02, 0.02].
struct W4Weights {
  std::vector<uint8_t> codes;
  std::vector<uint16_t> scales;
  quant::W4Matrix matrix() const {
    quant::W4Matrix w;
    w.format = &quant::kRt4Int4;
    w.codes = codes;
    w.scales = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(scales.data()), scales.size() * 2);
    return w;
  }
};

W4Weights random_weights(Rng& rng, int64_t n, int64_t k) {
  W4Weights w;
  w.codes = rng.bytes(size_t(n * k / 2));
  for (float s : rng.uniform(size_t(n * k / 128), -0.02f, 0.02f)) w.scales.push_back(quant::f32_to_f16(s));
  return w;
}

// One case: n weight rows, k columns, m activation rows; the geometry from
// the kernel's launch contract, the workgroup size "wg" when the case names one.
CaseResult run_w4_gemv(TestDevice& dev, const Case& c, const W4GemvSpec& spec) {
  const int64_t n = c["n"], k = c["k"];
  const int64_t m = spec.schedule == W4Schedule::Fast ? dim(c, "m", 1) : spec.m;
  Rng rng(c.seed);
  const W4Weights wts = random_weights(rng, n, k);
  quant::W4Matrix w = wts.matrix();
  w.n = n;
  w.k = k;
  const auto x = rng.normal(size_t(m * k));
  const quant::QuantizedActivations a =
      quant::quantize_activations(spec.act == W4Act::A4 ? quant::kActW4A4Decode : quant::kActW4A8, x, m, k);
  const std::vector<float> want = quant::gemv_quantized_reference(w, a);

  const LaunchContract lc = dev.launch_contract(spec.name);
  std::map<std::string, int64_t> sizes = {{"n", n}, {"k", k}};
  if (spec.schedule == W4Schedule::Fast) sizes["m"] = m;
  Launch l = lc.evaluate(sizes);
  if (c.dims.count("wg")) l.workgroup = uint32_t(c["wg"]);
  DeviceBuffer<uint8_t> dw(dev, wts.codes);
  DeviceBuffer<uint16_t> dws(dev, wts.scales);
  DeviceBuffer<float> dy(dev, std::vector<float>(size_t(m * n), std::numeric_limits<float>::quiet_NaN()));
  std::map<std::string, uint64_t> given = {{"wq", dw.addr()}, {"ws", dws.addr()}, {"y", dy.addr()}};
  if (spec.act == W4Act::A4) {
    DeviceBuffer<uint8_t> daq(dev, a.packed);
    DeviceBuffer<float> das(dev, a.scale);
    given["aq"] = daq.addr();
    given["as"] = das.addr();
    launch(dev, spec.name, l, lc.argv(l, given));
    return compare(dy.download(), want, w4_gemv_tolerance());
  }
  const std::vector<uint8_t> even(a.even.begin(), a.even.end()), odd(a.odd.begin(), a.odd.end());
  DeviceBuffer<uint8_t> dae(dev, even), dao(dev, odd);
  DeviceBuffer<float> dasc(dev, a.scale);
  DeviceBuffer<int32_t> dasu(dev, a.sum);
  given["ae"] = dae.addr();
  given["ao"] = dao.addr();
  given["asc"] = dasc.addr();
  given["asu"] = dasu.addr();
  launch(dev, spec.name, l, lc.argv(l, given));
  return compare(dy.download(), want, w4_gemv_tolerance());
}

// Sizes: N with a tail (not a multiple of the rows a workgroup owns), K of
// 2 to 36 128-groups (K/32 groups below, at and past a multiple of 64, so the
// last trip runs with lanes off), workgroups other than 256 (one wave, a
// partial wave, 3 and 8 waves).
std::vector<Case> catalog_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "k", "wg"}, {{13, 256, 256},
                                                      {37, 640, 256},
                                                      {21, 2304, 256},
                                                      {9, 4608, 256},
                                                      {30, 1152, 64},
                                                      {19, 512, 32},
                                                      {27, 384, 192},
                                                      {35, 896, 512}});
  if (sweep)
    for (int64_t n : {1, 5, 8, 33, 100})
      for (int64_t k : {128, 1024, 2048, 2176, 5120})
        for (int64_t wg : {64, 256, 320, 1024}) c.push_back(make_case({{"n", n}, {"k", k}, {"wg", wg}}, uint32_t(n + k + wg)));
  return c;
}

std::vector<Case> fast_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "k", "m", "wg"}, {{13, 256, 1, 256},
                                                           {37, 640, 2, 256},
                                                           {21, 4224, 3, 256},
                                                           {45, 1152, 4, 256},
                                                           {19, 2304, 1, 64},
                                                           {11, 512, 5, 192},
                                                           {29, 384, 7, 512}});
  if (sweep)
    for (int64_t n : {1, 7, 64, 100})
      for (int64_t k : {128, 2048, 4096, 4224})
        for (int64_t m : {1, 2, 3, 4, 6}) c.push_back(make_case({{"n", n}, {"k", k}, {"m", m}}, uint32_t(n + k + m)));
  return c;
}

// Bytes the GEMV must move: the weights and their scales, the activation rows
// it reads (W4A4: codes and 32-group scales; W4A8: both streams and the
// 128-group scales; the code sums are not needed) and y.
uint64_t ideal_bytes(const Case& c, const W4GemvSpec& s) {
  const int64_t n = c["n"], k = c["k"], m = s.schedule == W4Schedule::Fast ? dim(c, "m", 1) : s.m;
  const int64_t act = s.act == W4Act::A4 ? k / 2 + k / 8 : k + k / 32;
  return uint64_t(n * k / 2 + n * k / 64 + m * act + m * n * 4);
}

const char* kW4A4Semantics =
    "y[m][n] = sum over 32-wide groups j < K/32 of f16(ws[n][j/4]) * as[m][j] * sum_(k in j) w[n][k] * a[m][k]; "
    "w: int4 two's complement [N][K/8] u32 (low nibble = smaller k), ws: f16 [N][K/128], a: int4 [M][K/8] u32 "
    "(quant_act4), as: f32 [M][K/32]; y: f32 [M][N]";
const char* kW4A8Semantics =
    "y[m][n] = sum over 128-groups g < K/128 of f16(ws[n][g]) * asc[m][g] * sum_(k in g) w[n][k] * a[m][k] "
    "(= (sum u * a - 8 * asu[m][g]) with u = w + 8, the original's form); w: int4 two's complement [N][K/8] u32, "
    "ws: f16 [N][K/128], a: int8 codes as even-k stream ae and odd-k stream ao, [M][K/2] bytes each (quant_act), "
    "asc: f32 [M][K/128]; y: f32 [M][N]";

std::string how(const W4GemvSpec& s) {
  std::string a = s.act == W4Act::A4 ? "four v_dot8_i32_i4 per 32-group and activation row"
                                     : "the weight nibbles moved into the high half of int8 bytes (16 * code; "
                                       "the 1/16 applied once at the end) and eight v_dot4_i32_i8 per 32-group "
                                       "and activation row against the even and odd streams (the code sums asu "
                                       "are not read)";
  return "Lanes run along K: per trip lane l takes the 32-wide group 64 t + l of each of the wave's " +
         std::to_string(s.nrow) +
         " weight row(s) (one dwordx4 per row: the wave reads 1 KiB of the row, whole lines) and the same 16 bytes "
         "of every activation row, which the rows share; " +
         a +
         " give the exact integer group dot, which is converted to f32, multiplied by the activation scale and "
         "accumulated with the f16 weight scale by v_fma_mix_f32; DPP reduces the lanes and lane 63 stores. A row "
         "whose K/32 is not a multiple of 64 ends with a trip whose lanes past the end are off.";
}

std::string catalog_geometry_text(const W4GemvSpec& s) {
  return "grid = ceil(N/" + std::to_string(4 * s.nrow) + "), wg = 256 (any workgroup size gives the same rows: the " +
         "workgroup owns rows [id * " + std::to_string(4 * s.nrow) + ", (id + 1) * " + std::to_string(4 * s.nrow) +
         ") as four sets of " + std::to_string(s.nrow) + " rows, which its waves take one at a time from a counter " +
         "in LDS; wave 0 reads the arguments and hands them to the others through LDS)";
}

KernelDef make_def(const W4GemvSpec& spec) {
  KernelDef d = generated_kernel("int4", int4_gemv::w4_gemv_signature(spec),
                                 [spec](isa::Target t) { return int4_gemv::build_w4_gemv(t, spec); });
  d.tolerance = w4_gemv_tolerance();
  d.semantics = spec.act == W4Act::A4 ? kW4A4Semantics : kW4A8Semantics;
  if (spec.schedule == W4Schedule::Catalog) {
    d.geometry = catalog_geometry_text(spec);
    d.launch = "sizes n k\nworkgroup = 256\ngrid = ceil_div(n, " + std::to_string(4 * spec.nrow) +
               ")\narg N = n\narg K = k";
    d.limits = "M = " + std::to_string(spec.m) +
               " activation rows; K % 128 = 0 (K < 2^31), N >= 1; any workgroup size 1..1024 (the original's "
               "silently computed wrong rows unless wg = 256); grid * " +
               std::to_string(4 * spec.nrow) + " must cover N (workgroups past N do nothing)";
    d.cases = catalog_cases;
  } else {
    const int rows = int4_gemv::fast_rows_per_group(spec);
    d.geometry = "grid = ceil(N/" + std::to_string(rows) + "), wg = " + std::to_string(64 * spec.waves) +
                 " (any workgroup size gives the same rows)";
    d.launch = "sizes n k m\nworkgroup = " + std::to_string(64 * spec.waves) + "\ngrid = ceil_div(n, " +
               std::to_string(rows) + ")\narg N = n\narg K = k\narg m = m";
    d.limits = "any m >= 0 activation rows (bodies of 4, 3, 2, 1 rows; m = 0 writes nothing); K % 128 = 0 "
               "(K < 2^31), N >= 1; any workgroup size 1..1024; grid * " +
               std::to_string(rows) + " must cover N";
    d.cases = fast_cases;
  }
  d.run = [spec](TestDevice& dev, const Case& c) { return run_w4_gemv(dev, c, spec); };
  d.ideal_bytes = [spec](const Case& c) { return ideal_bytes(c, spec); };
  d.bench_case = [] { return make_case({{"n", 17408}, {"k", 5120}, {"m", 1}}); };
  return d;
}

}  // namespace

void register_int4_gemv_kernels(Registry& r) {
  // W4A4 <M>: one weight row per wave, four waves per workgroup.
  for (int m = 1; m <= 4; ++m) {
    W4GemvSpec s{.name = "gemv_w4a4<" + std::to_string(m) + ">", .act = W4Act::A4, .m = m, .nrow = 1};
    KernelDef d = make_def(s);
    d.description = "Decode W4A4 GEMV for M = " + std::to_string(m) +
                    " activation rows (RT4 int4 weights, quant_act4 activations), one weight row per wave. " + how(s);
    r.add(std::move(d));
  }
  {
    W4GemvSpec s{.name = "gemv_w4a4_r2_k", .act = W4Act::A4, .m = 4, .nrow = 2};
    KernelDef d = make_def(s);
    d.description = "Decode W4A4 GEMV for M = 4 activation rows, two weight rows per wave (each activation load "
                    "feeds both). " + how(s);
    r.add(std::move(d));
  }
  {
    W4GemvSpec s{.name = "gemv_w4a4_r2_m3_k", .act = W4Act::A4, .m = 3, .nrow = 2};
    KernelDef d = make_def(s);
    d.description = "Decode W4A4 GEMV for M = 3 activation rows, two weight rows per wave. " + how(s);
    r.add(std::move(d));
  }
  for (int m = 1; m <= 4; ++m) {
    const int nrow = m == 1 ? 1 : 2;
    for (bool smem : {false, true}) {
      W4GemvSpec s{.name = "gemv_w4a8<" + std::to_string(m) + "," + (smem ? "true" : "false") + "," +
                           std::to_string(nrow) + ">",
                   .act = W4Act::A8,
                   .m = m,
                   .nrow = nrow,
                   .full_hidden = smem};
      KernelDef d = make_def(s);
      d.description = "Decode W4A8 GEMV for M = " + std::to_string(m) +
                      " activation rows (RT4 int4 weights, quant_act activations), " + std::to_string(nrow) +
                      " weight row(s) per wave. " + how(s);
      if (smem)
        d.description +=
            " SMEM=true: the original staged the activations in dynamically sized LDS that no launch requested "
            "(silently wrong, marked unused); this one reads them like the SMEM=false variant (they stay in the "
            "caches: every wave's rows share them), so it needs no LDS and has no K limit, and computes the same "
            "results. It keeps the catalog's full hidden block (KA 320).";
      r.add(std::move(d));
    }
  }
  // Fast forms: 1..4 activation rows in one launch (any m in chunks of 4).
  // The shapes were chosen by MODELED time at 17408 x 5120, M = 1 (about
  // 1.2-1.4 MB of weight reads in flight over the whole device is best):
  // W4A4 one row per wave with two 1 KiB pieces in flight, W4A8 two rows per
  // wave with one piece each; 4 or 8 rows per workgroup of 4 waves.
  for (W4Act act : {W4Act::A4, W4Act::A8}) {
    const bool a4 = act == W4Act::A4;
    W4GemvSpec s{.name = a4 ? "gemv_w4a4_fast_k" : "gemv_w4a8_fast_k",
                 .act = act,
                 .m = 4,
                 .nrow = a4 ? 1 : 2,
                 .schedule = W4Schedule::Fast,
                 .unroll = a4 ? 2 : 1,
                 .waves = 4,
                 .passes = 1};
    KernelDef d = make_def(s);
    d.description = std::string("Fast decode ") + (act == W4Act::A4 ? "W4A4" : "W4A8") +
                    " GEMV (same arguments as the catalog's plus the activation row count m): any m in one launch, "
                    "taken 4 rows at a time (the last chunk by the body of its size). " +
                    how(s) + " A workgroup of 4 waves owns " + std::to_string(int4_gemv::fast_rows_per_group(s)) +
                    " rows; wave 0 reads the arguments once and hands them over through LDS, and the waves take sets "
                    "of " + std::to_string(s.nrow) + " row(s) from a counter in LDS" +
                    (s.unroll > 1 ? "; " + std::to_string(s.unroll) + " 1 KiB pieces of the row are in flight before the first is used." : ".");
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
