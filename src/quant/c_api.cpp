// libk100_quant.so: the C ABI over GgufFile and the codecs. Every entry
// point catches everything: a C or Python caller gets an error code and a
// message, never an exception.
#include "k100/quant/k100_quant.h"

#include <cstring>
#include <new>
#include <string>

#include "k100/base/error.h"
#include "k100/quant/codec.h"
#include "k100/quant/gemv_layout.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/iq_tables.h"

#define K100Q_EXPORT extern "C" __attribute__((visibility("default")))

struct k100q_file {
  k100::quant::GgufFile file;
};

namespace {

using namespace k100::quant;

thread_local std::string g_error;

int fail(int code, std::string msg) {
  g_error = std::move(msg);
  return code;
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const k100::Error& e) {
    return fail(K100Q_ERR, e.what());
  } catch (const std::bad_alloc&) {
    return fail(K100Q_ERR, "out of memory");
  } catch (const std::exception& e) {
    return fail(K100Q_ERR, e.what());
  }
}

const Value* as_value(const k100q_value* v) { return reinterpret_cast<const Value*>(v); }
const k100q_value* to_handle(const Value* v) { return reinterpret_cast<const k100q_value*>(v); }

}  // namespace

K100Q_EXPORT const char* k100q_last_error(void) { return g_error.c_str(); }

K100Q_EXPORT int k100q_type_info(uint32_t type, const char** name, uint32_t* block_elems, uint32_t* block_bytes,
                                 int* has_host_codec) {
  const TypeTraits* t = find_type(type);
  if (!t) return fail(K100Q_ERR_ARG, "tensor type " + std::to_string(type) + " is not defined");
  if (name) *name = t->name;
  if (block_elems) *block_elems = t->block_elems;
  if (block_bytes) *block_bytes = t->block_bytes;
  if (has_host_codec) *has_host_codec = t->has_host_codec ? 1 : 0;
  return 0;
}

K100Q_EXPORT int k100q_type_from_name(const char* name) {
  if (!name) return fail(K100Q_ERR_ARG, "k100q_type_from_name: name is NULL");
  const auto t = type_from_name(name);
  if (!t) return fail(K100Q_ERR_ARG, std::string("unknown tensor type name '") + name + "'");
  return int(*t);
}

K100Q_EXPORT int k100q_open(const char* path, k100q_file** out) {
  if (!path || !out) return fail(K100Q_ERR_ARG, "k100q_open: path and out must not be NULL");
  *out = nullptr;
  return guarded([&] {
    *out = new k100q_file{GgufFile::open(path)};
    return 0;
  });
}

K100Q_EXPORT void k100q_close(k100q_file* f) { delete f; }
K100Q_EXPORT uint32_t k100q_version(const k100q_file* f) { return f ? f->file.version() : 0; }
K100Q_EXPORT uint32_t k100q_alignment(const k100q_file* f) { return f ? f->file.alignment() : 0; }
K100Q_EXPORT uint64_t k100q_data_offset(const k100q_file* f) { return f ? f->file.data_offset() : 0; }
K100Q_EXPORT uint64_t k100q_file_size(const k100q_file* f) { return f ? f->file.file_size() : 0; }

K100Q_EXPORT int64_t k100q_kv_count(const k100q_file* f) {
  if (!f) return fail(K100Q_ERR_ARG, "k100q_kv_count: file is NULL");
  return int64_t(f->file.metadata().size());
}

K100Q_EXPORT const k100q_value* k100q_kv(const k100q_file* f, int64_t index, const char** key) {
  if (!f || index < 0 || uint64_t(index) >= f->file.metadata().size()) {
    fail(K100Q_ERR_ARG, "k100q_kv: no metadata entry " + std::to_string(index));
    return nullptr;
  }
  const KeyValue& kv = f->file.metadata()[size_t(index)];
  if (key) *key = kv.key.c_str();
  return to_handle(&kv.value);
}

