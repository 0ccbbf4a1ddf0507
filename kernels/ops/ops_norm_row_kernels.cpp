// Row normalisations: rmsnorm_fast_k, rmsnorm_deep_k, rmsnorm_k,
// rmsnorm_gated_k, l2norm_k, layernorm_k. One generator (two passes over the
// row: statistics, then scale and store) with the variants as parameters,
// plus each kernel's registry entry, host reference and tests.
#include <cmath>
#include <cstring>

#include "ops_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

enum class RowKind { Rms, RmsZc, RmsGated, L2, Layer };

struct RowSpec {
  std::string name;
  RowKind kind;
  bool multi_wave;             // group size from the hidden block (any multiple of 64 up to 1024)
  std::vector<int> stats_batches;  // rounds per load batch in the statistics pass
  std::vector<int> out_batches;    // and in the output pass
};

bool has_w(RowKind k) { return k != RowKind::L2; }
bool has_g(RowKind k) { return k == RowKind::RmsGated || k == RowKind::Layer; }

Signature row_signature(const std::string& name, RowKind kind) {
  switch (kind) {
    case RowKind::Rms:
      return Signature(name, {out("y", "f32"), in("x", "f32"), in("w", "f32"), value("dim", "u32"), value("eps", "f32")});
    case RowKind::RmsZc:
      return Signature(name, {out("y", "f32"), in("x", "f32"), in("w", "f32"), value("D", "i32"), value("eps", "f32"),
                              value("zc", "i32")},
                       HiddenArgLayout::Full);
    case RowKind::RmsGated:
      return Signature(name, {out("y", "f32"), in("x", "f32"), in("w", "f32"), in("gate", "f32"), value("D", "i32"),
                              value("eps", "f32")},
                       HiddenArgLayout::Full);
    case RowKind::L2:
      return Signature(name, {inout("x", "f32"), value("S", "i32"), value("eps", "f32")}, HiddenArgLayout::Full);
    case RowKind::Layer:
      return Signature(name, {out("y", "f32"), in("x", "f32"), in("w", "f32"), in("b", "f32"), value("rows", "u32"),
                              value("cols", "u32"), value("eps", "f32"), value("group_size", "u32")});
  }
  return {};
}

