// The GGUF parser. Layout (all little-endian):
//   magic "GGUF", u32 version, u64 tensor_count, u64 kv_count,
//   kv_count x (string key, u32 value type, value),
//   tensor_count x (string name, u32 n_dims, u64 dims[n_dims], u32 type, u64 offset),
//   padding to the alignment, the data section.
// A string is a u64 length and that many bytes; an array is a u32 element
// type, a u64 count and the elements.
#include "k100/quant/gguf_reader.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <map>

#include "k100/base/error.h"
#include "mapped_file.h"

namespace k100::quant {
namespace {

// Smallest encodings, used to reject counts the remaining bytes cannot hold
// before anything is allocated for them.
constexpr uint64_t kMinKeyValueBytes = 8 + 1 + 4 + 1;     // key length, 1-byte key, type, u8 value
constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8;  // name length, n_dims, one dim, type, offset

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

// Reads forward through the file; every read is bounds-checked and a
// failure names the file, the byte offset and what was being read.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, const std::string& file) : bytes_(bytes), file_(file) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  [[noreturn]] void fail(uint64_t at, const std::string& msg) const {
    throw Error(file_ + ": byte " + std::to_string(at) + ": " + msg);
  }

  void need(uint64_t n, const std::string& what) const {
    if (n > remaining())
      fail(pos_, what + " needs " + std::to_string(n) + " bytes but only " + std::to_string(remaining()) +
                     " are left (truncated file, size " + std::to_string(bytes_.size()) + ")");
  }

  template <class T>
  T read(const std::string& what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  std::span<const uint8_t> take(uint64_t n, const std::string& what) {
    need(n, what);
    auto s = bytes_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

  std::string read_string(const std::string& what) {
    const uint64_t at = pos_;
    const uint64_t len = read<uint64_t>(what + " length");
    if (len > remaining())
      fail(at, what + ": length " + std::to_string(len) + " is longer than the " + std::to_string(remaining()) +
                   " bytes left in the file");
    const auto s = take(len, what);
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }

 private:
  std::span<const uint8_t> bytes_;
  const std::string& file_;
  uint64_t pos_ = 0;
};

bool valid_value_type(uint32_t t) { return t <= uint32_t(ValueType::F64); }

// The smallest number of bytes one element of an array of `t` takes.
uint64_t min_element_bytes(ValueType t) {
  if (t == ValueType::String) return 8;
  if (t == ValueType::Array) return 4 + 8;
  return value_type_size(t);
}

Value read_value(Cursor& c, uint32_t type, int depth, const std::string& what);

Value read_array(Cursor& c, int depth, const std::string& what) {
  const uint64_t at = c.pos();
  const uint32_t elem_code = c.read<uint32_t>(what + " element type");
  if (!valid_value_type(elem_code)) c.fail(at, what + ": unknown array element type " + std::to_string(elem_code));
  const auto elem = ValueType(elem_code);
  if (elem == ValueType::Array && depth + 1 >= kGgufMaxArrayDepth)
    c.fail(at, what + ": arrays nested deeper than " + std::to_string(kGgufMaxArrayDepth) + " levels");
  const uint64_t count = c.read<uint64_t>(what + " element count");
  if (count > c.remaining() / min_element_bytes(elem))
    c.fail(at, what + ": an array of " + std::to_string(count) + " " + value_type_name(elem) +
                   " elements cannot fit in the " + std::to_string(c.remaining()) + " bytes left");
  if (elem == ValueType::String) {
    std::vector<std::string> items;
    items.reserve(count);
    for (uint64_t i = 0; i < count; ++i) items.push_back(c.read_string(what + " element " + std::to_string(i)));
    return Value::string_array(std::move(items));
  }
  if (elem == ValueType::Array) {
    std::vector<Value> items;
    items.reserve(count);
    for (uint64_t i = 0; i < count; ++i)
      items.push_back(read_value(c, uint32_t(ValueType::Array), depth + 1, what + " element " + std::to_string(i)));
    return Value::array_of(std::move(items));
  }
  const uint64_t data_at = c.pos();
  const auto raw = c.take(count * value_type_size(elem), what + " elements");
  if (elem == ValueType::Bool)
    for (uint64_t i = 0; i < count; ++i)
      if (raw[i] > 1)
        c.fail(data_at + i, what + " element " + std::to_string(i) + ": bool value " + std::to_string(raw[i]) +
                                " is neither 0 nor 1");
  return Value::raw_array(elem, count, std::vector<uint8_t>(raw.begin(), raw.end()));
}

Value read_value(Cursor& c, uint32_t type, int depth, const std::string& what) {
  const uint64_t at = c.pos();
  switch (ValueType(type)) {
    case ValueType::U8: return Value::of(c.read<uint8_t>(what));
    case ValueType::I8: return Value::of(c.read<int8_t>(what));
    case ValueType::U16: return Value::of(c.read<uint16_t>(what));
    case ValueType::I16: return Value::of(c.read<int16_t>(what));
    case ValueType::U32: return Value::of(c.read<uint32_t>(what));
    case ValueType::I32: return Value::of(c.read<int32_t>(what));
    case ValueType::F32: return Value::of(c.read<float>(what));
    case ValueType::U64: return Value::of(c.read<uint64_t>(what));
    case ValueType::I64: return Value::of(c.read<int64_t>(what));
    case ValueType::F64: return Value::of(c.read<double>(what));
    case ValueType::Bool: {
      const uint8_t v = c.read<uint8_t>(what);
      if (v > 1) c.fail(at, what + ": bool value " + std::to_string(v) + " is neither 0 nor 1");
      return Value::of(v == 1);
    }
    case ValueType::String: return Value::string(c.read_string(what));
    case ValueType::Array: return read_array(c, depth, what);
  }
  c.fail(at, what + ": unknown value type " + std::to_string(type));
}

std::string quoted_name(const std::string& s) {
  std::string out = "'";
  for (char ch : s.substr(0, 120)) out += (static_cast<unsigned char>(ch) < 0x20) ? '?' : ch;
  return out + (s.size() > 120 ? "...'" : "'");
}

}  // namespace

struct GgufFile::State {
  std::string path;
  detail::MappedFile map;
  std::span<const uint8_t> bytes;
  uint32_t version = 0;
  uint32_t alignment = kGgufDefaultAlignment;
  uint64_t data_offset = 0;
  std::vector<KeyValue> kv;
  std::vector<TensorInfo> tensors;
  std::map<std::string, size_t, std::less<>> kv_index, tensor_index;

