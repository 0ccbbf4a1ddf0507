// Head and row layout copies around attention (KERNELS.md 3.7):
// gather_heads_k (per-head slices of token rows -> [T][n_head][D]),
// scatter_heads_k (fa_int4's [n_head][src_rows][D] output -> token rows) and
// gather_rows_k (row gather by index). All copies are bit-exact.
//
// gather_heads_k / scatter_heads_k: one element per lane in a grid-stride
// loop over n = T * n_head * D (so any grid is correct, not only one that
// covers n), (t, h, d) from two exact divisions. gather_rows_k: one workgroup
// per row, its first wave copies the row in 4-float pieces (dim % 4 == 0) or
// one float per lane.
#include "attention/packed_kv_kernels.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels::attention {

namespace {

using namespace codegen;

Signature heads_signature(bool scatter) {
  return Signature(scatter ? "scatter_heads_k" : "gather_heads_k",
                   {out("dst", "f32"), in("src", "f32"), value("n_head", "i32"), value("D", "i32"),
                    value("tok_stride", "i32"), value("head_off", "i32"),
                    value(scatter ? "src_rows" : "head_stride", "i32"), value("n", "i64")},
                   HiddenArgLayout::Full);
}

const Signature kGatherRows("gather_rows_k", {out("dst", "f32"), in("src", "f32"), in("idx", "u32"),
                                              value("rows", "u32"), value("dim", "u32")});

codeobj::CodeObject build_heads(isa::Target target, bool scatter) {
  Kernel k(heads_signature(scatter), target, {.waves_per_simd = 8, .max_workgroup = 1024});
  const SGPR D = k.arg("D"), nh = k.arg("n_head"), third = k.arg(scatter ? "src_rows" : "head_stride"),
             hid = hidden_block(k);
  const VGPR idx = k.vgpr(1, "element"), a = k.vgpr(1, "strided element"), b = k.vgpr(1, "packed element"),
             val = k.vgpr(1, "value");
  const Grid g = grid_geometry(k, hid);
  const Divider by_d = make_divider(k, D), by_h = make_divider(k, nh);
  stride_loop(
      k, k.arg("n")[0], g,
      [&](SGPR first) {
        k.v_add_u32(idx, first, g.lane);
        const Quotient td = divide(k, by_d, idx);     // (t n_head + h, d)
        const Quotient th = divide(k, by_h, td.q);    // (t, h)
        // a = t tok_stride + h (head_stride | D) + head_off + d: the token-row side
        k.v_mul_lo_u32(a, th.q, k.arg("tok_stride"));
        k.v_mul_lo_u32(b, th.r, scatter ? D : third);
        k.v_add3_u32(a, a, b, td.r);
        k.v_add_u32(a, k.arg("head_off"), a);
        if (scatter) {
          // b = (h src_rows + t) D + d: the head-major side
          k.v_mad_u32_u24(b, th.r, third, th.q);
          k.v_mul_lo_u32(b, b, D);
          k.v_add_u32(b, b, td.r);
          k.global_load_dword(val, lane_address(k, k.arg("src"), b, 4u), off);
          k.global_store_dword(lane_address(k, k.arg("dst"), a, 4u), val, off);
        } else {
          k.global_load_dword(val, lane_address(k, k.arg("src"), a, 4u), off);
          k.global_store_dword(lane_address(k, k.arg("dst"), idx, 4u), val, off);
        }
      },
      [] {});
  return k.build();
}

codeobj::CodeObject build_gather_rows(isa::Target target) {
  Kernel k(kGatherRows, target, {.waves_per_simd = 8, .max_workgroup = 64});
  Label exit = k.exit();
  const SGPR row = k.workgroup_id(), dim = k.arg("dim"), from = k.sgpr(1, "source row"), quads = k.sgpr(1, "quads");
  const VGPR lane = k.local_id(), i = k.vgpr(1, "piece"), offv = k.vgpr(1, "offset"), v4 = k.vgpr(4, "values");
  exit_unless_first_wave(k, exit);
  k.s_cmp_ge_u32(row, k.arg("rows"));
  k.s_cbranch_scc1(exit);
  k.s_load_dword(from, offset_address(k, k.arg("idx"), row, 2), 0);
  const SGPR dst = scaled_address(k, k.arg("dst"), row, dim, 2);
  const SGPR src = scaled_address(k, k.arg("src"), from, dim, 2);
  k.s_and_b32(quads, dim, 3);
  k.s_cmp_eq_u32(quads, 0);
  k.if_(Cond::Scc1);
  {  // 16-byte pieces
    k.s_lshr_b32(quads, dim, 2);
    k.v_mov_b32(i, lane);
    lane_walk(k, i, quads, 64, [&] {
      k.v_lshlrev_b32(offv, 4, i);
      k.global_load_dwordx4(v4, offv, src);
      k.global_store_dwordx4(offv, v4, dst);
    });
  }
  k.else_();
  {
    k.v_mov_b32(i, lane);
    lane_walk(k, i, dim, 64, [&] {
      k.v_lshlrev_b32(offv, 2, i);
      k.global_load_dword(v4[0], offv, src);
      k.global_store_dword(offv, v4[0], dst);
    });
  }
  k.end_if();
  return k.build();
}

// ---------------------------------------------------------------- tests

CaseResult run_heads(TestDevice& dev, const Case& c, bool scatter) {
  const std::string lookup = heads_signature(scatter).kernel();
  const int64_t T = c["T"], nh = c["n_head"], D = c["D"], ts = c["tok_stride"], ho = c["head_off"],
                third = c[scatter ? "src_rows" : "head_stride"], n = T * nh * D;
  Rng rng(c.seed);
  const LaunchContract lc = dev.launch_contract(lookup);
  std::map<std::string, int64_t> choices;
  if (dim(c, "grid", 0)) choices["grid_x"] = c["grid"];
  const Launch l = lc.evaluate({{"T", T}, {"n_head", nh}, {"D", D}}, choices);
  std::vector<uint64_t> argv;
  if (scatter) {
    const auto src = rng.uniform(size_t(nh * third * D));
    auto want = rng.uniform(size_t((T - 1) * ts + ho + nh * D) + 8);  // old contents stay where not written
    DeviceBuffer<float> dsrc(dev, src), ddst(dev, want);
    launch(dev, lookup, l,
           lc.argv(l, {{"dst", ddst.addr()}, {"src", dsrc.addr()}, {"n_head", i32(nh)}, {"D", i32(D)},
                       {"tok_stride", i32(ts)}, {"head_off", i32(ho)}, {"src_rows", i32(third)}}));
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < nh; ++h)
        for (int64_t d = 0; d < D; ++d) want[size_t(t * ts + h * D + ho + d)] = src[size_t((h * third + t) * D + d)];
    return compare_bits(ddst.download(), want);
  }
  const auto src = rng.uniform(size_t((T - 1) * ts + ho + (nh - 1) * third + D));
  std::vector<float> want(static_cast<size_t>(n));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < nh; ++h)
      for (int64_t d = 0; d < D; ++d) want[size_t((t * nh + h) * D + d)] = src[size_t(t * ts + h * third + ho + d)];
  DeviceBuffer<float> dsrc(dev, src), ddst(dev, guarded(size_t(n)));
  launch(dev, lookup, l,
         lc.argv(l, {{"dst", ddst.addr()}, {"src", dsrc.addr()}, {"n_head", i32(nh)}, {"D", i32(D)},
                     {"tok_stride", i32(ts)}, {"head_off", i32(ho)}, {"head_stride", i32(third)}}));
  std::vector<float> got = ddst.download();
  const CaseResult guard = split_guard(got, size_t(n));
  return combine({guard, compare_bits(got, want)});
}

