#include "model_weights.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "k100/base/error.h"
#include "k100/model/w4_linear.h"
#include "k100/quant/gemv_layout.h"

namespace k100::model {

using quant::TensorInfo;
using quant::TensorType;

void Projection::forward(uint64_t x, uint64_t y, bool accumulate) const {
  for (const Part& p : parts) p.linear->forward_device(x, 1, y + uint64_t(p.row_offset) * 4, accumulate);
}

ModelWeights::~ModelWeights() {
  layers.clear();
  output.parts.clear();
  if (!dev) return;
  for (uint64_t b : buffers) {
    try {
      dev->free(b);
    } catch (...) {
    }
  }
}

namespace {

// The tensors a model of the architecture reads, found by name and checked
// against their shapes; every name it finds is counted as used.
class TensorFinder {
 public:
  explicit TensorFinder(const TensorSource& src) : src_(src) {}

  // The tensor with exactly these dims (GGUF order); k100::Error naming it otherwise.
  const TensorInfo& require(const std::string& name, const std::vector<uint64_t>& dims, const std::string& what) {
    const TensorInfo* t = src_.tensor(name, dims, true);
    if (!t)
      throw Error(src_.origin() + ": tensor '" + name + "' (" + what + ", " + quant::format_dims(dims) + ") is missing");
    return use(*t, dims, what);
  }
  const TensorInfo* optional(const std::string& name, const std::vector<uint64_t>& dims, const std::string& what) {
    const TensorInfo* t = src_.tensor(name, dims, false);
    return t ? &use(*t, dims, what) : nullptr;
  }

  // The source's tensors none of the above found, in file order.
  std::vector<std::string> unused() const {
    std::vector<std::string> out;
    for (const auto& n : src_.names())
      if (!used_.count(n)) out.push_back(n);
    return out;
  }

 private:
  const TensorInfo& use(const TensorInfo& t, const std::vector<uint64_t>& dims, const std::string& what) {
    if (t.dims != dims)
      throw Error(src_.origin() + ": tensor '" + t.name + "' has shape " + quant::format_dims(t.dims) + ", expected " +
                  quant::format_dims(dims) + " (" + what + ")");
    used_.insert(t.name);
    return t;
  }

