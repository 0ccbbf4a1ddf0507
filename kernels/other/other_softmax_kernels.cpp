// Blocked softmax (KERNELS.md §3.9): block_max_k, reduce_max1_k,
// block_exp_sum_k, reduce_sum1_k, div_scalar_k. A row of `cols` values is
// split into 2^sh blocks; the five kernels compute softmax(x * inv) as
//   part = block maxima -> M = max(part) -> y = exp((x - M) * inv), part = block sums
//   -> S = sum(part) -> y /= S,
// with M and S passed between kernels in device memory.
//
// The first four are one generator: one wave streams a range of floats (a
// block of the row, or the partials) in 16-byte pieces per lane (1 KiB per
// load instruction, four in flight, then single rounds, a masked last round
// and the values past the last whole piece one dword per lane), folds them
// into a per-lane maximum or sum (block_exp_sum_k first turns each value into
// exp((x - M) * inv) = v_exp_f32((x - M) * (inv * log2 e)) and stores it),
// reduces the lanes with DPP and lane 63 writes the result. Blocks: nb = 2^sh
// blocks of chunk = cols >> sh values, the last one also taking the cols % nb
// values past nb * chunk (any cols; a block without values writes the
// identity). Workgroups past the blocks (past the first for the reductions)
// and waves past the first do nothing.
#include <algorithm>
#include <cmath>
#include <limits>

#include "other_families.h"