codeobj::CodeObject generate_row_norm(const RowSpec& spec, isa::Target target) {
  const RowKind kind = spec.kind;
  const Signature sig = row_signature(spec.name, kind);
  // deep batches keep 16 dwordx4 loads in flight: 3 waves per SIMD
  Kernel k(sig, target, ops::options(spec.multi_wave ? 64 : 0, spec.stats_batches.front() > 4 ? 3 : 4));
  Label exit = k.exit();
  const SGPR row = k.workgroup_id();
  const SGPR sX = k.arg("x"), sY = kind == RowKind::L2 ? sX : k.arg("y"), sW = has_w(kind) ? k.arg("w") : SGPR{};
  const SGPR sG = kind == RowKind::RmsGated ? k.arg("gate") : kind == RowKind::Layer ? k.arg("b") : SGPR{};
  const SGPR sD = k.arg(kind == RowKind::Rms ? "dim" : kind == RowKind::L2 ? "S" : kind == RowKind::Layer ? "cols" : "D");
  const SGPR sEps = k.arg("eps");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto s2 = [&](const char* n) { return k.sgpr(2, n); };
  const SGPR sXs = s2("x stream"), sWs = s2("w stream"), sGs = s2("g stream"), sYs = s2("y stream");
  const SGPR sNq = s1("chunks"), sRem = s1("rem"), sLeft = s1("left");
  const SGPR sSum2 = s1("sum2"), sShift = s1("shift");
  const VGPR vT = k.local_id(), vAcc = k.vgpr(1, "acc"), vAcc2 = k.vgpr(1, "acc2"), vScale = k.vgpr(1, "scale"),
             vMean = k.vgpr(1, "mean"), vA = k.vgpr(1, "a"), vB = k.vgpr(1, "b");
  int max_batch = 1;
  for (int x : spec.stats_batches) max_batch = std::max(max_batch, x);
  for (int x : spec.out_batches) max_batch = std::max(max_batch, x);
  std::vector<VGPR> xs, ws, gs;
  for (int i = 0; i < max_batch; ++i) {
    xs.push_back(k.vgpr(4, "x"));
    if (has_w(kind)) ws.push_back(k.vgpr(4, "w"));
    if (has_g(kind)) gs.push_back(k.vgpr(4, "g"));
  }
  auto load4 = [&](VGPR dst, VGPR voff, SGPR base, int imm) { k.global_load_dwordx4(dst, voff, base, offset(imm)); };

  // y element from x (in place), w, g: the output formula of each kind; `zc`
  // selects 1 + w; w is scratch after its last use.
  auto output_element = [&](bool zc, VGPR x, VGPR w, VGPR g) {
    switch (kind) {
      case RowKind::Rms:
      case RowKind::RmsZc:
        k.v_mul_f32(x, x, vScale);
        if (zc) k.v_add_f32(w, 1.0f, w);
        k.v_mul_f32(x, x, w);
        break;
      case RowKind::RmsGated:
        k.v_mul_f32(x, x, vScale);
        k.v_mul_f32(x, x, w);
        // silu(g) = g / (1 + 2^(-g log2 e)); w is free now
        reciprocal_one_plus_exp2(k, w, -kLog2E, g);
        k.v_mul_f32(w, g, w);
        k.v_mul_f32(x, x, w);
        break;
      case RowKind::L2:
        k.v_mul_f32(x, x, vScale);
        break;
      case RowKind::Layer:
        k.v_sub_f32(x, x, vMean);
        k.v_mul_f32(x, x, vScale);
        k.v_fma_f32(x, x, w, g);
        break;
    }
  };

  // ---- which threads work
  WorkgroupWaves ww{};
  if (spec.multi_wave) {
    ww = workgroup_waves(k, exit);
  } else {
    // one wave per row: further waves of a larger workgroup have nothing to do
    exit_unless_first_wave(k, exit);
  }
  if (kind == RowKind::Layer) {
    k.s_cmp_ge_u32(row, k.arg("rows"));
    k.s_cbranch_scc1(exit);
  }
  k.s_cmp_lt_i32(sD, 1);  // empty row (or a negative / >= 2^31 length)
  k.s_cbranch_scc1(exit);

  const SGPR sX0 = scaled_address(k, sX, row, sD, 2), sY0 = scaled_address(k, sY, row, sD, 2);
  const SGPR sG0 = kind == RowKind::RmsGated ? scaled_address(k, sG, row, sD, 2) : sG;  // layernorm: one bias vector
  k.s_lshr_b32(sNq, sD, 2);
  k.s_and_b32(sRem, sD, 3);
  if (kind == RowKind::Layer) k.s_load_dword(sShift, sX0, 0);  // x[row][0]: shift for the variance

  ChunkWalk walk;
  walk.single_wave = !spec.multi_wave;
  walk.w_threads = ww.threads;
  walk.thread = vT;
  walk.max_batch = max_batch;
  walk.left = sLeft;

  // ---- pass 1: statistics
  k.v_mov_b32(vAcc, 0);
  k.v_mov_b32(vAcc2, 0);
  auto stat_element = [&](VGPR x) {
    if (kind == RowKind::Layer) {
      k.v_subrev_f32(vA, sShift, x);
      k.v_add_f32(vAcc, vAcc, vA);
      k.v_fmac_f32(vAcc2, vA, vA);
    } else {
      k.v_fmac_f32(vAcc, x, x);
    }
  };
  k.s_mov_b32(sLeft, sNq);
  ChunkWalk stats = walk;
  stats.streams = {{sXs, sX0}};
  stats.load = [&](int i, VGPR voff, int imm) { load4(xs[size_t(i)], voff, sXs, imm); };
  stats.compute = [&](int i) {
    for (int c = 0; c < 4; ++c) stat_element(xs[size_t(i)][c]);
  };
  chunk_walk(k, stats, spec.stats_batches);
  // element tail: thread t < rem takes x[4 nq + t]
  element_tail(k, sNq, sRem, vT, {{sXs, sX0}}, [&](VGPR off) {
    k.global_load_dword(xs[0][0], off, sXs);
    stat_element(xs[0][0]);
  });

  // ---- reduction and the scale
  if (kind == RowKind::Layer)
    lane_reduce(k, {{ReduceOp::Add, vAcc}, {ReduceOp::Add, vAcc2}});
  else
    lane_reduce(k, {{ReduceOp::Add, vAcc}});
  SGPR sSum;
  if (spec.multi_wave) {
    sSum = workgroup_reduce(k, ReduceOp::Add, vAcc, ww.wave, ww.waves, ww.lane);
  } else {
    sSum = s1("sum");
    k.v_readlane_b32(sSum, vAcc, 63);
    if (kind == RowKind::Layer) k.v_readlane_b32(sSum2, vAcc2, 63);
  }
  switch (kind) {
    case RowKind::L2:  // 1 / sqrt(sum + eps)
      k.v_mov_b32(vA, sSum);
      k.v_add_f32(vScale, sEps, vA);
      k.v_rsq_f32(vScale, vScale);
      break;
    case RowKind::Layer:
      k.v_cvt_f32_u32(vA, sD);
      k.v_rcp_f32(vA, vA);
      k.v_mul_f32(vB, sSum, vA);                  // mean of (x - shift)
      k.v_mul_f32(vScale, sSum2, vA);             // mean of (x - shift)^2
      k.v_fma_f32(vScale, neg(vB), vB, vScale);   // variance
      k.v_max_f32(vScale, 0, vScale);
      k.v_add_f32(vScale, sEps, vScale);
      k.v_rsq_f32(vScale, vScale);
      k.v_add_f32(vMean, sShift, vB);
      break;
    default:  // 1 / sqrt(sum / n + eps)
      k.v_cvt_f32_u32(vA, sD);
      k.v_rcp_f32(vA, vA);
      k.v_mov_b32(vB, sSum);
      k.v_fma_f32(vScale, vB, vA, sEps);
      k.v_rsq_f32(vScale, vScale);
      break;
  }

  // ---- pass 2: scale and store
  auto output_pass = [&](bool zc) {
    std::vector<std::pair<SGPR, SGPR>> streams = {{sXs, sX0}, {sYs, sY0}};
    if (has_w(kind)) streams.emplace_back(sWs, sW);
    if (has_g(kind)) streams.emplace_back(sGs, sG0);
    k.s_mov_b32(sLeft, sNq);
    ChunkWalk out = walk;
    out.streams = streams;
    out.load = [&](int i, VGPR voff, int imm) {
      load4(xs[size_t(i)], voff, sXs, imm);
      if (has_w(kind)) load4(ws[size_t(i)], voff, sWs, imm);
      if (has_g(kind)) load4(gs[size_t(i)], voff, sGs, imm);
    };
    out.compute = [&](int i) {
      for (int c = 0; c < 4; ++c)
        output_element(zc, xs[size_t(i)][c], has_w(kind) ? ws[size_t(i)][c] : VGPR{},
                       has_g(kind) ? gs[size_t(i)][c] : VGPR{});
    };
    out.store = [&](int i, VGPR voff, int imm) { k.global_store_dwordx4(voff, xs[size_t(i)], sYs, offset(imm)); };
    chunk_walk(k, out, spec.out_batches);
    element_tail(k, sNq, sRem, vT, streams, [&](VGPR off) {
      k.global_load_dword(xs[0][0], off, sXs);
      if (has_w(kind)) k.global_load_dword(ws[0][0], off, sWs);
      if (has_g(kind)) k.global_load_dword(gs[0][0], off, sGs);
      output_element(zc, xs[0][0], has_w(kind) ? ws[0][0] : VGPR{}, has_g(kind) ? gs[0][0] : VGPR{});
      k.global_store_dword(off, xs[0][0], sYs);
    });
  };
  if (kind == RowKind::RmsZc) {
    Label zc_path = k.label("zero_centred");
    k.s_cmp_lg_u32(k.arg("zc"), 0);
    k.s_cbranch_scc1(zc_path);
    output_pass(false);
    k.s_branch(exit);
    k.bind(zc_path);
    output_pass(true);
  } else {
    output_pass(false);
  }
  return k.build();
}