  const TensorSource& src_;
  std::set<std::string> used_;
};

// What one layer reads (nullptr: absent).
struct LayerTensors {
  const TensorInfo *attn_norm = nullptr, *qkv = nullptr, *q = nullptr, *k = nullptr, *v = nullptr, *qkv_b = nullptr,
                   *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *q_norm = nullptr, *k_norm = nullptr, *out = nullptr,
                   *out_b = nullptr, *ffn_norm = nullptr, *gate = nullptr, *up = nullptr, *down = nullptr,
                   *gate_b = nullptr, *up_b = nullptr, *down_b = nullptr, *router = nullptr, *gate_exps = nullptr,
                   *up_exps = nullptr, *down_exps = nullptr;
  // hybrids: attn_q holds per head [query | gate] (q above); the Gated DeltaNet tensors; the shared expert
  const TensorInfo *gdn_qkv = nullptr, *gdn_gate = nullptr, *ssm_in = nullptr, *conv = nullptr, *dt = nullptr,
                   *ssm_a = nullptr, *beta = nullptr, *alpha = nullptr, *ba = nullptr, *ssm_norm = nullptr,
                   *shexp_inp = nullptr, *gate_shexp = nullptr, *up_shexp = nullptr, *down_shexp = nullptr;
};

struct ModelTensors {
  const TensorInfo *embd = nullptr, *rope_freqs = nullptr, *output_norm = nullptr, *output = nullptr,
                   *output_b = nullptr;
  std::vector<LayerTensors> layers;
};

std::string blk(int64_t i, const char* name) { return "blk." + std::to_string(i) + "." + name; }

// The architecture's table: every tensor llama.cpp's loader creates for it
// (required, or optional and then applied), by name and shape.
ModelTensors find_tensors(TensorFinder& F, const ModelConfig& c) {
  const uint64_t E = uint64_t(c.n_embd), V = uint64_t(c.n_vocab), Q = uint64_t(c.q_dim()), KV = uint64_t(c.kv_dim()),
                 HD = uint64_t(c.head_dim);
  const bool llama = c.arch == Architecture::Llama, qwen2 = c.arch == Architecture::Qwen2,
             qk_norm = c.arch == Architecture::Qwen3 || c.arch == Architecture::Qwen3Moe;
  ModelTensors m;
  m.embd = &F.require("token_embd.weight", {E, V}, "token embedding, n_embd x n_vocab");
  if (llama) m.rope_freqs = F.optional("rope_freqs.weight", {uint64_t(c.n_rot / 2)}, "RoPE frequency factors");
  for (int64_t i = 0; i < c.n_layer; ++i) {
    LayerTensors L;
    L.attn_norm = &F.require(blk(i, "attn_norm.weight"), {E}, "attention norm, n_embd");
    // Q|K|V: one fused tensor (and its bias), or three (and theirs)
    L.qkv = F.optional(blk(i, "attn_qkv.weight"), {E, Q + 2 * KV}, "fused QKV, n_embd x (q + 2 kv)");
    if (L.qkv) {
      L.qkv_b = F.optional(blk(i, "attn_qkv.bias"), {Q + 2 * KV}, "QKV bias");
    } else {
      L.q = &F.require(blk(i, "attn_q.weight"), {E, Q}, "query, n_embd x n_head * head_dim");
      L.k = &F.require(blk(i, "attn_k.weight"), {E, KV}, "key, n_embd x n_head_kv * head_dim");
      L.v = &F.require(blk(i, "attn_v.weight"), {E, KV}, "value, n_embd x n_head_kv * head_dim");
      L.q_b = F.optional(blk(i, "attn_q.bias"), {Q}, "query bias");
      L.k_b = F.optional(blk(i, "attn_k.bias"), {KV}, "key bias");
      L.v_b = F.optional(blk(i, "attn_v.bias"), {KV}, "value bias");
    }
    if (qk_norm) {
      L.q_norm = &F.require(blk(i, "attn_q_norm.weight"), {HD}, "query norm, head_dim");
      L.k_norm = &F.require(blk(i, "attn_k_norm.weight"), {HD}, "key norm, head_dim");
    }
    L.out = &F.require(blk(i, "attn_output.weight"), {Q, E}, "attention output, q x n_embd");
    if (llama) L.out_b = F.optional(blk(i, "attn_output.bias"), {E}, "attention output bias, n_embd");
    L.ffn_norm = &F.require(blk(i, "ffn_norm.weight"), {E}, "FFN norm, n_embd");
    if (c.moe()) {
      const uint64_t X = uint64_t(c.n_expert), FF = uint64_t(c.n_ff_exp);
      L.router = &F.require(blk(i, "ffn_gate_inp.weight"), {E, X}, "router, n_embd x n_expert");
      L.gate_exps = &F.require(blk(i, "ffn_gate_exps.weight"), {E, FF, X}, "expert gates, n_embd x ffn x n_expert");
      L.up_exps = &F.require(blk(i, "ffn_up_exps.weight"), {E, FF, X}, "expert ups, n_embd x ffn x n_expert");
      L.down_exps = &F.require(blk(i, "ffn_down_exps.weight"), {FF, E, X}, "expert downs, ffn x n_embd x n_expert");
    } else {
      const uint64_t FF = uint64_t(c.n_ff);
      L.gate = &F.require(blk(i, "ffn_gate.weight"), {E, FF}, "FFN gate, n_embd x ffn");
      L.up = &F.require(blk(i, "ffn_up.weight"), {E, FF}, "FFN up, n_embd x ffn");
      L.down = &F.require(blk(i, "ffn_down.weight"), {FF, E}, "FFN down, ffn x n_embd");
      if (llama) {
        L.gate_b = F.optional(blk(i, "ffn_gate.bias"), {FF}, "FFN gate bias, ffn");
        L.up_b = F.optional(blk(i, "ffn_up.bias"), {FF}, "FFN up bias, ffn");
        L.down_b = F.optional(blk(i, "ffn_down.bias"), {E}, "FFN down bias, n_embd");
      }
    }
    m.layers.push_back(L);
  }
  m.output_norm = &F.require("output_norm.weight", {E}, "output norm, n_embd");
  m.output = F.optional("output.weight", {E, V}, "output head, n_embd x n_vocab");
  if (qwen2) m.output_b = F.optional("output.bias", {V}, "output bias, n_vocab");
  return m;
}

// The hybrids' table (qwen35, qwen35moe, qwen3next: llama.cpp's loader for them).
ModelTensors find_hybrid_tensors(TensorFinder& F, const ModelConfig& c) {
  const uint64_t E = uint64_t(c.n_embd), V = uint64_t(c.n_vocab), Q = uint64_t(c.q_dim()), KV = uint64_t(c.kv_dim()),
                 HD = uint64_t(c.head_dim), NV = uint64_t(c.ssm_v_heads), VD = uint64_t(c.ssm_v_dim()),
                 CONV = uint64_t(c.ssm_conv_dim());
  ModelTensors m;
  m.embd = &F.require("token_embd.weight", {E, V}, "token embedding, n_embd x n_vocab");
  for (int64_t i = 0; i < c.n_layer; ++i) {
    LayerTensors L;
    L.attn_norm = &F.require(blk(i, "attn_norm.weight"), {E}, "attention norm, n_embd");
    L.ffn_norm = &F.require(blk(i, "post_attention_norm.weight"), {E}, "post-attention norm, n_embd");
    if (c.recurrent[size_t(i)]) {
      // the in-projection: attn_qkv and attn_gate, or (qwen3next files of an older converter) ssm_in
      if (c.arch == Architecture::Qwen3Next)
        L.ssm_in = F.optional(blk(i, "ssm_in.weight"), {E, 2 * CONV - 2 * uint64_t(c.ssm_k_dim())},
                              "fused q, k, v, z per key head, n_embd x (2 k_dim + 2 v_dim)");
      if (!L.ssm_in) {
        L.gdn_qkv = &F.require(blk(i, "attn_qkv.weight"), {E, CONV}, "Gated DeltaNet q|k|v, n_embd x conv_dim");
        L.gdn_gate = &F.require(blk(i, "attn_gate.weight"), {E, VD}, "Gated DeltaNet output gate z, n_embd x v_dim");
      }
      L.conv = &F.require(blk(i, "ssm_conv1d.weight"), {uint64_t(c.ssm_conv), CONV}, "conv, d_conv x conv_dim");
      L.dt = &F.require(blk(i, "ssm_dt.bias"), {NV}, "dt bias, n_v_heads");
      L.ssm_a = &F.require(blk(i, "ssm_a"), {NV}, "-exp(A_log), n_v_heads");
      if (c.arch == Architecture::Qwen3Next) {
        L.ba = &F.require(blk(i, "ssm_ba.weight"), {E, 2 * NV}, "beta|alpha per key head, n_embd x 2 n_v_heads");
      } else {
        L.beta = &F.require(blk(i, "ssm_beta.weight"), {E, NV}, "beta, n_embd x n_v_heads");
        L.alpha = &F.require(blk(i, "ssm_alpha.weight"), {E, NV}, "alpha, n_embd x n_v_heads");
      }
      L.ssm_norm = &F.require(blk(i, "ssm_norm.weight"), {uint64_t(c.ssm_state)}, "gated norm, d_state");
      L.out = &F.require(blk(i, "ssm_out.weight"), {VD, E}, "Gated DeltaNet output, v_dim x n_embd");
    } else {
      L.q = &F.require(blk(i, "attn_q.weight"), {E, 2 * Q}, "query and gate per head, n_embd x 2 n_head * head_dim");
      L.k = &F.require(blk(i, "attn_k.weight"), {E, KV}, "key, n_embd x n_head_kv * head_dim");
      L.v = &F.require(blk(i, "attn_v.weight"), {E, KV}, "value, n_embd x n_head_kv * head_dim");
      L.q_norm = &F.require(blk(i, "attn_q_norm.weight"), {HD}, "query norm, head_dim");
      L.k_norm = &F.require(blk(i, "attn_k_norm.weight"), {HD}, "key norm, head_dim");
      L.out = &F.require(blk(i, "attn_output.weight"), {Q, E}, "attention output, q x n_embd");
    }
    if (c.moe()) {
      const uint64_t X = uint64_t(c.n_expert), FF = uint64_t(c.n_ff_exp), FS = uint64_t(c.n_ff_shexp);
      L.router = &F.require(blk(i, "ffn_gate_inp.weight"), {E, X}, "router, n_embd x n_expert");
      L.gate_exps = &F.require(blk(i, "ffn_gate_exps.weight"), {E, FF, X}, "expert gates, n_embd x ffn x n_expert");
      L.up_exps = &F.require(blk(i, "ffn_up_exps.weight"), {E, FF, X}, "expert ups, n_embd x ffn x n_expert");
      L.down_exps = &F.require(blk(i, "ffn_down_exps.weight"), {FF, E, X}, "expert downs, ffn x n_embd x n_expert");
      L.shexp_inp = &F.require(blk(i, "ffn_gate_inp_shexp.weight"), {E}, "shared expert gate, n_embd");
      L.gate_shexp = &F.require(blk(i, "ffn_gate_shexp.weight"), {E, FS}, "shared expert gate, n_embd x ffn");
      L.up_shexp = &F.require(blk(i, "ffn_up_shexp.weight"), {E, FS}, "shared expert up, n_embd x ffn");
      L.down_shexp = &F.require(blk(i, "ffn_down_shexp.weight"), {FS, E}, "shared expert down, ffn x n_embd");
    } else {
      const uint64_t FF = uint64_t(c.n_ff);
      L.gate = &F.require(blk(i, "ffn_gate.weight"), {E, FF}, "FFN gate, n_embd x ffn");
      L.up = &F.require(blk(i, "ffn_up.weight"), {E, FF}, "FFN up, n_embd x ffn");
      L.down = &F.require(blk(i, "ffn_down.weight"), {FF, E}, "FFN down, ffn x n_embd");
    }
    m.layers.push_back(L);
  }
  m.output_norm = &F.require("output_norm.weight", {E}, "output norm, n_embd");
  m.output = F.optional("output.weight", {E, V}, "output head, n_embd x n_vocab");
  return m;
}

// Why a tensor llama.cpp knows is not used here, for the message.
std::string unused_reason(const std::string& name) {
  auto ends = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".input_scale") || ends(".scale")) return " (a per-tensor scale, which k100lc does not apply)";
  return "";
}

