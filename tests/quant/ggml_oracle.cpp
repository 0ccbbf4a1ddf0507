#include "ggml_oracle.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace k100::test {
namespace {

// The declarations of ggml.h / gguf.h (ggml v0.4.0, shipped in
// node-llama-cpp 3.21.1) that the oracle calls, as C function pointers.
struct TypeTraits {  // struct ggml_type_traits
  const char* type_name;
  int64_t blck_size;
  int64_t blck_size_interleave;
  size_t type_size;
  bool is_quantized;
  void (*to_float)(const void* x, float* y, int64_t k);
  void (*from_float_ref)(const float* x, void* y, int64_t k);
};
struct GgufInitParams {  // struct gguf_init_params
  bool no_alloc;
  void** ctx;
};
struct GgmlInitParams {  // struct ggml_init_params
  size_t mem_size;
  void* mem_buffer;
  bool no_alloc;
};

// This build defines type ids 0..42 (GGML_TYPE_COUNT = 43); ggml's calls do
// not check their argument, so ids are never taken from outside this range.
constexpr int kGgmlTypeCount = 43;
constexpr int kGgufTypeArray = 9;
constexpr int kGgufTypeString = 8;

// Bytes of a fixed-size GGUF value type (the format's definition; this
// build does not export gguf_type_size).
size_t gguf_value_size(int type) {
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return type >= 0 && type < 13 ? sizes[type] : 0;
}

}  // namespace

struct GgmlOracle::Api {
  const TypeTraits* (*get_type_traits)(int);
  const char* (*type_name)(int);
  int64_t (*blck_size)(int);
  size_t (*type_size)(int);
  size_t (*quantize_chunk)(int, const float*, void*, int64_t, int64_t, int64_t, const float*);
  float (*fp16_to_fp32)(uint16_t);
  float (*bf16_to_fp32)(uint16_t);
  void (*fp32_to_fp16_row)(const float*, uint16_t*, int64_t);
  void (*fp32_to_bf16_row_ref)(const float*, uint16_t*, int64_t);

  void* (*gguf_init_from_file)(const char*, GgufInitParams);
  void (*gguf_free)(void*);
  uint32_t (*gguf_get_version)(const void*);
  size_t (*gguf_get_alignment)(const void*);
  size_t (*gguf_get_data_offset)(const void*);
  int64_t (*gguf_get_n_kv)(const void*);
  const char* (*gguf_get_key)(const void*, int64_t);
  int (*gguf_get_kv_type)(const void*, int64_t);
  int (*gguf_get_arr_type)(const void*, int64_t);
  size_t (*gguf_get_arr_n)(const void*, int64_t);
  const void* (*gguf_get_arr_data)(const void*, int64_t);
  const char* (*gguf_get_arr_str)(const void*, int64_t, size_t);
  const char* (*gguf_get_val_str)(const void*, int64_t);
  const void* (*gguf_get_val_data)(const void*, int64_t);
  int64_t (*gguf_get_n_tensors)(const void*);
  const char* (*gguf_get_tensor_name)(const void*, int64_t);
  size_t (*gguf_get_tensor_offset)(const void*, int64_t);
  int (*gguf_get_tensor_type)(const void*, int64_t);
  size_t (*gguf_get_tensor_size)(const void*, int64_t);
  const int64_t* (*gguf_get_tensor_ne)(const void*, int64_t);

  void* (*gguf_init_empty)();
  void (*gguf_set_val_u32)(void*, const char*, uint32_t);
  void (*gguf_set_val_str)(void*, const char*, const char*);
  void (*gguf_set_arr_data)(void*, const char*, int, const void*, size_t);
  void (*gguf_add_tensor)(void*, const void*);
  bool (*gguf_write_to_file)(const void*, const char*, bool);

