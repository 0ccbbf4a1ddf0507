// concat2_k(y, a, b, pre, n): row-wise concatenation of two tensors of n
// floats each, cut into rows of `pre`, into y of 2n floats.
//
// GOTCHA kept from the original interface: n is the length of EACH input and
// y holds 2n floats. The original wrote past 2n when pre did not divide n (its
// last, short row still reserved `pre` slots for a); here the short last row of
// length m = n % pre is written as [a-part (m), b-part (m)], so y is exactly
// 2n floats for every pre, and pre <= 0 or pre > n means one row (y = [a; b]).
//
// Grid-stride over the n input positions, one per lane and trip (the original
// needed a grid covering n; any grid works here). Position i = r*pre + d (the
// division by the runtime pre is LLVM's reciprocal expansion, exact) goes to
// y[2i - d] (from a) and y[2i - d + L] (from b), L = pre for whole rows and m
// for the short one. a and b are read with 64-bit scalar bases plus lane
// offsets; the two 64-bit store addresses come from v_mad_u64_u32.
#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kConcat("concat2_k", {out("y", "f32"), in("a", "f32"), in("b", "f32"), value("pre", "i32"),
                                      value("n", "i64")},
                        codeobj::HiddenArgLayout::Full);

codeobj::CodeObject build_concat2(isa::Target target) {
  Kernel k(kConcat, target, ops::options());
  const SGPR y = k.arg("y"), pre = k.arg("pre"), nn = k.arg("n"), hid = hidden_block(k);
  const SGPR nfull = k.sgpr(1, "whole-row positions"), mlen = k.sgpr(1, "short row"), carry = k.sgpr(2, "carry");
  const VGPR off = k.vgpr(1, "offset"), vm = k.vgpr(1, "m"), vpre = k.vgpr(1, "pre"), i = k.vgpr(1, "i"),
             len = k.vgpr(1, "len"), va = k.vgpr(1, "a"), vb = k.vgpr(1, "b"), pa = k.vgpr(2, "a address"),
             pb = k.vgpr(2, "b address");
  Label exit = k.exit();
  // 0 < n < 2^31, else nothing to do.
  k.s_cmp_lg_u32(nn[1], 0);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(nn[0], 0);
  k.s_cbranch_scc0(exit);
  // pre <= 0 or pre > n: one row.
  k.s_cmp_lt_i32(pre, 1);
  k.s_cselect_b32(pre, nn[0], pre);
  k.s_cmp_gt_u32(pre, nn[0]);
  k.s_cselect_b32(pre, nn[0], pre);
  const Grid g = grid_geometry(k, hid);
  const Divider div = make_divider(k, pre);
  k.s_mul_i32(nfull, divide_scalar(k, div, nn[0]), pre);  // positions in whole rows
  k.s_sub_u32(mlen, nn[0], nfull);                        // length of the short last row
  k.v_mov_b32(vm, mlen);
  k.v_mov_b32(vpre, pre);
  k.v_lshlrev_b32(off, 2, g.lane);
  const SGPR ra = offset_address(k, k.arg("a"), g.first, 2), rb = offset_address(k, k.arg("b"), g.first, 2);
  const SGPR step = widen_shifted(k, g.total, 2);  // 4 * total
  stride_loop(
      k, nn[0], g,
      [&](SGPR index) {
        k.global_load_dword(va, off, ra);
        k.global_load_dword(vb, off, rb);
        k.v_add_u32(i, index, g.lane);
        const Quotient qd = divide(k, div, i);
        k.v_cmp_le_u32(vcc, nfull, i);  // in the short last row
        k.v_cndmask_b32(len, vpre, vm, vcc);
        k.v_lshlrev_b32(i, 1, i);
        k.v_sub_u32(i, i, qd.r);  // 2i - d = r * 2 pre + d
        k.v_add_u32(len, i, len);
        k.v_mad_u64_u32(pa, carry, i, 4, y);
        k.v_mad_u64_u32(pb, carry, len, 4, y);
        k.global_store_dword(pa, va, as::off);
        k.global_store_dword(pb, vb, as::off);
      },
      [&] {
        add64_pair(k, ra, step);
        add64_pair(k, rb, step);
      });
  return k.build();
}

// The documented formula, with the short-row and one-row rules.
std::vector<float> concat2_reference(const std::vector<float>& a, const std::vector<float>& b, int64_t pre,
                                     int64_t n) {
  if (pre <= 0 || pre > n) pre = n;
  std::vector<float> y(size_t(2 * n));
  const int64_t nfull = n / pre * pre;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i / pre, d = i % pre, len = i < nfull ? pre : n - nfull;
    y[size_t(r * 2 * pre + d)] = a[size_t(i)];
    y[size_t(r * 2 * pre + len + d)] = b[size_t(i)];
  }
  return y;
}

}  // namespace

void register_ops_elementwise_concat_kernels(Registry& reg) {
  KernelDef d = generated_kernel("ops", kConcat, build_concat2);
  d.description =
      "Row-wise concatenation of two tensors of n floats each, cut into rows of pre: output row r is "
      "[a row r, b row r]. n is the length of EACH input and y holds 2n floats (the original's trap). Unlike the "
      "original, the kernel never writes past 2n: a short last row (pre not dividing n) of length m = n % pre is "
      "written as [m floats of a, m floats of b], and pre <= 0 or pre > n gives one row, y = [a; b]. Grid-stride "
      "(the original needed a grid covering n; any grid is correct here), exact u32 division by pre per element.";
  d.semantics =
      "for i < n, r = i / pre, d = i % pre: y[2i - d] = a[i], y[2i - d + L] = b[i], L = pre for whole rows and "
      "n % pre in the short last row";
  d.geometry = "grid = ceil(n/64), wg = 64 (any grid and workgroup size is correct)";
  d.launch = "sizes n\nworkgroup = 64\ngrid = ceil_div(n, 64)";
  d.limits = "y holds 2n floats; 0 < n < 2^31 (otherwise nothing is written)";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"n", "pre", "grid"}, {{1, 1, 0}, {640, 128, 0}, {1000, 96, 3}, {77, 0, 0},
                                                           {100, 7, 1}, {50, -3, 0}, {30, 31, 0}});
    if (sweep) {
      uint32_t seed = 20;
      for (int64_t n : {1, 2, 63, 64, 65, 1000, 4096, 65537, 200003})
        for (int64_t pre : {1, 2, 3, 64, 100, 127, 128, 5120, 65536, 0, -1})
          for (int64_t grid : {0, 1, 5}) c.push_back(make_case({{"n", n}, {"pre", pre}, {"grid", grid}}, seed++));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t n = c["n"], pre = c["pre"];
    Rng rng(c.seed);
    auto a = rng.normal(size_t(n)), b = rng.normal(size_t(n));
    DeviceBuffer<float> dy(dev, with_guard(std::vector<float>(size_t(2 * n), 0.f))), da(dev, a), db(dev, b);
    uint32_t grid = uint32_t(c["grid"] ? c["grid"] : (n + 63) / 64);
    launch(dev, kConcat, {grid}, {64}, {dy.addr(), da.addr(), db.addr(), pre, n});
    return compare_guarded(dy.download(), concat2_reference(a, b, pre, n), Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 16; };
  // 4096 tokens of 64-float rows per input (e.g. the rotary and plain halves of a 128-wide head).
  d.bench_case = [] { return make_case({{"n", 64 * 4096}, {"pre", 64}, {"grid", 0}}); };
  reg.add(std::move(d));
}

}  // namespace k100::kernels