namespace k100::kernels {

namespace {

using namespace codegen;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

enum class Stream { BlockMax, BlockExpSum, ReduceMax, ReduceSum };

Signature stream_signature(Stream kind) {
  switch (kind) {
    case Stream::BlockMax:
      return Signature("block_max_k", {out("part", "f32"), in("x", "f32"), value("cols", "u32"), value("sh", "u32")});
    case Stream::BlockExpSum:
      return Signature("block_exp_sum_k", {out("part", "f32"), out("y", "f32"), in("x", "f32"), in("m", "f32"),
                                           value("cols", "u32"), value("sh", "u32"), value("inv", "f32")});
    default:
      return Signature(kind == Stream::ReduceMax ? "reduce_max1_k" : "reduce_sum1_k",
                       {in("part", "f32"), out("y", "f32"), value("nbpr", "u32")});
  }
}

codeobj::CodeObject build_stream(isa::Target target, Stream kind) {
  const bool block = kind == Stream::BlockMax || kind == Stream::BlockExpSum, exp_sum = kind == Stream::BlockExpSum;
  const ReduceOp op = kind == Stream::BlockMax || kind == Stream::ReduceMax ? ReduceOp::Max : ReduceOp::Add;
  Kernel k(stream_signature(kind), target, {.waves_per_simd = 10});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR group = k.workgroup_id(), count = s1("values"), nq = s1("pieces"), rem = s1("rem"), left = s1("left"),
             nb = s1("blocks"), chunk = s1("chunk"), first = s1("first"), t = s1("t"), M = s1("M");
  const SGPR src = k.sgpr(2, "values stream"), ys = k.sgpr(2, "y stream");
  const VGPR lane = k.local_id(), acc = k.vgpr(1, "acc"), data = k.vgpr(16, "values"), c = k.vgpr(1, "inv log2e"),
             zero = k.vgpr(1, "zero");
  SGPR x0, y0, out;
  exit_unless_first_wave(k, exit);
  if (block) {
    const SGPR cols = k.arg("cols"), sh = k.arg("sh");
    k.s_lshl_b32(nb, 1, sh);
    k.s_cmp_ge_u32(group, nb);
    k.s_cbranch_scc1(exit);  // block past the end
    k.s_lshr_b32(chunk, cols, sh);
    k.s_mul_i32(first, group, chunk);  // first value of the block (<= cols)
    k.s_sub_u32(t, cols, first);
    k.s_add_u32(nb, nb, -1);
    k.s_cmp_eq_u32(group, nb);
    k.s_cselect_b32(count, t, chunk);  // the last block takes the rest of the row
    x0 = offset_address(k, k.arg("x"), first, 2);
    out = offset_address(k, k.arg("part"), group, 2);
    if (exp_sum) {
      y0 = offset_address(k, k.arg("y"), first, 2);
      k.s_load_dword(M, k.arg("m"), 0);
      k.v_mov_b32(c, kLog2E);
      k.v_mul_f32(c, k.arg("inv"), c);
    }
  } else {
    k.s_cmp_lg_u32(group, 0);
    k.s_cbranch_scc1(exit);  // not the first workgroup
    k.s_mov_b32(count, k.arg("nbpr"));
    x0 = k.arg("part");
    out = k.arg("y");
  }
  k.v_mov_b32(acc, identity_bits(op));
  // acc = op(acc, v[0 .. n)), as a pairwise tree; block_exp_sum_k first makes
  // each value exp((x - M) * inv) and stores it at (offset, imm) of y.
  auto fold = [&](VGPR v, int n, std::optional<std::pair<VGPR, int>> store) {
    if (exp_sum) {
      for (int i = 0; i < n; ++i) k.v_subrev_f32(v[i], M, v[i]);
      for (int i = 0; i < n; ++i) k.v_mul_f32(v[i], v[i], c);
      for (int i = 0; i < n; ++i) k.v_exp_f32(v[i], v[i]);
      if (store && n == 4) k.global_store_dwordx4(store->first, v, ys, offset(store->second));
      if (store && n == 1) k.global_store_dword(store->first, v[0], ys, offset(store->second));
    }
    for (int w = 1; w < n; w *= 2)
      for (int i = 0; i + w < n; i += 2 * w) reduce_step(k, op, v[i], v[i], v[i + w]);
    reduce_step(k, op, acc, acc, v[0]);
  };
  k.s_lshr_b32(nq, count, 2);
  k.s_and_b32(rem, count, 3);
  k.s_mov_b32(left, nq);
  std::vector<std::pair<SGPR, SGPR>> streams = {{src, x0}};
  if (exp_sum) streams.emplace_back(ys, y0);
  ChunkWalk w{.single_wave = true, .thread = lane, .left = left, .max_batch = 4, .streams = streams};
  std::vector<std::pair<VGPR, int>> where(4);
  w.load = [&](int i, VGPR voff, int imm) {
    where[size_t(i)] = {voff, imm};
    k.global_load_dwordx4(data.sub(4 * i, 4), voff, src, offset(imm));
  };
  w.compute = [&](int i) { fold(data.sub(4 * i, 4), 4, where[size_t(i)]); };
  chunk_walk(k, w, {4, 1});
  element_tail(k, nq, rem, lane, streams, [&](VGPR off) {
    k.global_load_dword(data[0], off, src);
    fold(data, 1, std::pair<VGPR, int>{off, 0});
  });
  // lane 63 writes the wave's result
  lane_reduce(k, {{op, acc}});
  k.v_mov_b32(zero, 0);
  k.s_mov_b32(exec_lo, 0);
  k.s_mov_b32(exec_hi, 0x80000000u);
  k.global_store_dword(zero, acc, out);
  return k.build();
}

// div_scalar_k(y, s, n): workgroup g scales y[64 g .. 64 g + 63] by 1 / s[0]
// (v_rcp_f32, then one multiply); waves past the first do nothing.
const Signature kDivScalar("div_scalar_k", {inout("y", "f32"), in("s", "f32"), value("n", "u32")});

codeobj::CodeObject build_div_scalar(isa::Target target) {
  Kernel k(kDivScalar, target, {.waves_per_simd = 10});
  Label exit = k.exit();
  const SGPR divisor = k.sgpr(1, "s[0]");
  const VGPR off = k.vgpr(1, "offset"), y = k.vgpr(1, "y"), r = k.vgpr(1, "1/s");
  exit_unless_first_wave(k, exit);
  k.s_load_dword(divisor, k.arg("s"), 0);
  workgroup_elements64(k, k.arg("n"), exit, [&](SGPR first) {
    const SGPR row = offset_address(k, k.arg("y"), first, 2);
    k.v_lshlrev_b32(off, 2, k.local_id());
    k.global_load_dword(y, off, row);
    k.v_rcp_f32(r, divisor);
    k.v_mul_f32(y, y, r);
    k.global_store_dword(off, y, row);
  });
  return k.build();
}

// Launch geometry of a case: 2^sh workgroups (plus "extra") of 64 (or "wg").
Dim3 block_grid(const Case& c) {
  return {uint32_t((int64_t(1) << c["sh"]) + (c.dims.count("extra") ? c["extra"] : 0))};
}
Dim3 block_wg(const Case& c) { return {uint32_t(c.dims.count("wg") ? c["wg"] : 64)}; }

// Block b of a row of `cols` values split into 2^sh blocks: [begin, end).
// Every block has cols >> sh values except the last, which also takes the
// remainder, so the blocks always cover the whole row.
struct BlockRange {
  int64_t begin, end;
};
BlockRange block_range(int64_t cols, int64_t sh, int64_t b) {
  int64_t nb = int64_t(1) << sh, chunk = cols >> sh;
  return {b * chunk, b == nb - 1 ? cols : (b + 1) * chunk};
}

std::vector<float> block_max_reference(const std::vector<float>& x, int64_t cols, int64_t sh) {
  std::vector<float> part(size_t(1) << sh);
  for (int64_t b = 0; b < int64_t(part.size()); ++b) {
    auto r = block_range(cols, sh, b);
    float m = kNegInf;
    for (int64_t i = r.begin; i < r.end; ++i) m = std::max(m, x[size_t(i)]);
    part[size_t(b)] = m;
  }
  return part;
}

// y = exp((x - M) * inv) and the block sums (double accumulation).
void block_exp_sum_reference(const std::vector<float>& x, float m, float inv, int64_t cols, int64_t sh,
                             std::vector<float>& y, std::vector<float>& part) {
  y.assign(size_t(cols), 0.f);
  part.assign(size_t(1) << sh, 0.f);
  for (int64_t b = 0; b < int64_t(part.size()); ++b) {
    auto r = block_range(cols, sh, b);
    double s = 0;
    for (int64_t i = r.begin; i < r.end; ++i) {
      double e = std::exp((double(x[size_t(i)]) - double(m)) * double(inv));
      y[size_t(i)] = float(e);
      s += e;
    }
    part[size_t(b)] = float(s);
  }
}

std::vector<Case> reduce1_cases(bool sweep) {
  std::vector<Case> c = case_table({"nbpr", "seed"}, {{1, 11}, {37, 12}, {64, 13}, {1000, 14}});
  if (sweep)
    for (int64_t n : {0, 2, 3, 63, 65, 127, 128, 255, 256, 257, 511, 1023, 1024, 1025, 1279, 1280, 4095, 4096, 5000,
                      65536, 100003})
      c.push_back(make_case({{"nbpr", n}}, uint32_t(100 + n)));
  return c;
}

std::vector<Case> block_cases(bool sweep, uint32_t seed0) {
  // the last row: 3 extra workgroups of 128, blocks past 2^sh and second waves do nothing
  std::vector<Case> c = case_table({"cols", "sh", "extra", "wg", "seed"},
                                   {{256, 0, 0, 64, seed0 + 1}, {1000, 2, 0, 64, seed0 + 2}, {4096, 3, 0, 64, seed0 + 3},
                                    {5, 2, 0, 64, seed0 + 4}, {3000, 1, 0, 64, seed0 + 5}, {999, 2, 3, 128, seed0 + 6}});
  if (sweep)
    for (int64_t cols : {1, 7, 63, 255, 256, 257, 1023, 1024, 1025, 1279, 2048, 4095, 5000, 32000, 151936})
      for (int64_t sh : {0, 1, 3, 6})
        c.push_back(make_case({{"cols", cols}, {"sh", sh}}, uint32_t(seed0 + 7 * cols + sh)));
  return c;
}

void register_block_max(Registry& r) {
  KernelDef d = generated_kernel("other", stream_signature(Stream::BlockMax),
                                 [](isa::Target t) { return build_stream(t, Stream::BlockMax); });
  d.description =
      "Blocked softmax step 1: the row is split into 2^sh blocks, one wave per block writes the block maximum. "
      "Lanes stream the block 16 bytes each (1 KiB per load instruction, four in flight, every line requested "
      "once), the tail one dword per lane, then a DPP reduction. Any cols: the last block also takes the "
      "cols % 2^sh values past 2^sh * (cols >> sh) (the reference required (cols >> sh) % 256 == 0), so "
      "the blocks always cover the row. LDS: none (the reference used 256 bytes).";
  d.semantics =
      "chunk = cols >> sh; block b covers [b*chunk, b == 2^sh-1 ? cols : (b+1)*chunk); part[b] = max over the "
      "block (-inf for an empty block)";
  d.geometry = "grid = 2^sh (workgroups past it do nothing), wg = 64";
  d.launch = "sizes splits\nworkgroup = 64\ngrid = splits\narg sh = log2_ceil(splits)";
  d.limits = "sh <= 31; any cols (swept 1 ... 151936, sh 0 ... 6); part holds 2^sh floats";
  d.cases = [](bool sweep) { return block_cases(sweep, 300); };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t cols = c["cols"], sh = c["sh"];
    Rng rng(c.seed);
    auto x = c.seed % 2 ? rng.uniform(size_t(cols), -300.f, -200.f) : rng.normal(size_t(cols), 0.f, 10.f);
    size_t nb = size_t(1) << sh;
    DeviceBuffer<float> dx(dev, x), dp(dev, guarded(nb));
    dev.launch("block_max_k", block_grid(c), block_wg(c), {dp.addr(), dx.addr(), u32(cols), u32(sh)});
    return compare(dp.download(), guarded(block_max_reference(x, cols, sh)), Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["cols"] + (int64_t(1) << c["sh"])) * 4; };
  d.bench_case = [] { return make_case({{"cols", 151936}, {"sh", 6}}); };
  r.add(std::move(d));
}

// Softmax of x * inv through the five blocked-softmax kernels, as a user runs them.
CaseResult run_blocked_softmax(TestDevice& dev, const std::vector<float>& x, int64_t cols, int64_t sh, float inv,
                               const Tolerance& tol) {
  uint32_t nb = uint32_t(1) << sh;
  DeviceBuffer<float> dx(dev, x), dy(dev, size_t(cols)), dp(dev, nb), dm(dev, 1), ds(dev, 1);
  dev.launch("block_max_k", {nb}, {64}, {dp.addr(), dx.addr(), u32(cols), u32(sh)});
  dev.launch("reduce_max1_k", {1}, {64}, {dp.addr(), dm.addr(), u32(nb)});
  dev.launch("block_exp_sum_k", {nb}, {64},
             {dp.addr(), dy.addr(), dx.addr(), dm.addr(), u32(cols), u32(sh), f32(inv)});
  dev.launch("reduce_sum1_k", {1}, {64}, {dp.addr(), ds.addr(), u32(nb)});
  dev.launch("div_scalar_k", {uint32_t((cols + 63) / 64)}, {64}, {dy.addr(), ds.addr(), u32(cols)});
  double m = -INFINITY, s = 0;
  for (float v : x) m = std::max(m, double(v));
  std::vector<double> e(x.size());
  for (size_t i = 0; i < x.size(); ++i) s += e[i] = std::exp((double(x[i]) - m) * double(inv));
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = float(e[i] / s);
  return compare(dy.download(), want, tol);
}

void register_block_exp_sum(Registry& r) {
  KernelDef d = generated_kernel("other", stream_signature(Stream::BlockExpSum),
                                 [](isa::Target t) { return build_stream(t, Stream::BlockExpSum); });
  d.description =
      "Blocked softmax step 3: with M read from device memory (m[0], the output of reduce_max1_k), one wave per "
      "block writes the unnormalised y = exp((x - M) * inv) of its block and the block sum to part[b]. Lanes "
      "stream 16 bytes each (1 KiB per load and store instruction, four in flight), the tail one dword per lane, "
      "then a DPP reduction of the per-lane sums. exp is v_exp_f32((x - M) * (inv * log2 e)). Blocks as in "
      "block_max_k (any cols; the last block takes the remainder). LDS: none (the reference used 256 bytes).";
  d.semantics =
      "M = m[0]; for i in block b (see block_max_k): y[i] = exp((x[i] - M) * inv); part[b] = sum of y over the "
      "block (0 for an empty block)";
  d.geometry = "grid = 2^sh (workgroups past it do nothing), wg = 64";
  d.launch = "sizes splits\nworkgroup = 64\ngrid = splits\narg sh = log2_ceil(splits)";
  d.limits =
      "m is a device pointer (not a by-value float); sh <= 31; any cols (swept 1 ... 151936, sh 0 ... 6); "
      "inv >= 0 and M >= max(x) keep every exp <= 1";
  d.tolerance = Tolerance{1e-7, 1e-5};
  d.cases = [](bool sweep) {
    auto c = block_cases(sweep, 400);
    // the whole blocked softmax (5 kernels) against a host softmax
    c.push_back(make_case({{"cols", 3000}, {"sh", 2}, {"pipeline", 1}}, 450));
    if (sweep)
      for (int64_t cols : {1, 100, 4096, 32000, 151936})
        for (int64_t sh : {0, 5, 10})
          c.push_back(make_case({{"cols", cols}, {"sh", sh}, {"pipeline", 1}}, uint32_t(451 + cols + sh)));
    return c;
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    int64_t cols = c["cols"], sh = c["sh"];
    Rng rng(c.seed);
    auto x = rng.normal(size_t(cols), 0.f, 3.f);
    float inv = rng.uniform(1, 0.05f, 1.f)[0];
    if (c.dims.count("pipeline")) return run_blocked_softmax(dev, x, cols, sh, inv, tol);
    // M: the row maximum, or (odd seeds) a value above it
    float m = -INFINITY;
    for (float v : x) m = std::max(m, v);
    if (c.seed % 2) m += 1.5f;
    size_t nb = size_t(1) << sh;
    DeviceBuffer<float> dx(dev, x), dm(dev, std::vector<float>{m}), dy(dev, guarded(size_t(cols))),
        dp(dev, guarded(nb));
    dev.launch("block_exp_sum_k", block_grid(c), block_wg(c),
               {dp.addr(), dy.addr(), dx.addr(), dm.addr(), u32(cols), u32(sh), f32(inv)});
    std::vector<float> want_y, want_p;
    block_exp_sum_reference(x, m, inv, cols, sh, want_y, want_p);
    return combine({compare(dy.download(), guarded(want_y), tol), compare(dp.download(), guarded(want_p), tol)});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["cols"] + (int64_t(1) << c["sh"]) + 1) * 4; };
  d.bench_case = [] { return make_case({{"cols", 151936}, {"sh", 6}}); };
  r.add(std::move(d));
}

