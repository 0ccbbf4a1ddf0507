#include "k100/model/decoder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "k100/base/error.h"
#include "k100/model/contract_kernel.h"
#include "k100/model/workspace.h"
#include "model_weights.h"

namespace k100::model {

using quant::TensorType;

namespace {

// Splits of the attention part kernel for n_kv cached rows: a power of two
// up to 64, one per 256 rows, so long contexts fill the device and short
// ones stay one launch of n_head workgroups.
int64_t attention_splits(int64_t n_kv) {
  int64_t s = 1;
  while (s < 64 && s * 2 * 256 <= n_kv) s *= 2;
  return s;
}

// Splits of the one-launch attention (flash_dec_gqa_rope_k, flash_dec_gqa_k):
// each is one workgroup of one wave for all query heads of a KV head. A power
// of two up to 64 that makes about 128 workgroups with f32 caches up to 8192
// rows, else 256 (f16 caches: twice the rows per byte in flight, and the VALU
// work per byte doubles; long contexts: enough waves to keep the HBM busy),
// with at least 128 rows per split. What the timing model found fastest at
// 4096 and 32768 rows for 8 and 4 KV heads (docs/DECODE_ATTENTION.md).
int64_t grouped_attention_splits(int64_t n_kv, int64_t n_kv_heads, bool kv_f16) {
  const int64_t workgroups = kv_f16 || n_kv > 8192 ? 256 : 128;
  int64_t s = 1;
  while (s < 64 && 2 * s * n_kv_heads <= workgroups && 2 * s * 128 <= n_kv) s *= 2;
  return s;
}

}  // namespace

struct DecoderModel::State {
  Device& dev;
  ModelConfig cfg;
  int64_t ctx = 0;
  Workspace ws;
  std::unique_ptr<ModelWeights> w;
  int64_t pos = 0;

  uint64_t h = 0, xn = 0, hn = 0, hss = 0, qkv = 0, q = 0, attn = 0, po = 0, pm = 0, pl = 0, gu = 0, act = 0, logits = 0, ids = 0,
           cos = 0, sin = 0;
  uint64_t router = 0, sel = 0, selw = 0, eg = 0, eu = 0, ea = 0, eo = 0, moe_out = 0;
  // attention in one launch with its RoPE/append (flash_dec_gqa_rope_k) over blocked caches of cache_len rows,
  // or (heads of 256) the RoPE/append launch into the blocked caches and the one-launch attention
  // (flash_dec_gqa_k), or RoPE/append, part and combine; the two one-launch forms multiply by the
  // attention gate of hybrid models themselves
  ContractKernel attend, grouped;
  uint64_t split_count = 0;
  int64_t cache_len = 0;
  bool kv_f16 = false;
  std::vector<uint64_t> kt, vc;
  KernelRef norm, add;
  ContractKernel embed, rope, part, comb, silu, gated, route, combine;
  // from the package's launch contracts: the norm of one row of n_embd (its
  // launch fixed), the add's contract (its length varies)
  kernels::LaunchContract norm_contract, add_contract;
  kernels::Launch norm_launch;
  std::vector<uint64_t> embed_tables;
  float inv_sqrt_hd = 0;

  // Hybrid models: the Gated DeltaNet step's kernels and buffers, the gated
  // attention's sigmoid gate, the shared expert's gate; per recurrent layer
  // its conv state (the last d_conv - 1 input rows, rolled in place) and
  // delta-net state, zeroed by the pass at position 0.
  // With heads of 128 the step is one launch (gdn_decode_k, which rolls the
  // conv state into a second buffer: the two swap every position) and the
  // b, a rows are in the in-projection; else the chain of the catalog's
  // kernels (K100_MODEL_GDN=chain selects it for heads of 128 too). The
  // one launch takes the gated RMSNorm too (gdn_decode_gated_k) unless
  // K100_MODEL_GDN=two (gdn_decode_k, then rmsnorm_gated_k).
  bool decode_step = false, gated_step = false;
  ContractKernel ab_gate, conv, conv_update, l2norm, gdn, gdn_decode, gated_norm, sigmoid_mul, fill;
  uint64_t gab = 0, gbeta = 0, gdecay = 0, conv_out = 0, gdn_out = 0, gn = 0, one = 0;
  std::vector<std::array<uint64_t, 2>> conv_state;
  std::vector<uint64_t> delta_state;

