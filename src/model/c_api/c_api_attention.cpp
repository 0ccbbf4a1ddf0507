// The C ABI of the caches, attention, RoPE, TransformerLayer and argmax (k100_model.h).
#include <span>

#include "c_api_handles.h"
#include "k100/model/attention.h"
#include "k100/model/decoder.h"
#include "k100/model/kv_cache.h"
#include "k100/model/rope.h"
#include "k100/model/sequence.h"
#include "k100/model/transformer_layer.h"

#define K100M_API extern "C" __attribute__((visibility("default")))

using namespace k100;
using namespace k100::model;
using namespace k100::model::c_api;

namespace {

void need(const void* p, const char* what) {
  if (!p) throw Error(std::string(what) + " is NULL");
}

std::span<const float> host(uint64_t p, int64_t n, const char* what) {
  if (n < 0) throw Error(std::string(what) + ": negative size");
  if (n) need(reinterpret_cast<const void*>(uintptr_t(p)), what);
  return {reinterpret_cast<const float*>(uintptr_t(p)), size_t(n)};
}

void set_y(uint64_t* y, uint64_t v) {
  if (y) *y = v;
}

}  // namespace

K100M_API k100m_handle* k100m_kv_cache_new(int64_t dim, int64_t max_len, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_kv_cache_new", [&] {
    return wrap(std::make_unique<KVCache>(engine_device(), dim, max_len, workspace_of(ws), tag_or(tag, "kv")));
  });
}

K100M_API int k100m_kv_cache_append(k100m_handle* h, uint64_t k, uint64_t v, int64_t rows, int device) {
  return guarded("k100m_kv_cache_append", [&] {
    KVCache& c = get<KVCache>(h, "KVCache");
    if (device) c.append_device(k, v, rows);
    else c.append(host(k, rows * c.dim(), "k"), host(v, rows * c.dim(), "v"));
  });
}

K100M_API int k100m_cache_info(k100m_handle* h, uint64_t* k, uint64_t* v, int64_t* length) {
  return guarded("k100m_cache_info", [&] {
    uint64_t a = 0, b = 0;
    int64_t n = 0;
    if (auto* c = as_base<KVCache, KVCache>(h)) a = c->k(), b = c->v(), n = c->length();
    else if (auto* at = as_base<Attention, Attention>(h)) a = at->k(), b = at->vt(), n = at->length();
    else if (auto* f = as_base<FlashAttention, FlashAttention>(h)) a = f->kt(), b = f->v(), n = f->length();
    else throw Error("not a cache or attention handle");
    if (k) *k = a;
    if (v) *v = b;
    if (length) *length = n;
  });
}

K100M_API int k100m_reset(k100m_handle* h) {
  return guarded("k100m_reset", [&] {
    if (auto* c = as_base<KVCache, KVCache>(h)) c->reset();
    else if (auto* a = as_base<Attention, Attention>(h)) a->reset();
    else if (auto* f = as_base<FlashAttention, FlashAttention>(h)) f->reset();
    else if (auto* t = as_base<TransformerLayer, TransformerLayer>(h)) t->reset();
    else if (auto* m = as_base<DecoderModel, DecoderModel>(h)) m->reset();
    else throw Error("this handle has nothing to reset");
  });
}

K100M_API k100m_handle* k100m_attention_new(int64_t dim, int64_t max_len, k100m_handle* ws, const char* tag,
                                           int64_t n_split) {
  return guarded_new("k100m_attention_new", [&] {
    return wrap(std::make_unique<Attention>(engine_device(), dim, max_len, workspace_of(ws), tag_or(tag, "attn"),
                                            n_split ? n_split : 128));
  });
}

K100M_API k100m_handle* k100m_flash_attention_new(int64_t n_heads, int64_t head_dim, int64_t max_len, k100m_handle* ws,
                                                 const char* tag, int64_t n_kv_heads) {
  return guarded_new("k100m_flash_attention_new", [&] {
    return wrap(std::make_unique<FlashAttention>(engine_device(), n_heads, head_dim, max_len, workspace_of(ws),
                                                 tag_or(tag, "fmha"), n_kv_heads));
  });
}

