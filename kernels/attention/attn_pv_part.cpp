// attn_pv_part (KERNELS.md §3.7): the blocked P.V of single-query f32
// attention over a transposed V cache vt[dim][vstride].
//
// Work-item g = workgroup * group size + local id takes output dim
// d = g >> nb_shift and key block blk = g & (2^nb_shift - 1):
//   partial[g] = sum_{j in [blk jper, min(blk jper + jper, n_kv))} p[j] vt[d vstride + j]
// in key order (fmac), so n_kv bounds j explicitly: a ragged n_kv (not a
// multiple of the block count) is covered with jper = ceil(n_kv / nb), which
// the launch contract derives (keys at or past nb jper are not summed). dim is
// the launch's: the grid's work-items / 2^nb_shift. reduce_blocks_k (nbpr =
// 2^nb_shift) finishes the sum. Written in the DSL (kernels/dsl/attn_pv_part.kkl).
#include "attention/flash_decode_kernels.h"
#include "dsl/dsl_build.h"
#include "k100/kernels/test_support.h"

#include <algorithm>

namespace k100::kernels::flash_decode {

namespace {

using namespace codegen;

const Signature kPvPart("attn_pv_part",
                        {out("partial", "f32"), in("p", "f32"), in("vt", "f32"), value("n_kv", "u32"),
                         value("vstride", "u32"), value("nb_shift", "u32"), value("jper", "u32")},
                        codeobj::HiddenArgLayout::Compact);

CaseResult run_pv_part(TestDevice& dev, const Case& c) {
  const int64_t dim = c["dim"], n_kv = c["n_kv"], nb = c["blocks"], vstride = n_kv + kernels::dim(c, "vpad", 0);
  Rng rng(c.seed);
  const auto p = rng.uniform(size_t(n_kv), 0.f, 1.f);
  const auto vt = rng.uniform(size_t(dim * vstride));
  const int64_t jper = c["floor_jper"] ? n_kv / nb : (n_kv + nb - 1) / nb;
  std::vector<float> want(size_t(dim * nb));
  for (int64_t d = 0; d < dim; ++d)
    for (int64_t b = 0; b < nb; ++b) {
      double s = 0;
      for (int64_t j = b * jper; j < std::min(b * jper + jper, n_kv); ++j)
        s += double(p[size_t(j)]) * double(vt[size_t(d * vstride + j)]);
      want[size_t(d * nb + b)] = float(s);
    }
  DeviceBuffer<float> dp(dev, p), dvt(dev, vt), dpart(dev, guarded(want.size()));
  const LaunchContract lc = dev.launch_contract("attn_pv_part");
  const Launch l = lc.evaluate({{"dim", dim}, {"n_kv", n_kv}, {"blocks", nb}}, {{"per", jper}});
  launch(dev, "attn_pv_part", l,
         lc.argv(l, {{"partial", dpart.addr()}, {"p", dp.addr()}, {"vt", dvt.addr()}, {"vstride", uint64_t(vstride)}}));
  std::vector<float> got = dpart.download();
  const CaseResult guard = split_guard(got, want.size());
  return combine({guard, compare(got, want, Tolerance{3e-5, 1e-5})});
}

}  // namespace

void register_attn_pv_part(Registry& reg) {
  // Built from its DSL source: MODELED within 1.1x of the hand-written generator it replaced.
  KernelDef d = generated_kernel("attention", kPvPart, dsl_package::dsl_generator("attn_pv_part", kPvPart));
  d.description =
      "Blocked P.V for single-query f32 attention over a transposed V cache vt[dim][vstride]: work-item g "
      "(= workgroup * group size + local id) handles output dim d = g >> nb_shift and key block "
      "blk = g & (2^nb_shift - 1), summing p[j] vt[d vstride + j] over j in [blk jper, blk jper + jper) AND "
      "j < n_kv (n_kv bounds the keys explicitly, so a ragged n_kv is covered by jper = ceil(n_kv / 2^nb_shift), "
      "which the contract derives; keys at or past 2^nb_shift jper are not summed). There is no dim argument: "
      "dim = the grid's work-items >> nb_shift. Finish with reduce_blocks_k (nbpr = 2^nb_shift). Sums in key "
      "order (fused multiply-adds), one work-item per (d, block). Written in the DSL (kernels/dsl/attn_pv_part.kkl).";
  d.semantics = "partial[d 2^nb_shift + blk] = sum_{blk jper <= j < min(blk jper + jper, n_kv)} p[j] vt[d vstride + j]";
  d.geometry = "grid = dim 2^nb_shift / 64, wg = 64 (any size up to 256: the index uses the hidden group size)";
  d.launch = "sizes dim n_kv blocks\n"
             "choose per = ceil_div(n_kv, blocks)\n"
             "let blocks_power_of_2 = 1 / ((blocks >= 1) * (pow2_floor(blocks) == blocks))\n"
             "let dim_times_blocks_multiple_of_64 = 1 / ((dim >= 1) * ((dim * blocks) % 64 == 0))\n"
             "workgroup = 64\n"
             "grid = dim * blocks / 64\n"
             "arg n_kv = n_kv\narg nb_shift = log2_ceil(blocks)\narg jper = per";
  d.limits = "blocks a power of two; dim * blocks % 64 == 0 (refused by the contract); dim * vstride < 2^30";
  d.tolerance = Tolerance{3e-5, 1e-5};  // f32 sums of up to a few hundred products of |p| <= 1, |v| <= 1
  d.cases = [](bool) {
    return case_table({"dim", "n_kv", "blocks", "vpad", "floor_jper", "seed"},
                      {{64, 64, 1, 0, 0, 1},
                       {128, 1000, 8, 3, 0, 2},
                       {64, 1001, 8, 0, 0, 3},    // ragged: the last block holds 1001 - 7 * 126 = 119 keys
                       {256, 37, 4, 1, 0, 4},     // blocks of 10, 10, 10, 7
                       {32, 3, 2, 0, 0, 5},       // fewer keys than some blocks need
                       {64, 1001, 8, 0, 1, 6},    // jper = n_kv / nb as callers used to pass: keys >= 1000 not summed
                       {192, 4096, 16, 0, 0, 7}});
  };
  d.run = run_pv_part;
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["dim"] * c["n_kv"] * 4 + c["n_kv"] * 4 + c["dim"] * c["blocks"] * 4);
  };
  d.bench_case = [] { return make_case({{"dim", 256}, {"n_kv", 4096}, {"blocks", 16}, {"vpad", 0}, {"floor_jper", 0}}, 1); };
  reg.add(std::move(d));
}

}  // namespace k100::kernels::flash_decode