  State(Device& d, const ModelConfig& c, const TensorSource& f, const LoadOptions& o) : dev(d), cfg(c), ws(d) {
    ctx = o.context > 0 ? o.context : std::min<int64_t>(cfg.n_ctx_train, 4096);
    if (cfg.head_dim % 32 || cfg.head_dim > 256)
      throw Error(f.origin() + ": head size " + std::to_string(cfg.head_dim) +
                  " is not supported (attention takes multiples of 32 up to 256)");
    if (cfg.n_embd % 64) throw Error(f.origin() + ": n_embd " + std::to_string(cfg.n_embd) + " is not a multiple of 64");
    if (cfg.moe() && (cfg.n_expert > 256 || cfg.n_expert_used > 64))
      throw Error(f.origin() + ": " + std::to_string(cfg.n_expert) + " experts, " + std::to_string(cfg.n_expert_used) +
                  " used per token; routing handles at most 256 experts and 64 used");
    if (cfg.hybrid() && (cfg.ssm_state > 128 || cfg.ssm_conv < 2))
      throw Error(f.origin() + ": Gated DeltaNet heads of " + std::to_string(cfg.ssm_state) + " with a conv of " +
                  std::to_string(cfg.ssm_conv) + " taps are not supported (the recurrence takes heads up to 128, the "
                  "conv at least 2 taps)");
    kv_f16 = o.kv_f16;
    resolve_kernels();
    const char* linear = std::getenv("K100_MODEL_LINEAR");
    w = load_weights(d, ws, f, cfg, o.progress,
                     {.fast_gemv = o.fast_gemv && !(linear && std::string_view(linear) == "dot"),
                      .allow_unused = o.allow_unused,
                      .w4_act = o.w4_act,
                      .gdn_ab_rows = decode_step});
    resolve_hybrid_kernels();
    resolve_embedding();
    allocate();
    rope_tables();
  }

  void resolve_kernels() {
    norm = dev.kernel(cfg.n_embd >= kRmsNormDeepMin && dev.has("rmsnorm_deep_k") ? "rmsnorm_deep_k" : "rmsnorm_fast_k",
                      "the decoder");
    norm_contract = dev.contract(norm);
    norm_launch = norm_contract.evaluate({{"rows", 1}, {"dim", cfg.n_embd}});
    rope = ContractKernel(dev, "qkv_rope_append_k", "the decoder");
    part = ContractKernel(dev, "flash_dec_gqa_part_k", "the decoder");
    comb = ContractKernel(dev, "flash_dec_comb_k", "the decoder");
    const int64_t group = cfg.n_head / cfg.n_head_kv;
    // the one-launch attention takes heads of 64 and 128 with the RoPE/append step (flash_dec_gqa_rope_k), heads
    // of 256 after it (flash_dec_gqa_k)
    const bool with_rope = cfg.head_dim == 64 || cfg.head_dim == 128, one_launch = with_rope || cfg.head_dim == 256;
    kv_f16 = kv_f16 && one_launch && group <= 8 &&
             dev.has(with_rope ? "flash_dec_gqa_rope_f16_k" : "flash_dec_gqa_f16_k");
    const char* fused = kv_f16 ? "flash_dec_gqa_rope_f16_k" : "flash_dec_gqa_rope_k";
    const char* plain = kv_f16 ? "flash_dec_gqa_f16_k" : "flash_dec_gqa_k";
    if (one_launch && group <= 8 && dev.has(with_rope ? fused : plain)) {
      if (with_rope)
        attend = ContractKernel(dev, fused, "the decoder");
      else
        grouped = ContractKernel(dev, plain, "the decoder");
    }
    add = dev.kernel("add_inplace_k", "the decoder");
    add_contract = dev.contract(add);
    if (cfg.moe()) {
      route = ContractKernel(dev, "moe_route_k", "MoE routing");
      combine = ContractKernel(dev, "moe_combine_k", "MoE routing");
    }
    silu = ContractKernel(dev, "silu_mul_k", "the FFN");
    const char* gdn = std::getenv("K100_MODEL_GDN");
    decode_step = cfg.hybrid() && cfg.ssm_state == 128 && dev.has("gdn_decode_k") &&
                  !(gdn && std::string_view(gdn) == "chain");
    gated_step = decode_step && dev.has("gdn_decode_gated_k") && !(gdn && std::string_view(gdn) == "two");
  }

  // After the weights: a file that lacks a tensor is refused for that first.
  void resolve_hybrid_kernels() {
    if (cfg.hybrid()) {
      const char* gdn_layers = "the Gated DeltaNet layers";
      if (decode_step) {
        gdn_decode = ContractKernel(dev, gated_step ? "gdn_decode_gated_k" : "gdn_decode_k", gdn_layers);
      } else {
        ab_gate = ContractKernel(dev, "ssm_ab_gate_k", gdn_layers);
        conv = ContractKernel(dev, "conv1d_silu_k", gdn_layers);
        conv_update = ContractKernel(dev, "conv_state_update_k", gdn_layers);
        l2norm = ContractKernel(dev, "l2norm_k", gdn_layers);
        gdn = ContractKernel(dev, "gdn_k", gdn_layers);
      }
      gated_norm = ContractKernel(dev, "rmsnorm_gated_k", gdn_layers);
      fill = ContractKernel(dev, "fill_k", gdn_layers);
      sigmoid_mul = ContractKernel(dev, "sigmoid_mul_k", "the gated attention");
    }
  }
  static constexpr int64_t kRmsNormDeepMin = 2048;

