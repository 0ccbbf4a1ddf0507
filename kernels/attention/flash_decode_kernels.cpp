// Registration of the split-KV decode attention kernels on the packed KV cache and the blocked P.V kernel.
//
// This file: the entries of fa_decode_k and fa_decode_comb_k (semantics,
// launch contracts, tests against the f64 references of
// flash_decode_reference.h, bench cases at the Qwen3.5-27B attention shape).
#include "attention/flash_decode_kernels.h"

#include <algorithm>
#include <cmath>

#include "attention/flash_decode_operands.h"
#include "k100/base/error.h"

namespace k100::kernels {

namespace flash_decode {

namespace {

// Scores: exact integer dots times three f32 scale factors; exponentials of
// 1 ulp; sums of up to 64 products per tile in f32, rescaled once per tile
// over up to 512 tiles; the combine divides correctly rounded. Outputs are
// compared relative to the split's sum of exponentials (compare_partials).
Tolerance decode_tolerance() { return Tolerance{1e-4, 1e-4}; }

struct DecodeCase {
  int64_t n_heads, ratio, n_kv, kv_cap, splits, stride, q_rows, dw_pad, sc_pad;
  int64_t kv_heads() const { return n_heads / ratio; }
};

DecodeCase decode_case(const Case& c) {
  DecodeCase d{c["n_heads"], c["ratio"], c["n_kv"], c["kv_cap"], c["splits"], 0, dim(c, "q_rows", 1),
               dim(c, "dw_pad", 0), dim(c, "sc_pad", 0)};
  d.stride = d.splits + dim(c, "stride_pad", 0);
  return d;
}

const char* kDecodeContract =
    "sizes n_heads n_kv kv_cap ratio splits\n"
    "choose stride = splits\n"
    "let kv_cap_multiple_of_64 = 1 / (kv_cap % 64 == 0)\n"
    "let kv_cap_below_2_pow_23 = 1 / ((kv_cap >= 64) * (kv_cap < 8388608))\n"
    "let n_kv_from_0_to_kv_cap = 1 / ((n_kv >= 0) * (n_kv <= kv_cap))\n"
    "let ratio_divides_n_heads = 1 / ((ratio >= 1) * (n_heads % ratio == 0))\n"
    "let stride_at_least_splits = 1 / (stride >= splits)\n"
    "workgroup = 256\n"
    "grid = n_heads, splits\n"
    "arg n_kv = n_kv\narg kv_cap = kv_cap\narg ratio = ratio\narg n_split = splits\narg arg16 = stride";

const char* kCombineContract =
    "sizes n_heads splits out_stride\n"
    "let out_stride_at_least_256 = 1 / (out_stride >= 256)\n"
    "workgroup = 256\n"
    "grid = n_heads\n"
    "arg n_split = splits\narg out_stride = out_stride";

// The guard value of outputs a kernel must not write.
const float kUnwritten = std::nanf("");

// fa_decode_k then fa_decode_comb_k over one random cache; partials and output against the references.
CaseResult run_decode(TestDevice& dev, const Case& c) {
  const DecodeCase s = decode_case(c);
  const PackedCache kv = random_cache(s.kv_heads(), s.kv_cap, s.n_kv, c.seed);
  const PackedQueries q = random_queries({s.n_heads, s.q_rows, s.dw_pad, s.sc_pad}, c.seed + 7);
  const size_t slots = size_t(s.n_heads * s.stride);
  SplitPartials want{std::vector<float>(slots * kHeadDim, kUnwritten), std::vector<float>(slots, kUnwritten),
                     std::vector<float>(slots, kUnwritten)};
  split_partials_reference(q, kv, s.n_heads, s.ratio, s.n_kv, 0, s.splits, s.stride, 0, want);
  const int64_t out_stride = kHeadDim + dim(c, "out_pad", 0);
  std::vector<float> want_out(size_t(s.n_heads * out_stride), kUnwritten);
  if (s.n_kv > 0) {
    const auto att = attention_reference(q, kv, s.n_heads, s.ratio, s.n_kv, 0);
    for (int64_t h = 0; h < s.n_heads; ++h)
      for (int64_t t = 0; t < kHeadDim; ++t) want_out[size_t(h * out_stride + t)] = att[size_t(h * kHeadDim + t)];
  }
  DeviceBuffer<uint32_t> dq(dev, q.q), dk(dev, kv.kc), dv(dev, kv.vc);
  DeviceBuffer<float> dqs(dev, q.qsc), dks(dev, kv.ksc), dvs(dev, kv.vsc), dpo(dev, std::vector<float>(want.pout.size(), kUnwritten)),
      dpm(dev, std::vector<float>(slots, kUnwritten)), dps(dev, std::vector<float>(slots, kUnwritten)), dout(dev, std::vector<float>(want_out.size(), kUnwritten));
  const std::map<std::string, uint64_t> ptrs = {
      {"pout", dpo.addr()}, {"pmax", dpm.addr()},  {"psum", dps.addr()},   {"q", dq.addr()},
      {"qsc", dqs.addr()},  {"k", dk.addr()},      {"ksc", dks.addr()},    {"v", dv.addr()},
      {"vsc", dvs.addr()},  {"q_dw_stride", uint64_t(q.dw_stride)},       {"q_sc_stride", uint64_t(q.sc_stride)},
      {"q_sc_row", uint64_t(q.sc_row)}};
  // A workgroup of another size than the contract's writes nothing.
  const bool check_refusals = dim(c, "check_refusals", 0) != 0;
  if (check_refusals) {
    const LaunchContract lc = dev.launch_contract("fa_decode_k");
    const Launch l = lc.evaluate({{"n_heads", s.n_heads}, {"n_kv", s.n_kv}, {"kv_cap", s.kv_cap},
                                  {"ratio", s.ratio}, {"splits", s.splits}});
    dev.launch("fa_decode_k", {l.grid[0], l.grid[1], l.grid[2]}, {64}, lc.argv(l, ptrs));
  }
  SplitPartials unwritten{dpo.download(), dpm.download(), dps.download()};
  contract_launch(dev, "fa_decode_k",
                  {{"n_heads", s.n_heads}, {"n_kv", s.n_kv}, {"kv_cap", s.kv_cap}, {"ratio", s.ratio},
                   {"splits", s.splits}},
                  {{"stride", s.stride}}, ptrs);
  // the split-scratch stride: the combine reads n_split slots per head, so it runs when stride = splits
  std::vector<CaseResult> r;
  if (s.stride == s.splits) {
    contract_launch(dev, "fa_decode_comb_k", {{"n_heads", s.n_heads}, {"splits", s.splits}, {"out_stride", out_stride}},
                    {}, {{"out", dout.addr()}, {"pout", dpo.addr()}, {"pmax", dpm.addr()}, {"psum", dps.addr()}});
    r.push_back(compare(dout.download(), want_out, decode_tolerance()));
  }
  r.push_back(compare_partials({dpo.download(), dpm.download(), dps.download()}, want, decode_tolerance()));
  if (check_refusals) {
    // the contract refuses what the kernel cannot do, naming it
    const LaunchContract lc = dev.launch_contract("fa_decode_k");
    for (const auto& [bad, name] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
             {{{"n_kv", s.kv_cap + 1}}, "n_kv_from_0_to_kv_cap"},
             {{{"kv_cap", s.kv_cap + 32}}, "kv_cap_multiple_of_64"},
             {{{"ratio", 4 * s.n_heads}}, "ratio_divides_n_heads"}}) {
      std::map<std::string, int64_t> sizes = {{"n_heads", s.n_heads}, {"n_kv", s.n_kv}, {"kv_cap", s.kv_cap},
                                              {"ratio", s.ratio}, {"splits", s.splits}};
      for (const auto& [k, v] : bad) sizes[k] = v;
      CaseResult g;
      g.compared = 1;
      g.tolerance = decode_tolerance();
      try {
        lc.evaluate(sizes);
        g.note = "the contract accepted a case for " + name;
      } catch (const Error& e) {
        g.pass = std::string(e.what()).find(name) != std::string::npos;
        if (!g.pass) g.note = std::string("refused without naming ") + name + ": " + e.what();
      }
      r.push_back(g);
    }
    // nothing was written by the 64-thread launch: the guards were still there for the real one
    const bool clean = std::all_of(unwritten.pmax.begin(), unwritten.pmax.end(), [](float v) { return std::isnan(v); }) &&
                       std::all_of(unwritten.pout.begin(), unwritten.pout.end(), [](float v) { return std::isnan(v); });
    CaseResult g;
    g.pass = clean;
    g.compared = 1;
    g.tolerance = decode_tolerance();
    if (!clean) g.note = "a launch with 64 work-items per workgroup wrote partials";
    r.push_back(g);
  }
  return combine(r);
}

Case decode_dims(int64_t n_heads, int64_t ratio, int64_t n_kv, int64_t kv_cap, int64_t splits, uint32_t seed,
                 std::map<std::string, int64_t> more = {}) {
  more.insert({{"n_heads", n_heads}, {"ratio", ratio}, {"n_kv", n_kv}, {"kv_cap", kv_cap}, {"splits", splits}});
  return make_case(more, seed);
}

// K and V bytes of the kv heads over n_kv keys with their scales, the queries, and the partials written.
uint64_t decode_bytes(const Case& c) {
  const DecodeCase s = decode_case(c);
  const uint64_t tiles = uint64_t(s.n_kv + 63) / 64;
  const uint64_t kv = uint64_t(s.kv_heads()) * (uint64_t(s.n_kv) * (256 + 8) + tiles * 64 * 256 + tiles * 1024);
  return kv + uint64_t(s.n_heads) * (256 + 8) + uint64_t(s.n_heads * s.splits) * (1024 + 8);
}

void add_decode(Registry& reg) {
  KernelDef d = generated_kernel("attention", kDecodeSig, [](isa::Target t) { return build_attend(t, false); });
  d.description =
      "Split part of single-query decode attention over the packed int8 KV cache (head_dim 256, KERNELS.md 4.6). "
      "Workgroup (h, s) of the 2D grid (n_heads, n_split) walks the 64-key tiles of split s with kv head "
      "g = h / ratio and writes its unnormalised output, maximum and sum of exponentials for fa_decode_comb_k. "
      "Split partition: tiles = ceil(n_kv / 64), T = ceil(tiles / n_split), split s takes tiles "
      "[s T, min(tiles, s T + T)); a split with no tile (n_split > tiles) writes pmax = -inf, psum = 0, pout = 0. "
      "arg16 is the split-scratch stride (slots per head, >= n_split; fa_decode_comb_k reads n_split slots per "
      "head, so the pair passes arg16 = n_split, which the contract derives by default). The softmax scale "
      "(1/sqrt(256), or the model's own) is folded into the query scales before the call. q (one query row) is "
      "at q + h q_dw_stride words, its scale of dim group gr (128 dims each) at qsc[h q_sc_stride + gr q_sc_row]. "
      "Keys >= n_kv are masked (their scales are never used). Four waves: each scores 64 dims of the tile's keys "
      "by v_dot4_i32_i8 against the query in SGPRs, the integer partials meet in LDS, every wave runs the same "
      "online softmax, thread d accumulates p_j code_j of its dim from the transposed V words (4 keys per word). "
      "From 8192 keys on, when 6 divides ratio, the workgroup of the first query head of each six computes the "
      "six from one read of each tile and the other five write nothing themselves (results are the same).";
  d.semantics =
      "g = h / ratio; score_j = f32(dot_0(j)) qs_0 ks_0[j] + f32(dot_1(j)) qs_1 ks_1[j] (dot_gr = integer dot of "
      "the q and k codes of dims [128 gr, 128 gr + 128)); over the split's keys j < n_kv: m = max score_j, "
      "psum = sum exp(score_j - m), pout[h arg16 + s][d] = sum exp(score_j - m) vcode_j[d] vsc[j/64][d]; "
      "pmax[h arg16 + s] = m";
  d.geometry = "[2D] grid = (n_heads, n_split), wg = 256 (exactly; other sizes write nothing)";
  d.launch = kDecodeContract;
  d.limits = "head_dim 256; kv_cap % 64 == 0, 64 <= kv_cap < 2^23; 0 <= n_kv <= kv_cap; ratio divides n_heads; "
             "arg16 >= n_split (all refused by the launch contract, argument named)";
  d.tolerance = decode_tolerance();
  d.cases = [](bool) {
    return std::vector<Case>{
        decode_dims(2, 1, 1, 64, 1, 1, {{"q_rows", 3}, {"dw_pad", 5}, {"sc_pad", 3}, {"check_refusals", 1}}),
        decode_dims(6, 6, 63, 128, 1, 2, {{"q_rows", 2}}),
        decode_dims(6, 6, 64, 64, 2, 3, {{"sc_pad", 1}}),  // the second split is empty
        decode_dims(12, 6, 65, 128, 2, 4, {{"out_pad", 3}}),
        decode_dims(4, 1, 1000, 1024, 3, 5, {{"stride_pad", 2}, {"dw_pad", 1}}),
        decode_dims(2, 1, 200, 256, 8, 6),  // 4 tiles over 8 splits
        decode_dims(6, 6, 4096, 4160, 8, 7, {{"q_rows", 4}, {"sc_pad", 2}}),
        decode_dims(1, 1, 32768, 32768, 4, 8),
        decode_dims(12, 12, 130, 192, 2, 9),  // two groups of 6 heads per kv head
        decode_dims(6, 3, 100, 128, 2, 10),   // a ratio 6 does not divide: one head per workgroup
        decode_dims(12, 6, 8200, 8256, 3, 11, {{"q_rows", 2}, {"sc_pad", 1}}),  // 8192 keys and more: six heads per workgroup
    };
  };
  d.run = run_decode;
  d.ideal_bytes = decode_bytes;
  d.bench_case = [] { return decode_dims(24, 6, 4096, 4096, 8, 1); };
  reg.add(std::move(d));
}

// fa_decode_comb_k alone over random partials with empty splits and an all-empty head.
CaseResult run_combine(TestDevice& dev, const Case& c) {
  const int64_t heads = c["n_heads"], ns = c["splits"], out_stride = kHeadDim + dim(c, "out_pad", 0);
  Rng rng(c.seed);
  SplitPartials p{rng.uniform(size_t(heads * ns * kHeadDim), -20.f, 20.f), rng.uniform(size_t(heads * ns), -4.f, 4.f),
                  rng.uniform(size_t(heads * ns), 1.f, 64.f)};
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t s = 0; s < ns; ++s)
      if ((h + 2 * s) % 5 == 3 || h == heads - 1) {  // empty splits; the last head has only empty ones
        p.pmax[size_t(h * ns + s)] = -INFINITY;
        p.psum[size_t(h * ns + s)] = 0;
        std::fill_n(p.pout.begin() + (h * ns + s) * kHeadDim, kHeadDim, 0.f);
      }
  std::vector<float> want(size_t(heads * out_stride), kUnwritten);
  combine_reference(p, heads, ns, ns, 0, out_stride, 0, want);
  DeviceBuffer<float> dpo(dev, p.pout), dpm(dev, p.pmax), dps(dev, p.psum), dout(dev, std::vector<float>(want.size(), kUnwritten));
  contract_launch(dev, "fa_decode_comb_k", {{"n_heads", heads}, {"splits", ns}, {"out_stride", out_stride}}, {},
                  {{"out", dout.addr()}, {"pout", dpo.addr()}, {"pmax", dpm.addr()}, {"psum", dps.addr()}});
  return compare(dout.download(), want, Tolerance{1e-5, 1e-5});
}

void add_combine(Registry& reg) {
  KernelDef d = generated_kernel("attention", kCombineSig, [](isa::Target t) { return build_combine(t, false); });
  d.description =
      "Combines the split partials of fa_decode_k (head_dim 256): one workgroup per head, thread t = output dim. "
      "M = max over the n_split slots of the head (slots h n_split + s), a_s = exp(pmax_s - M); out = "
      "sum a_s pout_s / sum a_s psum_s with an IEEE (correctly rounded) division. Empty splits (pmax = -inf, "
      "psum = 0) weigh 0; a head whose splits are all empty (M = -inf) or whose denominator is not > 0 keeps its "
      "output untouched. Sums in split order (fmac).";
  d.semantics = "M = max_s pmax[h n_split + s]; a_s = exp(pmax[h n_split + s] - M); out[h out_stride + t] = "
                "sum_s a_s pout[h n_split + s][t] / sum_s a_s psum[h n_split + s], written when the denominator > 0";
  d.geometry = "grid = n_heads, wg = 256 (exactly; other sizes write nothing)";
  d.launch = kCombineContract;
  d.limits = "head_dim 256; n_split >= 1; out_stride >= 256 (refused by the launch contract)";
  d.tolerance = Tolerance{1e-5, 1e-5};  // f32 exp (1 ulp) and sums of up to 12 terms
  d.cases = [](bool) {
    return case_table({"n_heads", "splits", "out_pad", "seed"},
                      {{2, 1, 0, 1}, {3, 2, 5, 2}, {4, 3, 0, 3}, {3, 8, 1, 4}, {5, 12, 0, 5}});
  };
  d.run = run_combine;
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["n_heads"]) * (uint64_t(c["splits"]) * (1024 + 8) + 1024);
  };
  d.bench_case = [] { return make_case({{"n_heads", 24}, {"splits", 8}, {"out_pad", 0}}, 1); };
  reg.add(std::move(d));
}

}  // namespace

void register_attention_entries(Registry& r) {
  add_decode(r);
  add_combine(r);
}

}  // namespace flash_decode

void register_flash_decode_kernels(Registry& r) {
  flash_decode::register_attention_entries(r);
  flash_decode::register_rows_entries(r);
  flash_decode::register_attn_pv_part(r);
}

}  // namespace k100::kernels
