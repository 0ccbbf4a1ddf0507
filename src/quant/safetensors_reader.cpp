// The safetensors parser: the header length, the JSON header, then every
// tensor's dtype, shape and offsets checked against the data that is there.
#include "k100/quant/safetensors_reader.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "k100/base/error.h"
#include "k100/quant/json_document.h"
#include "mapped_file.h"

namespace k100::quant {
namespace {

using D = SafetensorsDtype;
using T = TensorType;

constexpr SafetensorsDtypeInfo kDtypes[] = {
    {D::BOOL, "BOOL", 1, std::nullopt},     {D::U8, "U8", 1, std::nullopt},
    {D::I8, "I8", 1, T::I8},                {D::F8_E4M3, "F8_E4M3", 1, std::nullopt},
    {D::F8_E5M2, "F8_E5M2", 1, std::nullopt}, {D::I16, "I16", 2, T::I16},
    {D::U16, "U16", 2, std::nullopt},       {D::F16, "F16", 2, T::F16},
    {D::BF16, "BF16", 2, T::BF16},          {D::I32, "I32", 4, T::I32},
    {D::U32, "U32", 4, std::nullopt},       {D::F32, "F32", 4, T::F32},
    {D::I64, "I64", 8, T::I64},             {D::U64, "U64", 8, std::nullopt},
    {D::F64, "F64", 8, T::F64},
};

std::string dtype_list() {
  std::string s;
  for (const auto& d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

}  // namespace

const SafetensorsDtypeInfo& dtype_info(SafetensorsDtype d) {
  for (const auto& i : kDtypes)
    if (i.dtype == d) return i;
  throw Error("safetensors dtype " + std::to_string(int(d)) + " is not defined");
}

std::optional<SafetensorsDtype> safetensors_dtype(std::string_view name) {
  for (const auto& i : kDtypes)
    if (name == i.name) return i.dtype;
  return std::nullopt;
}

std::string format_shape(std::span<const uint64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string SafetensorsTensor::describe() const {
  return std::string(dtype_info(dtype).name) + " " + format_shape(shape);
}

std::vector<uint64_t> gguf_dims(const SafetensorsTensor& t) {
  if (t.shape.empty()) return {1};
  return std::vector<uint64_t>(t.shape.rbegin(), t.shape.rend());
}

struct SafetensorsFile::State {
  std::string path;
  detail::MappedFile map;
  std::span<const uint8_t> bytes;
  uint64_t header = 0;
  std::vector<SafetensorsTensor> tensors;
  std::unordered_map<std::string, size_t> index;
  std::map<std::string, std::string> metadata;
};

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& msg) { throw Error(file + ": " + msg); }

uint64_t shape_elements(const std::string& file, const std::string& name, const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d && n > UINT64_MAX / d)
      fail(file, "tensor '" + name + "': shape " + format_shape(shape) + " has more elements than 64 bits count");
    n *= d;
  }
  return n;
}

SafetensorsTensor read_entry(const std::string& file, const std::string& name, const Json& v) {
  const JsonObject o(v, file, name);
  SafetensorsTensor t;
  t.name = name;
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets")
      o.fail(it.key(), "is not a field of a safetensors tensor (dtype, shape, data_offsets)");
  const std::string dtype = o.string("dtype");
  const auto d = safetensors_dtype(dtype);
  if (!d) fail(file, "tensor '" + name + "': unknown dtype '" + dtype + "' (known: " + dtype_list() + ")");
  t.dtype = *d;
  for (int64_t x : o.integers("shape")) {
    if (x < 0) fail(file, "tensor '" + name + "': negative dimension " + std::to_string(x) + " in its shape");
    t.shape.push_back(uint64_t(x));
  }
  const std::vector<int64_t> off = o.integers("data_offsets");
  if (off.size() != 2)
    fail(file, "tensor '" + name + "': data_offsets has " + std::to_string(off.size()) + " entries, expected 2");
  if (off[0] < 0 || off[1] < off[0])
    fail(file, "tensor '" + name + "': data_offsets [" + std::to_string(off[0]) + ", " + std::to_string(off[1]) +
                   "] is not a range (begin <= end, both non-negative)");
  t.begin = uint64_t(off[0]);
  t.end = uint64_t(off[1]);
  t.elements = shape_elements(file, name, t.shape);
  const uint64_t esize = dtype_info(t.dtype).bytes;
  if (t.elements > UINT64_MAX / esize || t.elements * esize != t.size())
    fail(file, "tensor '" + name + "': " + t.describe() + " takes " +
                   (t.elements > UINT64_MAX / esize ? std::string("more than 2^64") : std::to_string(t.elements * esize)) +
                   " bytes but its data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] hold " +
                   std::to_string(t.size()) + " (dtype/shape mismatch)");
  return t;
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  detail::MappedFile map(path);
  const auto bytes = map.bytes();
  SafetensorsFile f = parse(bytes, path);
  f.s_->map = std::move(map);
  return f;
}

SafetensorsFile SafetensorsFile::parse(std::span<const uint8_t> bytes, std::string name) {
  auto s = std::make_unique<State>();
  s->path = std::move(name);
  s->bytes = bytes;
  const std::string& file = s->path;
  if (bytes.size() < 8)
    fail(file, "truncated: " + std::to_string(bytes.size()) + " bytes, fewer than the 8-byte header length");
  uint64_t h;
  std::memcpy(&h, bytes.data(), 8);
  if (h > bytes.size() - 8)
    fail(file, "the header length " + std::to_string(h) + " runs past the end of the file (" +
                   std::to_string(bytes.size() - 8) + " bytes follow it; truncated file or not safetensors)");
  if (h > kSafetensorsMaxHeader)
    fail(file, "the header length " + std::to_string(h) + " exceeds the " + std::to_string(kSafetensorsMaxHeader) +
                   " bytes a header may take");
  if (h < 2) fail(file, "the header length " + std::to_string(h) + " is too short for a JSON object");
  s->header = h;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), size_t(h));
  if (text.front() != '{') fail(file, "the header does not start with '{' (not a safetensors file)");
  const Json header = parse_json(text, file + " (header)");
  if (!header.is_object()) fail(file, "the header is not a JSON object");

  const uint64_t data_size = bytes.size() - 8 - h;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) fail(file, "'__metadata__' is " + std::string(json_kind(*it)) + ", expected an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string())
          fail(file, "'__metadata__." + m.key() + "' is " + json_kind(*m) + ", expected a string");
        s->metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    SafetensorsTensor t = read_entry(file, it.key(), *it);
    if (t.end > data_size)
      fail(file, "tensor '" + t.name + "': data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                     "] run past the end of the " + std::to_string(data_size) + " data bytes (offset out of range)");
    t.file_offset = 8 + h + t.begin;
    s->index.emplace(t.name, s->tensors.size());
    s->tensors.push_back(std::move(t));
  }

  // Every data byte belongs to exactly one tensor: sorted by offset, each
  // tensor starts where the one before ends (no overlap, no hole) and the
  // last ends at the end of the file.
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : s->tensors) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const SafetensorsTensor* a, const SafetensorsTensor* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t at = 0;
  const SafetensorsTensor* prev = nullptr;
  for (const SafetensorsTensor* t : order) {
    if (t->begin < at)
      fail(file, "tensors '" + prev->name + "' [" + std::to_string(prev->begin) + ", " + std::to_string(prev->end) +
                     ") and '" + t->name + "' [" + std::to_string(t->begin) + ", " + std::to_string(t->end) +
                     ") overlap");
    if (t->begin > at)
      fail(file, "data bytes [" + std::to_string(at) + ", " + std::to_string(t->begin) +
                     ") belong to no tensor (a hole before '" + t->name + "')");
    at = t->end;
    if (t->size()) prev = t;
    else if (!prev) prev = t;
  }
  if (at != data_size)
    fail(file, "data bytes [" + std::to_string(at) + ", " + std::to_string(data_size) +
                   ") after the last tensor belong to no tensor");
  return SafetensorsFile(std::move(s));
}