  void resolve_embedding() {
    switch (w->embd_type) {
      case TensorType::F32: embed = ContractKernel(dev, "embed_f32_k", "the f32 token embedding"); break;
      case TensorType::F16: embed = ContractKernel(dev, "embed_f16_k", "the f16 token embedding"); break;
      case TensorType::BF16: embed = ContractKernel(dev, "embed_bf16_k", "the bf16 token embedding"); break;
      default: {
        const QuantSpec* s = quant_spec(w->embd_type);
        embed = ContractKernel(dev, s->dequant_kernel,
                               std::string("the ") + quant::type_name(w->embd_type) + " token embedding");
        for (const char* t : s->tables) embed_tables.push_back(quant_table(ws, t));
      }
    }
    // f32 down projections take silu(gate) * up inside the GEMV
    if (!cfg.moe()) {
      bool all_f32 = true;
      for (const auto& l : w->layers) all_f32 = all_f32 && l.down.parts.size() == 1 && l.down.parts[0].linear->type() == TensorType::F32;
      if (all_f32) gated = ContractKernel(dev, "gemv_f32_gated_acc_k", "the f32 FFN");
    }
  }

  bool blocked_caches() const { return attend.valid() || grouped.valid(); }
  // hybrid models: the attention gate rows after q, k and v
  uint64_t attention_gate() const {
    return cfg.hybrid() ? qkv + uint64_t(cfg.q_dim() + 2 * cfg.kv_dim()) * 4 : 0;
  }

  uint64_t buf(const char* key, int64_t floats) { return ws.buffer(std::string("decoder.") + key, size_t(floats) * 4); }

  void allocate() {
    const int64_t E = cfg.n_embd;
    // hybrids: attention rows [q | k | v | gate], Gated DeltaNet rows [q | k | v | z]
    const int64_t qkvn = cfg.hybrid() ? std::max(2 * cfg.q_dim() + 2 * cfg.kv_dim(),
                                                 cfg.ssm_conv_dim() + cfg.ssm_v_dim() + 2 * cfg.ssm_v_heads)
                                      : cfg.q_dim() + 2 * cfg.kv_dim();
    h = buf("h", E);
    xn = buf("xn", E);
    hn = buf("hn", E);
    hss = buf("hss", (E + 63) / 64);
    qkv = buf("qkv", qkvn);
    q = buf("q", cfg.q_dim());
    attn = buf("attn", cfg.q_dim());
    po = buf("po", cfg.n_head * 64 * cfg.head_dim);
    pm = buf("pm", cfg.n_head * 64);
    pl = buf("pl", cfg.n_head * 64);
    logits = buf("logits", cfg.n_vocab);
    ids = ws.buffer("decoder.ids", size_t(ctx) * 4);
    if (cfg.moe()) {
      // the shared expert's gate logit after the router's, its output after the experts'
      const int64_t k = cfg.n_expert_used, shared = cfg.n_ff_shexp ? 1 : 0;
      router = buf("router", cfg.n_expert + shared);
      sel = ws.buffer("decoder.sel", size_t(k) * 4);
      selw = buf("selw", k + shared);
      eg = buf("eg", k * cfg.n_ff_exp);
      eu = buf("eu", k * cfg.n_ff_exp);
      ea = buf("ea", k * cfg.n_ff_exp);
      eo = buf("eo", (k + shared) * E);
      moe_out = buf("moe_out", E);
      if (shared) {
        gu = buf("gu", 2 * cfg.n_ff_shexp);
        act = buf("act", cfg.n_ff_shexp);
      }
    } else {
      gu = buf("gu", 2 * cfg.n_ff);
      act = buf("act", cfg.n_ff);
    }
    cache_len = blocked_caches() ? (ctx + 63) / 64 * 64 : ctx;  // blocked caches: whole 64-row tiles
    if (blocked_caches()) {
      split_count = ws.buffer("decoder.split_count", size_t(cfg.n_head_kv) * 4);
      dev.memset(split_count, 0, size_t(cfg.n_head_kv) * 4);  // the one-launch attention leaves it at 0
    }
    for (int64_t i = 0; i < cfg.n_layer; ++i) {
      const std::string l = "decoder.layer" + std::to_string(i);
      const bool recurrent = cfg.hybrid() && cfg.recurrent[size_t(i)];
      // a Gated DeltaNet layer keeps its recurrent state instead of a KV cache
      kt.push_back(recurrent ? 0 : ws.buffer(l + ".kt", size_t(cfg.kv_dim() * cache_len) * size_t(kv_f16 ? 2 : 4)));
      vc.push_back(recurrent ? 0 : ws.buffer(l + ".vc", size_t(cfg.kv_dim() * cache_len) * size_t(kv_f16 ? 2 : 4)));
      const size_t conv_bytes = size_t(cfg.ssm_conv_dim() * (cfg.ssm_conv - 1)) * 4;
      conv_state.push_back({recurrent ? ws.buffer(l + ".conv", conv_bytes) : 0,
                            recurrent && decode_step ? ws.buffer(l + ".conv1", conv_bytes) : 0});
      delta_state.push_back(
          recurrent ? ws.buffer(l + ".delta", size_t(cfg.ssm_v_heads * cfg.ssm_state * cfg.ssm_state) * 4) : 0);
    }
    if (cfg.hybrid()) {
      gab = buf("gab", cfg.ssm_v_heads);
      gbeta = buf("gbeta", cfg.ssm_v_heads);
      gdecay = buf("gdecay", cfg.ssm_v_heads);
      conv_out = buf("conv_out", cfg.ssm_conv_dim());
      gdn_out = buf("gdn_out", cfg.ssm_v_dim());
      gn = buf("gn", cfg.ssm_v_dim());
      const float unit = 1.0f;
      one = ws.upload("decoder.one", &unit, 4);
    }
    inv_sqrt_hd = float(1.0 / std::sqrt(double(cfg.head_dim)));
  }

