// Registry entries, tests and benchmarks of the gated delta-rule kernels
// gdn_k and gdn_k2<32> (generators: gdn_generators.cpp; host reference:
// seq_reference.cpp, one function for both state layouts).
#include <cmath>

#include "gdn_generators.h"
#include "seq_parts.h"
#include "seq_reference.h"

namespace k100::kernels {

namespace {

using seq::StateLayout;

// f32 sums of D products per token against a double reference, the state
// carried through up to 17 tokens.
const Tolerance kGdnTolerance{2e-5, 1e-4};

struct GdnInputs {
  std::vector<float> q, k, v, g, beta, state;
};

// Rows of q and k L2-normalised (as the layer feeds them), decays in
// (0.37, 0.99), beta in (0.1, 0.9), a small random initial state.
GdnInputs gdn_inputs(uint32_t seed, int64_t T, int64_t Hk, int64_t Hv, int64_t D) {
  Rng rng(seed);
  GdnInputs in;
  in.q = rng.normal(size_t(T * Hk * D));
  in.k = rng.normal(size_t(T * Hk * D));
  for (auto* x : {&in.q, &in.k})
    for (int64_t r = 0; r < T * Hk; ++r) {
      double ss = 0;
      for (int64_t i = 0; i < D; ++i) ss += double((*x)[size_t(r * D + i)]) * (*x)[size_t(r * D + i)];
      for (int64_t i = 0; i < D; ++i) (*x)[size_t(r * D + i)] = float((*x)[size_t(r * D + i)] / std::sqrt(ss));
    }
  in.v = rng.normal(size_t(T * Hv * D));
  in.g = rng.uniform(size_t(T * Hv), -1.f, -0.01f);
  in.beta = rng.uniform(size_t(T * Hv), 0.1f, 0.9f);
  in.state = rng.normal(size_t(Hv * D * D), 0.f, 0.1f);
  return in;
}

std::function<int64_t(int64_t)> key_head_of(int64_t Hk, int64_t rep, bool khmod) {
  return [=](int64_t h) { return khmod ? h % Hk : h / rep; };
}

// One call of `lookup` over tokens [t0, t0 + n): pointers advanced to the
// first token, the state carried in `dstate`.
struct GdnCall {
  std::string lookup;
  std::map<std::string, int64_t> sizes;  // without T
  uint32_t workgroup = 0;                // 0: the contract's
};

std::vector<float> run_gdn_calls(TestDevice& dev, const GdnCall& call, const GdnInputs& in, int64_t T, int64_t Hk,
                                 int64_t Hv, int64_t D, int64_t calls, DeviceBuffer<float>& dstate,
                                 DeviceBuffer<float>* dsnap) {
  DeviceBuffer<float> dq(dev, in.q), dk(dev, in.k), dv(dev, in.v), dg(dev, in.g), db(dev, in.beta),
      dout(dev, guarded(size_t(T * Hv * D)));
  int64_t t0 = 0;
  for (int64_t i = 0; i < calls; ++i) {
    const int64_t n = T * (i + 1) / calls - T * i / calls;
    auto sizes = call.sizes;
    sizes["T"] = n;
    Launch l = seq::contract_launch(dev, call.lookup, sizes);
    if (call.workgroup) l.workgroup = call.workgroup;
    const uint64_t qk = uint64_t(t0 * Hk * D * 4), vo = uint64_t(t0 * Hv * D * 4), gb = uint64_t(t0 * Hv * 4);
    std::map<std::string, uint64_t> given = {{"out", dout.addr() + vo}, {"q", dq.addr() + qk}, {"k", dk.addr() + qk},
                                             {"v", dv.addr() + vo},     {"g", dg.addr() + gb}, {"beta", db.addr() + gb},
                                             {"state", dstate.addr()}};
    if (call.lookup == "gdn_k2<32>")
      given["snap"] = dsnap ? dsnap->addr() + uint64_t(t0 * Hv * D * D * 4) : 0;
    launch(dev, call.lookup, l, dev.launch_contract(call.lookup).argv(l, given));
    t0 += n;
  }
  return dout.download();
}

// gdn_k or gdn_k2<32> on a case: output, final state (and snapshots) against
// the reference of its state layout.
CaseResult run_gdn_case(TestDevice& dev, const Case& c, bool k2) {
  const int64_t T = c["T"], Hk = c["Hk"], Hv = c["Hv"], D = c["D"], rep = c["rep"], calls = dim(c, "calls", 1);
  const bool khmod = !k2 && c["khmod"] != 0, snap = k2 && dim(c, "snap", 0) != 0;
  const StateLayout layout = k2 ? StateLayout::IColumn : StateLayout::ColumnI;
  const GdnInputs in = gdn_inputs(c.seed, T, Hk, Hv, D);
  GdnCall call{k2 ? "gdn_k2<32>" : "gdn_k", {{"Hk", Hk}, {"Hv", Hv}, {"D", D}, {"rep", rep}}, uint32_t(c["wg"])};
  if (!k2) call.sizes["khmod"] = khmod ? 1 : 0;
  DeviceBuffer<float> dstate(dev, in.state);
  DeviceBuffer<float> dsnap(dev, guarded(snap ? size_t(T * Hv * D * D) : 0));
  std::vector<float> got = run_gdn_calls(dev, call, in, T, Hk, Hv, D, calls, dstate, snap ? &dsnap : nullptr);
  std::vector<float> state = in.state, want_snap;
  const seq::GdnShape shape{T, Hk, Hv, D, key_head_of(Hk, rep, khmod)};
  const std::vector<float> want = seq::gdn_reference(shape, in.q, in.k, in.v, in.g, in.beta, state, layout,
                                                     snap ? &want_snap : nullptr);
  std::vector<CaseResult> parts;
  if (c["wg"] != 0 && k2 && c["wg"] != 128) {
    // a workgroup other than 128: the kernel refuses by writing nothing
    parts.push_back(compare(got, guarded(size_t(T * Hv * D)), kGdnTolerance));  // the guard NaNs only
    parts.push_back(compare(dstate.download(), in.state, kGdnTolerance));
    return combine(parts);
  }
  if (c.seed == 1) {  // the contract's refusals, each naming its rule
    std::map<std::string, int64_t> base = {{"T", 1}, {"Hk", 1}, {"Hv", 2}, {"D", 128}, {"rep", 2}};
    if (!k2) base["khmod"] = 0;
    using Bad = std::tuple<std::string, int64_t, std::string>;
    const std::vector<Bad> bad = k2 ? std::vector<Bad>{{"D", 64, "D_is_128"}, {"rep", 3, "key_heads_cover_value_heads"}}
                                    : std::vector<Bad>{{"D", 256, "D_at_most_128"},
                                                       {"D", 40, "D_multiple_of_16"},
                                                       {"rep", 1, "key_heads_cover_value_heads"}};
    for (const auto& [key, value, rule] : bad) {
      auto sizes = base;
      sizes[key] = value;
      if (auto refused = expect_contract_refusal(dev, call.lookup, sizes, rule)) parts.push_back(*refused);
    }
  }
  parts.push_back(split_guard(got, size_t(T * Hv * D)));
  parts.push_back(compare(got, want, kGdnTolerance));
  parts.push_back(compare(dstate.download(), state, kGdnTolerance));
  if (snap) {
    std::vector<float> gs = dsnap.download();
    parts.push_back(split_guard(gs, size_t(T * Hv * D * D)));
    parts.push_back(compare(gs, want_snap, kGdnTolerance));
  }
  return combine(parts);
}

// State read and written back, q, k, v, out, g and beta once.
uint64_t gdn_bytes(const Case& c) {
  const uint64_t T = uint64_t(c["T"]), Hk = uint64_t(c["Hk"]), Hv = uint64_t(c["Hv"]), D = uint64_t(c["D"]);
  return (2 * Hv * D * D + 2 * T * Hk * D + 2 * T * Hv * D + 2 * T * Hv) * 4;
}

}  // namespace

void register_seq_gdn_kernels(Registry& r) {
  const std::string formula =
      "per token t, value head h, key head kh: S <- S * exp(g[t][h]); u[col] = beta[t][h] * (v[t][h][col] - "
      "sum_i S[i][col] k[t][kh][i]); S[i][col] += k[t][kh][i] * u[col]; out[t][h][col] = sum_i S[i][col] "
      "q[t][kh][i] / sqrt(D); q, k [T][Hk][D], v, out [T][Hv][D], g, beta [T][Hv]";
  {
    KernelDef d = generated_kernel("seq", seq::gdn_signature(), seq::build_gdn);
    d.description =
        "Gated delta rule (the recurrence of a Gated DeltaNet layer) over T tokens, state [Hv][col][i] (the D x D "
        "state of value head h stored column by column). [2D] grid (Hv, ceil(D/64)): one lane per state column "
        "keeps its D state values in VGPRs for the whole call (no private segment; one wave per SIMD), k and q "
        "of each token are read with scalar loads 16 floats at a time; the state is read once and written back "
        "once per call, out is written per token. q and k are expected L2-normalised (the kernel applies only "
        "the 1/sqrt(D) scale). Key head kh = h mod Hk when khmod != 0 (tiled heads, as qwen35 files order "
        "them), else h / rep (grouped heads, as qwen3next). Any workgroup size that is a multiple of 64 up to "
        "1024 (columns y*W + local id, W from the hidden block).";
    d.semantics = formula + "; kh = khmod != 0 ? h % Hk : h / rep; S[i][col] is state[h][col][i]";
    d.geometry = "[2D] grid = (Hv, ceil(D/64)), wg = 64 (any multiple of 64 up to 1024)";
    d.launch = "sizes T Hk Hv D rep khmod\nlet D_at_most_128 = 1 / (D <= 128)\n"
               "let D_multiple_of_16 = 1 / (D >= 16) / (D % 16 == 0)\n"
               "let T_Hk_Hv_positive = 1 / (T >= 1) / (Hk >= 1) / (Hv >= 1)\n"
               "let key_heads_cover_value_heads = 1 / select(khmod, Hv % Hk == 0, (rep >= 1) * (rep * Hk == Hv))\n"
               "workgroup = 64\ngrid = Hv, ceil_div(D, 64)\n"
               "arg T = T\narg Hk = Hk\narg Hv = Hv\narg D = D\narg rep = rep\narg khmod = khmod";
    d.limits = "16 <= D <= 128, D % 16 == 0; T, Hk >= 1; the key head (h % Hk or h / rep) below Hk; otherwise "
               "nothing is written (the contract refuses these by name). Workgroups with h >= Hv or columns >= D "
               "do nothing. state updated in place; out must not overlap the inputs";
    d.tolerance = kGdnTolerance;
    d.cases = [](bool) {
      return case_table({"T", "Hk", "Hv", "D", "rep", "khmod", "wg", "calls"},
                        {{1, 1, 1, 128, 1, 0, 0, 1},
                         {3, 2, 4, 64, 2, 0, 0, 1},
                         {17, 2, 6, 48, 1, 1, 0, 1},
                         {5, 1, 2, 128, 2, 0, 128, 2},
                         {4, 2, 4, 16, 1, 1, 256, 3}});
    };
    d.run = [](TestDevice& dev, const Case& c) { return run_gdn_case(dev, c, false); };
    d.ideal_bytes = gdn_bytes;
    // Qwen3.5-27B: 48 value heads, 16 key heads of 128, one decode token.
    d.bench_case = [] {
      return make_case({{"T", 1}, {"Hk", 16}, {"Hv", 48}, {"D", 128}, {"rep", 3}, {"khmod", 0}, {"wg", 0}});
    };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated_kernel("seq", seq::gdn2_signature(), seq::build_gdn2);
    d.description =
        "Gated delta rule over T tokens with state [Hv][i][col] (rows of the D x D state contiguous), D = 128 "
        "only (the template's 32 is the slice length: 4 slices of 32 rows). [2D] grid (Hv, D/32), wg = 128: "
        "workgroup (h, y) owns columns 32y .. 32y+31; thread tid holds column 32y + (tid & 31) for rows "
        "32 (tid >> 5) .. +31 in VGPRs (no private segment); the slices' partial sums of S^T k and S^T q meet in "
        "LDS (two 512-byte regions, one barrier each per token, summed in slice order). With snap != 0 the "
        "state after every token is written to snap[t] (same layout). Key head h / rep. q and k are expected "
        "L2-normalised. The workgroup must be exactly 128 x 1 (read from the dispatch packet; other sizes write "
        "nothing). Kernarg 88 bytes (the spec's 84 rounded up to 8; offsets unchanged).";
    d.semantics = formula + "; kh = h / rep; S[i][col] is state[h][i][col]; snap[t][h][i][col] = S after token t";
    d.geometry = "[2D] grid = (Hv, D/32) = (Hv, 4), wg = 128 exactly";
    d.launch = "sizes T Hk Hv D rep\nlet D_is_128 = 1 / (D == 128)\n"
               "let T_Hk_Hv_positive = 1 / (T >= 1) / (Hk >= 1) / (Hv >= 1)\n"
               "let key_heads_cover_value_heads = 1 / (rep >= 1) / (rep * Hk == Hv)\n"
               "workgroup = 128\ngrid = Hv, D / 32\n"
               "arg T = T\narg Hk = Hk\narg Hv = Hv\narg D = D\narg rep = rep";
    d.limits = "D = 128; workgroup exactly 128 x 1; T, rep >= 1; h / rep below Hk; otherwise nothing is written (the "
               "contract refuses these by name). snap = 0 or T*Hv*D*D floats. state updated in place";
    d.tolerance = kGdnTolerance;
    d.cases = [](bool) {
      return case_table({"T", "Hk", "Hv", "D", "rep", "snap", "wg", "calls"},
                        {{1, 1, 1, 128, 1, 1, 0, 1},
                         {3, 2, 4, 128, 2, 0, 0, 1},
                         {17, 1, 2, 128, 2, 0, 0, 1},
                         {4, 2, 2, 128, 1, 1, 0, 2},
                         {2, 1, 1, 128, 1, 0, 64, 1}});
    };
    d.run = [](TestDevice& dev, const Case& c) { return run_gdn_case(dev, c, true); };
    d.ideal_bytes = gdn_bytes;
    d.bench_case = [] {
      return make_case({{"T", 1}, {"Hk", 16}, {"Hv", 48}, {"D", 128}, {"rep", 3}, {"snap", 0}, {"wg", 0}});
    };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