// Stops the load at tensors the architecture does not use, unless allowed.
void account_for_unused(const TensorSource& src, const ModelConfig& c, const std::vector<std::string>& unused,
                        bool allow) {
  if (unused.empty() || allow) return;
  std::string list;
  const size_t shown = std::min<size_t>(unused.size(), 8);
  for (size_t i = 0; i < shown; ++i) list += (i ? ", '" : "'") + unused[i] + "'" + unused_reason(unused[i]);
  if (unused.size() > shown) list += " and " + std::to_string(unused.size() - shown) + " more";
  throw Error(src.origin() + ": " + std::to_string(unused.size()) +
              (unused.size() == 1 ? " tensor is" : " tensors are") + " not used by a " + c.arch_name +
              " model of these hyper-parameters: " + list +
              "; allowing unused tensors (k100-generate --allow-unused) skips them");
}

class Loader {
 public:
  Loader(Device& dev, Workspace& ws, const TensorSource& src,
         const std::function<void(uint64_t, uint64_t)>& progress, ModelWeights& mw, const WeightOptions& options)
      : dev_(dev), ws_(ws), src_(src), progress_(progress), mw_(mw), total_(src.total_bytes()),
        fast_gemv_(options.fast_gemv), w4_act_(options.w4_act) {}

  // Whether a dense weight of this type runs on the fast GEMVs (GemvLinear).
  bool gemv(TensorType type) const { return fast_gemv_ && quant::has_gemv_layout(type); }

