// The C ABI of the layers (k100_model.h): workspace, linear, norm, MLP, MoE,
// caches, attention, RoPE, TransformerLayer, argmax.
#include <cstring>
#include <span>
#include <vector>

#include "c_api_handles.h"
#include "k100/model/attention.h"
#include "k100/model/kv_cache.h"
#include "k100/model/linear.h"
#include "k100/model/mlp.h"
#include "k100/model/moe.h"
#include "k100/model/norm.h"
#include "k100/model/rope.h"
#include "k100/model/sequence.h"
#include "k100/model/transformer_layer.h"

#define K100M_API extern "C" __attribute__((visibility("default")))

using namespace k100;
using namespace k100::model;
using namespace k100::model::c_api;

namespace {

thread_local std::string t_error;

Linear& linear_of(k100m_handle* h) {
  Linear* l = as_base<Linear, F32Linear, FloatLinear, DotLinear, GemvLinear, Linear>(h);
  if (!l) throw Error("not a linear layer handle");
  return *l;
}

void need(const void* p, const char* what) {
  if (!p) throw Error(std::string(what) + " is NULL");
}

std::span<const float> floats(const float* p, int64_t n, const char* what) {
  if (n < 0) throw Error(std::string(what) + ": negative size");
  if (n) need(p, what);
  return {p, size_t(n)};
}

}  // namespace

namespace k100::model::c_api {
void set_error(const std::string& s) { t_error = s; }
}  // namespace k100::model::c_api

K100M_API const char* k100m_last_error(void) { return t_error.c_str(); }
K100M_API void k100m_free(k100m_handle* h) { delete h; }

// ---------------------------------------------------------------- workspace

K100M_API k100m_handle* k100m_workspace_new(void) {
  return guarded_new("k100m_workspace_new", [] { return wrap(std::make_unique<Workspace>(engine_device())); });
}
K100M_API int k100m_workspace_buffer(k100m_handle* ws, const char* key, size_t bytes, uint64_t* ptr) {
  return guarded("k100m_workspace_buffer", [&] {
    need(key, "key");
    need(ptr, "ptr");
    *ptr = get<Workspace>(ws, "workspace").buffer(key, bytes);
  });
}
K100M_API int k100m_workspace_size(k100m_handle* ws, const char* key, size_t* bytes) {
  return guarded("k100m_workspace_size", [&] {
    need(key, "key");
    need(bytes, "bytes");
    *bytes = get<Workspace>(ws, "workspace").size(key);
  });
}
K100M_API int k100m_workspace_clear(k100m_handle* ws) {
  return guarded("k100m_workspace_clear", [&] { get<Workspace>(ws, "workspace").free(); });
}

// ------------------------------------------------------------------ linear

K100M_API k100m_handle* k100m_f32_linear_new(int64_t n, int64_t k, const float* w, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_f32_linear_new", [&] {
    return wrap(std::make_unique<F32Linear>(engine_device(), n, k, floats(w, n * k, "weight"), workspace_of(ws),
                                            tag_or(tag, "f32linear")));
  });
}

K100M_API k100m_handle* k100m_float_linear_new(int64_t n, int64_t k, uint32_t type, const void* bytes, size_t nbytes,
                                              int64_t groups, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_float_linear_new", [&] {
    need(bytes, "bytes");
    const auto* t = quant::find_type(type);
    if (!t) throw Error("type " + std::to_string(type) + " is not a ggml type");
    return wrap(std::make_unique<FloatLinear>(engine_device(), n, k, t->type,
                                              std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), nbytes),
                                              workspace_of(ws), tag_or(tag, "floatlinear"), groups));
  });
}

K100M_API k100m_handle* k100m_dot_linear_new(int64_t n, int64_t k, const char* kind, const void* bytes, size_t nbytes,
                                            const uint64_t* tables, int ntables, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_dot_linear_new", [&] {
    need(kind, "kind");
    need(bytes, "bytes");
    const QuantSpec* s = quant_spec(std::string_view(kind));
    if (!s) {
      std::string list;
      for (const auto& q : quant_specs()) list += (list.empty() ? "" : ", ") + std::string(q.kind);
      throw Error("unknown kind '" + std::string(kind) + "' (kinds: " + list + ")");
    }
    std::vector<uint64_t> t(tables, tables + (ntables > 0 ? ntables : 0));
    return wrap(std::make_unique<DotLinear>(engine_device(), n, k, s->type,
                                            std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), nbytes),
                                            workspace_of(ws), tag_or(tag, "dotlinear"), std::move(t)));
  });
}

K100M_API k100m_handle* k100m_gemv_linear_new(int64_t n, int64_t k, const char* kind, const void* bytes,
                                             size_t nbytes, int64_t groups, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_gemv_linear_new", [&] {
    need(kind, "kind");
    need(bytes, "bytes");
    const QuantSpec* s = quant_spec(std::string_view(kind));
    if (!s) throw Error("unknown kind '" + std::string(kind) + "'");
    return wrap(std::make_unique<GemvLinear>(engine_device(), n, k, s->type,
                                             std::span<const uint8_t>(static_cast<const uint8_t*>(bytes), nbytes),
                                             workspace_of(ws), tag_or(tag, "gemvlinear"), groups));
  });
}

