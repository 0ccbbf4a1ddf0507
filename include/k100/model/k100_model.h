/* k100lc model: the C ABI of the model layers, the GGUF decoder and
 * generation (libk100_model.so), for C programs and for Python
 * (k100lc_kernels.model) through ctypes.
 *
 * The layers run on the engine of libfm_engine.so (fm_engine.h): call
 * fm_init first (Python's Runtime does); device pointers are the engine's,
 * so buffers from fm_alloc and layer outputs mix freely. Every object is an
 * opaque handle freed with k100m_free. Functions returning int give 0 (or a
 * count) on success and -1 on failure, with k100m_last_error() (per thread)
 * naming the layer, argument, file, key or tensor. Nothing aborts on bad
 * input. Work is only enqueued unless a function says it waits.
 */
#ifndef K100_MODEL_K100_MODEL_H
#define K100_MODEL_K100_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct k100m_handle k100m_handle; /* any object of this library */

const char* k100m_last_error(void);
void k100m_free(k100m_handle* h);

/* Workspace: keyed device buffers. */
k100m_handle* k100m_workspace_new(void);
int k100m_workspace_buffer(k100m_handle* ws, const char* key, size_t bytes, uint64_t* ptr);
int k100m_workspace_size(k100m_handle* ws, const char* key, size_t* bytes);
int k100m_workspace_clear(k100m_handle* ws);

/* Linear layers; ws may be NULL (the layer keeps its own). type: ggml type id. */
k100m_handle* k100m_f32_linear_new(int64_t n, int64_t k, const float* weight, k100m_handle* ws, const char* tag);
k100m_handle* k100m_float_linear_new(int64_t n, int64_t k, uint32_t type, const void* bytes, size_t nbytes,
                                     int64_t groups, k100m_handle* ws, const char* tag);
/* kind: a QUANT_SPECS name ("q4k", "q8_0", ...); tables: device pointers (ntables 0: built in). */
k100m_handle* k100m_dot_linear_new(int64_t n, int64_t k, const char* kind, const void* bytes, size_t nbytes,
                                   const uint64_t* tables, int ntables, k100m_handle* ws, const char* tag);
/* The fast decode GEMVs over the GGUF blocks (kind as above) repacked once; groups matrices of [n, k]. */
k100m_handle* k100m_gemv_linear_new(int64_t n, int64_t k, const char* kind, const void* bytes, size_t nbytes,
                                    int64_t groups, k100m_handle* ws, const char* tag);
/* Its fused forms for one row: form 0 y += W x (a: scale, b: y_scaled, c: ss out; each 0 to skip),
   1 y = r W x (a: ss partials, r from them and eps), 2 y = silu(r G x) * (r U x) (a: ss partials). */
int k100m_gemv_linear_fused(k100m_handle* l, int form, uint64_t x, uint64_t y, uint64_t a, uint64_t b, uint64_t c,
                            float eps);
int k100m_linear_info(k100m_handle* l, int64_t* n, int64_t* k, uint64_t* weights, uint32_t* type);
int k100m_linear_forward(k100m_handle* l, uint64_t x, int64_t rows, uint64_t out, int accumulate, uint64_t* y);
int k100m_linear_forward_selected(k100m_handle* l, uint64_t x, uint64_t ids, int64_t count, int x_per_group,
                                  uint64_t out);
int k100m_dot_linear_forward_experts(k100m_handle* l, uint64_t x, uint64_t ids, uint32_t stride_bytes,
                                     int64_t rows_per_exp, int64_t rows_per_w, uint64_t out, uint64_t* y);
/* QUANT_SPECS row i (0..): kind, kernel, elems, bytes, table count; -1 past the end. */
int k100m_quant_spec(int i, const char** kind, const char** kernel, uint32_t* elems, uint32_t* bytes, int* tables);
int k100m_div_magic(int64_t d, int64_t max_i, uint32_t* magic);
int k100m_gemv_f32(uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k, int accumulate);

/* Norm, activation, MLP. */
k100m_handle* k100m_rmsnorm_new(int64_t dim, const float* weight, float eps, k100m_handle* ws, const char* tag);
int k100m_rmsnorm_forward(k100m_handle* h, uint64_t x, int64_t rows, uint64_t out, uint64_t* y);
k100m_handle* k100m_swiglu_new(k100m_handle* ws, const char* tag);
int k100m_swiglu_forward(k100m_handle* h, uint64_t gate, uint64_t up, int64_t n, uint64_t out, uint64_t* y);
k100m_handle* k100m_mlp_new(k100m_handle* gate, k100m_handle* up, k100m_handle* down, k100m_handle* ws,
                            const char* tag, const char* act);
int k100m_mlp_forward(k100m_handle* h, uint64_t x, int64_t rows, uint64_t* y);

