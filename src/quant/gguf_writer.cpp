#include "k100/quant/gguf_writer.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "k100/base/error.h"
#include "k100/quant/codec.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/tensor_view.h"

namespace k100::quant {
namespace {

// ggml keeps tensor names in a 64-byte buffer with a terminating NUL.
constexpr size_t kMaxTensorName = 63;

class ByteSink {
 public:
  explicit ByteSink(std::vector<uint8_t>& out) : out_(out) {}
  template <class T>
  void put(T v) {
    const size_t at = out_.size();
    out_.resize(at + sizeof v);
    std::memcpy(out_.data() + at, &v, sizeof v);
  }
  void put_bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void pad_to(uint64_t alignment) { out_.resize(out_.size() + (alignment - out_.size() % alignment) % alignment, 0); }
  size_t size() const { return out_.size(); }

 private:
  std::vector<uint8_t>& out_;
};

void put_value(ByteSink& s, const Value& v);

// An array's body (element type, count, elements); nested arrays recurse.
void put_array_body(ByteSink& s, const Value& v) {
  s.put<uint32_t>(uint32_t(v.array_type()));
  s.put<uint64_t>(v.size());
  if (v.array_type() == ValueType::String)
    for (const std::string& str : v.strings()) s.put_string(str);
  else if (v.array_type() == ValueType::Array)
    for (const Value& item : v.items()) put_array_body(s, item);
  else
    s.put_bytes(v.array_bytes());
}

void put_value(ByteSink& s, const Value& v) {
  if (v.type() == ValueType::String) s.put_string(v.as_string());
  else if (v.is_array()) put_array_body(s, v);
  else s.put_bytes(v.scalar_bytes());
}

int array_depth(const Value& v) {
  if (!v.is_array() || v.array_type() != ValueType::Array) return v.is_array() ? 1 : 0;
  int d = 0;
  for (const Value& item : v.items()) d = std::max(d, array_depth(item));
  return d + 1;
}

}  // namespace

GgufWriter::GgufWriter(uint32_t version) : version_(version) {
  if (version != 2 && version != 3)
    throw Error("GGUF writer: version " + std::to_string(version) + " is not supported (2 or 3)");
}

void GgufWriter::set_alignment(uint32_t alignment) {
  if (alignment == 0 || !std::has_single_bit(alignment))
    throw Error("GGUF writer: alignment " + std::to_string(alignment) + " is not a power of two");
  for (KeyValue& kv : kv_)
    if (kv.key == kGgufAlignmentKey) {
      kv.value = Value::of(alignment);
      return;
    }
  kv_.push_back({kGgufAlignmentKey, Value::of(alignment)});
}

uint32_t GgufWriter::alignment() const {
  for (const KeyValue& kv : kv_)
    if (kv.key == kGgufAlignmentKey) return kv.value.get<uint32_t>();
  return kGgufDefaultAlignment;
}

void GgufWriter::add(std::string key, Value value) {
  if (key.empty()) throw Error("GGUF writer: a metadata key must not be empty");
  for (const KeyValue& kv : kv_)
    if (kv.key == key) throw Error("GGUF writer: metadata key '" + key + "' is already set");
  if (array_depth(value) > kGgufMaxArrayDepth)
    throw Error("GGUF writer: key '" + key + "': arrays nested deeper than " + std::to_string(kGgufMaxArrayDepth) +
                " levels");
  if (key == kGgufAlignmentKey) {
    if (value.type() != ValueType::U32) throw Error("GGUF writer: key '" + key + "' must be a u32");
    set_alignment(value.get<uint32_t>());
    return;
  }
  kv_.push_back({std::move(key), std::move(value)});
}

void GgufWriter::add_tensor(std::string name, TensorType type, std::vector<uint64_t> dims,
                            std::vector<uint8_t> bytes) {
  const std::string what = "GGUF writer: tensor '" + name + "'";
  if (name.empty() || name.size() > kMaxTensorName)
    throw Error(what + ": names must have 1 to " + std::to_string(kMaxTensorName) + " bytes");
  for (const Tensor& t : tensors_)
    if (t.name == name) throw Error(what + " is already added");
  if (dims.empty() || dims.size() > kGgufMaxDims)
    throw Error(what + ": " + std::to_string(dims.size()) + " dimensions (1 to " + std::to_string(kGgufMaxDims) +
                " are allowed)");
  const uint64_t want = tensor_bytes(type, dims, what);
  if (bytes.size() != want)
    throw Error(what + ": " + std::to_string(bytes.size()) + " bytes given, " + type_name(type) + " " +
                format_dims(dims) + " needs " + std::to_string(want));
  tensors_.push_back({std::move(name), type, std::move(dims), std::move(bytes)});
}

void GgufWriter::add_tensor_from_f32(std::string name, TensorType type, std::vector<uint64_t> dims,
                                     std::span<const float> values) {
  const uint64_t bytes = tensor_bytes(type, dims, "GGUF writer: tensor '" + name + "'");
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  if (values.size() != n)
    throw Error("GGUF writer: tensor '" + name + "': " + std::to_string(values.size()) + " values given, shape " +
                format_dims(dims) + " has " + std::to_string(n));
  std::vector<uint8_t> data(bytes);
  quantize_row(type, values.data(), data.data(), int64_t(n));
  add_tensor(std::move(name), type, std::move(dims), std::move(data));
}

std::vector<uint8_t> GgufWriter::bytes() const {
  const uint32_t align = alignment();
  std::vector<uint8_t> out;
  ByteSink s(out);
  s.put<uint32_t>(kGgufMagic);
  s.put<uint32_t>(version_);
  s.put<uint64_t>(tensors_.size());
  s.put<uint64_t>(kv_.size());
  for (const KeyValue& kv : kv_) {
    s.put_string(kv.key);
    s.put<uint32_t>(uint32_t(kv.value.type()));
    put_value(s, kv.value);
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    s.put_string(t.name);
    s.put<uint32_t>(uint32_t(t.dims.size()));
    for (uint64_t d : t.dims) s.put<uint64_t>(d);
    s.put<uint32_t>(uint32_t(t.type));
    s.put<uint64_t>(offset);
    offset += t.bytes.size() + (align - t.bytes.size() % align) % align;
  }
  s.pad_to(align);
  for (const Tensor& t : tensors_) {
    s.put_bytes(t.bytes);
    s.pad_to(align);
  }
  return out;
}

void GgufWriter::write(const std::string& path) const {
  const std::vector<uint8_t> data = bytes();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot create: " + std::strerror(errno));
  const size_t n = data.empty() ? 0 : std::fwrite(data.data(), 1, data.size(), f);
  const int e = errno;
  const bool closed = std::fclose(f) == 0;
  if (n != data.size() || !closed)
    throw Error(path + ": cannot write " + std::to_string(data.size()) + " bytes: " + std::strerror(e));
}

}  // namespace k100::quant
