// Argmax over a row: argmax_k (one workgroup per row), argmax_part_k and
// argmax_comb_k (the two stages of a long row). Generators, registry entries,
// host reference, tests.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops_parts.h"
#include "k100/base/error.h"
#include "ops_selection_inputs.h"

namespace k100::kernels {

namespace {

using selection::finite_or_neg_inf;
using selection::selection_inputs;

constexpr uint32_t kNoChunk = 0x1fffffffu;     // chunk index of "no element": 4 * it + 3 = INT32_MAX
constexpr uint32_t kNoIndex = 0x7fffffffu;

// ================================================================ argmax

namespace am {

using namespace codegen;

Signature argmax_signature(bool part) {
  if (part)
    return Signature("argmax_part_k", {in("x", "f32"), value("n", "i64"), value("nb", "i32"), out("val", "f32"),
                                       out("idx", "i32")},
                     HiddenArgLayout::Full);
  return Signature("argmax_k", {in("x", "f32"), value("n", "i64"), out("out", "i32")}, HiddenArgLayout::Full);
}
const Signature kComb("argmax_comb_k", {in("val", "f32"), in("idx", "i32"), value("nb", "i32"), out("out", "i32")},
                      HiddenArgLayout::Full);

// n (i64) clamped to [0, 2^31 - 1] in n[0].
void clamp_length(Kernel& k, SGPR n) {
  Label hi_zero = k.label("n_hi_zero"), done = k.label("n_done");
  k.s_cmp_eq_u32(n[1], 0);
  k.s_cbranch_scc1(hi_zero);
  k.s_cmp_lt_i32(n[1], 0);
  k.s_cselect_b32(n[0], 0, 0x7fffffff);
  k.s_branch(done);
  k.bind(hi_zero);
  k.s_cmp_lt_i32(n[0], 0);
  k.s_cselect_b32(n[0], 0x7fffffff, n[0]);
  k.bind(done);
}

// Scans the segment seg[0 .. len) with the workgroup; returns the best
// (value, local index) (index >= len: no element) to wave 0; the other
// waves leave to exit.
std::pair<SGPR, SGPR> scan_segment(Kernel& k, const WorkgroupWaves& th, SGPR seg, SGPR len, Label exit) {
  const VGPR vT = k.local_id(), vBv = k.vgpr(4, "best values"), vBc = k.vgpr(4, "best chunks"),
             vQBase = k.vgpr(1, "chunk base"), vQ = k.vgpr(1, "chunk"), data = k.vgpr(16, "x"),
             vV4 = k.vgpr(1, "tail value"), vI4 = k.vgpr(1, "tail index"), vTv = k.vgpr(1, "t"),
             vAddr = k.vgpr(1, "address");
  const SGPR sNq = k.sgpr(1, "chunks"), sRem = k.sgpr(1, "rem"), sLeft = k.sgpr(1, "left"),
             sScratch = k.sgpr(1, "scratch"), stream = k.sgpr(2, "stream");
  k.s_lshr_b32(sNq, len, 2);
  k.s_and_b32(sRem, len, 3);
  k.s_mov_b64(stream, seg);
  ChunkWalk walk;
  walk.single_wave = false;
  walk.w_threads = th.threads;
  walk.thread = vT;
  walk.max_batch = 4;
  walk.left = sLeft;
  // per component c: best value and the chunk it came from; initially -inf in
  // the thread's first chunk (so -inf / NaN-only rows still give the first index)
  k.v_mov_b32(vQ, kNoChunk);
  k.v_cmp_gt_u32(vcc, sNq, vT);
  k.v_cndmask_b32(vBc[0], vQ, vT, vcc);
  for (int c = 0; c < 4; ++c) {
    k.v_mov_b32(vBv[c], kNegInfBits);
    if (c) k.v_mov_b32(vBc[c], vBc[0]);
  }
  k.v_mov_b32(vQBase, vT);
  k.s_mov_b32(sLeft, sNq);
  int batch = 0;  // loads of the current batch, so each chunk waits for its own before the chunk index
  walk.load = [&](int i, VGPR voff, int) {
    k.global_load_dwordx4(data.sub(4 * i, 4), voff, stream);
    batch = i + 1;
  };
  walk.compute = [&](int i) {
    k.s_waitcnt(vmcnt(batch - 1 - i));
    VGPR q = vQBase;
    if (i) {
      k.s_mul_i32(sScratch, th.threads, i);
      k.v_add_u32(vQ, sScratch, vQBase);
      q = vQ;
    }
    for (int c = 0; c < 4; ++c) {  // strict >: the earlier chunk keeps ties, NaN never wins
      k.v_cmp_gt_f32(vcc, data[4 * i + c], vBv[c]);
      k.v_cndmask_b32(vBv[c], vBv[c], data[4 * i + c], vcc);
      k.v_cndmask_b32(vBc[c], vBc[c], q, vcc);
    }
  };
  walk.finish = [&](int n) {
    k.s_mul_i32(sScratch, th.threads, n);
    k.v_add_u32(vQBase, sScratch, vQBase);
  };
  walk.advance = [&](Operand bytes) { add64(k, stream, bytes); };
  chunk_walk(k, walk, {4, 1});
  // element tail: thread t < rem takes element 4 nq + t as a fifth candidate
  k.v_mov_b32(vV4, kNegInfBits);
  k.v_mov_b32(vI4, kNoIndex);
  if_lanes_below(k, sRem, vT, [&] {
    k.s_lshl_b32(sScratch, sNq, 2);  // element index 4 nq
    k.v_add_u32(vI4, sScratch, vT);
    k.v_lshlrev_b32(vAddr, 2, vI4);
    k.global_load_dword(vTv, vAddr, seg);
    k.v_cmp_o_f32(vcc, vTv, vTv);  // NaN counts as -inf
    k.v_cndmask_b32(vV4, vV4, vTv, vcc);
  });
  // the thread's candidates: element index = 4 chunk + c, then the tail
  for (int c = 0; c < 4; ++c) k.v_lshl_add_u32(vBc[c], vBc[c], 2, c);
  for (int c = 1; c < 4; ++c) argmax_merge(k, vBv[0], vBc[0], vBv[c], vBc[c]);
  argmax_merge(k, vBv[0], vBc[0], vV4, vI4);
  return workgroup_argmax(k, vBv[0], vBc[0], th.wave, th.waves, th.lane, 0, exit);
}

// argmax_k (part = false) and argmax_part_k (part = true).
codeobj::CodeObject generate_argmax(bool part, isa::Target target) {
  Kernel k(argmax_signature(part), target, ops::options(128));
  Label exit = k.exit();
  const SGPR sN = k.arg("n"), sX = k.arg("x"), group = k.workgroup_id();
  const SGPR sStart = k.sgpr(1, "start"), sLen = k.sgpr(1, "length"), sTmp = k.sgpr(1, "t"),
             sSeg = k.sgpr(2, "segment");
  const VGPR vTv = k.vgpr(1, "value"), vTi = k.vgpr(1, "index"), vAddr = k.vgpr(1, "address");
  const WorkgroupWaves th = workgroup_waves(k, exit);
  clamp_length(k, sN);
  if (part) {
    // chunk size C = ceil(n / nb); workgroup b scans [b C, min(n, (b + 1) C))
    const SGPR sNb = k.arg("nb");
    k.s_cmp_lt_i32(sNb, 1);
    k.s_cbranch_scc1(exit);
    k.s_cmp_ge_u32(group, sNb);
    k.s_cbranch_scc1(exit);
    k.s_add_u32(sTmp, sN[0], sNb);
    k.s_sub_u32(sTmp, sTmp, 1);
    const SGPR sChunk = divide_scalar(k, make_divider(k, sNb), sTmp);
    k.s_mul_i32(sStart, group, sChunk);
    k.s_sub_u32(sLen, sN[0], sStart);
    k.s_cmp_ge_u32(sStart, sN[0]);
    k.s_cselect_b32(sLen, 0, sLen);
    k.s_cmp_lt_u32(sChunk, sLen);
    k.s_cselect_b32(sLen, sChunk, sLen);
  } else {
    k.s_mov_b32(sStart, 0);
    k.s_mov_b32(sLen, sN[0]);
  }
  k.s_lshl_b32(sTmp, sStart, 2);
  k.s_add_u32(sSeg[0], sX[0], sTmp);
  k.s_addc_u32(sSeg[1], sX[1], 0);
  auto [sBestV, sBestI] = scan_segment(k, th, sSeg, sLen, exit);
  // wave 0 writes: index >= len means the segment was empty
  k.s_add_u32(sTmp, sBestI, sStart);
  k.s_cmp_lt_u32(sBestI, sLen);
  k.s_cselect_b32(sBestV, sBestV, kNegInfBits);
  k.s_cselect_b32(sBestI, sTmp, -1);
  k.v_mov_b32(vTv, sBestV);
  k.v_mov_b32(vTi, sBestI);
  k.v_mov_b32(vAddr, 0);
  k.s_mov_b64(exec, 1);
  if (part) {
    k.s_lshl_b32(sTmp, group, 2);
    const SGPR sOut = k.arg("val"), sIdxOut = k.arg("idx");
    add64(k, sOut, sTmp);
    add64(k, sIdxOut, sTmp);
    k.global_store_dword(vAddr, vTv, sOut);
    k.global_store_dword(vAddr, vTi, sIdxOut);
  } else {
    k.global_store_dword(vAddr, vTi, k.arg("out"));
  }
  return k.build();
}

codeobj::CodeObject generate_argmax_comb(isa::Target target) {
  Kernel k(kComb, target, ops::options(128));
  Label exit = k.exit();
  const SGPR sNb = k.arg("nb");
  const VGPR vBv = k.vgpr(2, "best values"), vBc = k.vgpr(2, "best indices"), vQ = k.vgpr(1, "q"),
             vTv = k.vgpr(1, "value"), vTi = k.vgpr(1, "index"), vAddr = k.vgpr(1, "address");
  const WorkgroupWaves th = workgroup_waves(k, exit);
  k.v_mov_b32(vBv[0], kNegInfBits);
  k.v_mov_b32(vBc[0], kNoIndex);
  k.v_mov_b32(vBv[1], kNegInfBits);  // constants for the selects
  k.v_mov_b32(vBc[1], kNoIndex);
  // thread t merges partials t, t + W, ... (none when nb <= 0)
  k.v_mov_b32(vQ, k.local_id());
  k.loop_();
  k.v_cmp_le_i32(vcc, sNb, vQ);
  k.break_(vcc);
  k.v_lshlrev_b32(vAddr, 2, vQ);
  k.global_load_dword(vTv, vAddr, k.arg("val"));
  k.global_load_dword(vTi, vAddr, k.arg("idx"));
  k.v_cmp_u_f32(vcc, vTv, vTv);  // NaN counts as -inf
  k.v_cndmask_b32(vTv, vTv, vBv[1], vcc);
  k.v_cmp_gt_i32(vcc, 0, vTi);  // negative index: an empty partial
  k.v_cndmask_b32(vTv, vTv, vBv[1], vcc);
  k.v_cndmask_b32(vTi, vTi, vBc[1], vcc);
  argmax_merge(k, vBv[0], vBc[0], vTv, vTi);
  k.v_add_u32(vQ, th.threads, vQ);
  k.end_loop();
  const SGPR sBestI = workgroup_argmax(k, vBv[0], vBc[0], th.wave, th.waves, th.lane, 0, exit).second;
  k.s_cmp_eq_u32(sBestI, kNoIndex);
  k.s_cselect_b32(sBestI, -1, sBestI);
  k.v_mov_b32(vTi, sBestI);
  k.v_mov_b32(vAddr, 0);
  k.s_mov_b64(exec, 1);
  k.global_store_dword(vAddr, vTi, k.arg("out"));
  return k.build();
}

}  // namespace am

// ================================================================ references

// Lowest index of the largest value of x[begin, end), NaN counted as -inf; -1 when empty.
std::pair<float, int32_t> argmax_reference(const std::vector<float>& x, int64_t begin, int64_t end) {
  if (begin >= end) return {-INFINITY, -1};
  float best = finite_or_neg_inf(x[size_t(begin)]);
  int64_t at = begin;
  for (int64_t i = begin + 1; i < end; ++i)
    if (finite_or_neg_inf(x[size_t(i)]) > best) best = finite_or_neg_inf(x[size_t(i)]), at = i;
  return {best, int32_t(at)};
}

// ================================================================ registration

void register_argmax(Registry& r) {
  KernelDef d = generated_kernel("ops", am::argmax_signature(false), [](isa::Target t) { return am::generate_argmax(false, t); });
  d.description =
      "Single-row argmax, first (lowest) index on ties. The workgroup's threads stream the row in 16-byte pieces "
      "(dwordx4, consecutive threads on consecutive pieces, 4 loads in flight), each lane keeping a best value and "
      "chunk per component with a strict > (earlier elements keep ties); the candidates are merged by (value, "
      "lowest index) within the lane, across the wave with DPP and across waves through LDS. NaN counts as -inf "
      "(an all -inf / NaN row gives index 0). Any workgroup size that is a multiple of 64 up to 1024 (read from "
      "the hidden block); every workgroup scans the whole row and writes the same result. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "out[0] = min { i : x[i] = max_j x[j] } (NaN as -inf); n = 0 gives -1";
  d.geometry = "grid = 1 (any: every workgroup writes the same value), wg = 64 ... 1024 (multiple of 64)";
  d.launch = "sizes n\nworkgroup = 256\ngrid = 1\narg n = n";
  d.limits = "0 <= n < 2^31 (larger n is clamped to 2^31 - 1, negative n to 0); workgroup size a multiple of 64";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"n", "wg", "kind", "grid"}, {{1, 64, 0, 1}, {1000, 64, 1, 1}, {4099, 1024, 2, 1},
                                                                    {700, 64, 3, 1}, {3001, 256, 1, 3}, {0, 64, 0, 1}});
    if (sweep)
      for (int64_t n : {2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4096, 65537, 151936})
        for (int64_t wg : {64, 256, 1024})
          for (int64_t kind : {0, 1, 2})
            c.push_back(make_case({{"n", n}, {"wg", wg}, {"kind", kind}, {"grid", 1}}, uint32_t(n + wg + kind)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t n = c["n"];
    auto x = selection_inputs(size_t(n), c.seed, c["kind"]);
    if (c["kind"] == 1 && n > 10) {  // ties at the maximum, two of them in the same lane and component
      int64_t p = n / 5, q = p + 4 * c["wg"];
      x[size_t(p)] = x[size_t(n - 1)] = 100.f;
      if (q < n) x[size_t(q)] = 100.f;
    }
    DeviceBuffer<float> dx(dev, x);
    DeviceBuffer<int32_t> dout(dev, std::vector<int32_t>{12345});
    // extra workgroups (grid > 1) write the same value
    launch(dev, am::argmax_signature(false), {uint32_t(c["grid"])}, {uint32_t(c["wg"])}, {dx.addr(), n, dout.addr()});
    return compare_exact(dout.download(), {argmax_reference(x, 0, n).second});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 4 + 4; };
  d.bench_case = [] { return make_case({{"n", 151936}, {"wg", 1024}, {"kind", 0}, {"grid", 1}}); };
  r.add(std::move(d));
}

void register_argmax_part(Registry& r) {
  KernelDef d = generated_kernel("ops", am::argmax_signature(true), [](isa::Target t) { return am::generate_argmax(true, t); });
  d.description =
      "First stage of the two-stage argmax: workgroup b scans the chunk [b C, min(n, (b+1) C)), C = ceil(n / nb), "
      "exactly as argmax_k scans a row (dwordx4 streaming, per-lane bests, DPP and LDS merges, lowest index on "
      "ties, NaN as -inf) and writes its maximum to val[b] and the global index to idx[b]. An empty chunk (possible "
      "when nb does not divide n) writes val = -inf, idx = -1, which argmax_comb_k ignores. Workgroups b >= nb do "
      "nothing. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "C = ceil(n / nb); val[b] = max x[bC .. min(n, (b+1)C)), idx[b] = its lowest index";
  d.geometry = "grid = nb (extra workgroups do nothing), wg = 64 ... 256 (any multiple of 64 up to 1024)";
  d.launch = "sizes nb\nworkgroup = 64\ngrid = nb";
  d.limits = "0 <= n < 2^31 (clamped like argmax_k); nb >= 1 (nb <= 0: nothing written); val and idx hold nb "
             "entries; workgroup size a multiple of 64";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"n", "nb", "wg", "kind"}, {{1000, 4, 64, 0}, {10, 8, 64, 1}, {4099, 7, 256, 2},
                                                                {3000, 3, 64, 3}});
    if (sweep)
      for (int64_t n : {1, 5, 64, 257, 1025, 4096, 65537, 151936})
        for (int64_t nb : {1, 2, 3, 16, 37, 64, 200})
          for (int64_t wg : {64, 256}) c.push_back(make_case({{"n", n}, {"nb", nb}, {"wg", wg}, {"kind", (n + nb) % 3}}, uint32_t(n * 3 + nb)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t n = c["n"], nb = c["nb"];
    auto x = selection_inputs(size_t(n), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dval(dev, size_t(nb));
    DeviceBuffer<int32_t> didx(dev, size_t(nb));
    launch(dev, am::argmax_signature(true), {uint32_t(nb + 1)}, {uint32_t(c["wg"])},
               {dx.addr(), n, nb, dval.addr(), didx.addr()});
    int64_t chunk = (n + nb - 1) / nb;
    std::vector<float> want_v;
    std::vector<int32_t> want_i;
    for (int64_t b = 0; b < nb; ++b) {
      auto [v, i] = argmax_reference(x, std::min(n, b * chunk), std::min(n, (b + 1) * chunk));
      want_v.push_back(v);
      want_i.push_back(i);
    }
    return combine({compare_exact(didx.download(), want_i), compare(dval.download(), want_v, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"] + 2 * c["nb"]) * 4; };
  d.bench_case = [] { return make_case({{"n", 151936}, {"nb", 120}, {"wg", 256}, {"kind", 0}}); };
  r.add(std::move(d));
}

void register_argmax_comb(Registry& r) {
  KernelDef d = generated_kernel("ops", am::kComb, am::generate_argmax_comb);
  d.description =
      "Second stage of the two-stage argmax: reduces the nb (value, index) pairs of argmax_part_k to the index of "
      "the largest value, the lowest index among equal values (so the two stages together agree with argmax_k; "
      "tested end to end). "
      "Threads stride over the pairs, merge by (value, lowest index), then DPP and LDS merges. Pairs with a "
      "negative index (empty chunks) are ignored, NaN values count as -inf. Any nb (not limited to the original's "
      "32 LDS slots); any workgroup size that is a multiple of 64. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "out[0] = idx[b*] with b* maximising (val[b], -idx[b]) over b with idx[b] >= 0; -1 when none";
  d.geometry = "grid = 1, wg = 64 (any multiple of 64 up to 1024)";
  d.launch = "sizes nb\nworkgroup = 64\ngrid = 1";
  d.limits = "nb >= 0 (nb = 0 or all pairs empty: out[0] = -1); workgroup size a multiple of 64";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"nb", "wg"}, {{1, 64}, {37, 64}, {200, 128}, {0, 64}});
    c.push_back(make_case({{"nb", 24}, {"wg", 64}, {"n", 20011}}, 5));
    if (sweep) {
      for (int64_t nb : {2, 3, 31, 32, 33, 63, 64, 65, 127, 1000, 4097})
        for (int64_t wg : {64, 256, 1024}) c.push_back(make_case({{"nb", nb}, {"wg", wg}}, uint32_t(nb + wg)));
      for (int64_t n : {1, 100, 4099, 151936})
        for (int64_t nb : {1, 7, 120, 300})
          c.push_back(make_case({{"nb", nb}, {"wg", 64}, {"n", n}}, uint32_t(n + nb)));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t nb = c["nb"];
    if (c.dims.count("n")) {  // both stages on a row with ties, -inf and NaN, against a plain argmax
      int64_t n = c["n"];
      auto x = selection_inputs(size_t(n), c.seed, 2);
      if (n > 10) x[size_t(n / 3)] = x[size_t(n / 2)] = x[size_t(n - 1)] = 50.f;
      DeviceBuffer<float> dx(dev, x), dval(dev, size_t(nb));
      DeviceBuffer<int32_t> didx(dev, size_t(nb)), dout(dev, std::vector<int32_t>{12345});
      launch(dev, am::argmax_signature(true), {uint32_t(nb)}, {256}, {dx.addr(), n, nb, dval.addr(), didx.addr()});
      launch(dev, am::kComb, {1}, {uint32_t(c["wg"])}, {dval.addr(), didx.addr(), nb, dout.addr()});
      return compare_exact(dout.download(), {argmax_reference(x, 0, n).second});
    }
    Rng rng(c.seed);
    auto val = rng.normal(size_t(nb));
    auto idx = rng.integers(size_t(nb), 0, 1 << 20);
    for (int64_t b = 0; b < nb; ++b) {
      val[size_t(b)] = std::round(val[size_t(b)] * 4.f) / 4.f;  // ties at the maximum
      if (b % 7 == 5) idx[size_t(b)] = -1, val[size_t(b)] = 1e30f;  // empty: ignored despite its value
      if (b % 13 == 4) val[size_t(b)] = NAN;
    }
    int32_t want = -1;
    float best = -INFINITY;
    for (int64_t b = 0; b < nb; ++b) {
      if (idx[size_t(b)] < 0) continue;
      float v = finite_or_neg_inf(val[size_t(b)]);
      if (want < 0 || v > best || (v == best && idx[size_t(b)] < want)) best = v, want = idx[size_t(b)];
    }
    DeviceBuffer<float> dval(dev, val);
    DeviceBuffer<int32_t> didx(dev, idx), dout(dev, std::vector<int32_t>{12345});
    launch(dev, am::kComb, {1}, {uint32_t(c["wg"])}, {dval.addr(), didx.addr(), nb, dout.addr()});
    return compare_exact(dout.download(), {want});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["nb"] + 1) * 4; };
  d.bench_case = [] { return make_case({{"nb", 120}, {"wg", 64}}); };
  r.add(std::move(d));
}

}  // namespace

void register_ops_argmax_kernels(Registry& r) {
  register_argmax(r);
  register_argmax_part(r);
  register_argmax_comb(r);
}

}  // namespace k100::kernels