K100Q_EXPORT int64_t k100q_find_kv(const k100q_file* f, const char* key) {
  if (!f || !key) return fail(K100Q_ERR_ARG, "k100q_find_kv: file and key must not be NULL");
  const auto& md = f->file.metadata();
  for (size_t i = 0; i < md.size(); ++i)
    if (md[i].key == key) return int64_t(i);
  return -1;
}

K100Q_EXPORT int k100q_value_type(const k100q_value* v) {
  if (!v) return fail(K100Q_ERR_ARG, "k100q_value_type: value is NULL");
  return int(as_value(v)->type());
}

K100Q_EXPORT int k100q_value_scalar(const k100q_value* v, void* out, size_t out_size) {
  if (!v || !out) return fail(K100Q_ERR_ARG, "k100q_value_scalar: value and out must not be NULL");
  return guarded([&] {
    const auto b = as_value(v)->scalar_bytes();
    if (out_size < b.size())
      return fail(K100Q_ERR_ARG, "k100q_value_scalar: " + std::to_string(b.size()) + " bytes do not fit in " +
                                     std::to_string(out_size));
    std::memcpy(out, b.data(), b.size());
    return int(b.size());
  });
}

K100Q_EXPORT int k100q_value_string(const k100q_value* v, const char** data, uint64_t* length) {
  if (!v || !data || !length) return fail(K100Q_ERR_ARG, "k100q_value_string: arguments must not be NULL");
  return guarded([&] {
    const std::string& s = as_value(v)->as_string();
    *data = s.data();
    *length = s.size();
    return 0;
  });
}

K100Q_EXPORT int k100q_value_array(const k100q_value* v, int* elem_type, uint64_t* count) {
  if (!v) return fail(K100Q_ERR_ARG, "k100q_value_array: value is NULL");
  return guarded([&] {
    const Value& a = *as_value(v);
    if (elem_type) *elem_type = int(a.array_type());
    if (count) *count = a.size();
    return 0;
  });
}

K100Q_EXPORT int k100q_value_array_data(const k100q_value* v, const void** data, uint64_t* bytes) {
  if (!v || !data || !bytes) return fail(K100Q_ERR_ARG, "k100q_value_array_data: arguments must not be NULL");
  return guarded([&] {
    const auto b = as_value(v)->array_bytes();
    *data = b.data();
    *bytes = b.size();
    return 0;
  });
}

K100Q_EXPORT int k100q_value_array_string(const k100q_value* v, uint64_t i, const char** data, uint64_t* length) {
  if (!v || !data || !length) return fail(K100Q_ERR_ARG, "k100q_value_array_string: arguments must not be NULL");
  return guarded([&] {
    const auto& s = as_value(v)->strings();
    if (i >= s.size())
      return fail(K100Q_ERR_ARG, "k100q_value_array_string: index " + std::to_string(i) + " of " +
                                     std::to_string(s.size()));
    *data = s[i].data();
    *length = s[i].size();
    return 0;
  });
}

K100Q_EXPORT const k100q_value* k100q_value_array_item(const k100q_value* v, uint64_t i) {
  const Value* item = nullptr;
  guarded([&] {
    if (!v) return fail(K100Q_ERR_ARG, "k100q_value_array_item: value is NULL");
    const auto& items = as_value(v)->items();
    if (i >= items.size())
      return fail(K100Q_ERR_ARG, "k100q_value_array_item: index " + std::to_string(i) + " of " +
                                     std::to_string(items.size()));
    item = &items[i];
    return 0;
  });
  return to_handle(item);
}

K100Q_EXPORT int64_t k100q_tensor_count(const k100q_file* f) {
  if (!f) return fail(K100Q_ERR_ARG, "k100q_tensor_count: file is NULL");
  return int64_t(f->file.tensors().size());
}

namespace {
const TensorInfo* tensor_at(const k100q_file* f, int64_t index, const char* fn) {
  if (!f || index < 0 || uint64_t(index) >= f->file.tensors().size()) {
    fail(K100Q_ERR_ARG, std::string(fn) + ": no tensor " + std::to_string(index));
    return nullptr;
  }
  return &f->file.tensors()[size_t(index)];
}
}  // namespace

