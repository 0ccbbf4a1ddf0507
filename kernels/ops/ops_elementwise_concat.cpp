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
#include "ops/ops_elementwise_emit.h"
#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace as;
using namespace elem;

codeobj::CodeObject build_concat2(isa::Target target) {
  KernelBuilder b("concat2_k", target);
  Regs r;
  const SGPR args = r.s(8), nn = r.s(2), hid = r.s(8);
  const SGPR y = args.sub(0, 2), a = args.sub(2, 2), bb = args.sub(4, 2), pre = args[6];
  const SGPR total = r.s(), wgsize = r.s(), first = r.s(), index = r.s(), rem = r.s(), save = r.s(2), z = r.s(),
             neg = r.s(), rows = r.s(), nfull = r.s(), mlen = r.s(), step = r.s(), ra = r.s(2), rb = r.s(2),
             carry = r.s(2);
  const VGPR lane = r.v(), off = r.v(), vm = r.v(), vpre = r.v(), i = r.v(), q = r.v(), d = r.v(), len = r.v(), t = r.v(4),
             va = r.v(), vb = r.v(), pa = r.v(2), pb = r.v(2);
  Label exit = b.label("exit");

  b.s_load_dwordx8(args, kernarg_ptr(), 0);
  b.s_load_dwordx2(nn, kernarg_ptr(), 32);
  load_hidden(b, hid, 40);
  wait_lgkm(b, 0);
  // 0 < n < 2^31, else nothing to do.
  b.s_cmp_lg_u32(nn[1], 0);
  b.s_cbranch_scc1(exit);
  b.s_cmp_gt_i32(nn[0], 0);
  b.s_cbranch_scc0(exit);
  // pre <= 0 or pre > n: one row.
  b.s_cmp_lt_i32(pre, 1);
  b.s_cselect_b32(pre, nn[0], pre);
  b.s_cmp_gt_u32(pre, nn[0]);
  b.s_cselect_b32(pre, nn[0], pre);
  grid_geometry(b, hid, total, wgsize, first, lane);
  divider_init(b, pre, z, neg, t.sub(0, 2));
  divide_scalar(b, rows, nn[0], pre, z, t);
  b.s_mul_i32(nfull, rows, pre);  // positions in whole rows
  b.s_sub_u32(mlen, nn[0], nfull);  // length of the short last row
  b.v_mov_b32(vm, mlen);
  b.v_mov_b32(vpre, pre);
  b.v_lshlrev_b32(off, 2, lane);
  shifted_address(b, ra, a, first, 2);
  shifted_address(b, rb, bb, first, 2);
  b.s_lshl_b32(step, total, 2);
  b.s_lshr_b32(neg, total, 30);  // 4 * total = {step, neg}

  StrideLoop loop{nn[0], first, total, index, rem, save, lane};
  stride_loop(
      b, loop,
      [&] {
        b.global_load_dword(va, off, ra);
        b.global_load_dword(vb, off, rb);
        b.v_add_u32(i, index, lane);
        divide(b, q, d, i, pre, z, t[0]);
        b.v_cmp_le_u32(vcc, nfull, i);  // in the short last row
        b.v_cndmask_b32(len, vpre, vm, vcc);
        b.v_lshlrev_b32(i, 1, i);
        b.v_sub_u32(i, i, d);  // 2i - d = r * 2 pre + d
        b.v_add_u32(len, i, len);
        b.v_mad_u64_u32(pa, carry, i, 4, y);
        b.v_mad_u64_u32(pb, carry, len, 4, y);
        wait_vm(b, 0);
        b.global_store_dword(pa, va, as::off);
        b.global_store_dword(pb, vb, as::off);
      },
      [&] {
        b.s_add_u32(ra[0], ra[0], step);
        b.s_addc_u32(ra[1], ra[1], neg);
        b.s_add_u32(rb[0], rb[0], step);
        b.s_addc_u32(rb[1], rb[1], neg);
      });
  b.bind(exit);
  b.s_endpgm();

  kernel_interface(b, codeobj::HiddenArgLayout::Full, 0, 1024);
  b.arg("y", "global_buffer", "f32*", "write_only");
  b.arg("a", "global_buffer", "const f32*", "read_only");
  b.arg("b", "global_buffer", "const f32*", "read_only");
  b.arg("pre", "by_value", "i32");
  b.arg("n", "by_value", "i64");
  return b.code_object();
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
  KernelDef d;
  d.lookup = "concat2_k";
  d.family = "ops";
  d.generate = build_concat2;
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
  d.limits = "y holds 2n floats; 0 < n < 2^31 (otherwise nothing is written)";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {
        make_case({{"n", 1}, {"pre", 1}, {"grid", 0}}, 1),    make_case({{"n", 640}, {"pre", 128}, {"grid", 0}}, 2),
        make_case({{"n", 1000}, {"pre", 96}, {"grid", 3}}, 3), make_case({{"n", 77}, {"pre", 0}, {"grid", 0}}, 4),
        make_case({{"n", 100}, {"pre", 7}, {"grid", 1}}, 5),   make_case({{"n", 50}, {"pre", -3}, {"grid", 0}}, 6),
        make_case({{"n", 30}, {"pre", 31}, {"grid", 0}}, 7)};
    if (sweep) {
      uint32_t seed = 20;
      for (int64_t n : {1, 2, 63, 64, 65, 1000, 4096, 65537, 200003})
        for (int64_t pre : {1, 2, 3, 64, 100, 127, 128, 5120, 65536, 0, -1})
          for (int64_t grid : {0, 1, 5}) c.push_back(make_case({{"n", n}, {"pre", pre}, {"grid", grid}}, seed++));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    using namespace elem_test;
    const int64_t n = c["n"], pre = c["pre"];
    Rng rng(c.seed);
    auto a = rng.normal(size_t(n)), b = rng.normal(size_t(n));
    DeviceBuffer<float> dy(dev, with_guard(std::vector<float>(size_t(2 * n), 0.f))), da(dev, a), db(dev, b);
    uint32_t grid = uint32_t(c["grid"] ? c["grid"] : (n + 63) / 64);
    dev.launch("concat2_k", {grid}, {64}, {dy.addr(), da.addr(), db.addr(), i32(pre), uint64_t(n)});
    return compare_guarded(dy.download(), concat2_reference(a, b, pre, n), Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 16; };
  // 4096 tokens of 64-float rows per input (e.g. the rotary and plain halves of a 128-wide head).
  d.bench_case = [] { return make_case({{"n", 64 * 4096}, {"pre", 64}, {"grid", 0}}); };
  reg.add(std::move(d));
}

}  // namespace k100::kernels