// GemvLinear's fused forms: form 0 accumulate_scaled(x, y, a, b, c), 1
// rms_scaled(x, ss = a, eps, y), 2 swiglu(x, ss = a, eps, y).
K100M_API int k100m_gemv_linear_fused(k100m_handle* h, int form, uint64_t x, uint64_t y, uint64_t a, uint64_t b,
                                      uint64_t c, float eps) {
  return guarded("k100m_gemv_linear_fused", [&] {
    auto* g = dynamic_cast<GemvLinear*>(&linear_of(h));
    if (!g) throw Error("not a GemvLinear handle");
    if (!g->fused()) throw Error(g->tag() + ": the kernel package has no fused forms for this type");
    switch (form) {
      case 0: g->accumulate_scaled(x, y, a, b, c); break;
      case 1: g->rms_scaled(x, a, eps, y); break;
      case 2: g->swiglu(x, a, eps, y); break;
      default: throw Error("form " + std::to_string(form) + " is not 0 (accumulate), 1 (rms) or 2 (swiglu)");
    }
  });
}

K100M_API int k100m_linear_info(k100m_handle* h, int64_t* n, int64_t* k, uint64_t* w, uint32_t* type) {
  return guarded("k100m_linear_info", [&] {
    Linear& l = linear_of(h);
    if (n) *n = l.n();
    if (k) *k = l.k();
    if (w) *w = l.weights();
    if (type) *type = uint32_t(l.type());
  });
}

K100M_API int k100m_linear_forward(k100m_handle* h, uint64_t x, int64_t rows, uint64_t out, int acc, uint64_t* y) {
  return guarded("k100m_linear_forward", [&] {
    const uint64_t r = linear_of(h).forward_device(x, rows, out, acc != 0);
    if (y) *y = r;
  });
}

K100M_API int k100m_linear_forward_selected(k100m_handle* h, uint64_t x, uint64_t ids, int64_t count, int per_group,
                                            uint64_t out) {
  return guarded("k100m_linear_forward_selected",
                 [&] { linear_of(h).forward_selected(x, ids, count, per_group != 0, out); });
}

K100M_API int k100m_dot_linear_forward_experts(k100m_handle* h, uint64_t x, uint64_t ids, uint32_t stride,
                                               int64_t rows_per_exp, int64_t rows_per_w, uint64_t out, uint64_t* y) {
  return guarded("k100m_dot_linear_forward_experts", [&] {
    DotLinear& l = get<DotLinear>(h, "DotLinear");
    const uint64_t o = out ? out : l.workspace().buffer(l.tag() + ".out", size_t(l.n()) * 4);
    l.forward_experts(x, ids, stride, rows_per_exp, rows_per_w, o);
    if (y) *y = o;
  });
}

K100M_API int k100m_quant_spec(int i, const char** kind, const char** kernel, uint32_t* elems, uint32_t* bytes,
                               int* tables) {
  const auto specs = quant_specs();
  if (i < 0 || size_t(i) >= specs.size()) return -1;
  const QuantSpec& s = specs[size_t(i)];
  if (kind) *kind = s.kind;
  if (kernel) *kernel = s.dot_kernel;
  if (elems) *elems = s.elems;
  if (bytes) *bytes = s.bytes;
  if (tables) *tables = int(s.tables.size());
  return 0;
}

K100M_API int k100m_div_magic(int64_t d, int64_t max_i, uint32_t* magic) {
  return guarded("div_magic", [&] {
    need(magic, "magic");
    *magic = div_magic(d, max_i);
  });
}

K100M_API int k100m_gemv_f32(uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k, int acc) {
  return guarded("k100m_gemv_f32", [&] {
    if (acc) gemv_f32_acc(engine_device(), w, x, y, nrows, k);
    else gemv_f32(engine_device(), w, x, y, nrows, k);
  });
}

// ------------------------------------------------------- norm, activation, MLP