  void* (*ggml_init)(GgmlInitParams);
  void (*ggml_free)(void*);
  void* (*ggml_new_tensor)(void*, int, int, const int64_t*);
  void* (*ggml_set_name)(void*, const char*);
  void* (*ggml_get_tensor)(void*, const char*);
  void* (*ggml_get_data)(const void*);
  size_t (*ggml_nbytes)(const void*);
  size_t (*ggml_tensor_overhead)();
};

namespace {

std::string library_path() {
  if (const char* p = std::getenv("K100_GGML_LIB"); p && *p) return p;
  return std::string(K100_BINARY_DIR) + "/oracles/llama/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so";
}

template <class F>
bool resolve(void* h, const char* name, F* out, std::string* missing) {
  void* p = dlsym(h, name);
  if (!p) {
    *missing += std::string(missing->empty() ? "" : ", ") + name;
    return false;
  }
  *out = reinterpret_cast<F>(p);
  return true;
}

}  // namespace

bool oracle_required() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

const GgmlOracle* GgmlOracle::get(std::string* why) {
  static std::once_flag once;
  static GgmlOracle* oracle = nullptr;
  static std::string reason;
  std::call_once(once, [] {
    const std::string path = library_path();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      reason = "ggml oracle not installed (" + path + ": " + dlerror() +
               "); scripts/install-llama-oracle.sh installs node-llama-cpp@3.21.1 from npm";
      return;
    }
    static Api api;
    std::string missing;
#define K100_SYM(field, name) resolve(h, name, &api.field, &missing)
    K100_SYM(get_type_traits, "ggml_get_type_traits");
    K100_SYM(type_name, "ggml_type_name");
    K100_SYM(blck_size, "ggml_blck_size");
    K100_SYM(type_size, "ggml_type_size");
    K100_SYM(quantize_chunk, "ggml_quantize_chunk");
    K100_SYM(fp16_to_fp32, "ggml_fp16_to_fp32");
    K100_SYM(bf16_to_fp32, "ggml_bf16_to_fp32");
    K100_SYM(fp32_to_fp16_row, "ggml_fp32_to_fp16_row");
    K100_SYM(fp32_to_bf16_row_ref, "ggml_fp32_to_bf16_row_ref");
    K100_SYM(gguf_init_from_file, "gguf_init_from_file");
    K100_SYM(gguf_free, "gguf_free");
    K100_SYM(gguf_get_version, "gguf_get_version");
    K100_SYM(gguf_get_alignment, "gguf_get_alignment");
    K100_SYM(gguf_get_data_offset, "gguf_get_data_offset");
    K100_SYM(gguf_get_n_kv, "gguf_get_n_kv");
    K100_SYM(gguf_get_key, "gguf_get_key");
    K100_SYM(gguf_get_kv_type, "gguf_get_kv_type");
    K100_SYM(gguf_get_arr_type, "gguf_get_arr_type");
    K100_SYM(gguf_get_arr_n, "gguf_get_arr_n");
    K100_SYM(gguf_get_arr_data, "gguf_get_arr_data");
    K100_SYM(gguf_get_arr_str, "gguf_get_arr_str");
    K100_SYM(gguf_get_val_str, "gguf_get_val_str");
    K100_SYM(gguf_get_val_data, "gguf_get_val_data");
    K100_SYM(gguf_get_n_tensors, "gguf_get_n_tensors");
    K100_SYM(gguf_get_tensor_name, "gguf_get_tensor_name");
    K100_SYM(gguf_get_tensor_offset, "gguf_get_tensor_offset");
    K100_SYM(gguf_get_tensor_type, "gguf_get_tensor_type");
    K100_SYM(gguf_get_tensor_size, "gguf_get_tensor_size");
    K100_SYM(gguf_get_tensor_ne, "gguf_get_tensor_ne");
    K100_SYM(gguf_init_empty, "gguf_init_empty");
    K100_SYM(gguf_set_val_u32, "gguf_set_val_u32");
    K100_SYM(gguf_set_val_str, "gguf_set_val_str");
    K100_SYM(gguf_set_arr_data, "gguf_set_arr_data");
    K100_SYM(gguf_add_tensor, "gguf_add_tensor");
    K100_SYM(gguf_write_to_file, "gguf_write_to_file");
    K100_SYM(ggml_init, "ggml_init");
    K100_SYM(ggml_free, "ggml_free");
    K100_SYM(ggml_new_tensor, "ggml_new_tensor");
    K100_SYM(ggml_set_name, "ggml_set_name");
    K100_SYM(ggml_get_tensor, "ggml_get_tensor");
    K100_SYM(ggml_get_data, "ggml_get_data");
    K100_SYM(ggml_nbytes, "ggml_nbytes");
    K100_SYM(ggml_tensor_overhead, "ggml_tensor_overhead");
#undef K100_SYM
    if (!missing.empty()) {
      reason = path + " lacks " + missing;
      dlclose(h);
      return;
    }
    oracle = new GgmlOracle();
    oracle->handle_ = h;
    oracle->api_ = &api;
  });
  if (!oracle && why) *why = reason;
  return oracle;
}

