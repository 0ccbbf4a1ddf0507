// Streaming elementwise operators: fill_k, add_inplace_k, scale_mul_k,
// silu_mul_k, sigmoid_mul_k (grid-stride, full hidden block) and gelu_mul_k
// (one element per work-item, no hidden arguments).
//
// The grid-stride kernels move 16 bytes per lane and stream: lane l of a wave
// handles the 4-float vector I + l, with I = (the wave's first global thread)
// + k * (threads in the grid) in trip k, so one global_load_dwordx4 covers
// 1 KiB of a stream (16 whole 64-byte lines, each requested once). Every
// address is a 64-bit scalar base advanced per trip plus a lane offset below
// 1 KiB, so any n below 2^34 works with any grid and workgroup size. The n % 4
// trailing elements are handled by the grid's first work-item with dword
// accesses. The activations use v_exp_f32 (2^x) and v_rcp_f32:
// silu(g) * u = g * u / (1 + 2^(-g log2 e)); an overflowing exponential gives
// 1/inf = 0, the correct limit.
#include <cmath>
#include <numbers>

#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

enum class StreamOp { Fill, AddInplace, ScaleMul, SiluMul, SigmoidMul };

struct StreamShape {
  const char* name;
  std::vector<Param> ptrs;  // pointer arguments in order
  std::vector<bool> loads;  // which of them the kernel reads
  const char* scalar = nullptr;  // f32 value argument after the first pointer (fill, scale)
  int out = 0;                   // the pointer the result goes to
};

StreamShape shape_of(StreamOp op) {
  switch (op) {
    case StreamOp::Fill: return {"fill_k", {out("y", "f32")}, {false}, "value"};
    case StreamOp::AddInplace: return {"add_inplace_k", {inout("y", "f32"), in("x", "f32")}, {true, true}};
    case StreamOp::ScaleMul: return {"scale_mul_k", {inout("x", "f32")}, {true}, "s"};
    case StreamOp::SiluMul:
      return {"silu_mul_k", {out("y", "f32"), in("gate", "f32"), in("up", "f32")}, {false, true, true}};
    case StreamOp::SigmoidMul:
      return {"sigmoid_mul_k", {out("y", "f32"), in("x", "f32"), in("g", "f32")}, {false, true, true}};
  }
  return {};
}

// Pointer arguments in order, the scalar after the first, then n (i64); the
// full hidden block gives the grid geometry.
Signature stream_signature(StreamOp op) {
  const StreamShape sh = shape_of(op);
  std::vector<Param> p;
  for (size_t i = 0; i < sh.ptrs.size(); ++i) {
    p.push_back(sh.ptrs[i]);
    if (i == 0 && sh.scalar) p.push_back(value(sh.scalar, "f32"));
  }
  p.push_back(value("n", "i64"));
  return Signature(sh.name, p, codeobj::HiddenArgLayout::Full);
}

// out[c] = op(in...) for components c < n. `t` is a temporary of n components.
void emit_op(Kernel& b, StreamOp op, const std::vector<VGPR>& in, VGPR out, VGPR t, SGPR scalar, int n) {
  switch (op) {
    case StreamOp::Fill:
      for (int c = 0; c < n; ++c) b.v_mov_b32(out[c], scalar);
      return;
    case StreamOp::AddInplace:
      for (int c = 0; c < n; ++c) b.v_add_f32(out[c], in[0][c], in[1][c]);
      return;
    case StreamOp::ScaleMul:
      for (int c = 0; c < n; ++c) b.v_mul_f32(out[c], scalar, in[0][c]);
      return;
    case StreamOp::SiluMul:
    case StreamOp::SigmoidMul: {
      // silu: gate * up / (1 + 2^(-gate log2 e)); sigmoid: x / (1 + 2^(-g log2 e)).
      VGPR gated = op == StreamOp::SiluMul ? in[0] : in[1];
      reciprocal_one_plus_exp2(b, t, -kLog2E, gated, n);
      if (op == StreamOp::SiluMul) {
        for (int c = 0; c < n; ++c) b.v_mul_f32(out[c], in[0][c], in[1][c]);
        for (int c = 0; c < n; ++c) b.v_mul_f32(out[c], out[c], t[c]);
      } else {
        for (int c = 0; c < n; ++c) b.v_mul_f32(out[c], in[0][c], t[c]);
      }
      return;
    }
  }
}