CaseResult run_gather_rows(TestDevice& dev, const Case& c) {
  const int64_t rows = c["rows"], dim = c["dim"], nsrc = c["nsrc"];
  Rng rng(c.seed);
  const auto src = rng.uniform(size_t(nsrc * dim));
  std::vector<uint32_t> idx(static_cast<size_t>(rows));
  for (auto& i : idx) i = uint32_t(rng.engine()() % uint32_t(nsrc));
  std::vector<float> want(static_cast<size_t>(rows * dim));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t d = 0; d < dim; ++d) want[size_t(r * dim + d)] = src[size_t(idx[size_t(r)] * dim + d)];
  DeviceBuffer<float> dsrc(dev, src), ddst(dev, guarded(size_t(rows * dim)));
  DeviceBuffer<uint32_t> didx(dev, idx);
  const LaunchContract lc = dev.launch_contract("gather_rows_k");
  const Launch l = lc.evaluate({{"rows", rows}, {"dim", dim}});
  launch(dev, "gather_rows_k", l,
         lc.argv(l, {{"dst", ddst.addr()}, {"src", dsrc.addr()}, {"idx", didx.addr()}, {"rows", u32(rows)},
                     {"dim", u32(dim)}}));
  std::vector<float> got = ddst.download();
  const CaseResult guard = split_guard(got, size_t(rows * dim));
  return combine({guard, compare_bits(got, want)});
}