int GgmlOracle::type_id(const std::string& name) const {
  for (int i = 0; i < kGgmlTypeCount; ++i)
    if (const char* n = api_->type_name(i); n && name == n) return i;
  return -1;
}

int64_t GgmlOracle::block_size(int type) const { return api_->blck_size(type); }
size_t GgmlOracle::type_size(int type) const { return api_->type_size(type); }
const char* GgmlOracle::type_name(int type) const { return api_->type_name(type); }

void GgmlOracle::dequantize(int type, const void* src, float* dst, int64_t n) const {
  const TypeTraits* t = api_->get_type_traits(type);
  if (t->to_float) return t->to_float(src, dst, n);
  // ggml leaves to_float unset for f32, whose values need no conversion
  if (type != 0) throw std::runtime_error(std::string("ggml has no to_float for type ") + t->type_name);
  std::memcpy(dst, src, size_t(n) * 4);
}

bool GgmlOracle::quantize_ref(int type, const float* src, void* dst, int64_t n) const {
  const auto ref = api_->get_type_traits(type)->from_float_ref;
  if (!ref) return false;
  ref(src, dst, n);
  return true;
}

bool GgmlOracle::takes_importance(int type) const {
  const std::string n = type_name(type);
  return n == "iq2_xxs" || n == "iq2_xs" || n == "iq1_s" || n == "iq1_m";
}

size_t GgmlOracle::quantize_chunk(int type, const float* src, void* dst, int64_t nrows, int64_t n_per_row) const {
  // the i-quants of 1 and 2 bits with an importance matrix of ones (ggml
  // refuses IQ2_XXS, IQ2_XS and IQ1_S without one; IQ1_M alike, for one rule)
  const std::vector<float> ones(size_t(n_per_row), 1.0f);
  return api_->quantize_chunk(type, src, dst, 0, nrows, n_per_row, takes_importance(type) ? ones.data() : nullptr);
}

float GgmlOracle::fp16_to_fp32(uint16_t h) const { return api_->fp16_to_fp32(h); }
float GgmlOracle::bf16_to_fp32(uint16_t h) const { return api_->bf16_to_fp32(h); }
void GgmlOracle::fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n) const { api_->fp32_to_fp16_row(src, dst, n); }
void GgmlOracle::fp32_to_bf16_row_ref(const float* src, uint16_t* dst, int64_t n) const {
  api_->fp32_to_bf16_row_ref(src, dst, n);
}