codeobj::CodeObject build_stream(isa::Target target, StreamOp op) {
  const StreamShape sh = shape_of(op);
  Kernel k(stream_signature(op), target, ops::options());
  const int nptr = int(sh.ptrs.size());
  const SGPR n = k.arg("n"), scalar = sh.scalar ? k.arg(sh.scalar) : SGPR{}, hid = hidden_block(k);
  const SGPR count = k.sgpr(1, "vectors"), tail = k.sgpr(1, "tail"), t64 = k.sgpr(2, "t64");
  const VGPR off = k.vgpr(1, "offset"), zero = k.vgpr(1, "zero");
  std::vector<VGPR> in;
  for (size_t i = 0; i < sh.ptrs.size(); ++i)
    if (sh.loads[i]) in.push_back(k.vgpr(4, sh.ptrs[i].name));
  const VGPR out = k.vgpr(4, "out"), t = k.vgpr(4, "t");
  Label exit = k.exit();

  k.s_cmp_ge_u32(n[1], 4);  // n >= 2^34 or negative: nothing to do
  k.s_cbranch_scc1(exit);
  const Grid g = grid_geometry(k, hid);
  k.v_lshlrev_b32(off, 4, g.lane);
  k.s_lshr_b64(t64, n, 2);
  k.s_mov_b32(count, t64[0]);  // whole 4-float vectors
  const SGPR step = widen_shifted(k, g.total, 4);  // 16 * total as 64 bits
  std::vector<SGPR> run;
  for (int i = 0; i < nptr; ++i) run.push_back(offset_address(k, k.arg(sh.ptrs[size_t(i)].name), g.first, 4));
  if (op == StreamOp::Fill) emit_op(k, op, in, out, t, scalar, 4);

  stride_loop(
      k, count, g,
      [&](SGPR) {
        int m = 0;
        for (int i = 0; i < nptr; ++i)
          if (sh.loads[size_t(i)]) k.global_load_dwordx4(in[size_t(m++)], off, run[size_t(i)]);
        if (op != StreamOp::Fill) emit_op(k, op, in, out, t, scalar, 4);
        k.global_store_dwordx4(off, out, run[size_t(sh.out)]);
      },
      [&] {
        for (int i = 0; i < nptr; ++i) add64_pair(k, run[size_t(i)], step);
      });

  // The n % 4 trailing elements: the grid's first work-item, one dword each.
  k.s_and_b32(tail, n[0], 3);
  k.s_cbranch_scc0(exit);
  k.s_cmp_lg_u32(g.first, 0);
  k.s_cbranch_scc1(exit);
  k.s_mov_b64(exec, 1);
  k.v_mov_b32(zero, 0);
  k.s_and_b32(t64[0], n[0], ~3u);
  k.s_mov_b32(t64[1], n[1]);
  k.s_lshl_b64(t64, t64, 2);
  for (int i = 0; i < nptr; ++i) {
    const SGPR base = k.arg(sh.ptrs[size_t(i)].name);
    k.s_add_u32(run[size_t(i)][0], base[0], t64[0]);
    k.s_addc_u32(run[size_t(i)][1], base[1], t64[1]);
  }
  for (int j = 0; j < 3; ++j) {
    k.s_cmp_le_u32(tail, j);
    k.s_cbranch_scc1(exit);
    int m = 0;
    for (int i = 0; i < nptr; ++i)
      if (sh.loads[size_t(i)]) k.global_load_dword(in[size_t(m++)][0], zero, run[size_t(i)], offset(4 * j));
    emit_op(k, op, in, out, t, scalar, 1);
    k.global_store_dword(zero, out[0], run[size_t(sh.out)], offset(4 * j));
  }
  return k.build();
}

