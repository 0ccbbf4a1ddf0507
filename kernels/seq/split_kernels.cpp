// split_qkv_k (KERNELS.md §3.8): each token row [q | k | v] of the conv
// output into compact q, k and v rows. One workgroup per token; written in
// the DSL (kernels/dsl/split_qkv_k.kkl): the first wave's lanes copy each
// part, so any width works (the original's 64-wide limit is gone).
// Bit-exact copies.
#include "dsl/dsl_build.h"
#include "seq_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kSplit("split_qkv_k", {out("q", "f32"), out("k", "f32"), out("v", "f32"), in("c", "f32"),
                                       value("T", "u32"), value("qn", "u32"), value("kn", "u32"), value("vn", "u32")},
                       HiddenArgLayout::Compact);

}  // namespace

void register_seq_split_kernels(Registry& r) {
  // Built from its DSL source: MODELED within 1.1x of the hand-written generator it replaced.
  KernelDef d = generated_kernel("seq", kSplit, dsl_package::dsl_generator("split_qkv_k", kSplit));
  d.description =
      "Splits each token row of width qn + kn + vn (q first, then k, then v) into compact q [T][qn], k [T][kn] and "
      "v [T][vn]. Written in the DSL (kernels/dsl/split_qkv_k.kkl): one workgroup per token; its first wave's lanes "
      "copy each part 256 floats at a time (four loads in flight per lane), then the part's last n % 256 floats, "
      "so any widths work (the old 64-wide limit does not apply; tested up to 10240) with any workgroup size from "
      "64 to 256 (waves past the first do nothing). Bit-exact copies. Workgroups t >= T do nothing.";
  d.semantics = "for t < T: q[t][j] = c[t][j] (j < qn), k[t][j] = c[t][qn + j] (j < kn), v[t][j] = c[t][qn + kn + j] "
                "(j < vn), c rows of qn + kn + vn floats";
  d.geometry = "grid = T, wg = 64 (any size from 64 to 256)";
  d.launch = "sizes T qn kn vn\nlet row_below_2_30 = 1 / (qn + kn + vn < 1073741824)\nworkgroup = 64\ngrid = T\n"
             "arg T = T\narg qn = qn\narg kn = kn\narg vn = vn";
  d.limits = "qn + kn + vn < 2^30 floats per row (the contract refuses larger by name; the kernel writes nothing); "
             "outputs must not overlap c";
  d.cases = [](bool) {
    return case_table({"T", "qn", "kn", "vn", "wg"}, {{1, 16, 16, 32, 64},
                                                      {3, 200, 200, 157, 64},
                                                      {2, 256, 256, 300, 128},
                                                      {5, 1, 2, 3, 64},
                                                      {2, 0, 5, 70, 256},
                                                      {1, 2048, 2048, 6144, 256}});
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t T = c["T"], qn = c["qn"], kn = c["kn"], vn = c["vn"], w = qn + kn + vn;
    auto x = Rng(c.seed).normal(size_t(T * w));
    std::vector<float> wq, wk, wv;
    for (int64_t t = 0; t < T; ++t)
      for (int64_t j = 0; j < w; ++j)
        (j < qn ? wq : j < qn + kn ? wk : wv).push_back(x[size_t(t * w + j)]);
    DeviceBuffer<float> dc(dev, x), dq(dev, guarded(size_t(T * qn))), dk(dev, guarded(size_t(T * kn))),
        dv(dev, guarded(size_t(T * vn)));
    Launch l = seq::contract_launch(dev, "split_qkv_k", {{"T", T}, {"qn", qn}, {"kn", kn}, {"vn", vn}});
    l.workgroup = uint32_t(c["wg"]);
    l.grid[0] += 1;  // one workgroup past T: it must write nothing
    launch(dev, "split_qkv_k", l,
           dev.launch_contract("split_qkv_k").argv(l, {{"q", dq.addr()}, {"k", dk.addr()}, {"v", dv.addr()},
                                                       {"c", dc.addr()}}));
    std::vector<CaseResult> parts;
    for (auto [buf, want] : {std::pair{&dq, &wq}, {&dk, &wk}, {&dv, &wv}}) {
      std::vector<float> got = buf->download();
      parts.push_back(split_guard(got, want->size()));
      parts.push_back(compare_bits(got, *want));
    }
    if (c.seed == 1)
      if (auto bad = expect_contract_refusal(dev, "split_qkv_k", {{"T", 1}, {"qn", 1 << 29}, {"kn", 1 << 29}, {"vn", 1}},
                                         "row_below_2_30"))
        parts.push_back(*bad);
    return combine(parts);
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["T"] * (c["qn"] + c["kn"] + c["vn"])) * 4; };
  // Qwen3.5-27B conv output: q and k 16 heads of 128, v 48 heads of 128; a 512-token prompt chunk.
  d.bench_case = [] { return make_case({{"T", 512}, {"qn", 2048}, {"kn", 2048}, {"vn", 6144}, {"wg", 256}}); };
  r.add(std::move(d));
}

}  // namespace k100::kernels