// ------------------------------------------------------------ references

// y = x * (mean(x^2) + eps)^(-1/2) * W (W = w, 1 + w, or w * silu(g); 1 when
// w is empty), in double; `l2`: the sum of the squares instead of their mean.
std::vector<float> rms_reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>* g,
                                 int64_t rows, int64_t d, float eps, bool zc, bool l2 = false) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < d; ++i) ss += double(x[size_t(r * d + i)]) * x[size_t(r * d + i)];
    double scale = 1.0 / std::sqrt(ss / (l2 ? 1.0 : double(d)) + double(eps));
    for (int64_t i = 0; i < d; ++i) {
      size_t k = size_t(r * d + i);
      double wi = w.empty() ? 1.0 : zc ? 1.0 + double(w[size_t(i)]) : double(w[size_t(i)]);
      double v = double(x[k]) * scale * wi;
      if (g) {
        double gi = (*g)[k];
        v *= gi / (1.0 + std::exp(-gi));
      }
      y[k] = float(v);
    }
  }
  return y;
}

// Two-pass mean and biased variance in double.
std::vector<float> layer_reference(const std::vector<float>& x, const std::vector<float>& w,
                                   const std::vector<float>& bias, int64_t rows, int64_t d, float eps) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += x[size_t(r * d + i)];
    mean /= double(d);
    for (int64_t i = 0; i < d; ++i) var += (x[size_t(r * d + i)] - mean) * (x[size_t(r * d + i)] - mean);
    var /= double(d);
    double scale = 1.0 / std::sqrt(var + double(eps));
    for (int64_t i = 0; i < d; ++i)
      y[size_t(r * d + i)] = float((x[size_t(r * d + i)] - mean) * scale * w[size_t(i)] + bias[size_t(i)]);
  }
  return y;
}