  // The tensors' rows (rows x k in all, back to back) repacked for the fast
  // GEMVs into one device buffer; `count` false for a copy of bytes already
  // counted (the tied head).
  uint64_t upload_gemv(const std::vector<const TensorInfo*>& parts, int64_t rows, int64_t k, const std::string& tag,
                       bool count = true) {
    std::vector<uint8_t> joined;
    std::span<const uint8_t> bytes;
    for (const TensorInfo* t : parts) {
      if (count) note(*t);
      const auto b = src_.bytes(*t);
      if (parts.size() == 1) bytes = b;
      else if (!b.empty()) joined.insert(joined.end(), b.begin(), b.end());
    }
    if (parts.size() > 1) bytes = joined;
    const uint64_t p = upload_gemv_weights(dev_, parts.front()->type, rows, k, 1, bytes, src_.origin() + ": " + tag);
    mw_.buffers.push_back(p);
    if (count)
      for (const TensorInfo* t : parts) advance(t->size);
    return p;
  }

  // f32 values on the device (biases joined on the host).
  uint64_t upload_host(const std::vector<float>& values) {
    const uint64_t p = alloc(values.size() * 4);
    if (!values.empty()) dev_.upload(p, values.data(), values.size() * 4);
    return p;
  }
  // Biases of consecutive row ranges (n rows each) as one f32 vector, zeros
  // for the ranges without one; empty when none has one.
  std::vector<float> joined_bias(const std::vector<std::pair<const TensorInfo*, uint64_t>>& parts) {
    bool any = false;
    uint64_t n = 0;
    for (const auto& [t, rows] : parts) {
      any = any || t;
      n += rows;
    }
    if (!any) return {};
    std::vector<float> out(size_t(n), 0.f);
    uint64_t at = 0;
    for (const auto& [t, rows] : parts) {
      if (t) {
        const auto v = host_f32(*t);
        std::copy(v.begin(), v.end(), out.begin() + std::ptrdiff_t(at));
      }
      at += rows;
    }
    return out;
  }

  // f32 copy on the device of a small tensor of any type (norms, biases).
  uint64_t upload_f32(const TensorInfo& t) {
    std::vector<float> values = host_f32(t);
    const uint64_t p = alloc(t.elements * 4);
    if (!values.empty()) dev_.upload(p, values.data(), values.size() * 4);
    return p;
  }
  std::vector<float> host_f32(const TensorInfo& t) {
    note(t);
    advance(t.size);
    const auto bytes = src_.bytes(t);
    if (bytes.empty()) return {};
    return quant::TensorView{t.name, t.type, t.dims, bytes}.dequantize();
  }