// gelu_mul_k(y, gate, up, n, group_size): y[i] = gelu_tanh(gate[i]) * up[i],
// i = workgroup * 64 + lane, as the original (group_size is ignored). The
// first wave of a workgroup does its 64 elements with all lanes enabled, so any
// workgroup size gives the same result with grid = ceil(n/64).
// gelu_tanh(g) = 0.5 g (1 + tanh(u)) = g / (1 + e^(-2u)), u = sqrt(2/pi) (g + 0.044715 g^3).
const Signature kGelu("gelu_mul_k", {out("y", "f32"), in("gate", "f32"), in("up", "f32"), value("n", "u32"),
                                     value("group_size", "u32")});

codeobj::CodeObject build_gelu_mul(isa::Target target) {
  Kernel k(kGelu, target, ops::options());
  const SGPR n = k.arg("n"), group = k.workgroup_id(), base = k.sgpr(1, "first"), left = k.sgpr(1, "left");
  const VGPR off = k.vgpr(1, "offset"), g = k.vgpr(1, "g"), u = k.vgpr(1, "u"), t = k.vgpr(1, "t");
  Label exit = k.exit();
  const double k0 = -2.0 * std::sqrt(2.0 / std::numbers::pi) * 1.4426950408889634;  // -2 sqrt(2/pi) log2 e
  exit_unless_first_wave(k, exit);
  const VGPR lane = whole_wave_lane_id(k);  // a partial first wave still covers its 64 elements
  k.s_cmp_ge_u32(group, 1u << 26);
  k.s_cbranch_scc1(exit);  // first index past 2^32 > n
  k.s_lshl_b32(base, group, 6);
  k.s_cmp_ge_u32(base, n);
  k.s_cbranch_scc1(exit);
  k.s_sub_u32(left, n, base);
  k.v_cmp_gt_u32(vcc, left, lane);
  k.s_and_b64(exec, exec, vcc);
  const SGPR py = offset_address(k, k.arg("y"), base, 2), pg = offset_address(k, k.arg("gate"), base, 2),
             pu = offset_address(k, k.arg("up"), base, 2);
  k.v_lshlrev_b32(off, 2, lane);
  k.global_load_dword(g, off, pg);
  k.global_load_dword(u, off, pu);
  k.v_mul_f32(t, g, g);
  k.v_mul_f32(t, float(k0 * 0.044715), t);
  k.v_add_f32(t, float(k0), t);
  reciprocal_one_plus_exp2(k, t, g, t);  // of -2u log2 e
  k.v_mul_f32(g, g, u);
  k.v_mul_f32(g, g, t);
  k.global_store_dword(off, g, py);
  return k.build();
}

// ------------------------------------------------------------------ tests

double silu(double g) { return g / (1.0 + std::exp(-g)); }
double sigmoid(double g) { return 1.0 / (1.0 + std::exp(-g)); }
double gelu_tanh(double g) {
  return 0.5 * g * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (g + 0.044715 * g * g * g)));
}

// Activation inputs: mostly N(0, 3), with saturating values mixed in.
std::vector<float> activation_inputs(Rng& rng, size_t n) {
  auto v = rng.normal(n, 0.f, 3.f);
  const float extremes[] = {-200.f, -90.f, -30.f, 30.f, 90.f, 200.f, 0.f, -0.f};
  for (size_t i = 0; i < n; i += 37) v[i] = extremes[(i / 37) % 8];
  return v;
}

// Cases of a grid-stride kernel: n, workgroup size wg and grid (0 = ceil(n/wg)).
std::vector<Case> stream_cases(bool sweep) {
  std::vector<Case> c = case_table({"n", "wg", "grid"}, {{1, 64, 0}, {1000, 64, 0}, {4099, 64, 3}, {771, 100, 2},
                                                        {2050, 256, 0}});
  if (sweep) {
    uint32_t seed = 10;
    for (int64_t n : {2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 4096, 65537, 300001})
      for (int64_t wg : {1, 32, 64, 192, 1024})
        for (int64_t grid : {0, 1, 7}) c.push_back(make_case({{"n", n}, {"wg", wg}, {"grid", grid}}, seed++));
  }
  return c;
}

Dim3 stream_grid(const Case& c) {
  int64_t n = c["n"], wg = c["wg"], grid = c["grid"];
  if (!grid) grid = std::max<int64_t>(1, (n + wg - 1) / wg);
  return Dim3{uint32_t(grid)};
}

