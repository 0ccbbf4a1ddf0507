// Causal depthwise convolution with carried state (KERNELS.md §3.8):
// conv1d_silu_k and conv_state_update_k, the first step of a Gated DeltaNet
// layer over the concatenated q, k, v channels.
//
// Both see the chunk as the carried sequence Z = state (K-1 rows) followed by
// the T new rows, all [rows][C]. conv1d_silu_k: one output element per lane
// and trip of a grid-stride loop (any grid is correct); element e = t C + c
// (exact division by the runtime C), the K taps walk Z rows t .. t+K-1 with
// one byte offset that advances by 4C per tap: rows below K-1 come from the
// state, the others from `in` at the same offset less 4 (K-1) C.
// conv_state_update_k: one lane per channel owns the whole column, reads
// every row it needs before writing the row below it, so `state` may be the
// same buffer as `prev` (in-place rolling) whatever T is; the row choice
// (prev or in) is uniform, a scalar branch.
#include "seq_parts.h"
#include "seq_reference.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kConv1d("conv1d_silu_k", {out("out", "f32"), in("in", "f32"), in("w", "f32"), in("state", "f32"),
                                          value("T", "i32"), value("C", "i32"), value("K", "i32")},
                        HiddenArgLayout::Full);
const Signature kConvState("conv_state_update_k", {inout("state", "f32"), out("snap", "f32"), in("in", "f32"),
                                                   in("prev", "f32"), value("T", "i32"), value("C", "i32"),
                                                   value("K", "i32")},
                           HiddenArgLayout::Full);

// Both kernels index bytes with 32-bit offsets: (T + K) C must stay below 2^30.
constexpr int64_t kMaxElements = int64_t(1) << 30;