K100M_API int k100m_attention_append(k100m_handle* h, uint64_t k, uint64_t v, int64_t rows, int device) {
  return guarded("k100m_attention_append", [&] {
    if (auto* a = as_base<Attention, Attention>(h)) {
      if (device) a->append_device(k, v, rows);
      else a->append(host(k, rows * a->dim(), "k"), host(v, rows * a->dim(), "v"));
    } else if (auto* f = as_base<FlashAttention, FlashAttention>(h)) {
      if (device) f->append_device(k, v, rows);
      else f->append(host(k, rows * f->kv_dim(), "k"), host(v, rows * f->kv_dim(), "v"));
    } else {
      throw Error("not an attention handle");
    }
  });
}

K100M_API int k100m_attention_forward(k100m_handle* h, uint64_t q, int64_t n_kv, uint64_t out, uint64_t* y) {
  return guarded("k100m_attention_forward", [&] {
    if (auto* a = as_base<Attention, Attention>(h)) set_y(y, a->forward_device(q, n_kv, out));
    else if (auto* f = as_base<FlashAttention, FlashAttention>(h)) set_y(y, f->forward_device(q, n_kv, out));
    else throw Error("not an attention handle");
  });
}

K100M_API int k100m_flash_attention_plan(k100m_handle* h, int64_t n_kv, int64_t* pad, int64_t* nsplit, int64_t* rows) {
  return guarded("k100m_flash_attention_plan", [&] {
    const auto [p, s, r] = get<FlashAttention>(h, "FlashAttention").plan(n_kv);
    if (pad) *pad = p;
    if (nsplit) *nsplit = s;
    if (rows) *rows = r;
  });
}

K100M_API k100m_handle* k100m_rope_new(int64_t dim, int64_t max_len, double base, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_rope_new", [&] {
    return wrap(std::make_unique<RoPE>(engine_device(), dim, max_len, base, workspace_of(ws), tag_or(tag, "rope")));
  });
}

K100M_API int k100m_rope_forward(k100m_handle* h, uint64_t x, int64_t rows, int64_t pos, uint64_t out, int tsh,
                                 uint64_t* y) {
  return guarded("k100m_rope_forward", [&] { set_y(y, get<RoPE>(h, "RoPE").forward_device(x, rows, pos, out, tsh)); });
}

K100M_API k100m_handle* k100m_transformer_layer_new(int64_t dim, int64_t n_heads, int64_t head_dim, int64_t ffn,
                                                   int64_t max_len, const float* w_qkv, const float* w_o,
                                                   const float* w_gate_up, const float* w_down, const float* w_norm1,
                                                   const float* w_norm2, float eps, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_transformer_layer_new", [&] {
    auto span = [](const float* p, int64_t n, const char* what) {
      if (!p) throw Error(std::string(what) + " is NULL");
      return std::span<const float>(p, size_t(n));
    };
    return wrap(std::make_unique<TransformerLayer>(
        engine_device(), dim, n_heads, head_dim, ffn, max_len, span(w_qkv, 3 * dim * dim, "w_qkv"),
        span(w_o, dim * dim, "w_o"), span(w_gate_up, 2 * ffn * dim, "w_gate_up"), span(w_down, dim * ffn, "w_down"),
        span(w_norm1, dim, "w_norm1"), span(w_norm2, dim, "w_norm2"), eps, workspace_of(ws), tag_or(tag, "layer")));
  });
}

K100M_API int k100m_transformer_layer_forward(k100m_handle* h, uint64_t x, int64_t pos, uint64_t* y) {
  return guarded("k100m_transformer_layer_forward",
                 [&] { set_y(y, get<TransformerLayer>(h, "TransformerLayer").forward_device(x, pos)); });
}

K100M_API int k100m_argmax_device(k100m_handle* ws, uint64_t logits, int64_t rows, int64_t cols, uint64_t* idx) {
  return guarded("k100m_argmax_device", [&] {
    set_y(idx, argmax_device(engine_device(), get<Workspace>(ws, "workspace"), logits, rows, cols));
  });
}