K100Q_EXPORT int k100q_tensor_info_at(const k100q_file* f, int64_t index, k100q_tensor_info* out) {
  const TensorInfo* t = tensor_at(f, index, "k100q_tensor_info_at");
  if (!t) return K100Q_ERR_ARG;
  if (!out) return fail(K100Q_ERR_ARG, "k100q_tensor_info_at: out is NULL");
  out->name = t->name.c_str();
  out->type = uint32_t(t->type);
  out->n_dims = uint32_t(t->dims.size());
  for (size_t i = 0; i < 4; ++i) out->dims[i] = i < t->dims.size() ? t->dims[i] : 1;
  out->offset = t->offset;
  out->file_offset = t->file_offset;
  out->size = t->size;
  out->elements = t->elements;
  return 0;
}

K100Q_EXPORT int64_t k100q_find_tensor(const k100q_file* f, const char* name) {
  if (!f || !name) return fail(K100Q_ERR_ARG, "k100q_find_tensor: file and name must not be NULL");
  const auto& ts = f->file.tensors();
  for (size_t i = 0; i < ts.size(); ++i)
    if (ts[i].name == name) return int64_t(i);
  return -1;
}

K100Q_EXPORT int k100q_tensor_data(const k100q_file* f, int64_t index, const void** data, uint64_t* bytes) {
  const TensorInfo* t = tensor_at(f, index, "k100q_tensor_data");
  if (!t) return K100Q_ERR_ARG;
  if (!data || !bytes) return fail(K100Q_ERR_ARG, "k100q_tensor_data: data and bytes must not be NULL");
  *data = f->file.bytes().data() + t->file_offset;
  *bytes = t->size;
  return 0;
}

K100Q_EXPORT int k100q_tensor_dequantize_rows(const k100q_file* f, int64_t index, uint64_t first_row,
                                              uint64_t row_count, float* out, uint64_t out_count) {
  const TensorInfo* t = tensor_at(f, index, "k100q_tensor_dequantize_rows");
  if (!t) return K100Q_ERR_ARG;
  if (!out && row_count) return fail(K100Q_ERR_ARG, "k100q_tensor_dequantize_rows: out is NULL");
  if (!traits(t->type).has_host_codec)
    return fail(K100Q_ERR_NOCODEC, f->file.path() + ": tensor '" + t->name + "': no host codec for type " +
                                       type_name(t->type));
  const uint64_t row = t->dims[0];
  if (row != 0 && row_count > out_count / row)
    return fail(K100Q_ERR_ARG, "k100q_tensor_dequantize_rows: " + std::to_string(row_count) + " rows of " +
                                   std::to_string(row) + " do not fit in " + std::to_string(out_count) + " floats");
  return guarded([&] {
    f->file.tensor(*t).dequantize_rows(first_row, row_count, out);
    return 0;
  });
}

K100Q_EXPORT int64_t k100q_row_bytes(uint32_t type, int64_t n) {
  const TypeTraits* t = find_type(type);
  if (!t) return fail(K100Q_ERR_ARG, "tensor type " + std::to_string(type) + " is not defined");
  if (n < 0) return fail(K100Q_ERR_ARG, "negative element count " + std::to_string(n));
  int64_t r = K100Q_ERR_ARG;
  guarded([&] {
    r = int64_t(row_bytes(t->type, uint64_t(n)));
    return 0;
  });
  return r;
}

namespace {
// Checks shared by k100q_dequantize and k100q_quantize.
int check_row(uint32_t type, int64_t n, uint64_t bytes, const char* fn) {
  const int64_t need = k100q_row_bytes(type, n);
  if (need < 0) return int(need);
  if (!find_type(type)->has_host_codec)
    return fail(K100Q_ERR_NOCODEC, std::string(fn) + ": no host codec for tensor type " + type_name(type));
  if (bytes < uint64_t(need))
    return fail(K100Q_ERR_ARG, std::string(fn) + ": " + std::to_string(n) + " " + type_name(type) +
                                   " elements need " + std::to_string(need) + " bytes, the buffer has " +
                                   std::to_string(bytes));
  return 0;
}
}  // namespace