// Exits unless 1 <= T (0 <= T with `t_may_be_0`), 1 <= C, kmin <= K <= 64 and
// (T + K) C < 2^30: the limits the contracts state, checked again here so a
// launch without the contract writes nothing rather than garbage.
void exit_unless_in_limits(Kernel& k, Label exit, SGPR T, SGPR C, SGPR K, bool t_may_be_0, int kmin) {
  const SGPR rows = k.sgpr(1, "T + K"), hi = k.sgpr(1, "product high"), n = k.sgpr(1, "product");
  k.s_cmp_lt_i32(T, t_may_be_0 ? 0 : 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(C, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(K, kmin);
  k.s_cbranch_scc1(exit);
  k.s_cmp_gt_i32(K, 64);
  k.s_cbranch_scc1(exit);
  k.s_add_u32(rows, T, K);
  k.s_mul_hi_u32(hi, rows, C);
  k.s_cmp_lg_u32(hi, 0);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(n, rows, C);
  k.s_cmp_ge_u32(n, uint32_t(kMaxElements));
  k.s_cbranch_scc1(exit);
}

codeobj::CodeObject build_conv1d(isa::Target target) {
  Kernel k(kConv1d, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR T = k.arg("T"), C = k.arg("C"), K = k.arg("K"), hid = hidden_block(k);
  const SGPR in = k.arg("in"), w = k.arg("w"), state = k.arg("state"), outp = k.arg("out");
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };
  const SGPR n = s1("T C"), km1 = s1("K - 1"), back4 = s1("4 (K-1) C"), c4 = s1("4 C"), j = s1("tap");
  const VGPR e = k.vgpr(1, "element"), row = k.vgpr(1, "Z row"), off = k.vgpr(1, "Z offset"),
             inoff = k.vgpr(1, "in offset"), woff = k.vgpr(1, "w offset"), x = k.vgpr(1, "x"), wv = k.vgpr(1, "w"),
             acc = k.vgpr(1, "acc"), sig = k.vgpr(1, "sigmoid");
  exit_unless_in_limits(k, exit, T, C, K, false, 1);
  k.s_mul_i32(n, T, C);
  k.s_add_u32(km1, K, -1);
  k.s_mul_i32(back4, km1, C);
  k.s_lshl_b32(back4, back4, 2);
  k.s_lshl_b32(c4, C, 2);
  const Grid g = grid_geometry(k, hid);
  const Divider div = make_divider(k, C);
  stride_loop(
      k, n, g,
      [&](SGPR index) {
        k.v_add_u32(e, index, g.lane);
        const Quotient tc = divide(k, div, e);  // t, c
        k.v_mov_b32(acc, 0);
        k.v_mov_b32(row, tc.q);
        k.v_lshlrev_b32(off, 2, e);  // Z row t, channel c, counted from the state's first row
        k.v_mul_lo_u32(woff, tc.r, K);
        k.v_lshlrev_b32(woff, 2, woff);
        k.s_mov_b32(j, 0);
        k.loop_();
        k.v_cmp_gt_u32(vcc, km1, row);  // Z row < K-1: a carried row
        k.if_(vcc);
        k.global_load_dword(x, off, state);
        k.else_();
        k.v_subrev_u32(inoff, back4, off);
        k.global_load_dword(x, inoff, in);
        k.end_if();
        k.global_load_dword(wv, woff, w);
        k.v_fmac_f32(acc, wv, x);
        k.v_add_u32(row, 1, row);
        k.v_add_u32(off, c4, off);
        k.v_add_u32(woff, 4, woff);
        k.s_add_u32(j, j, 1);
        k.s_cmp_ge_u32(j, K);
        k.break_(Cond::Scc1);
        k.end_loop();
        reciprocal_one_plus_exp2(k, sig, -kLog2E, acc);  // silu(a) = a / (1 + e^-a)
        k.v_mul_f32(acc, acc, sig);
        k.v_lshlrev_b32(off, 2, e);
        k.global_store_dword(off, acc, outp);
      },
      [] {});
  return k.build();
}

codeobj::CodeObject build_conv_state(isa::Target target) {
  Kernel k(kConvState, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR T = k.arg("T"), C = k.arg("C"), K = k.arg("K"), hid = hidden_block(k);
  const SGPR in = k.arg("in"), prev = k.arg("prev"), state = k.arg("state"), snap = k.arg("snap");
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };
  const SGPR km1 = s1("K - 1"), t = s1("token"), r = s1("row"), z = s1("Z row"), srow = s1("snap row"),
             has_snap = s1("snap given"), zb = k.sgpr(2, "Z row address"), ob = k.sgpr(2, "output row address");
  const VGPR coff = k.vgpr(1, "channel offset"), x = k.vgpr(1, "x");
  exit_unless_in_limits(k, exit, T, C, K, true, 2);
  k.s_add_u32(km1, K, -1);
  k.s_or_b32(has_snap, snap[0], snap[1]);
  const Grid g = grid_geometry(k, hid);
  // x = Z[z][c]: prev row z below K-1, else in row z - (K-1) (uniform choice).
  auto load_z = [&] {
    k.s_cmp_lt_u32(z, km1);
    k.if_(Cond::Scc1);
    set_scaled_address(k, zb, prev, z, C, 2);
    k.else_();
    k.s_sub_u32(z, z, km1);
    set_scaled_address(k, zb, in, z, C, 2);
    k.end_if();
    k.global_load_dword(x, coff, zb);
  };
  stride_loop(
      k, C, g,
      [&](SGPR index) {
        k.v_add_u32(coff, index, g.lane);
        k.v_lshlrev_b32(coff, 2, coff);
        // snap[t][r] = Z[t + 1 + r] first: it reads prev rows the state rows below overwrite when they alias.
        k.s_cmp_lg_u32(has_snap, 0);
        k.if_(Cond::Scc1);
        k.s_mov_b32(t, 0);
        k.s_mov_b32(srow, 0);
        k.loop_();
        k.s_cmp_ge_u32(t, T);
        k.break_(Cond::Scc1);
        k.s_mov_b32(r, 0);
        k.loop_();
        k.s_add_u32(z, t, r);
        k.s_add_u32(z, z, 1);
        load_z();
        set_scaled_address(k, ob, snap, srow, C, 2);
        k.global_store_dword(coff, x, ob);
        k.s_add_u32(srow, srow, 1);
        k.s_add_u32(r, r, 1);
        k.s_cmp_ge_u32(r, km1);
        k.break_(Cond::Scc1);
        k.end_loop();
        k.s_add_u32(t, t, 1);
        k.end_loop();
        k.end_if();
        // state[r] = Z[T + r] in increasing r: row T + r is read before anything at or above it is written.
        k.s_mov_b32(r, 0);
        k.loop_();
        k.s_add_u32(z, T, r);
        load_z();
        set_scaled_address(k, ob, state, r, C, 2);
        k.global_store_dword(coff, x, ob);
        k.s_add_u32(r, r, 1);
        k.s_cmp_ge_u32(r, km1);
        k.break_(Cond::Scc1);
        k.end_loop();
      },
      [] {});
  return k.build();
}

const Tolerance kConvTolerance{1e-6, 1e-5};

// Runs the conv on the chunks of `lengths` (their sum is T) as a model does:
// conv1d_silu_k on the chunk with the current state, then
// conv_state_update_k rolls the state in place (prev = state). Returns the
// outputs of all chunks, the final state, and the snapshots of the last chunk.
struct ChunkedConv {
  std::vector<float> out, state, snap;
};
ChunkedConv run_chunked(TestDevice& dev, const std::vector<float>& x, const std::vector<float>& w,
                        const std::vector<float>& state0, const std::vector<int64_t>& lengths, int64_t C, int64_t K,
                        uint32_t wg, bool snap) {
  ChunkedConv r;
  DeviceBuffer<float> dw(dev, w), dstate(dev, state0);
  int64_t t0 = 0;
  for (int64_t T : lengths) {
    std::vector<float> xc(x.begin() + t0 * C, x.begin() + (t0 + T) * C);
    DeviceBuffer<float> dx(dev, xc), dout(dev, guarded(size_t(T * C)));
    DeviceBuffer<float> dsnap(dev, snap ? size_t(T * (K - 1) * C) : 1);
    Launch l = seq::contract_launch(dev, "conv1d_silu_k", {{"T", T}, {"C", C}, {"K", K}});
    if (wg) l.workgroup = wg;
    launch(dev, "conv1d_silu_k", l,
           dev.launch_contract("conv1d_silu_k").argv(l, {{"out", dout.addr()}, {"in", dx.addr()}, {"w", dw.addr()},
                                                         {"state", dstate.addr()}}));
    std::vector<float> o = dout.download();
    CaseResult guard = split_guard(o, size_t(T * C));
    if (!guard.pass) throw Error("conv1d_silu_k wrote past its output: " + guard.note);
    r.out.insert(r.out.end(), o.begin(), o.end());
    t0 += T;
    if (K == 1) continue;  // no carried rows
    Launch ls = seq::contract_launch(dev, "conv_state_update_k", {{"T", T}, {"C", C}, {"K", K}});
    if (wg) ls.workgroup = wg;
    launch(dev, "conv_state_update_k", ls,
           dev.launch_contract("conv_state_update_k")
               .argv(ls, {{"state", dstate.addr()}, {"snap", snap ? dsnap.addr() : 0}, {"in", dx.addr()},
                          {"prev", dstate.addr()}}));
    if (snap) r.snap = dsnap.download();
  }
  r.state = dstate.download();
  return r;
}

// Chunk lengths of a case: "chunks" = n splits T into n nearly equal chunks.
std::vector<int64_t> chunk_lengths(const Case& c) {
  const int64_t T = c["T"], n = dim(c, "chunks", 1);
  std::vector<int64_t> l;
  for (int64_t i = 0; i < n; ++i) l.push_back(T * (i + 1) / n - T * i / n);
  return l;
}

std::vector<Case> conv_cases() {
  // T = 1 (decode), T < K-1, several chunks carrying the state, C with tails (not multiples of 64), K 2..5.
  return case_table({"T", "C", "K", "chunks", "wg"}, {{1, 200, 4, 1, 0},
                                                      {2, 70, 4, 1, 0},
                                                      {1, 1, 1, 1, 0},
                                                      {9, 130, 4, 3, 0},
                                                      {13, 67, 4, 5, 64},
                                                      {37, 97, 4, 2, 128},
                                                      {6, 129, 2, 2, 0},
                                                      {5, 33, 5, 5, 0}});
}

}  // namespace

void register_seq_conv_kernels(Registry& r) {
  {
    KernelDef d = generated_kernel("seq", kConv1d, build_conv1d);
    d.description =
        "Causal depthwise 1D convolution with carried state, then SiLU: the first step of a Gated DeltaNet layer "
        "over its concatenated q, k, v channels. The spec's AMBIGUOUS reading is settled on the original source "
        "(and on what Qwen3-Next / Qwen3.5 compute): the chunk is prefixed by the K-1 carried rows `state` "
        "(the raw pre-conv inputs of the previous tokens, oldest first), there is no bias, and w is indexed "
        "[C][K] with tap K-1 on the current token. Grid-stride, one output element per lane and trip (any grid "
        "and any workgroup size up to 1024 is correct); e = t C + c by exact division; the taps walk the carried "
        "sequence with one offset. `state` is only read: roll it afterwards with conv_state_update_k.";
    d.semantics =
        "Z = state (K-1 rows) followed by in (T rows), [rows][C]; out[t][c] = silu(sum_(j<K) w[c*K + j] * Z[t + j][c]) "
        "for t < T, c < C; silu(a) = a / (1 + e^-a)";
    d.geometry = "grid = min(ceil(T*C/256), 480), wg = 256 (grid-stride: any grid, any workgroup size up to 1024)";
    d.launch = "sizes T C K\nlet K_from_1_to_64 = 1 / (K >= 1) / (K <= 64)\n"
               "let T_and_C_positive = 1 / (T >= 1) / (C >= 1)\n"
               "let T_plus_K_times_C_below_2_30 = 1 / ((T + K) * C < 1073741824)\n"
               "workgroup = 256\ngrid = min(ceil_div(T * C, 256), 480)\narg T = T\narg C = C\narg K = K";
    d.limits = "1 <= K <= 64, T >= 1, C >= 1, (T + K) * C < 2^30 (outside these nothing is written); out must not "
               "overlap in or state";
    d.tolerance = kConvTolerance;
    d.cases = [](bool) { return conv_cases(); };
    d.run = [](TestDevice& dev, const Case& c) {
      const int64_t T = c["T"], C = c["C"], K = c["K"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(T * C));
      auto w = rng.uniform(size_t(C * K), -0.6f, 0.6f);
      auto state0 = rng.normal(size_t((K - 1) * C));
      const ChunkedConv got = run_chunked(dev, x, w, state0, chunk_lengths(c), C, K, uint32_t(c["wg"]), false);
      std::vector<CaseResult> parts = {
          compare(got.out, seq::conv1d_silu_reference(x, w, state0, T, C, K), kConvTolerance),
          compare(got.state, seq::conv_state_reference(state0, x, T, C, K), Tolerance{})};
      if (c.seed == 1)
        for (auto [rule, sizes] : std::vector<std::pair<std::string, std::map<std::string, int64_t>>>{
                 {"K_from_1_to_64", {{"T", 1}, {"C", 64}, {"K", 65}}},
                 {"T_and_C_positive", {{"T", 0}, {"C", 64}, {"K", 4}}},
                 {"T_plus_K_times_C_below_2_30", {{"T", 1 << 20}, {"C", 1024}, {"K", 4}}}})
          if (auto bad = expect_contract_refusal(dev, "conv1d_silu_k", sizes, rule)) parts.push_back(*bad);
      return combine(parts);
    };
    d.ideal_bytes = [](const Case& c) {
      return uint64_t(2 * c["T"] * c["C"] + c["C"] * c["K"] + (c["K"] - 1) * c["C"]) * 4;
    };
    // Qwen3.5-27B's GDN conv: 2*16*128 + 48*128 channels, K = 4; a 512-token prompt chunk.
    d.bench_case = [] { return make_case({{"T", 512}, {"C", 10240}, {"K", 4}, {"chunks", 1}, {"wg", 0}}); };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated_kernel("seq", kConvState, build_conv_state);
    d.description =
        "Rolls the carried conv state past a chunk of T rows: the new state is the last K-1 rows of prev || in. "
        "With snap != 0 it also writes the state after every token (for speculative rollback). One lane per "
        "channel owns its column and reads every row it needs before writing the row below it, so state may be "
        "the same buffer as prev (in-place rolling) for every T, T < K-1 included; snapshots are written first. "
        "Grid-stride over the channels: grid = ceil(C/128) suffices (the spec's ceil((K-1)*C/128) is also "
        "correct, the extra workgroups do nothing); any workgroup size up to 1024. Copies are bit-exact.";
    d.semantics =
        "Z = prev (K-1 rows) followed by in (T rows), [rows][C]; state[r][c] = Z[T + r][c] for r < K-1; if snap "
        "!= 0: snap[t][r][c] = Z[t + 1 + r][c] for t < T (the state after token t)";
    d.geometry = "grid = ceil(C/128), wg = 128 (any grid, any workgroup size up to 1024)";
    d.launch = "sizes T C K\nlet K_from_2_to_64 = 1 / (K >= 2) / (K <= 64)\n"
               "let T_not_negative_and_C_positive = 1 / (T >= 0) / (C >= 1)\n"
               "let T_plus_K_times_C_below_2_30 = 1 / ((T + K) * C < 1073741824)\n"
               "workgroup = 128\ngrid = ceil_div(C, 128)\narg T = T\narg C = C\narg K = K";
    d.limits = "2 <= K <= 64, T >= 0, C >= 1, (T + K) * C < 2^30 (outside these nothing is written); state may equal "
               "prev; snap (when given) holds T*(K-1)*C floats and overlaps nothing";
    d.cases = [](bool) {
      return case_table({"T", "C", "K", "alias", "snap", "wg"}, {{1, 200, 4, 1, 1, 0},
                                                                 {2, 70, 4, 1, 1, 0},
                                                                 {2, 70, 4, 0, 0, 64},
                                                                 {0, 65, 4, 1, 0, 0},
                                                                 {7, 300, 4, 1, 1, 256},
                                                                 {1, 129, 2, 0, 1, 0},
                                                                 {3, 33, 6, 1, 1, 0}});
    };
    d.run = [](TestDevice& dev, const Case& c) {
      const int64_t T = c["T"], C = c["C"], K = c["K"];
      const bool alias = c["alias"] != 0, snap = c["snap"] != 0;
      Rng rng(c.seed);
      auto x = rng.normal(size_t(T * C)), prev = rng.normal(size_t((K - 1) * C));
      DeviceBuffer<float> dx(dev, x), dprev(dev, prev), dstate(dev, guarded(size_t((K - 1) * C)));
      DeviceBuffer<float> dsnap(dev, guarded(size_t(T * (K - 1) * C)));
      const uint64_t state_addr = alias ? dprev.addr() : dstate.addr();
      Launch l = seq::contract_launch(dev, "conv_state_update_k", {{"T", T}, {"C", C}, {"K", K}});
      if (c["wg"]) l.workgroup = uint32_t(c["wg"]);
      launch(dev, "conv_state_update_k", l,
             dev.launch_contract("conv_state_update_k")
                 .argv(l, {{"state", state_addr}, {"snap", snap ? dsnap.addr() : 0}, {"in", dx.addr()},
                           {"prev", alias ? state_addr : dprev.addr()}}));
      std::vector<float> got = alias ? dprev.download() : dstate.download();
      std::vector<CaseResult> parts;
      if (!alias) parts.push_back(split_guard(got, size_t((K - 1) * C)));
      parts.push_back(compare(got, seq::conv_state_reference(prev, x, T, C, K), Tolerance{}));
      std::vector<float> gs = dsnap.download();
      const size_t ns = size_t(T * (K - 1) * C);
      if (snap) {
        parts.push_back(split_guard(gs, ns));
        parts.push_back(compare(gs, seq::conv_snap_reference(prev, x, T, C, K), Tolerance{}));
      } else {
        parts.push_back(compare_bits(gs, guarded(ns)));  // snap = 0: nothing written there
      }
      if (c.seed == 1)
        if (auto bad = expect_contract_refusal(dev, "conv_state_update_k", {{"T", 1}, {"C", 64}, {"K", 1}}, "K_from_2_to_64"))
          parts.push_back(*bad);
      return combine(parts);
    };
    // K-1 rows read (from prev or in) and written, and the snapshots when asked for
    d.ideal_bytes = [](const Case& c) {
      return uint64_t((2 * (c["K"] - 1) + (c["snap"] ? c["T"] * (c["K"] - 1) : 0)) * c["C"]) * 4;
    };
    // Qwen3.5-27B decode step: one token over the 10240 conv channels, K = 4, no snapshots.
    d.bench_case = [] { return make_case({{"T", 1}, {"C", 10240}, {"K", 4}, {"alias", 1}, {"snap", 0}, {"wg", 0}}); };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