  // The tensors' stored bytes back to back in one device buffer.
  uint64_t upload_raw(const std::vector<const TensorInfo*>& parts) {
    uint64_t bytes = 0;
    for (const TensorInfo* t : parts) bytes += t->size;
    const uint64_t p = alloc(bytes);
    uint64_t at = 0;
    for (const TensorInfo* t : parts) {
      note(*t);
      const auto bytes = src_.bytes(*t);
      constexpr uint64_t kChunk = uint64_t(16) << 20;  // progress at least every 16 MiB
      for (uint64_t o = 0; o < t->size; o += kChunk) {
        const uint64_t n = std::min(kChunk, t->size - o);
        if (!bytes.empty()) dev_.upload(p + at + o, bytes.data() + o, n);
        advance(n);
      }
      at += t->size;
    }
    return p;
  }

  // One projection [sum of rows][k] from tensors of `k`-element rows: the
  // runs of equal type share a buffer and a Linear; so do runs of 4-bit
  // matrices of one kind (NVFP4: of one global scale).
  Projection projection(const std::vector<const TensorInfo*>& parts, int64_t k, const std::string& tag) {
    Projection pr;
    pr.k = k;
    size_t i = 0;
    while (i < parts.size()) {
      size_t j = i;
      int64_t rows = 0;
      const std::string part_tag = tag + (i ? "." + std::to_string(i) : std::string());
      if (const W4Weight* first = src_.w4(*parts[i])) {
        std::vector<const W4Weight*> run;
        for (const W4Weight* w; j < parts.size() && (w = src_.w4(*parts[j])) && w->kind == first->kind &&
                                (w->kind != W4Kind::Nvfp4 || w->matrix.global == first->matrix.global);
             ++j) {
          note(*parts[j]);
          run.push_back(w);
        }
        auto linear = std::make_unique<W4Linear>(dev_, run, w4_act_, &ws_, part_tag);
        mw_.w4_act = linear->activations();
        for (size_t p = i; p < j; ++p) advance(parts[p]->size);
        const int64_t n = linear->n();
        pr.parts.push_back({std::move(linear), pr.n});
        pr.n += n;
        i = j;
        continue;
      }
      std::vector<const TensorInfo*> run;
      while (j < parts.size() && parts[j]->type == parts[i]->type && !src_.w4(*parts[j])) {
        rows += int64_t(parts[j]->elements / uint64_t(k));
        run.push_back(parts[j++]);
      }
      const bool fast = gemv(parts[i]->type);
      const uint64_t p = fast ? upload_gemv(run, rows, k, part_tag) : upload_raw(run);
      pr.parts.push_back(
          {make_linear(dev_, rows, k, DeviceWeights{parts[i]->type, p, 1, false, fast}, &ws_, part_tag), pr.n});
      pr.n += rows;
      i = j;
    }
    return pr;
  }

  // Rows [row0, row0 + rows) of a tensor of k-element rows.
  struct Rows {
    const TensorInfo* t;
    int64_t row0, rows;
  };
  // One projection of the rows taken from the tensors in the order given
  // (how fused or interleaved rows are parted at load): runs of one type
  // share a buffer and a Linear, as projection().
  Projection row_projection(const std::vector<Rows>& ranges, int64_t k, const std::string& tag) {
    Projection pr;
    pr.k = k;
    size_t i = 0;
    while (i < ranges.size()) {
      const TensorType type = ranges[i].t->type;
      const uint64_t rb = quant::row_bytes(type, uint64_t(k));
      const std::string part_tag = tag + (i ? "." + std::to_string(i) : std::string());
      std::vector<uint8_t> bytes;
      int64_t rows = 0;
      size_t j = i;
      for (; j < ranges.size() && ranges[j].t->type == type; ++j) {
        const Rows& r = ranges[j];
        if (const W4Weight* w = src_.w4(*r.t))
          throw Error(src_.origin() + ": '" + w->key + "': " + w4_kind_name(w->kind) + " weights are not supported in " +
                      "the layers of hybrid models");
        if (counted_.insert(r.t->name).second) {
          note(*r.t);
          advance(r.t->size);
        }
        const auto b = src_.bytes(*r.t);
        if (!b.empty())
          bytes.insert(bytes.end(), b.begin() + std::ptrdiff_t(uint64_t(r.row0) * rb),
                       b.begin() + std::ptrdiff_t(uint64_t(r.row0 + r.rows) * rb));
        rows += r.rows;
      }
      const bool fast = gemv(type);
      uint64_t p = 0;
      if (fast) {
        p = upload_gemv_weights(dev_, type, rows, k, 1, bytes, src_.origin() + ": " + part_tag);
        mw_.buffers.push_back(p);
      } else {
        p = alloc(uint64_t(rows) * rb);
        if (!bytes.empty()) dev_.upload(p, bytes.data(), bytes.size());
      }
      pr.parts.push_back({make_linear(dev_, rows, k, DeviceWeights{type, p, 1, false, fast}, &ws_, part_tag), pr.n});
      pr.n += rows;
      i = j;
    }
    return pr;
  }