// ------------------------------------------------------------ cases

// rows x dim cases; `wg` (multi-wave kernels) and `scale` (input magnitude) vary.
std::vector<Case> row_cases(bool sweep, bool multi_wave, int64_t big) {
  std::vector<Case> c = case_table({"rows", "dim", "wg"}, {{1, 64, 64}, {3, 100, multi_wave ? 256 : 64},
                                                          {2, 1027, multi_wave ? 128 : 128}, {2, big, 64},
                                                          {4, 3, 64}});
  if (sweep) {
    uint32_t seed = 100;
    for (int64_t d : {1, 2, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2048, 4095, 4096, 4097, 5120, 8191,
                      10240, 16387})
      for (int64_t wg : multi_wave ? std::vector<int64_t>{64, 128, 256, 1024} : std::vector<int64_t>{64})
        c.push_back(make_case({{"rows", d > 4096 ? 2 : 3}, {"dim", d}, {"wg", wg}}, seed++));
    c.push_back(make_case({{"rows", 67}, {"dim", 320}, {"wg", 64}}, seed++));
  }
  return c;
}

Tolerance rms_tolerance() { return Tolerance{1e-6, 4e-6}; }
Tolerance layer_tolerance() { return Tolerance{5e-6, 1e-5}; }

// Runs one of the rmsnorm_fast_k / rmsnorm_deep_k pair.
std::vector<float> run_rms_plain(TestDevice& dev, const std::string& lookup, const std::vector<float>& x,
                                 const std::vector<float>& w, int64_t rows, int64_t d, float eps, uint32_t wg) {
  DeviceBuffer<float> dx(dev, x), dw(dev, w), dy(dev, x.size());
  launch(dev, row_signature(lookup, RowKind::Rms), {uint32_t(rows)}, {wg}, {dy.addr(), dx.addr(), dw.addr(), d, eps});
  return dy.download();
}

// The entry of a row kernel; its docs and tests are the caller's.
KernelDef row_kernel(const RowSpec& spec) {
  return generated_kernel("ops", row_signature(spec.name, spec.kind),
                          [spec](isa::Target t) { return generate_row_norm(spec, t); });
}

void register_rms_plain(Registry& r, const std::string& lookup, const std::string& twin, int batch) {
  bool deep = batch == 16;
  KernelDef d = row_kernel({lookup, RowKind::Rms, false, deep ? std::vector<int>{16, 4, 1} : std::vector<int>{4, 1},
                            deep ? std::vector<int>{8, 2, 1} : std::vector<int>{2, 1}});
  d.description =
      std::string("RMSNorm, one wave per row, two passes: lane l sums the squares of the 16-byte pieces l, l+64, ... "
                  "of the row (one 1 KiB dwordx4 load per wave step, ") +
      (deep ? "16 loads in flight per batch, for large dims" : "4 loads in flight per batch") +
      "), a DPP butterfly gives the row sum, then x*rsqrt(mean + eps)*w is written with dwordx4 stores; a tail of "
      "dim % 4 floats is read one dword per lane. The per-lane summation order and the reduction are those of " +
      twin + ", so the outputs are bit-identical to it. Any dim (not only multiples of 64); extra waves of a larger "
      "workgroup exit. No LDS (the spec's 1024 bytes are an implementation detail of the original).";
  d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / dim + eps)^(-1/2) * w[i]";
  d.geometry = "grid = rows, wg = 64 (larger workgroups: waves past the first do nothing)";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg dim = dim";
  d.limits = "1 <= dim < 2^31 (dim = 0: nothing written); any dim, no alignment requirement beyond 4 bytes; "
             "y may equal x (in place)";
  d.tolerance = rms_tolerance();
  d.cases = [deep](bool sweep) { return row_cases(sweep, false, deep ? 5120 : 2053); };
  d.run = [lookup, twin](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], dim = c["dim"];
    Rng rng(c.seed);
    auto x = rng.normal(size_t(rows * dim));
    auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
    float eps = 1e-6f;
    auto y = run_rms_plain(dev, lookup, x, w, rows, dim, eps, uint32_t(c["wg"]));
    auto y_twin = run_rms_plain(dev, twin, x, w, rows, dim, eps, 64);
    CaseResult same = compare_exact_u32(bits_of(y), bits_of(y_twin));
    if (!same.pass) same.note = "not bit-identical to " + twin + ": " + same.note;
    return combine({compare(y, rms_reference(x, w, nullptr, rows, dim, eps, false), rms_tolerance()), same});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + c["dim"]) * 4; };
  d.bench_case = [deep] { return make_case({{"rows", deep ? 1 : 64}, {"dim", deep ? 5120 : 4096}, {"wg", 64}}); };
  r.add(std::move(d));
}

}  // namespace