SafetensorsFile::SafetensorsFile(std::unique_ptr<State> s) : s_(std::move(s)) {}
SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

const std::string& SafetensorsFile::path() const { return s_->path; }
uint64_t SafetensorsFile::header_size() const { return s_->header; }
uint64_t SafetensorsFile::data_offset() const { return 8 + s_->header; }
uint64_t SafetensorsFile::file_size() const { return s_->bytes.size(); }
const std::vector<SafetensorsTensor>& SafetensorsFile::tensors() const { return s_->tensors; }
const std::map<std::string, std::string>& SafetensorsFile::metadata() const { return s_->metadata; }

const SafetensorsTensor* SafetensorsFile::find(std::string_view name) const {
  auto it = s_->index.find(std::string(name));
  return it == s_->index.end() ? nullptr : &s_->tensors[it->second];
}

const SafetensorsTensor& SafetensorsFile::at(std::string_view name) const {
  const SafetensorsTensor* t = find(name);
  if (!t) fail(s_->path, "no tensor '" + std::string(name) + "'");
  return *t;
}

std::span<const uint8_t> SafetensorsFile::bytes(const SafetensorsTensor& t) const {
  return s_->bytes.subspan(t.file_offset, t.size());
}

TensorView SafetensorsFile::view(const SafetensorsTensor& t) const {
  const auto& info = dtype_info(t.dtype);
  if (!info.tensor_type)
    fail(s_->path, "tensor '" + t.name + "' has dtype " + info.name + ", which has no plain tensor type");
  return TensorView{t.name, *info.tensor_type, gguf_dims(t), bytes(t)};
}

}  // namespace k100::quant