void add_stream(Registry& reg, StreamOp op) {
  const StreamShape sh = shape_of(op);
  KernelDef d = generated_kernel("ops", stream_signature(op), [op](isa::Target t) { return build_stream(t, op); });
  d.geometry = "grid-stride: any grid and workgroup size (grid = ceil(n/64), wg = 64 typical)";
  d.launch = "sizes n\nworkgroup = 64\ngrid = ceil_div(n, 64)";
  d.limits = "0 <= n < 2^34 (a negative or larger n writes nothing); pointers 4-byte aligned";
  d.cases = stream_cases;
  const char* common =
      " Grid-stride: each lane moves 16 bytes per trip (global_load/store_dwordx4, every 64-byte line requested "
      "once), any grid and workgroup size is correct; the n % 4 trailing elements are done by the grid's first "
      "work-item.";
  switch (op) {
    case StreamOp::Fill:
      d.description = std::string("Fills a float buffer with one value.") + common;
      d.semantics = "y[i] = value for i < n (value passed as its f32 bit pattern)";
      d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 4; };
      break;
    case StreamOp::AddInplace:
      d.description = std::string("In-place elementwise add (residual connections).") + common;
      d.semantics = "y[i] += x[i] for i < n (one f32 addition, bit-exact)";
      d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 12; };  // x; y read and written back
      break;
    case StreamOp::ScaleMul:
      d.description = std::string(
                          "In-place scaling by a scalar. The original kernel handled one element per work-item "
                          "(grid had to cover n); this one is grid-stride, so the usual grid = ceil(n/64) and any "
                          "smaller grid both give the full result.") +
                      common;
      d.semantics = "x[i] *= s for i < n (one f32 multiplication, bit-exact; s passed as its f32 bit pattern)";
      d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 8; };  // x read and written back
      break;
    case StreamOp::SiluMul:
      d.description = std::string("SwiGLU: silu of the gate (2nd argument) times up, computed as "
                                  "gate*up / (1 + 2^(-gate*log2 e)) with v_exp_f32 and v_rcp_f32.") +
                      common;
      d.semantics = "y[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + e^-g), for i < n";
      d.tolerance = Tolerance{1e-6, 4e-6};
      d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 12; };
      break;
    case StreamOp::SigmoidMul:
      d.description = std::string("Sigmoid gate: x times sigmoid of g, where the gated operand is the THIRD "
                                  "argument (the opposite of silu_mul_k); x / (1 + 2^(-g*log2 e)).") +
                      common;
      d.semantics = "y[i] = x[i] * sigmoid(g[i]), sigmoid(g) = 1 / (1 + e^-g), for i < n";
      d.tolerance = Tolerance{1e-6, 4e-6};
      d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 12; };
      break;
  }
  d.run = [op, tol = d.tolerance, sig = stream_signature(op)](TestDevice& dev, const Case& c) {
    const size_t n = size_t(c["n"]);
    Rng rng(c.seed);
    std::vector<float> a, bvec, want(n);
    float scalar = 0;
    switch (op) {
      case StreamOp::Fill:
        scalar = rng.uniform(1)[0] * 1000.f;
        a = rng.uniform(n);  // previous contents
        for (size_t i = 0; i < n; ++i) want[i] = scalar;
        break;
      case StreamOp::AddInplace:
        a = rng.normal(n);
        bvec = rng.normal(n);
        for (size_t i = 0; i < n; ++i) want[i] = a[i] + bvec[i];
        break;
      case StreamOp::ScaleMul:
        a = rng.normal(n);
        scalar = rng.uniform(1, 0.5f, 3.f)[0];
        for (size_t i = 0; i < n; ++i) want[i] = a[i] * scalar;
        break;
      case StreamOp::SiluMul:
      case StreamOp::SigmoidMul:
        a = op == StreamOp::SiluMul ? activation_inputs(rng, n) : rng.normal(n);
        bvec = op == StreamOp::SiluMul ? rng.normal(n) : activation_inputs(rng, n);
        for (size_t i = 0; i < n; ++i)
          want[i] = op == StreamOp::SiluMul ? float(silu(a[i]) * bvec[i]) : float(a[i] * sigmoid(bvec[i]));
        break;
    }
    const Dim3 grid = stream_grid(c), wg{uint32_t(c["wg"])};
    if (op == StreamOp::Fill || op == StreamOp::ScaleMul) {
      DeviceBuffer<float> x(dev, with_guard(a));
      launch(dev, sig, grid, wg, {x.addr(), scalar, n});
      return compare_guarded(x.download(), want, tol);
    }
    if (op == StreamOp::AddInplace) {
      DeviceBuffer<float> y(dev, with_guard(a)), x(dev, bvec);
      launch(dev, sig, grid, wg, {y.addr(), x.addr(), n});
      return compare_guarded(y.download(), want, tol);
    }
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(n, 0.f))), p(dev, a), q(dev, bvec);
    launch(dev, sig, grid, wg, {y.addr(), p.addr(), q.addr(), n});
    return compare_guarded(y.download(), want, tol);
  };
  // Prefill-sized activations: 64 tokens x 17408 (the FFN width of a 5120-wide model) for the gates,
  // 256 tokens x 5120 for the residual-stream operators.
  d.bench_case = [op] {
    int64_t n = op == StreamOp::SiluMul || op == StreamOp::SigmoidMul ? 64 * 17408 : 256 * 5120;
    return make_case({{"n", n}, {"wg", 64}, {"grid", 0}});
  };
  reg.add(std::move(d));
}