  // cos/sin[pos][i] of pair i: theta = pos * scale * base^(-2i / n_rot) / factor_i, in double; pairs
  // multi-section RoPE holds still (ModelConfig::rope_pair_moves) turn by 0.
  void rope_tables() {
    const int64_t half = cfg.n_rot / 2;
    std::vector<float> c(size_t(ctx * std::max<int64_t>(half, 1))), s(c.size());
    for (int64_t i = 0; i < half; ++i) {
      double inv = cfg.rope_freq_scale * std::pow(cfg.rope_freq_base, -2.0 * double(i) / double(cfg.n_rot));
      if (!w->rope_freq_factors.empty()) inv /= double(w->rope_freq_factors[size_t(i)]);
      for (int64_t p = 0; p < ctx; ++p) {
        const double theta = cfg.rope_pair_moves(i) ? double(p) * inv : 0.0;
        c[size_t(p * half + i)] = float(std::cos(theta));
        s[size_t(p * half + i)] = float(std::sin(theta));
      }
    }
    cos = ws.upload("decoder.cos", c.data(), c.size() * 4);
    sin = ws.upload("decoder.sin", s.data(), s.size() * 4);
  }

  // The fused layer (GemvLinear's fused forms): the launch that adds to the
  // residual h also writes hn = h * (the next norm's weight) and hss, the
  // sums of h^2 over each 64 rows, and the next GEMV takes 1 / rms(h) from
  // them itself, so neither the add nor the norm is a launch.
  // hn_ready says (while a pass is enqueued) that hn holds the next norm's input.
  bool hn_ready = false;

  static GemvLinear* fused_of(const Projection& p) {
    if (p.parts.size() != 1) return nullptr;
    auto* g = dynamic_cast<GemvLinear*>(p.parts[0].linear.get());
    return g && g->fused() ? g : nullptr;
  }
  // The dense FFN as one swiglu launch (gate and up rows of one fast GEMV).
  // (With gate/up biases the bias goes in between: gate|up, then the add, then SwiGLU.)
  GemvLinear* swiglu_of(const LayerWeights& lw) const {
    GemvLinear* g = cfg.moe() || gated.valid() || lw.gate_up_bias ? nullptr : fused_of(lw.gate_up);
    return g && g->swiglu_rows() ? g : nullptr;
  }
  // Whether the FFN's first launch takes hn (h times the FFN norm's weight)
  // from the launch that adds the attention output.
  bool ffn_takes_hn(const LayerWeights& lw) const {
    return swiglu_of(lw) || (!cfg.moe() && !gated.valid() && lw.gate_up_bias && fused_of(lw.gate_up));
  }
  // The norm weight whose product with h the next consumer after layer i's FFN takes, or 0.
  uint64_t norm_after_layer(size_t i) const {
    if (i + 1 < w->layers.size()) return fused_of(w->layers[i + 1].qkv) ? w->layers[i + 1].attn_norm : 0;
    return fused_of(w->output) ? w->output_norm : 0;
  }
  // y = W rmsnorm(h) * norm_weight.
  void normed(const Projection& proj, uint64_t norm_weight, uint64_t y) {
    GemvLinear* g = fused_of(proj);
    if (g && hn_ready) {
      g->rms_scaled(hn, hss, cfg.rms_eps, y);
      return;
    }
    rmsnorm(xn, h, norm_weight);
    proj.forward(xn, y);
  }
  // h += W x (+ bias); hn = h * next_norm when next_norm != 0 and the layer can.
  // The bias goes into h first, so the GEMV that adds W x sees the final sum.
  void residual(const Projection& proj, uint64_t x, uint64_t next_norm, uint64_t bias = 0) {
    GemvLinear* g = fused_of(proj);
    hn_ready = false;
    if (bias) add_into(h, bias, cfg.n_embd);
    if (!g) {
      proj.forward(x, h, true);
      return;
    }
    g->accumulate_scaled(x, h, next_norm, next_norm ? hn : 0, next_norm ? hss : 0);
    hn_ready = next_norm != 0;
  }