  // n f32 values on the device (zeros when the source has no bytes: shapes only).
  uint64_t upload_floats(const std::vector<float>& values, uint64_t n) {
    const uint64_t p = alloc(n * 4);
    if (values.size() == n) dev_.upload(p, values.data(), n * 4);
    else dev_.memset(p, 0, n * 4);
    return p;
  }

  // Expert weights [groups][n][k] of one tensor: repacked for the fast
  // GEMVs (the experts as grid.y) on a device with 2-D launches, else in the
  // GGUF layout on the dot kernels.
  std::unique_ptr<Linear> experts(const TensorInfo& t, int64_t n, int64_t k, int64_t groups, const std::string& tag) {
    if (const W4Weight* w = src_.w4(t))
      throw Error(src_.origin() + ": '" + w->key + "': " + w4_kind_name(w->kind) +
                  " expert weights are not supported (4-bit weights run in dense layers only)");
    if (gemv(t.type) && dev_.launches_2d()) {
      note(t);
      const uint64_t p = upload_gemv_weights(dev_, t.type, n, k, groups, src_.bytes(t), src_.origin() + ": " + tag);
      mw_.buffers.push_back(p);
      advance(t.size);
      return make_linear(dev_, n, k, DeviceWeights{t.type, p, groups, false, true}, &ws_, tag);
    }
    const uint64_t p = upload_raw({&t});
    return make_linear(dev_, n, k, DeviceWeights{t.type, p, groups, false}, &ws_, tag);
  }

  void finish() {
    if (progress_) progress_(total_ ? total_ : done_, total_ ? total_ : done_);
  }

 private:
  void note(const TensorInfo& t) {
    mw_.types.emplace_back(t.name, t.type);
    mw_.bytes += t.size;
  }
  uint64_t alloc(uint64_t bytes) {
    const uint64_t p = dev_.alloc(bytes ? bytes : 1);
    mw_.buffers.push_back(p);
    return p;
  }
  void advance(uint64_t n) {
    done_ = total_ ? std::min(total_, done_ + n) : done_ + n;
    if (progress_) progress_(done_, total_);
  }

  Device& dev_;
  Workspace& ws_;
  const TensorSource& src_;
  const std::function<void(uint64_t, uint64_t)>& progress_;
  ModelWeights& mw_;
  uint64_t total_ = 0, done_ = 0;
  std::set<std::string> counted_;  // tensors row_projection() has noted
  bool fast_gemv_ = true;
  W4Activations w4_act_ = W4Activations::Default;
};

}  // namespace