K100M_API k100m_handle* k100m_rmsnorm_new(int64_t dim, const float* w, float eps, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_rmsnorm_new", [&] {
    return wrap(std::make_unique<RMSNorm>(engine_device(), dim, floats(w, dim, "weight"), eps, workspace_of(ws),
                                          tag_or(tag, "rmsnorm")));
  });
}
K100M_API int k100m_rmsnorm_forward(k100m_handle* h, uint64_t x, int64_t rows, uint64_t out, uint64_t* y) {
  return guarded("k100m_rmsnorm_forward", [&] {
    const uint64_t r = get<RMSNorm>(h, "RMSNorm").forward_device(x, rows, out);
    if (y) *y = r;
  });
}
K100M_API k100m_handle* k100m_swiglu_new(k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_swiglu_new", [&] {
    return wrap(std::make_unique<SwiGLU>(engine_device(), workspace_of(ws), tag_or(tag, "swiglu")));
  });
}
K100M_API int k100m_swiglu_forward(k100m_handle* h, uint64_t gate, uint64_t up, int64_t n, uint64_t out, uint64_t* y) {
  return guarded("k100m_swiglu_forward", [&] {
    const uint64_t r = get<SwiGLU>(h, "SwiGLU").forward_device(gate, up, n, out);
    if (y) *y = r;
  });
}
K100M_API k100m_handle* k100m_mlp_new(k100m_handle* g, k100m_handle* u, k100m_handle* d, k100m_handle* ws,
                                     const char* tag, const char* act) {
  return guarded_new("k100m_mlp_new", [&] {
    return wrap(std::make_unique<MLP>(engine_device(), linear_of(g), linear_of(u), linear_of(d), workspace_of(ws),
                                      tag_or(tag, "mlp"), act ? act : "silu"));
  });
}
K100M_API int k100m_mlp_forward(k100m_handle* h, uint64_t x, int64_t rows, uint64_t* y) {
  return guarded("k100m_mlp_forward", [&] {
    const uint64_t r = get<MLP>(h, "MLP").forward_device(x, rows);
    if (y) *y = r;
  });
}

// -------------------------------------------------------------------- MoE

K100M_API k100m_handle* k100m_moe_combine_new(int64_t rows, int64_t dim, int64_t n_exp, k100m_handle* ws,
                                             const char* tag) {
  return guarded_new("k100m_moe_combine_new", [&] {
    return wrap(std::make_unique<MoECombine>(engine_device(), rows, dim, n_exp, workspace_of(ws), tag_or(tag, "moe")));
  });
}
K100M_API int k100m_moe_combine_slot(k100m_handle* h, int64_t e, uint64_t* p) {
  return guarded("k100m_moe_combine_slot", [&] {
    need(p, "ptr");
    *p = get<MoECombine>(h, "MoECombine").slot(e);
  });
}
K100M_API int k100m_moe_combine_forward(k100m_handle* h, uint64_t weights, uint64_t* y) {
  return guarded("k100m_moe_combine_forward", [&] {
    const uint64_t r = get<MoECombine>(h, "MoECombine").forward_device(weights);
    if (y) *y = r;
  });
}
K100M_API k100m_handle* k100m_moe_experts_new(k100m_handle* const* experts, int n, int64_t rows, int64_t dim,
                                             int64_t out_dim, int64_t topk, k100m_handle* ws, const char* tag) {
  return guarded_new("k100m_moe_experts_new", [&] {
    need(experts, "experts");
    std::vector<Linear*> ls;
    for (int i = 0; i < n; ++i) ls.push_back(&linear_of(experts[i]));
    return wrap(std::make_unique<MoEExperts>(engine_device(), std::move(ls), rows, dim, out_dim, topk, workspace_of(ws),
                                             tag_or(tag, "moe_experts")));
  });
}
K100M_API int k100m_moe_experts_route(k100m_handle* h, const int32_t* ids, const float* weights, int64_t rows,
                                      int32_t* bucket_rows, int64_t* total, int32_t* pos, float* w_out,
                                      int32_t* offsets, uint8_t* valid) {
  return guarded("k100m_moe_experts_route", [&] {
    MoEExperts& m = get<MoEExperts>(h, "MoEExperts");
    const size_t n = size_t(rows * m.topk());
    if (n) {
      need(ids, "ids");
      need(weights, "weights");
    }
    const MoERoute r = m.route({ids, n}, {weights, n});
    for (void* p : {static_cast<void*>(bucket_rows), static_cast<void*>(total), static_cast<void*>(pos),
                    static_cast<void*>(w_out), static_cast<void*>(offsets), static_cast<void*>(valid)})
      need(p, "an output array");
    std::memcpy(bucket_rows, r.bucket_rows.data(), r.bucket_rows.size() * 4);
    *total = int64_t(r.bucket_rows.size());
    std::memcpy(pos, r.pos.data(), n * 4);
    std::memcpy(w_out, r.weights.data(), n * 4);
    std::memcpy(offsets, r.offsets.data(), r.offsets.size() * 4);
    std::memcpy(valid, r.valid.data(), n);
  });
}

K100M_API int k100m_moe_experts_forward(k100m_handle* h, uint64_t x, int64_t rows, const int32_t* ids,
                                        const float* weights, uint64_t* y) {
  return guarded("k100m_moe_experts_forward", [&] {
    MoEExperts& m = get<MoEExperts>(h, "MoEExperts");
    const size_t n = size_t(std::max<int64_t>(rows, 0) * m.topk());
    if (n) {
      need(ids, "ids");
      need(weights, "weights");
    }
    const uint64_t r = m.forward_device(x, rows, {ids, n}, {weights, n});
    if (y) *y = r;
  });
}