bool GgmlOracle::read_gguf(const std::string& path, GgufContents* out) const {
  void* data_ctx = nullptr;
  void* g = api_->gguf_init_from_file(path.c_str(), GgufInitParams{false, &data_ctx});
  if (!g) return false;
  out->version = api_->gguf_get_version(g);
  out->alignment = api_->gguf_get_alignment(g);
  out->data_offset = api_->gguf_get_data_offset(g);
  const int64_t nkv = api_->gguf_get_n_kv(g);
  for (int64_t i = 0; i < nkv; ++i) {
    KeyValue kv;
    kv.key = api_->gguf_get_key(g, i);
    kv.type = api_->gguf_get_kv_type(g, i);
    if (kv.type == kGgufTypeArray) {
      kv.array_type = api_->gguf_get_arr_type(g, i);
      const size_t n = api_->gguf_get_arr_n(g, i);
      if (kv.array_type == kGgufTypeString) {
        for (size_t j = 0; j < n; ++j) kv.strings.emplace_back(api_->gguf_get_arr_str(g, i, j));
      } else {
        const auto* p = static_cast<const uint8_t*>(api_->gguf_get_arr_data(g, i));
        kv.raw.assign(p, p + n * gguf_value_size(kv.array_type));
      }
    } else if (kv.type == kGgufTypeString) {
      kv.strings.emplace_back(api_->gguf_get_val_str(g, i));
    } else {
      const auto* p = static_cast<const uint8_t*>(api_->gguf_get_val_data(g, i));
      kv.raw.assign(p, p + gguf_value_size(kv.type));
    }
    out->kv.push_back(std::move(kv));
  }
  const int64_t nt = api_->gguf_get_n_tensors(g);
  for (int64_t i = 0; i < nt; ++i) {
    Tensor t;
    t.name = api_->gguf_get_tensor_name(g, i);
    t.type = api_->gguf_get_tensor_type(g, i);
    const int64_t* ne = api_->gguf_get_tensor_ne(g, i);
    for (int d = 0; d < 4; ++d) t.ne[d] = ne[d];
    t.offset = api_->gguf_get_tensor_offset(g, i);
    t.size = api_->gguf_get_tensor_size(g, i);
    if (void* tensor = api_->ggml_get_tensor(data_ctx, t.name.c_str())) {
      const auto* p = static_cast<const uint8_t*>(api_->ggml_get_data(tensor));
      t.data.assign(p, p + api_->ggml_nbytes(tensor));
    }
    out->tensors.push_back(std::move(t));
  }
  if (data_ctx) api_->ggml_free(data_ctx);
  api_->gguf_free(g);
  return true;
}

bool GgmlOracle::write_gguf(const std::string& path, const std::vector<std::pair<std::string, uint32_t>>& u32_kv,
                            const std::vector<std::pair<std::string, std::string>>& str_kv,
                            const std::vector<std::pair<std::string, std::vector<float>>>& f32_array_kv,
                            const std::vector<WriteTensor>& tensors) const {
  size_t mem = 1 << 20;
  for (const WriteTensor& t : tensors) mem += t.data.size() + api_->ggml_tensor_overhead() + 64;
  void* ctx = api_->ggml_init(GgmlInitParams{mem, nullptr, false});
  if (!ctx) return false;
  void* g = api_->gguf_init_empty();
  for (const auto& [k, v] : u32_kv) api_->gguf_set_val_u32(g, k.c_str(), v);
  for (const auto& [k, v] : str_kv) api_->gguf_set_val_str(g, k.c_str(), v.c_str());
  for (const auto& [k, v] : f32_array_kv) api_->gguf_set_arr_data(g, k.c_str(), 6 /* f32 */, v.data(), v.size());
  for (const WriteTensor& t : tensors) {
    void* tensor = api_->ggml_new_tensor(ctx, t.type, int(t.ne.size()), t.ne.data());
    api_->ggml_set_name(tensor, t.name.c_str());
    std::memcpy(api_->ggml_get_data(tensor), t.data.data(), t.data.size());
    api_->gguf_add_tensor(g, tensor);
  }
  const bool ok = api_->gguf_write_to_file(g, path.c_str(), false);
  api_->gguf_free(g);
  api_->ggml_free(ctx);
  return ok;
}

}  // namespace k100::test