void register_reduce1(Registry& r, bool is_max) {
  const Stream kind = is_max ? Stream::ReduceMax : Stream::ReduceSum;
  KernelDef d = generated_kernel("other", stream_signature(kind), [kind](isa::Target t) { return build_stream(t, kind); });
  d.description =
      std::string(is_max ? "Maximum" : "Sum") +
      " of nbpr partials into y[0] (blocked softmax step " + (is_max ? "2" : "4") +
      "), one wave: lanes stream the partials 16 bytes each (1 KiB per load instruction, four in flight), "
      "the tail one dword per lane, then a DPP reduction. Any nbpr: the reference package's limit of 64 partials "
      "is lifted by the loop. LDS: none (the reference used 256 bytes).";
  d.semantics = is_max ? "y[0] = max_{i < nbpr} part[i]  (-inf when nbpr = 0)" : "y[0] = sum_{i < nbpr} part[i]  (0 when nbpr = 0)";
  d.geometry = "grid = 1, wg = 64 (extra workgroups and waves do nothing)";
  d.launch = "sizes n\nworkgroup = 64\ngrid = 1\narg nbpr = n";
  d.limits = "any nbpr (swept 0 ... 100003); wg must be at least 64";
  d.tolerance = is_max ? Tolerance{} : Tolerance{1e-6, 1e-5};
  d.cases = reduce1_cases;
  d.run = [is_max, lookup = d.lookup, tol = d.tolerance](TestDevice& dev, const Case& c) {
    int64_t n = c["nbpr"];
    Rng rng(c.seed);
    // maxima: values of any sign (all negative for odd seeds); sums: positive block sums
    auto part = is_max ? (c.seed % 2 ? rng.uniform(size_t(n), -100.f, -1.f) : rng.uniform(size_t(n), -50.f, 50.f))
                       : rng.uniform(size_t(n), 0.f, 2.f);
    double acc = is_max ? double(kNegInf) : 0.0;
    for (float v : part) acc = is_max ? std::max(acc, double(v)) : acc + double(v);
    DeviceBuffer<float> dp(dev, part), dy(dev, guarded(0));
    dev.launch(lookup, {1}, {64}, {dp.addr(), dy.addr(), u32(n)});
    return compare(dy.download(), {float(acc)}, tol);
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["nbpr"] + 1) * 4; };
  d.bench_case = [] { return make_case({{"nbpr", 64}}); };
  r.add(std::move(d));
}