  // y[0..n) += x[0..n)
  void add_into(uint64_t y, uint64_t x, int64_t n) {
    const kernels::Launch l = add_contract.evaluate({{"n", n}});
    dev.launch(add, l.grid[0], l.workgroup, add_contract.argv(l, {{"y", y}, {"x", x}, {"n", uint64_t(n)}}));
  }

  void rmsnorm(uint64_t y, uint64_t x, uint64_t weight) {
    dev.launch(norm, norm_launch.grid[0], norm_launch.workgroup,
               norm_contract.argv(norm_launch, {{"y", y}, {"x", x}, {"w", weight}, {"eps", f32_bits(cfg.rms_eps)}}));
  }

  void embed_token(int32_t token, int64_t p) {
    const uint64_t E = uint64_t(cfg.n_embd);
    switch (w->embd_type) {
      case TensorType::F32:
      case TensorType::F16:
      case TensorType::BF16: {
        const uint32_t id = uint32_t(token);
        const uint64_t slot = ids + uint64_t(p) * 4;  // one slot per position: queued passes keep theirs
        dev.upload(slot, &id, 4);
        embed.launch(dev, {{"rows", 1}}, {{"y", h}, {"ids", slot}, {"table", w->token_embd}, {"rows", 1}, {"dim", E}});
        break;
      }
      default: {
        // the block decoder at the token's row
        const QuantSpec* s = quant_spec(w->embd_type);
        const uint64_t row = w->token_embd + uint64_t(token) * w->embd_row_bytes, nblocks = E / s->elems;
        // the block decoder's arguments: w, y, its tables in order, nblocks [, group_size]
        std::map<std::string, uint64_t> given = {{"w", row}, {"y", h}, {"nblocks", nblocks}};
        if (s->dequant_takes_group_size) given["group_size"] = 64;
        size_t table = 0;
        for (const std::string& a : embed.contract.args())
          if (!given.count(a) && table < embed_tables.size()) given[a] = embed_tables[table++];
        embed.launch(dev, {{"nblocks", int64_t(nblocks)}}, given);
      }
    }
  }

  // With the one-launch attention, also the step's RoPE/append from qkv (no qkv_rope_append_k launch).
  void attention(size_t layer, int64_t p) {
    if (attend.valid()) {
      const LayerWeights& lw = w->layers[layer];
      // whole 64-row tiles per split: no other split shares a cache line with the row this step appends
      const int64_t n_kv = p + 1, ns = grouped_attention_splits(n_kv, cfg.n_head_kv, kv_f16),
                    R = ((n_kv + ns - 1) / ns + 63) / 64 * 64;
      attend.launch(dev, {{"n_kv_heads", cfg.n_head_kv}, {"splits", ns}},
                    {{"out", attn}, {"po", po}, {"pm", pm}, {"pl", pl}, {"count", split_count}, {"kt", kt[layer]},
                     {"v", vc[layer]}, {"qkv", qkv}, {"bias", lw.qkv_bias}, {"q_norm", lw.q_norm},
                     {"k_norm", lw.k_norm}, {"cos", cos}, {"sin", sin}, {"pos", uint64_t(p)},
                     {"dh", uint64_t(cfg.head_dim)}, {"rows_per_split", uint64_t(R)}, {"max_len", uint64_t(cache_len)},
                     {"inv", f32_bits(inv_sqrt_hd)}, {"group", uint64_t(cfg.n_head / cfg.n_head_kv)},
                     {"n_kv_heads", uint64_t(cfg.n_head_kv)}, {"n_rot", uint64_t(cfg.n_rot)},
                     {"mode", cfg.rope_type == RopeType::Neox ? 1u : 0u}, {"eps", f32_bits(cfg.rms_eps)},
                     {"gate", attention_gate()}},
                    {{"waves", 1}});
      return;
    }
    if (grouped.valid()) {
      const int64_t n_kv = p + 1, ns = grouped_attention_splits(n_kv, cfg.n_head_kv, kv_f16),
                    R = ((n_kv + ns - 1) / ns + 63) / 64 * 64;
      grouped.launch(dev, {{"n_kv_heads", cfg.n_head_kv}, {"splits", ns}},
                     {{"out", attn}, {"po", po}, {"pm", pm}, {"pl", pl}, {"count", split_count}, {"q", q},
                      {"kt", kt[layer]}, {"v", vc[layer]}, {"n_kv", uint64_t(n_kv)}, {"dh", uint64_t(cfg.head_dim)},
                      {"rows_per_split", uint64_t(R)}, {"max_len", uint64_t(cache_len)},
                      {"inv", f32_bits(inv_sqrt_hd)}, {"group", uint64_t(cfg.n_head / cfg.n_head_kv)},
                      {"gate", attention_gate()}},
                     {{"waves", 1}});
      return;
    }
    const int64_t n_kv = p + 1, ns = attention_splits(n_kv), R = (n_kv + ns - 1) / ns;
    part.launch(dev, {{"n_head", cfg.n_head}, {"splits", ns}},
                {{"po", po}, {"pm", pm}, {"pl", pl}, {"q", q}, {"kt", kt[layer]}, {"v", vc[layer]},
                 {"n_kv", uint64_t(n_kv)}, {"dh", uint64_t(cfg.head_dim)}, {"rows_per_split", uint64_t(R)},
                 {"max_len", uint64_t(ctx)}, {"inv", f32_bits(inv_sqrt_hd)}, {"vstride", uint64_t(cfg.kv_dim())},
                 {"group", uint64_t(cfg.n_head / cfg.n_head_kv)}});
    comb.launch(dev, {{"n_heads", cfg.n_head}, {"splits", ns}},
                {{"out", attn}, {"po", po}, {"pm", pm}, {"pl", pl}, {"dh", uint64_t(cfg.head_dim)},
                 {"inv", f32_bits(inv_sqrt_hd)}});
  }