namespace {

// A hybrid model's layer (the hybrid tensors of t) into lw.
void load_hybrid_layer(Loader& L, const TensorSource& file, const ModelConfig& c, const LayerTensors& t,
                       const std::string& tag, bool ab_rows, LayerWeights& lw) {
  const int64_t E = c.n_embd, HD = c.head_dim, DS = c.ssm_state, NK = c.ssm_k_heads, NV = c.ssm_v_heads,
                R = NV / NK;
  using Rows = Loader::Rows;
  lw.attn_norm = L.upload_f32(*t.attn_norm);
  lw.ffn_norm = L.upload_f32(*t.ffn_norm);
  if (t.conv) {
    lw.recurrent = true;
    std::vector<Rows> in;
    if (t.ssm_in) {
      // per key head g: q (DS rows), k (DS), its value heads' v (R DS), then their z (R DS)
      const int64_t per = 2 * DS + 2 * R * DS;
      for (int64_t part = 0; part < 4; ++part)
        for (int64_t g = 0; g < NK; ++g) {
          const int64_t off[4] = {0, DS, 2 * DS, 2 * DS + R * DS}, len[4] = {DS, DS, R * DS, R * DS};
          in.push_back({t.ssm_in, g * per + off[part], len[part]});
        }
    } else {
      in = {{t.gdn_qkv, 0, c.ssm_conv_dim()}, {t.gdn_gate, 0, c.ssm_v_dim()}};
    }
    if (ab_rows) {
      if (t.ba) {  // per key head: its value heads' b rows, then their a rows
        for (int64_t g = 0; g < NK; ++g) in.push_back({t.ba, g * 2 * R, R});
        for (int64_t g = 0; g < NK; ++g) in.push_back({t.ba, g * 2 * R + R, R});
      } else {
        in.push_back({t.beta, 0, NV});
        in.push_back({t.alpha, 0, NV});
      }
    }
    lw.qkv = L.row_projection(in, E, tag + ".ssm_in");
    lw.conv_w = L.upload_floats(L.host_f32(*t.conv), uint64_t(c.ssm_conv_dim() * c.ssm_conv));
    lw.ssm_dt = L.upload_floats(L.host_f32(*t.dt), uint64_t(NV));
    std::vector<float> a = L.host_f32(*t.ssm_a);
    if (file.total_bytes() == 0) a.clear();  // shapes only (k100-bench): no values to take the log of
    lw.ssm_a = L.upload_floats(a, uint64_t(NV));
    for (float& x : a) {
      if (!(x < 0))
        throw Error(file.origin() + ": tensor '" + t.ssm_a->name + "' holds " + std::to_string(x) +
                    "; it stores -exp(A_log), which is negative");
      x = std::log(-x);
    }
    lw.ssm_alog = L.upload_floats(a, uint64_t(NV));
    std::vector<float> beta, alpha;
    if (ab_rows) {
      // in the in-projection
    } else if (t.ba) {
      // per key head: its value heads' b rows, then their a rows
      const std::vector<float> ba = L.host_f32(*t.ba);
      for (int64_t g = 0; g < NK && !ba.empty(); ++g) {
        auto row = [&](int64_t r) { return ba.begin() + std::ptrdiff_t(r * E); };
        beta.insert(beta.end(), row(g * 2 * R), row(g * 2 * R + R));
        alpha.insert(alpha.end(), row(g * 2 * R + R), row(g * 2 * R + 2 * R));
      }
    } else {
      beta = L.host_f32(*t.beta);
      alpha = L.host_f32(*t.alpha);
    }
    if (!ab_rows) {
      lw.ssm_beta = L.upload_floats(beta, uint64_t(NV * E));
      lw.ssm_alpha = L.upload_floats(alpha, uint64_t(NV * E));
    }
    lw.ssm_norm = L.upload_f32(*t.ssm_norm);
    lw.out = L.projection({t.out}, c.ssm_v_dim(), tag + ".ssm_out");
  } else {
    // attn_q's rows per head [query | gate]: the queries first, then K and V, then the gates
    std::vector<Rows> rows;
    for (int64_t h = 0; h < c.n_head; ++h) rows.push_back({t.q, h * 2 * HD, HD});
    rows.push_back({t.k, 0, c.kv_dim()});
    rows.push_back({t.v, 0, c.kv_dim()});
    for (int64_t h = 0; h < c.n_head; ++h) rows.push_back({t.q, h * 2 * HD + HD, HD});
    lw.qkv = L.row_projection(rows, E, tag + ".qkv_gate");
    lw.q_norm = L.upload_f32(*t.q_norm);
    lw.k_norm = L.upload_f32(*t.k_norm);
    lw.out = L.projection({t.out}, c.q_dim(), tag + ".attn_output");
  }
  if (c.moe()) {
    lw.router = std::move(L.projection({t.router}, E, tag + ".router").parts.front().linear);
    lw.gate_exps = L.experts(*t.gate_exps, c.n_ff_exp, E, c.n_expert, tag + ".gate_exps");
    lw.up_exps = L.experts(*t.up_exps, c.n_ff_exp, E, c.n_expert, tag + ".up_exps");
    lw.down_exps = L.experts(*t.down_exps, E, c.n_ff_exp, c.n_expert, tag + ".down_exps");
    lw.shexp_inp = L.projection({t.shexp_inp}, E, tag + ".shexp_inp");
    lw.shexp_gate_up = L.projection({t.gate_shexp, t.up_shexp}, E, tag + ".shexp_gate_up");
    lw.shexp_down = L.projection({t.down_shexp}, c.n_ff_shexp, tag + ".shexp_down");
  } else {
    lw.gate_up = L.projection({t.gate, t.up}, E, tag + ".gate_up");
    lw.down = L.projection({t.down}, c.n_ff, tag + ".ffn_down");
  }
}

}  // namespace