void add_gelu(Registry& reg) {
  KernelDef d = generated_kernel("ops", kGelu, build_gelu_mul);
  d.description =
      "GELU (tanh approximation) of the gate times up, one element per work-item: "
      "gelu_tanh(g) * u = g*u / (1 + 2^(-2 sqrt(2/pi) (g + 0.044715 g^3) log2 e)) with v_exp_f32 and v_rcp_f32; "
      "64 elements per workgroup (the first wave, all lanes), so the grid must cover n; group_size is ignored as in "
      "the original.";
  d.semantics = "y[i] = gelu_tanh(gate[i]) * up[i], gelu_tanh(g) = 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))), "
                "for i = workgroup * 64 + lane < n";
  d.geometry = "grid = ceil(n/64), wg = 64 (64 elements per workgroup, no stride loop; any wg gives the same result)";
  d.launch = "sizes n\nworkgroup = 64\ngrid = ceil_div(n, 64)";
  d.limits =
      "the grid must cover n (ceil(n/64) workgroups); group_size is ignored, as in the original (pass 64); "
      "n < 2^32";
  d.tolerance = Tolerance{1e-6, 1e-5};
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"n", "wg"}, {{1, 64}, {200, 64}, {4097, 64}, {300, 128}, {100, 32}});
    if (sweep)
      for (int64_t n : {63, 64, 65, 1000, 65537, 300001})
        for (int64_t wg : {1, 32, 64, 256}) c.push_back(make_case({{"n", n}, {"wg", wg}}, uint32_t(n + wg)));
    return c;
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    const size_t n = size_t(c["n"]);
    const uint32_t wg = uint32_t(c["wg"]);
    Rng rng(c.seed);
    auto g = activation_inputs(rng, n);
    auto u = rng.normal(n);
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = float(gelu_tanh(g[i]) * u[i]);
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(n, 0.f))), dg(dev, g), du(dev, u);
    launch(dev, kGelu, {uint32_t((n + 63) / 64)}, {wg}, {y.addr(), dg.addr(), du.addr(), n, wg});  // group_size: ignored
    return compare_guarded(y.download(), want, tol);
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 12; };
  d.bench_case = [] { return make_case({{"n", 64 * 17408}, {"wg", 64}}); };
  reg.add(std::move(d));
}

}  // namespace

void register_ops_elementwise_stream_kernels(Registry& r) {
  for (StreamOp op : {StreamOp::AddInplace, StreamOp::Fill, StreamOp::ScaleMul, StreamOp::SigmoidMul,
                      StreamOp::SiluMul})
    add_stream(r, op);
  add_gelu(r);
}

}  // namespace k100::kernels