  void ffn(const LayerWeights& lw, size_t i) {
    const int64_t F = cfg.n_ff;
    if (GemvLinear* g = swiglu_of(lw); g && hn_ready) {
      g->swiglu(hn, hss, cfg.rms_eps, act);
    } else {
      normed(lw.gate_up, lw.ffn_norm, gu);
      if (lw.gate_up_bias) add_into(gu, lw.gate_up_bias, 2 * F);
      if (gated.valid()) {
        if (lw.down_bias) add_into(h, lw.down_bias, cfg.n_embd);
        gated.launch(dev, {{"nrows", cfg.n_embd}},
                     {{"w", lw.down.parts[0].linear->weights()}, {"gate", gu}, {"up", gu + uint64_t(F) * 4}, {"y", h},
                      {"nrows", uint64_t(cfg.n_embd)}, {"k", uint64_t(F)}, {"group_size", 64}});
        hn_ready = false;
        return;
      }
      silu.launch(dev, {{"n", F}}, {{"y", act}, {"gate", gu}, {"up", gu + uint64_t(F) * 4}, {"n", uint64_t(F)}});
    }
    residual(lw.down, act, norm_after_layer(i), lw.down_bias);
  }

  void moe(const LayerWeights& lw) {
    const int64_t k = cfg.n_expert_used, F = cfg.n_ff_exp, E = cfg.n_embd;
    lw.router->forward_device(xn, 1, router);
    route.launch(dev, {{"rows", 1}},
                 {{"logits", router}, {"ids", sel}, {"weights", selw}, {"rows", 1},
                  {"n_expert", uint64_t(cfg.n_expert)}, {"k", uint64_t(k)}, {"norm", cfg.expert_weights_norm ? 1u : 0u}});
    lw.gate_exps->forward_selected(xn, sel, k, false, eg);
    lw.up_exps->forward_selected(xn, sel, k, false, eu);
    silu.launch(dev, {{"n", k * F}}, {{"y", ea}, {"gate", eg}, {"up", eu}, {"n", uint64_t(k * F)}});
    lw.down_exps->forward_selected(ea, sel, k, true, eo);
    const bool shared = !lw.shexp_down.parts.empty();
    if (shared) {
      // the shared expert as one more expert of the combine, weighted sigmoid(w . x)
      const uint64_t logit = router + uint64_t(cfg.n_expert) * 4, weight = selw + uint64_t(k) * 4;
      const int64_t FS = cfg.n_ff_shexp;
      lw.shexp_inp.forward(xn, logit);
      sigmoid_mul.launch(dev, {{"n", 1}}, {{"y", weight}, {"x", one}, {"g", logit}, {"n", 1}});
      lw.shexp_gate_up.forward(xn, gu);
      silu.launch(dev, {{"n", FS}}, {{"y", act}, {"gate", gu}, {"up", gu + uint64_t(FS) * 4}, {"n", uint64_t(FS)}});
      lw.shexp_down.forward(act, eo + uint64_t(k * E) * 4);
    }
    combine.launch(dev, {{"rows", 1}, {"dim", E}},
                   {{"y", moe_out}, {"exp_out", eo}, {"weights", selw}, {"n_exp", uint64_t(k + (shared ? 1 : 0))}});
    add_into(h, moe_out, E);
    hn_ready = false;
  }