void register_ops_norm_row_kernels(Registry& r) {
  register_rms_plain(r, "rmsnorm_deep_k", "rmsnorm_fast_k", 16);
  register_rms_plain(r, "rmsnorm_fast_k", "rmsnorm_deep_k", 4);

  {
    KernelDef d = row_kernel({"rmsnorm_gated_k", RowKind::RmsGated, true, {4, 1}, {2, 1}});
    d.description =
        "Gated RMSNorm: the workgroup's threads sum the squares of the row's 16-byte pieces (dwordx4, consecutive "
        "threads on consecutive pieces), waves combine through a DPP butterfly and LDS, then "
        "x*rsqrt(mean + eps)*w*silu(gate) is written with dwordx4 stores (silu via v_exp_f32 and v_rcp_f32). Any "
        "workgroup size that is a multiple of 64 (read from the hidden block); any D. LDS 64 bytes (the spec's 128 "
        "is an implementation detail).";
    d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / D + eps)^(-1/2) * w[i] * silu(gate[r][i]), "
                  "silu(g) = g / (1 + e^-g)";
    d.geometry = "grid = rows, wg = 64 (any multiple of 64 up to 1024)";
    d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg D = dim";
    d.limits = "1 <= D < 2^31 (D <= 0: nothing written); workgroup size a multiple of 64; gate has the layout of x";
    d.tolerance = Tolerance{2e-6, 6e-6};
    d.cases = [](bool sweep) { return row_cases(sweep, true, 2560); };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
      auto g = rng.normal(size_t(rows * dim), 0.f, 4.f);
      float eps = 1e-5f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), dg(dev, g), dy(dev, x.size());
      launch(dev, row_signature("rmsnorm_gated_k", RowKind::RmsGated), {uint32_t(rows)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), dg.addr(), dim, eps});
      return compare(dy.download(), rms_reference(x, w, &g, rows, dim, eps, false), Tolerance{2e-6, 6e-6});
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(3 * c["rows"] * c["dim"] + c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 64}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d = row_kernel({"rmsnorm_k", RowKind::RmsZc, true, {4, 1}, {2, 1}});
    d.description =
        "RMSNorm with an optional zero-centred weight (W = 1 + w when zc != 0). The workgroup's threads sum the "
        "squares of the row's 16-byte pieces (dwordx4, consecutive threads on consecutive pieces), waves combine "
        "through a DPP butterfly and LDS, then the scaled row is written with dwordx4 stores. Any D (the spec's "
        "D % 64 == 0 constraint is lifted); any workgroup size that is a multiple of 64 (read from the hidden "
        "block). LDS 64 bytes (the spec's 128 is an implementation detail).";
    d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / D + eps)^(-1/2) * W[i], W = w (zc = 0) or 1 + w (zc != 0)";
    d.geometry = "grid = rows, wg = 64 or 256 (any multiple of 64 up to 1024)";
    d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg D = dim";
    d.limits = "pass zc = 0 for standard RMSNorm; 1 <= D < 2^31 (D <= 0: nothing written); workgroup size a "
               "multiple of 64; y may equal x";
    d.tolerance = rms_tolerance();
    d.cases = [](bool sweep) {
      auto c = row_cases(sweep, true, 4096);
      for (size_t i = 0; i < c.size(); ++i) c[i].dims["zc"] = int64_t(i % 2);
      return c;
    };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      bool zc = c["zc"] != 0;
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      auto w = zc ? rng.uniform(size_t(dim), -0.5f, 0.5f) : rng.uniform(size_t(dim), 0.5f, 1.5f);
      float eps = 1e-6f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), dy(dev, x.size());
      launch(dev, row_signature("rmsnorm_k", RowKind::RmsZc), {uint32_t(rows)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), dim, eps, zc ? 1 : 0});
      return compare(dy.download(), rms_reference(x, w, nullptr, rows, dim, eps, zc), rms_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 256}, {"zc", 0}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d = row_kernel({"l2norm_k", RowKind::L2, true, {4, 1}, {4, 1}});
    d.description =
        "In-place L2 normalisation of each row: the workgroup's threads sum the squares of the row's 16-byte "
        "pieces (dwordx4), waves combine through a DPP butterfly and LDS, then the row is scaled in place with "
        "dwordx4 stores. eps is added inside the root (not squared). Any S; any workgroup size that is a multiple "
        "of 64 (read from the hidden block). LDS 64 bytes (the spec's 128 is an implementation detail).";
    d.semantics = "x[r][i] *= (sum_j x[r][j]^2 + eps)^(-1/2)";
    d.geometry = "grid = rows, wg = 64 or 128 (any multiple of 64 up to 1024)";
    d.launch = "sizes rows\nworkgroup = 64\ngrid = rows";
    d.limits = "1 <= S < 2^31 (S <= 0: nothing written); workgroup size a multiple of 64";
    d.tolerance = rms_tolerance();
    d.cases = [](bool sweep) { return row_cases(sweep, true, 128); };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      float eps = 1e-6f;
      DeviceBuffer<float> dx(dev, x);
      launch(dev, row_signature("l2norm_k", RowKind::L2), {uint32_t(rows)}, {uint32_t(c["wg"])}, {dx.addr(), dim, eps});
      return compare(dx.download(), rms_reference(x, {}, nullptr, rows, dim, eps, false, true), rms_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["dim"]) * 8; };  // x read and written back
    d.bench_case = [] { return make_case({{"rows", 512}, {"dim", 128}, {"wg", 64}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d = row_kernel({"layernorm_k", RowKind::Layer, false, {4, 1}, {2, 1}});
    d.description =
        "Row LayerNorm, one wave per row, two passes: lanes accumulate sum(x - s) and sum((x - s)^2) over the "
        "row's 16-byte pieces (dwordx4), with the shift s = x[row][0] so the variance does not cancel for rows "
        "with a large mean; a DPP butterfly reduces both, then (x - mean)*rsqrt(var + eps)*w + b is written with "
        "dwordx4 stores. Unlike the original, y is not used as scratch: any cols, and y may equal x (in place; it "
        "must not overlap w or b). group_size is ignored: extra waves of a larger workgroup exit; rows past `rows` do "
        "nothing. No LDS (the spec's 1024 bytes are an implementation detail).";
    d.semantics = "y[r][i] = (x[r][i] - mean_r) / sqrt(var_r + eps) * w[i] + b[i], var_r biased (divided by cols)";
    d.geometry = "grid = rows (extra workgroups do nothing), wg = 64";
    d.launch = "sizes rows\nworkgroup = 64\ngrid = rows";
    d.limits = "1 <= cols < 2^31 (the spec's cols % 64 == 0 is lifted); group_size is ignored";
    d.tolerance = layer_tolerance();
    d.cases = [](bool sweep) {
      auto c = row_cases(sweep, false, 1536);
      for (size_t i = 0; i < c.size(); ++i) c[i].dims["offset"] = int64_t(i % 2 ? 50 : 0);
      return c;
    };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim), float(c["offset"]), 2.f);
      auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
      auto bias = rng.uniform(size_t(dim));
      float eps = 1e-5f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), db(dev, bias), dy(dev, x.size());
      // one workgroup more than rows: it must not write
      launch(dev, row_signature("layernorm_k", RowKind::Layer), {uint32_t(rows + 1)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), db.addr(), rows, dim, eps, c["wg"]});
      return compare(dy.download(), layer_reference(x, w, bias, rows, dim, eps), layer_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + 2 * c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 64}, {"offset", 0}}); };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