  void parse();
  void parse_header(Cursor& c, uint64_t* tensor_count, uint64_t* kv_count);
  void parse_metadata(Cursor& c, uint64_t kv_count);
  void parse_alignment();
  void parse_tensor_infos(Cursor& c, uint64_t tensor_count);
  void check_placement(uint64_t header_end);
};

void GgufFile::State::parse_header(Cursor& c, uint64_t* tensor_count, uint64_t* kv_count) {
  if (bytes.size() < 4) c.fail(0, "not a GGUF file: " + std::to_string(bytes.size()) + " bytes, too short for the magic");
  const uint32_t magic = c.read<uint32_t>("magic");
  if (magic != kGgufMagic) {
    std::string shown;
    for (int i = 0; i < 4; ++i) {
      const char ch = char((magic >> (8 * i)) & 0xff);
      shown += (ch >= 0x20 && ch < 0x7f) ? ch : '.';
    }
    c.fail(0, "not a GGUF file: the magic is '" + shown + "' (" + hex(magic) + "), expected 'GGUF'");
  }
  version = c.read<uint32_t>("version");
  if (version != 2 && version != 3) {
    const uint32_t swapped = __builtin_bswap32(version);
    if (swapped == 2 || swapped == 3)
      c.fail(4, "big-endian GGUF (version field " + hex(version) + ") is not supported");
    if (version == 1) c.fail(4, "GGUF version 1 is not supported (versions 2 and 3 are)");
    c.fail(4, "unsupported GGUF version " + std::to_string(version) + " (versions 2 and 3 are supported)");
  }
  *tensor_count = c.read<uint64_t>("tensor count");
  *kv_count = c.read<uint64_t>("metadata count");
  if (*kv_count > c.remaining() / kMinKeyValueBytes)
    c.fail(16, "metadata count " + std::to_string(*kv_count) + " cannot fit in the " +
                   std::to_string(c.remaining()) + " bytes after the header");
  if (*tensor_count > c.remaining() / kMinTensorInfoBytes)
    c.fail(8, "tensor count " + std::to_string(*tensor_count) + " cannot fit in the " +
                  std::to_string(c.remaining()) + " bytes after the header");
}

void GgufFile::State::parse_metadata(Cursor& c, uint64_t kv_count) {
  kv.reserve(kv_count);
  for (uint64_t i = 0; i < kv_count; ++i) {
    const uint64_t at = c.pos();
    std::string key = c.read_string("metadata key " + std::to_string(i));
    if (key.empty()) c.fail(at, "metadata key " + std::to_string(i) + " is empty");
    const std::string what = "key " + quoted_name(key);
    if (auto it = kv_index.find(key); it != kv_index.end())
      c.fail(at, what + " appears twice (entries " + std::to_string(it->second) + " and " + std::to_string(i) + ")");
    const uint64_t type_at = c.pos();
    const uint32_t type = c.read<uint32_t>(what + " value type");
    if (!valid_value_type(type)) c.fail(type_at, what + ": unknown value type " + std::to_string(type));
    Value v = read_value(c, type, 0, what);
    kv_index.emplace(key, kv.size());
    kv.push_back({std::move(key), std::move(v)});
  }
}

void GgufFile::State::parse_alignment() {
  auto it = kv_index.find(kGgufAlignmentKey);
  if (it == kv_index.end()) return;
  const Value& v = kv[it->second].value;
  const std::string what = path + ": key '" + kGgufAlignmentKey + "'";
  if (v.type() != ValueType::U32) throw Error(what + " must be a u32, it is a " + value_type_name(v.type()));
  alignment = v.get<uint32_t>();
  if (alignment == 0 || !std::has_single_bit(alignment))
    throw Error(what + ": alignment " + std::to_string(alignment) + " is not a power of two");
}

void GgufFile::State::parse_tensor_infos(Cursor& c, uint64_t tensor_count) {
  if (tensor_count > c.remaining() / kMinTensorInfoBytes)
    c.fail(c.pos(), "tensor count " + std::to_string(tensor_count) + " cannot fit in the " +
                        std::to_string(c.remaining()) + " bytes left for tensor infos");
  tensors.reserve(tensor_count);
  for (uint64_t i = 0; i < tensor_count; ++i) {
    TensorInfo t;
    t.info_offset = c.pos();
    t.name = c.read_string("tensor " + std::to_string(i) + " name");
    const std::string what = "tensor " + quoted_name(t.name);
    if (auto it = tensor_index.find(t.name); it != tensor_index.end())
      c.fail(t.info_offset, what + " appears twice (tensors " + std::to_string(it->second) + " and " +
                                std::to_string(i) + ")");
    const uint64_t dims_at = c.pos();
    const uint32_t n_dims = c.read<uint32_t>(what + " dimension count");
    if (n_dims == 0 || n_dims > kGgufMaxDims)
      c.fail(dims_at, what + " has " + std::to_string(n_dims) + " dimensions (1 to " + std::to_string(kGgufMaxDims) +
                          " are allowed)");
    for (uint32_t d = 0; d < n_dims; ++d) {
      const uint64_t at = c.pos();
      t.dims.push_back(c.read<uint64_t>(what + " dimension " + std::to_string(d)));
      if (t.dims.back() > uint64_t(INT64_MAX))
        c.fail(at, what + " dimension " + std::to_string(d) + " is " + std::to_string(t.dims.back()) + " (over 2^63)");
    }
    const uint64_t type_at = c.pos();
    const uint32_t type = c.read<uint32_t>(what + " type");
    const TypeTraits* tt = find_type(type);
    if (!tt) c.fail(type_at, what + " has unknown tensor type " + std::to_string(type));
    t.type = tt->type;
    const uint64_t offset_at = c.pos();
    t.offset = c.read<uint64_t>(what + " data offset");
    try {
      t.size = tensor_bytes(t.type, t.dims, what);
    } catch (const Error& e) {
      c.fail(dims_at, e.what());
    }
    t.elements = 1;
    for (uint64_t d : t.dims) t.elements *= d;  // fits: tensor_bytes checked it
    if (t.offset % alignment != 0)
      c.fail(offset_at, what + " data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                            std::to_string(alignment) + " (misaligned tensor)");
    tensor_index.emplace(t.name, tensors.size());
    tensors.push_back(std::move(t));
  }
}

void GgufFile::State::check_placement(uint64_t header_end) {
  const uint64_t size = bytes.size();
  data_offset = header_end + (alignment - header_end % alignment) % alignment;  // no overflow: header_end <= size
  for (TensorInfo& t : tensors) {
    const std::string what = path + ": tensor " + quoted_name(t.name) + " (info at byte " +
                             std::to_string(t.info_offset) + ")";
    if (t.offset > size || data_offset > size - t.offset)
      throw Error(what + ": data offset " + std::to_string(t.offset) + " starts past the end of the file (data " +
                  "section at byte " + std::to_string(data_offset) + ", file size " + std::to_string(size) + ")");
    t.file_offset = data_offset + t.offset;
    if (t.size > size - t.file_offset)
      throw Error(what + ": its " + std::to_string(t.size) + " bytes at byte " + std::to_string(t.file_offset) +
                  " end at byte " + std::to_string(t.file_offset + t.size) + ", past the end of the file (size " +
                  std::to_string(size) + ")");
  }
  std::vector<const TensorInfo*> order;
  for (const TensorInfo& t : tensors)
    if (t.size > 0) order.push_back(&t);
  std::sort(order.begin(), order.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->file_offset < b->file_offset; });
  for (size_t i = 1; i < order.size(); ++i) {
    const TensorInfo& a = *order[i - 1];
    const TensorInfo& b = *order[i];
    if (b.file_offset < a.file_offset + a.size)
      throw Error(path + ": tensors " + quoted_name(a.name) + " (bytes " + std::to_string(a.file_offset) + " to " +
                  std::to_string(a.file_offset + a.size) + ") and " + quoted_name(b.name) + " (bytes " +
                  std::to_string(b.file_offset) + " to " + std::to_string(b.file_offset + b.size) + ") overlap");
  }
}

void GgufFile::State::parse() {
  Cursor c(bytes, path);
  uint64_t tensor_count = 0, kv_count = 0;
  parse_header(c, &tensor_count, &kv_count);
  parse_metadata(c, kv_count);
  parse_alignment();
  parse_tensor_infos(c, tensor_count);
  check_placement(c.pos());
}

GgufFile::GgufFile(std::unique_ptr<State> s) : s_(std::move(s)) {}
GgufFile::GgufFile(GgufFile&&) noexcept = default;
GgufFile& GgufFile::operator=(GgufFile&&) noexcept = default;
GgufFile::~GgufFile() = default;

GgufFile GgufFile::open(const std::string& path) {
  auto s = std::make_unique<State>();
  s->path = path;
  s->map = detail::MappedFile(path);
  s->bytes = s->map.bytes();
  s->parse();
  return GgufFile(std::move(s));
}

GgufFile GgufFile::parse(std::span<const uint8_t> bytes, std::string name) {
  auto s = std::make_unique<State>();
  s->path = std::move(name);
  s->bytes = bytes;
  s->parse();
  return GgufFile(std::move(s));
}

const std::string& GgufFile::path() const { return s_->path; }
uint32_t GgufFile::version() const { return s_->version; }
uint32_t GgufFile::alignment() const { return s_->alignment; }
uint64_t GgufFile::data_offset() const { return s_->data_offset; }
uint64_t GgufFile::file_size() const { return s_->bytes.size(); }
const std::vector<KeyValue>& GgufFile::metadata() const { return s_->kv; }
const std::vector<TensorInfo>& GgufFile::tensors() const { return s_->tensors; }
std::span<const uint8_t> GgufFile::bytes() const { return s_->bytes; }

const Value* GgufFile::find(std::string_view key) const {
  auto it = s_->kv_index.find(key);
  return it == s_->kv_index.end() ? nullptr : &s_->kv[it->second].value;
}

const Value& GgufFile::at(std::string_view key) const {
  if (const Value* v = find(key)) return *v;
  throw Error(s_->path + ": no metadata key '" + std::string(key) + "'");
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = s_->tensor_index.find(name);
  return it == s_->tensor_index.end() ? nullptr : &s_->tensors[it->second];
}

TensorView GgufFile::tensor(const TensorInfo& t) const {
  return TensorView{t.name, t.type, t.dims, s_->bytes.subspan(t.file_offset, t.size)};
}

TensorView GgufFile::tensor(std::string_view name) const {
  if (const TensorInfo* t = find_tensor(name)) return tensor(*t);
  throw Error(s_->path + ": no tensor '" + std::string(name) + "'");
}

}  // namespace k100::quant