K100Q_EXPORT int k100q_dequantize(uint32_t type, const void* src, uint64_t src_bytes, float* dst, int64_t n) {
  if (const int e = check_row(type, n, src_bytes, "k100q_dequantize")) return e;
  if ((!src || !dst) && n) return fail(K100Q_ERR_ARG, "k100q_dequantize: src and dst must not be NULL");
  return guarded([&] {
    dequantize_row(TensorType(type), src, dst, n);
    return 0;
  });
}

K100Q_EXPORT int k100q_quantize(uint32_t type, const float* src, int64_t n, void* dst, uint64_t dst_bytes) {
  if (const int e = check_row(type, n, dst_bytes, "k100q_quantize")) return e;
  if ((!src || !dst) && n) return fail(K100Q_ERR_ARG, "k100q_quantize: src and dst must not be NULL");
  return guarded([&] {
    quantize_row(TensorType(type), src, dst, n);
    return 0;
  });
}

K100Q_EXPORT int k100q_table(const char* name, const void** data, uint64_t* bytes) {
  if (!name || !data || !bytes) return fail(K100Q_ERR_ARG, "k100q_table: arguments must not be NULL");
  const auto b = table_bytes(name);
  if (b.empty()) return fail(K100Q_ERR_ARG, std::string("k100q_table: no table named '") + name + "'");
  *data = b.data();
  *bytes = b.size();
  return 0;
}

namespace {
// The layout of a matrix, or the error code (k100q_last_error set).
int layout_of(uint32_t type, int64_t rows, int64_t cols, const char* fn, GemvLayout* out) {
  if (!find_type(type)) return fail(K100Q_ERR_ARG, std::string(fn) + ": tensor type " + std::to_string(type) + " is not defined");
  if (!has_gemv_layout(TensorType(type)))
    return fail(K100Q_ERR_ARG, std::string(fn) + ": tensor type " + type_name(type) + " has no fast GEMV");
  const int e = guarded([&] {
    *out = gemv_layout(TensorType(type), rows, cols);
    return 0;
  });
  return e ? K100Q_ERR_ARG : 0;
}
}  // namespace

K100Q_EXPORT int64_t k100q_gemv_layout_bytes(uint32_t type, int64_t rows, int64_t cols) {
  GemvLayout l;
  if (const int e = layout_of(type, rows, cols, "k100q_gemv_layout_bytes", &l)) return e;
  return l.bytes();
}

K100Q_EXPORT int k100q_repack_for_gemv(uint32_t type, int64_t rows, int64_t cols, const void* src, uint64_t src_bytes,
                                       void* dst, uint64_t dst_bytes) {
  GemvLayout l;
  if (const int e = layout_of(type, rows, cols, "k100q_repack_for_gemv", &l)) return e;
  const uint64_t want = uint64_t(rows) * uint64_t(l.blocks_per_row) * uint64_t(l.block_bytes);
  if (src_bytes != want)
    return fail(K100Q_ERR_ARG, "k100q_repack_for_gemv: a " + std::to_string(rows) + " x " + std::to_string(cols) + " " +
                                   type_name(type) + " matrix has " + std::to_string(want) + " bytes, not " +
                                   std::to_string(src_bytes));
  if (dst_bytes < uint64_t(l.bytes()))
    return fail(K100Q_ERR_ARG, "k100q_repack_for_gemv: the layout takes " + std::to_string(l.bytes()) +
                                   " bytes, the buffer has " + std::to_string(dst_bytes));
  if (!src || !dst) return fail(K100Q_ERR_ARG, "k100q_repack_for_gemv: src and dst must not be NULL");
  return guarded([&] {
    repack_for_gemv(l, src, dst);
    return 0;
  });
}