  // One Gated DeltaNet step of layer i from qkv (its in-projection
  // [q | k | v | z (| b | a)]) and, for the chain, xn (the normed input)
  // into gn (the gated norm's output).
  void delta_net(size_t i, int64_t p) {
    const LayerWeights& lw = w->layers[i];
    const int64_t C = cfg.ssm_conv_dim(), K = cfg.ssm_conv, NK = cfg.ssm_k_heads, NV = cfg.ssm_v_heads,
                  DS = cfg.ssm_state;
    if (p == 0) {  // a new sequence: the rows before it and the state are zeros
      fill.launch(dev, {{"n", C * (K - 1)}}, {{"y", conv_state[i][0]}, {"value", 0}, {"n", uint64_t(C * (K - 1))}});
      fill.launch(dev, {{"n", NV * DS * DS}}, {{"y", delta_state[i]}, {"value", 0}, {"n", uint64_t(NV * DS * DS)}});
    }
    if (gated_step) {
      // the in-projection's z rows follow q | k | v, its b rows follow z, its a rows follow b
      const uint64_t z = qkv + uint64_t(C) * 4, b = z + uint64_t(cfg.ssm_v_dim()) * 4, a = b + uint64_t(NV) * 4;
      gdn_decode.launch(dev, {{"Hk", NK}, {"Hv", NV}, {"K", K}, {"rep", NV / NK}, {"khmod", cfg.ssm_tiled_heads ? 1 : 0}},
                        {{"y", gn}, {"state", delta_state[i]}, {"conv_out", conv_state[i][size_t((p + 1) % 2)]},
                         {"qkv", qkv}, {"conv_in", conv_state[i][size_t(p % 2)]}, {"conv_w", lw.conv_w}, {"a", a},
                         {"b", b}, {"dt_bias", lw.ssm_dt}, {"ssm_a", lw.ssm_a}, {"norm_w", lw.ssm_norm}, {"z", z},
                         {"eps", f32_bits(cfg.rms_eps)}});
      return;
    }
    if (decode_step) {
      // the in-projection's b rows follow z, its a rows follow b
      const uint64_t b = qkv + uint64_t(C + cfg.ssm_v_dim()) * 4, a = b + uint64_t(NV) * 4;
      gdn_decode.launch(dev, {{"Hk", NK}, {"Hv", NV}, {"K", K}, {"rep", NV / NK}, {"khmod", cfg.ssm_tiled_heads ? 1 : 0}},
                        {{"out", gdn_out}, {"state", delta_state[i]}, {"conv_out", conv_state[i][size_t((p + 1) % 2)]},
                         {"qkv", qkv}, {"conv_in", conv_state[i][size_t(p % 2)]}, {"conv_w", lw.conv_w}, {"a", a},
                         {"b", b}, {"dt_bias", lw.ssm_dt}, {"ssm_a", lw.ssm_a}, {"eps", f32_bits(cfg.rms_eps)}});
    } else {
      chain_step(i);
    }
    gated_norm.launch(dev, {{"rows", NV}, {"dim", DS}},
                      {{"y", gn}, {"x", gdn_out}, {"w", lw.ssm_norm}, {"gate", qkv + uint64_t(C) * 4},
                       {"eps", f32_bits(cfg.rms_eps)}});
  }

  // The DeltaNet step up to the gated norm as the catalog's kernels.
  void chain_step(size_t i) {
    const LayerWeights& lw = w->layers[i];
    const int64_t C = cfg.ssm_conv_dim(), K = cfg.ssm_conv, NK = cfg.ssm_k_heads, NV = cfg.ssm_v_heads,
                  DS = cfg.ssm_state;
    const uint64_t kd = uint64_t(NK * DS) * 4;
    const uint64_t state = conv_state[i][0];
    ab_gate.launch(dev, {{"Hv", NV}, {"T", 1}, {"K", cfg.n_embd}},
                   {{"gab", gab}, {"beta", gbeta}, {"gg", gdecay}, {"wa", lw.ssm_alpha}, {"wb", lw.ssm_beta}, {"x", xn},
                    {"dt", lw.ssm_dt}, {"alog", lw.ssm_alog}});
    conv.launch(dev, {{"T", 1}, {"C", C}, {"K", K}},
                {{"out", conv_out}, {"in", qkv}, {"w", lw.conv_w}, {"state", state}});
    // the state rolls in place (the kernel allows state == prev)
    conv_update.launch(dev, {{"T", 1}, {"C", C}, {"K", K}},
                       {{"state", state}, {"snap", 0}, {"in", qkv}, {"prev", state}});
    // q and k rows of d_state, back to back
    l2norm.launch(dev, {{"rows", 2 * NK}}, {{"x", conv_out}, {"S", uint64_t(DS)}, {"eps", f32_bits(cfg.rms_eps)}});
    gdn.launch(dev,
               {{"T", 1}, {"Hk", NK}, {"Hv", NV}, {"D", DS}, {"rep", NV / NK}, {"khmod", cfg.ssm_tiled_heads ? 1 : 0}},
               {{"out", gdn_out}, {"q", conv_out}, {"k", conv_out + kd}, {"v", conv_out + 2 * kd}, {"g", gdecay},
                {"beta", gbeta}, {"state", delta_state[i]}});
  }