std::unique_ptr<ModelWeights> load_weights(Device& dev, Workspace& ws, const TensorSource& file,
                                           const ModelConfig& c, const std::function<void(uint64_t, uint64_t)>& progress,
                                           const WeightOptions& options) {
  TensorFinder finder(file);
  const ModelTensors T = c.hybrid() ? find_hybrid_tensors(finder, c) : find_tensors(finder, c);
  const std::vector<std::string> unused = finder.unused();
  account_for_unused(file, c, unused, options.allow_unused);

  auto mw = std::make_unique<ModelWeights>();
  mw->dev = &dev;
  mw->skipped = unused;
  Loader L(dev, ws, file, progress, *mw, options);
  const uint64_t Q = uint64_t(c.q_dim()), KV = uint64_t(c.kv_dim());

  const TensorInfo& embd = *T.embd;
  mw->embd_type = embd.type;
  mw->embd_row_bytes = quant::row_bytes(embd.type, uint64_t(c.n_embd));
  if (embd.type != TensorType::F32 && embd.type != TensorType::F16 && embd.type != TensorType::BF16 &&
      !quant_spec(embd.type))
    throw Error(file.origin() + ": tensor 'token_embd.weight' has type " + quant::type_name(embd.type) +
                ", which the device cannot decode");
  if (T.rope_freqs) mw->rope_freq_factors = L.host_f32(*T.rope_freqs);

  for (int64_t i = 0; i < c.n_layer; ++i) {
    const LayerTensors& t = T.layers[size_t(i)];
    LayerWeights lw;
    const std::string tag = "blk." + std::to_string(i);
    if (c.hybrid()) {
      load_hybrid_layer(L, file, c, t, tag, options.gdn_ab_rows, lw);
      mw->layers.push_back(std::move(lw));
      continue;
    }
    lw.attn_norm = L.upload_f32(*t.attn_norm);
    const std::vector<float> bias =
        t.qkv ? L.joined_bias({{t.qkv_b, Q + 2 * KV}}) : L.joined_bias({{t.q_b, Q}, {t.k_b, KV}, {t.v_b, KV}});
    if (!bias.empty()) lw.qkv_bias = ws.upload(tag + ".qkv_bias", bias.data(), bias.size() * 4);
    lw.qkv = L.projection(t.qkv ? std::vector<const TensorInfo*>{t.qkv} : std::vector<const TensorInfo*>{t.q, t.k, t.v},
                          c.n_embd, tag + ".qkv");
    if (t.q_norm) lw.q_norm = L.upload_f32(*t.q_norm);
    if (t.k_norm) lw.k_norm = L.upload_f32(*t.k_norm);
    lw.out = L.projection({t.out}, c.q_dim(), tag + ".attn_output");
    if (t.out_b) lw.out_bias = L.upload_f32(*t.out_b);
    lw.ffn_norm = L.upload_f32(*t.ffn_norm);
    if (c.moe()) {
      lw.router = std::move(L.projection({t.router}, c.n_embd, tag + ".router").parts.front().linear);
      lw.gate_exps = L.experts(*t.gate_exps, c.n_ff_exp, c.n_embd, c.n_expert, tag + ".gate_exps");
      lw.up_exps = L.experts(*t.up_exps, c.n_ff_exp, c.n_embd, c.n_expert, tag + ".up_exps");
      lw.down_exps = L.experts(*t.down_exps, c.n_embd, c.n_ff_exp, c.n_expert, tag + ".down_exps");
    } else {
      lw.gate_up = L.projection({t.gate, t.up}, c.n_embd, tag + ".gate_up");
      lw.down = L.projection({t.down}, c.n_ff, tag + ".ffn_down");
      const std::vector<float> gu_bias = L.joined_bias({{t.gate_b, uint64_t(c.n_ff)}, {t.up_b, uint64_t(c.n_ff)}});
      if (!gu_bias.empty()) lw.gate_up_bias = L.upload_host(gu_bias);
      if (t.down_b) lw.down_bias = L.upload_f32(*t.down_b);
    }
    mw->layers.push_back(std::move(lw));
  }

  mw->output_norm = L.upload_f32(*T.output_norm);
  mw->token_embd = L.upload_raw({&embd});
  if (T.output) {
    mw->output = L.projection({T.output}, c.n_embd, "output");
  } else {
    // tied embeddings: the head reads the embedding table, or (fast GEMVs)
    // a repacked copy of it beside the table the embedding rows come from
    mw->tied = true;
    mw->output.n = c.n_vocab;
    mw->output.k = c.n_embd;
    const bool fast = L.gemv(embd.type);
    const uint64_t p = fast ? L.upload_gemv({&embd}, c.n_vocab, c.n_embd, "output", false) : mw->token_embd;
    mw->output.parts.push_back(
        {make_linear(dev, c.n_vocab, c.n_embd, DeviceWeights{embd.type, p, 1, false, fast}, &ws, "output"), 0});
  }
  if (T.output_b) mw->output_bias = L.upload_f32(*T.output_b);
  L.finish();
  return mw;
}

}  // namespace k100::model