/* MoE. */
k100m_handle* k100m_moe_combine_new(int64_t rows, int64_t dim, int64_t n_exp, k100m_handle* ws, const char* tag);
int k100m_moe_combine_slot(k100m_handle* h, int64_t e, uint64_t* ptr);
int k100m_moe_combine_forward(k100m_handle* h, uint64_t weights, uint64_t* y);
k100m_handle* k100m_moe_experts_new(k100m_handle* const* experts, int n_experts, int64_t rows, int64_t dim,
                                    int64_t out_dim, int64_t topk, k100m_handle* ws, const char* tag);
/* ids, weights [rows][topk]; fills bucket_rows [rows*topk] (count in *total), pos, weights_out, valid [rows*topk],
 * offsets [n_experts + 1]. */
int k100m_moe_experts_route(k100m_handle* h, const int32_t* ids, const float* weights, int64_t rows,
                            int32_t* bucket_rows, int64_t* total, int32_t* pos, float* weights_out, int32_t* offsets,
                            uint8_t* valid);
int k100m_moe_experts_forward(k100m_handle* h, uint64_t x, int64_t rows, const int32_t* ids, const float* weights,
                              uint64_t* y);

/* KV cache, attention, RoPE, TransformerLayer. info: (k, v, length) / (kt, v, length). */
k100m_handle* k100m_kv_cache_new(int64_t dim, int64_t max_len, k100m_handle* ws, const char* tag);
int k100m_kv_cache_append(k100m_handle* h, uint64_t k, uint64_t v, int64_t rows, int device);
int k100m_cache_info(k100m_handle* h, uint64_t* k, uint64_t* v, int64_t* length);
int k100m_reset(k100m_handle* h); /* KV cache, attention, transformer layer, model */
k100m_handle* k100m_attention_new(int64_t dim, int64_t max_len, k100m_handle* ws, const char* tag, int64_t n_split);
k100m_handle* k100m_flash_attention_new(int64_t n_heads, int64_t head_dim, int64_t max_len, k100m_handle* ws,
                                        const char* tag, int64_t n_kv_heads);
/* device != 0: k, v are device pointers of `rows` rows; else host floats. */
int k100m_attention_append(k100m_handle* h, uint64_t k, uint64_t v, int64_t rows, int device);
int k100m_attention_forward(k100m_handle* h, uint64_t q, int64_t n_kv, uint64_t out, uint64_t* y);
int k100m_flash_attention_plan(k100m_handle* h, int64_t n_kv, int64_t* pad, int64_t* nsplit, int64_t* rows);
k100m_handle* k100m_rope_new(int64_t dim, int64_t max_len, double base, k100m_handle* ws, const char* tag);
int k100m_rope_forward(k100m_handle* h, uint64_t x, int64_t rows, int64_t pos, uint64_t out, int tsh, uint64_t* y);
k100m_handle* k100m_transformer_layer_new(int64_t dim, int64_t n_heads, int64_t head_dim, int64_t ffn, int64_t max_len,
                                          const float* w_qkv, const float* w_o, const float* w_gate_up,
                                          const float* w_down, const float* w_norm1, const float* w_norm2, float eps,
                                          k100m_handle* ws, const char* tag);
int k100m_transformer_layer_forward(k100m_handle* h, uint64_t x, int64_t pos, uint64_t* y);

/* Sampling: the device argmax (waits), and the host sampler. */
int k100m_argmax_device(k100m_handle* ws, uint64_t logits, int64_t rows, int64_t cols, uint64_t* idx);
int k100m_sample(const float* logits, int64_t rows, int64_t cols, float temperature, int32_t top_k, float top_p,
                 uint64_t seed, int64_t* out);

/* GGUF decoder models. progress may be NULL. */
typedef void (*k100m_progress_fn)(uint64_t done, uint64_t total, void* user);
k100m_handle* k100m_model_load(const char* path, int64_t context, k100m_progress_fn progress, void* user);
/* JSON of the hyper-parameters (architecture, n_vocab, ...); writes at most cap bytes, returns the full length. */
int k100m_model_config(k100m_handle* m, char* buf, size_t cap);
int k100m_model_forward(k100m_handle* m, int32_t token, int64_t pos, uint64_t* logits);
int k100m_model_logits(k100m_handle* m, float* out, int64_t n); /* waits */

/* The generate command with k100-generate's flags: argv[0] names the program in messages, argv[1..argc-1]
   are the arguments. Reads standard input in a chat; Ctrl-C stops it at the next token. Returns the exit
   status (0, 1 error, 2 usage, 130 interrupted). */
int k100m_generate_main(int argc, const char* const* argv);

#ifdef __cplusplus
}
#endif

#endif /* K100_MODEL_K100_MODEL_H */