  void layer(size_t i, int64_t p) {
    const LayerWeights& lw = w->layers[i];
    if (lw.recurrent) {
      if (decode_step) {
        normed(lw.qkv, lw.attn_norm, qkv);
      } else {
        rmsnorm(xn, h, lw.attn_norm);  // the gate kernel reads the normed row itself
        lw.qkv.forward(xn, qkv);
      }
      delta_net(i, p);
      residual(lw.out, gn, ffn_takes_hn(lw) ? lw.ffn_norm : 0);
      feed_forward(lw, i);
      return;
    }
    normed(lw.qkv, lw.attn_norm, qkv);
    if (!attend.valid())
      rope.launch(dev, {{"n_head", cfg.n_head}, {"n_kv", cfg.n_head_kv}},
                  {{"q_out", q}, {"kt", kt[i]}, {"vc", vc[i]}, {"qkv", qkv}, {"bias", lw.qkv_bias},
                   {"q_norm", lw.q_norm}, {"k_norm", lw.k_norm}, {"cos", cos}, {"sin", sin},
                   {"n_head", uint64_t(cfg.n_head)}, {"n_kv", uint64_t(cfg.n_head_kv)}, {"dh", uint64_t(cfg.head_dim)},
                   {"n_rot", uint64_t(cfg.n_rot)}, {"max_len", uint64_t(cache_len)}, {"pos", uint64_t(p)},
                   {"mode", (cfg.rope_type == RopeType::Neox ? 1u : 0u) | (grouped.valid() ? 2u : 0u) | (kv_f16 ? 4u : 0u)},
                   {"eps", f32_bits(cfg.rms_eps)}});
    attention(i, p);
    if (cfg.hybrid() && !blocked_caches()) {  // gated attention: the output times sigmoid(gate), the gate rows after v
      const uint64_t Q = uint64_t(cfg.q_dim());
      sigmoid_mul.launch(dev, {{"n", cfg.q_dim()}},
                         {{"y", attn}, {"x", attn}, {"g", qkv + (Q + 2 * uint64_t(cfg.kv_dim())) * 4}, {"n", Q}});
    }
    residual(lw.out, attn, ffn_takes_hn(lw) ? lw.ffn_norm : 0, lw.out_bias);
    feed_forward(lw, i);
  }

  void feed_forward(const LayerWeights& lw, size_t i) {
    if (cfg.moe()) {
      rmsnorm(xn, h, lw.ffn_norm);
      moe(lw);
    } else {
      ffn(lw, i);
    }
  }
};

DecoderModel::DecoderModel(Device& dev, const quant::GgufFile& file, LoadOptions options)
    : s_(std::make_unique<State>(dev, ModelConfig::from_gguf(file), GgufTensorSource(file), options)) {}
DecoderModel::DecoderModel(Device& dev, const ModelConfig& config, const TensorSource& source, LoadOptions options)
    : s_(std::make_unique<State>(dev, config, source, options)) {}
DecoderModel::~DecoderModel() = default;

const ModelConfig& DecoderModel::config() const { return s_->cfg; }
int64_t DecoderModel::context() const { return s_->ctx; }
Device& DecoderModel::device() const { return s_->dev; }
int64_t DecoderModel::position() const { return s_->pos; }
uint64_t DecoderModel::weight_bytes() const { return s_->w->bytes; }
W4Activations DecoderModel::w4_activations() const { return s_->w->w4_act; }
int DecoderModel::kv_element_bytes() const { return s_->kv_f16 ? 2 : 4; }
std::vector<std::pair<std::string, TensorType>> DecoderModel::tensor_types() const { return s_->w->types; }
const std::vector<std::string>& DecoderModel::skipped_tensors() const { return s_->w->skipped; }
void DecoderModel::reset() { s_->pos = 0; }
bool DecoderModel::rewinds() const { return !s_->cfg.hybrid(); }
void DecoderModel::set_position(int64_t pos) {
  if (pos < 0 || pos >= s_->ctx)
    throw Error("position " + std::to_string(pos) + " is outside the context of " + std::to_string(s_->ctx));
  if (pos < s_->pos && !rewinds())
    throw Error("position " + std::to_string(pos) + " is before the " + std::to_string(s_->pos) +
                " tokens run: a " + s_->cfg.arch_name + " model's recurrent state cannot go back (reset and run the "
                "prefix again)");
  s_->pos = pos;
}

uint64_t DecoderModel::forward(int32_t token, int64_t pos) {
  State& s = *s_;
  if (token < 0 || token >= s.cfg.n_vocab)
    throw Error("token " + std::to_string(token) + " is outside the vocabulary (0.." + std::to_string(s.cfg.n_vocab - 1) +
                ")");
  if (pos < 0 || pos >= s.ctx)
    throw Error("position " + std::to_string(pos) + " is past the context of " + std::to_string(s.ctx) + " tokens");
  if (pos != s.pos && pos != 0)
    throw Error("position " + std::to_string(pos) + " does not follow the sequence (next is " + std::to_string(s.pos) +
                ")");
  s.hn_ready = false;
  s.embed_token(token, pos);
  for (size_t i = 0; i < s.w->layers.size(); ++i) s.layer(i, pos);
  s.normed(s.w->output, s.w->output_norm, s.logits);
  if (s.w->output_bias) s.add_into(s.logits, s.w->output_bias, s.cfg.n_vocab);
  s.pos = pos + 1;
  return s.logits;
}

std::vector<float> DecoderModel::logits() { return s_->dev.download<float>(s_->logits, size_t(s_->cfg.n_vocab)); }

}  // namespace k100::model
