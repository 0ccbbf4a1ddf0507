// split_qkv_k (KERNELS.md §3.8): each token row [q | k | v] of the conv
// output into compact q, k and v rows. One workgroup per token; the threads
// walk each part of the row with the workgroup's stride (row_walk), so any
// width works (the original's 64-wide limit is gone). Bit-exact copies.
#include "seq_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kSplit("split_qkv_k", {out("q", "f32"), out("k", "f32"), out("v", "f32"), in("c", "f32"),
                                       value("T", "u32"), value("qn", "u32"), value("kn", "u32"), value("vn", "u32")},
                       HiddenArgLayout::Compact);

codeobj::CodeObject build_split(isa::Target target) {
  Kernel k(kSplit, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR t = k.workgroup_id(), qn = k.arg("qn"), kn = k.arg("kn"), vn = k.arg("vn");
  const SGPR width = k.sgpr(1, "row width"), hi = k.sgpr(1, "width carry");
  const VGPR off = k.vgpr(1, "offset"), x = k.vgpr(1, "x");
  k.s_cmp_ge_u32(t, k.arg("T"));
  k.s_cbranch_scc1(exit);
  k.s_add_u32(width, qn, kn);
  k.s_addc_u32(hi, 0, 0);
  k.s_add_u32(width, width, vn);
  k.s_addc_u32(hi, hi, 0);
  k.s_cmp_lg_u32(hi, 0);  // a row of 2^30 floats or more (32-bit byte offsets): nothing written
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(width, 1u << 30);
  k.s_cbranch_scc1(exit);
  const WorkgroupWaves ww = workgroup_waves(k, exit);
  const SGPR src = scaled_address(k, k.arg("c"), t, width, 2);
  // part [first, first + n) of the row to dst row t of n floats
  auto part = [&](const char* dst_name, SGPR n) {
    const SGPR dst = scaled_address(k, k.arg(dst_name), t, n, 2);
    row_walk(k, n, ww.threads, [&](VGPR unit) {
      k.v_lshlrev_b32(off, 2, unit);
      k.global_load_dword(x, off, src);
      k.global_store_dword(off, x, dst);
    });
    add64_pair(k, src, widen_shifted(k, n, 2));
  };
  part("q", qn);
  part("k", kn);
  part("v", vn);
  return k.build();
}

}  // namespace

void register_seq_split_kernels(Registry& r) {
  KernelDef d = generated_kernel("seq", kSplit, build_split);
  d.description =
      "Splits each token row of width qn + kn + vn (q first, then k, then v) into compact q [T][qn], k [T][kn] and "
      "v [T][vn]. One workgroup per token; its threads walk each part of the row with the workgroup's stride, so "
      "any widths work (the old 64-wide limit does not apply; tested up to 10240) and any workgroup size that is "
      "a multiple of 64 up to 1024 (from the hidden block). Bit-exact copies. Workgroups t >= T do nothing.";
  d.semantics = "for t < T: q[t][j] = c[t][j] (j < qn), k[t][j] = c[t][qn + j] (j < kn), v[t][j] = c[t][qn + kn + j] "
                "(j < vn), c rows of qn + kn + vn floats";
  d.geometry = "grid = T, wg = 64 (any multiple of 64 up to 1024)";
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