const char* kHeadsLaunch =
    "sizes T n_head D\nlet n_below_2_pow_31 = 1 / (T * n_head * D < 2147483648)\n"
    "let sizes_positive = 1 / ((T >= 1) * (n_head >= 1) * (D >= 1))\narg n = T * n_head * D\n"
    "choose grid_x = ceil_div(T * n_head * D, 256)\nworkgroup = 256\ngrid = grid_x";

}  // namespace

void register_head_layout(Registry& r) {
  for (bool scatter : {false, true}) {
    KernelDef d = generated_kernel("attention", heads_signature(scatter),
                                   [scatter](isa::Target t) { return build_heads(t, scatter); });
    if (!scatter) {
      d.description =
          "Extracts per-head slices of token rows into a compact [T][n_head][D] tensor (e.g. the query half of "
          "each head's [query | gate] in a fused projection: head_stride = 2 D, head_off = 0 or D). One element "
          "per lane in a grid-stride loop (any grid is correct; the catalog's ceil(n/256) is the default).";
      d.semantics =
          "for idx < n = T*n_head*D, idx = (t*n_head + h)*D + d: dst[idx] = src[t*tok_stride + h*head_stride + "
          "head_off + d]";
    } else {
      d.description =
          "Inverse of gather_heads_k for attention output laid out [n_head][src_rows][D] (fa_int4 writes "
          "out[h][n_q][256]: src_rows = n_q): every (token, head) slice goes to its place in the token rows. One "
          "element per lane in a grid-stride loop (any grid is correct).";
      d.semantics =
          "for idx < n = T*n_head*D, idx = (t*n_head + h)*D + d: dst[t*tok_stride + h*D + head_off + d] = "
          "src[(h*src_rows + t)*D + d]";
    }
    d.geometry = "grid = ceil(n/256) (any grid works), wg = 256";
    d.launch = kHeadsLaunch;
    d.limits = "n < 2^31 (refused: n_below_2_pow_31); all offsets fit in 32 bits";
    d.cases = [scatter](bool) {
      // T, n_head, D, tok_stride, head_off, third (head_stride or src_rows), grid (0: the default)
      return case_table({"T", "n_head", "D", scatter ? "src_rows" : "head_stride", "tok_stride", "head_off", "grid"},
                        {{1, 1, 256, scatter ? 1 : 512, 512, 0, 0},
                         {3, 4, 64, scatter ? 64 : 130, 600, 5, 0},
                         {65, 2, 33, scatter ? 128 : 40, 100, 7, 0},
                         {130, 3, 256, scatter ? 192 : 512, 1536, 256, 5}});
    };
    d.run = [scatter](TestDevice& dev, const Case& c) { return run_heads(dev, c, scatter); };
    d.ideal_bytes = [](const Case& c) { return uint64_t(c["T"] * c["n_head"] * c["D"]) * 8; };
    d.bench_case = [scatter] {
      return scatter ? make_case({{"T", 512}, {"n_head", 24}, {"D", 256}, {"src_rows", 512}, {"tok_stride", 6144},
                                  {"head_off", 0}, {"grid", 0}})
                     : make_case({{"T", 512}, {"n_head", 24}, {"D", 256}, {"head_stride", 512},
                                  {"tok_stride", 12288}, {"head_off", 0}, {"grid", 0}});
    };
    r.add(std::move(d));
  }
  KernelDef d = generated_kernel("attention", kGatherRows, build_gather_rows);
  d.description =
      "Row gather (MoE token bucketing): workgroup r copies row idx[r] of src to row r of dst, its first wave in "
      "16-byte pieces when dim % 4 == 0, one float per lane otherwise (the catalog required dim % 4 == 0; any "
      "dim works). Workgroups past rows do nothing.";
  d.semantics = "dst[r][c] = src[idx[r]][c] for r < rows, c < dim";
  d.geometry = "grid = rows, wg = 64";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows";
  d.limits = "idx[r] < the row count of src (not checked: src has no size argument)";
  d.cases = [](bool) {
    return case_table({"rows", "dim", "nsrc"}, {{1, 4, 3}, {7, 260, 9}, {33, 5120, 40}, {5, 67, 5}});
  };
  d.run = run_gather_rows;
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["dim"]) * 8; };
  d.bench_case = [] { return make_case({{"rows", 512}, {"dim", 5120}, {"nsrc", 600}}); };
  r.add(std::move(d));
}

}  // namespace k100::kernels::attention