void register_div_scalar(Registry& r) {
  KernelDef d = generated_kernel("other", kDivScalar, build_div_scalar);
  d.description =
      "In-place division by a scalar read from device memory (blocked softmax step 5: s is the sum written by "
      "reduce_sum1_k), as a reciprocal (v_rcp_f32, 1 ulp) then a multiply; one element per lane, 64 per workgroup. "
      "Workgroups past ceil(n/64) and waves past the first do nothing, so no element is scaled twice.";
  d.semantics = "y[i] = y[i] * (1 / s[0]) for i < n";
  d.geometry = "grid = ceil(n / 64), wg = 64";
  d.launch = "sizes n\nworkgroup = 64\ngrid = ceil_div(n, 64)";
  d.limits = "s is a device pointer (not a by-value float); the grid must cover n (not grid-stride)";
  d.tolerance = Tolerance{0, 1e-6};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"n", 1}}, 21), make_case({{"n", 64}}, 22), make_case({{"n", 100}}, 23),
                           make_case({{"n", 4099}}, 24),
                           // a 128-wide workgroup and 3 extra workgroups: still one scaling per element
                           make_case({{"n", 1000}, {"wg", 128}, {"extra", 3}}, 25)};
    if (sweep)
      for (int64_t n : {2, 63, 65, 127, 128, 129, 1000, 32000, 151936, 1000003})
        c.push_back(make_case({{"n", n}}, uint32_t(200 + n)));
    return c;
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    int64_t n = c["n"];
    Rng rng(c.seed);
    auto y = rng.uniform(size_t(n), 0.f, 1.f);
    float s = rng.uniform(1, 0.5f, 3000.f)[0];
    // a guard element past the end must stay untouched
    auto yg = y;
    yg.push_back(777.f);
    DeviceBuffer<float> dy(dev, yg), ds(dev, std::vector<float>{s});
    uint32_t wg = c.dims.count("wg") ? uint32_t(c["wg"]) : 64, extra = c.dims.count("extra") ? uint32_t(c["extra"]) : 0;
    dev.launch("div_scalar_k", {uint32_t((n + 63) / 64) + extra}, {wg}, {dy.addr(), ds.addr(), u32(n)});
    std::vector<float> want(yg.size());
    for (size_t i = 0; i < y.size(); ++i) want[i] = float(double(y[i]) / double(s));
    want.back() = 777.f;
    return compare(dy.download(), want, tol);
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 8 + 4; };
  d.bench_case = [] { return make_case({{"n", 151936}}); };
  r.add(std::move(d));
}

}  // namespace

void register_other_softmax_kernels(Registry& r) {
  register_block_max(r);
  register_block_exp_sum(r);
  register_reduce1(r, true);
  register_reduce1(r, false);
  register_div_scalar(r);
}

}  // namespace k100::kernels
