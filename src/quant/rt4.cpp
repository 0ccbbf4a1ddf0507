#include "k100/quant/rt4.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "k100/base/error.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/half.h"
#include "k100/quant/json_document.h"
#include "mapped_file.h"

namespace k100::quant {

namespace fs = std::filesystem;

struct Rt4File::State {
  std::string path, manifest;
  detail::MappedFile map;
  int64_t group = 128;
  std::vector<Rt4Tensor> tensors;
  std::unordered_map<std::string, size_t> index;
};

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

uint64_t unsigned_field(const JsonObject& o, const char* key) {
  const int64_t v = o.integer(key);
  if (v < 0) o.fail(key, "is negative");
  return uint64_t(v);
}

Rt4Tensor read_tensor(const Json& v, const std::string& where, size_t i, int64_t default_group) {
  const JsonObject o(v, where, "tensors[" + std::to_string(i) + "]");
  Rt4Tensor t;
  t.name = o.string("name");
  t.kind = o.string("kind");
  const std::vector<int64_t> shape = o.integers("shape");
  if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0) o.fail("shape", "must be [N, K] with both positive");
  t.n = shape[0];
  t.k = shape[1];
  t.group = o.optional_integer("group").value_or(default_group);
  if (t.group <= 0) o.fail("group", "must be positive");
  t.q_off = unsigned_field(o, "q_off");
  t.s_off = o.has("s_off") ? unsigned_field(o, "s_off") : 0;
  t.nbytes = o.has("nbytes") ? unsigned_field(o, "nbytes") : 0;
  t.src_type = o.optional_string("src_type").value_or("");
  return t;
}

struct Region {
  uint64_t begin, end;
  const Rt4Tensor* t;
  const char* what;
};

}  // namespace

Rt4File Rt4File::open(const std::string& path) {
  if (!ends_with(path, ".rt4")) throw Error(path + ": an RT4 weight file name ends in .rt4");
  auto s = std::make_unique<State>();
  s->path = path;
  std::error_code ec;
  const std::string first = path + ".json", second = path.substr(0, path.size() - 4) + ".json";
  if (fs::exists(first, ec)) s->manifest = first;
  else if (fs::exists(second, ec)) s->manifest = second;
  else throw Error(path + ": no manifest (" + first + " or " + second + ")");
  const Json doc = read_json_file(s->manifest);
  const JsonObject top(doc, s->manifest);
  const std::string format = top.string("format");
  if (format != kRt4Format) top.fail("format", "is '" + format + "', expected '" + kRt4Format + "'");
  s->group = top.optional_integer("group").value_or(128);
  if (s->group <= 0) top.fail("group", "must be positive");
  const Json& list = top.at("tensors");
  if (!list.is_array()) top.fail("tensors", std::string("is ") + json_kind(list) + ", expected an array");
  for (size_t i = 0; i < list.size(); ++i) {
    Rt4Tensor t = read_tensor(list[i], s->manifest, i, s->group);
    if (!s->index.emplace(t.name, s->tensors.size()).second)
      throw Error(s->manifest + ": tensor '" + t.name + "' is listed twice");
    s->tensors.push_back(std::move(t));
  }
  s->map = detail::MappedFile(path);
  const uint64_t size = s->map.bytes().size();

  // Every i4 tensor's regions inside the file and apart from each other.
  std::vector<Region> regions;
  for (const Rt4Tensor& t : s->tensors) {
    if (t.kind != "i4") continue;
    if (t.k % t.group || t.k % 8)
      throw Error(s->manifest + ": tensor '" + t.name + "' has K = " + std::to_string(t.k) +
                  ", not a multiple of its group " + std::to_string(t.group) + " and of 8");
    const auto check = [&](uint64_t off, uint64_t bytes, const char* what) {
      if (off > size || bytes > size - off)
        throw Error(s->manifest + ": tensor '" + t.name + "': its " + what + " region [" + std::to_string(off) + ", +" +
                    std::to_string(bytes) + ") runs past the end of " + path + " (" + std::to_string(size) + " bytes)");
      if (bytes) regions.push_back({off, off + bytes, &t, what});
    };
    check(t.q_off, t.q_bytes(), "q");
    check(t.s_off, t.s_bytes(), "scale");
  }
  std::sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < regions.size(); ++i)
    if (regions[i].begin < regions[i - 1].end)
      throw Error(s->manifest + ": the " + regions[i - 1].what + " region of '" + regions[i - 1].t->name +
                  "' overlaps the " + regions[i].what + " region of '" + regions[i].t->name + "'");
  return Rt4File(std::move(s));
}

Rt4File::Rt4File(std::unique_ptr<State> s) : s_(std::move(s)) {}
Rt4File::Rt4File(Rt4File&&) noexcept = default;
Rt4File& Rt4File::operator=(Rt4File&&) noexcept = default;
Rt4File::~Rt4File() = default;

const std::string& Rt4File::path() const { return s_->path; }
const std::string& Rt4File::manifest_path() const { return s_->manifest; }
int64_t Rt4File::group() const { return s_->group; }
uint64_t Rt4File::file_size() const { return s_->map.bytes().size(); }
const std::vector<Rt4Tensor>& Rt4File::tensors() const { return s_->tensors; }

const Rt4Tensor* Rt4File::find(std::string_view name) const {
  auto it = s_->index.find(std::string(name));
  return it == s_->index.end() ? nullptr : &s_->tensors[it->second];
}

const Rt4Tensor& Rt4File::at(std::string_view name) const {
  const Rt4Tensor* t = find(name);
  if (!t) throw Error(s_->path + ": no tensor '" + std::string(name) + "'");
  return *t;
}

std::vector<std::string> Rt4File::names(std::string_view kind) const {
  std::vector<std::string> out;
  for (const Rt4Tensor& t : s_->tensors)
    if (kind.empty() || t.kind == kind) out.push_back(t.name);
  return out;
}

std::span<const uint8_t> Rt4File::q_bytes(const Rt4Tensor& t) const {
  if (t.kind != "i4") throw Error(s_->path + ": tensor '" + t.name + "' is of kind '" + t.kind + "', not i4");
  return s_->map.bytes().subspan(t.q_off, t.q_bytes());
}

std::span<const uint8_t> Rt4File::s_bytes(const Rt4Tensor& t) const {
  if (t.kind != "i4") throw Error(s_->path + ": tensor '" + t.name + "' is of kind '" + t.kind + "', not i4");
  return s_->map.bytes().subspan(t.s_off, t.s_bytes());
}

W4Matrix Rt4File::matrix(const Rt4Tensor& t) const {
  W4Matrix m;
  m.format = &kRt4Int4;
  m.n = t.n;
  m.k = t.k;
  m.group = t.group;
  m.codes = q_bytes(t);
  m.scales = s_bytes(t);
  m.check(s_->path + ": tensor '" + t.name + "'");
  return m;
}

std::vector<float> group_major_scales(const W4Matrix& w) {
  const int64_t G = w.groups_per_row();
  std::vector<float> out(size_t(G * w.n));
  for (int64_t n = 0; n < w.n; ++n)
    for (int64_t g = 0; g < G; ++g) out[size_t(g * w.n + n)] = w.scale(n, g);
  return out;
}

Rt4Writer::Rt4Writer(std::string path, int64_t group) : path_(std::move(path)), group_(group) {
  if (!ends_with(path_, ".rt4")) throw Error(path_ + ": an RT4 weight file name ends in .rt4");
  if (group_ <= 0) throw Error(path_ + ": the group must be positive");
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw Error(path_ + ": cannot create: " + std::strerror(errno));
}

Rt4Writer::~Rt4Writer() {
  if (file_) std::fclose(file_);
}

void Rt4Writer::put(std::span<const uint8_t> b) {
  if (!file_) throw Error(path_ + ": already finished");
  if (!b.empty() && std::fwrite(b.data(), 1, b.size(), file_) != b.size())
    throw Error(path_ + ": cannot write " + std::to_string(b.size()) + " bytes: " + std::strerror(errno));
  at_ += b.size();
}

void Rt4Writer::add_i4(const std::string& name, int64_t n, int64_t k, int64_t group, std::span<const uint8_t> q,
                       std::span<const uint8_t> s, const std::string& src_type) {
  for (const Rt4Tensor& t : tensors_)
    if (t.name == name) throw Error(path_ + ": tensor '" + name + "' added twice");
  Rt4Tensor t;
  t.name = name;
  t.kind = "i4";
  t.n = n;
  t.k = k;
  t.group = group;
  t.src_type = src_type;
  if (n <= 0 || k <= 0 || group <= 0 || k % group || k % 8 || q.size() != t.q_bytes() || s.size() != t.s_bytes())
    throw Error(path_ + ": tensor '" + name + "' [" + std::to_string(n) + ", " + std::to_string(k) + "] group " +
                std::to_string(group) + " needs " + std::to_string(t.q_bytes()) + " q and " +
                std::to_string(t.s_bytes()) + " scale bytes (K a multiple of the group and of 8), given " +
                std::to_string(q.size()) + " and " + std::to_string(s.size()));
  t.q_off = at_;
  put(q);
  t.s_off = at_;
  put(s);
  t.nbytes = t.q_bytes() + t.s_bytes();
  tensors_.push_back(std::move(t));
}

void Rt4Writer::finish() {
  if (!file_) throw Error(path_ + ": already finished");
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) throw Error(path_ + ": cannot write: " + std::strerror(errno));
  Json doc = Json::object();
  doc["format"] = kRt4Format;
  doc["group"] = group_;
  doc["weight_file"] = fs::path(path_).filename().string();
  Json list = Json::array();
  for (const Rt4Tensor& t : tensors_) {
    Json e = {{"name", t.name}, {"kind", t.kind}, {"shape", {t.n, t.k}}};
    if (t.group != group_) e["group"] = t.group;
    e["q_off"] = t.q_off;
    e["s_off"] = t.s_off;
    e["nbytes"] = t.nbytes;
    if (!t.src_type.empty()) e["src_type"] = t.src_type;
    list.push_back(std::move(e));
  }
  doc["tensors"] = std::move(list);
  const std::string text = doc.dump(1) + "\n", manifest = path_ + ".json";
  std::FILE* f = std::fopen(manifest.c_str(), "wb");
  if (!f) throw Error(manifest + ": cannot create: " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error(manifest + ": cannot write");
}

void offset_to_twos_complement(std::span<const uint8_t> in, std::span<uint8_t> out) {
  if (in.size() != out.size()) throw Error("offset_to_twos_complement: sizes differ");
  // (c + 8) & 15 on each nibble is c ^ 8: flip bit 3 of both nibbles
  for (size_t i = 0; i < in.size(); ++i) out[i] = uint8_t(in[i] ^ 0x88);
}

Rt4Conversion convert_compressed_tensors_to_rt4(const SafetensorsCheckpoint& c, const std::string& path,
                                                const std::function<void(int64_t, int64_t)>& progress) {
  const std::vector<std::string> prefixes = packed_layer_prefixes(c);
  if (prefixes.empty()) throw Error(c.origin() + ": no INT4 layer (no tensor ends in .weight_packed)");
  Rt4Writer w(path, 128);
  std::vector<uint8_t> q;
  std::vector<uint8_t> s;
  int64_t done = 0;
  for (const std::string& p : prefixes) {
    const Int4Layer L = find_int4_layer(c, p);
    q.resize(L.matrix.codes.size());
    offset_to_twos_complement(L.matrix.codes, q);
    const int64_t G = L.matrix.groups_per_row();
    s.resize(size_t(L.n * G * 2));
    for (int64_t n = 0; n < L.n; ++n)
      for (int64_t g = 0; g < G; ++g) {
        const float v = L.matrix.scale(n, g);
        const uint16_t h = f32_to_f16(v);
        const float back = f16_to_f32(h);
        if (!std::isfinite(back) || (back == 0.0f && v != 0.0f))
          throw Error(c.origin() + ": layer '" + p + "' row " + std::to_string(n) + " group " + std::to_string(g) +
                      ": the scale " + std::to_string(v) + " is outside the range of f16, which RT4 stores");
        s[size_t(2 * (n * G + g))] = uint8_t(h & 0xff);
        s[size_t(2 * (n * G + g) + 1)] = uint8_t(h >> 8);
      }
    w.add_i4(p + ".weight", L.n, L.k, 128, q, s, "compressed-tensors-int4");
    if (progress) progress(++done, int64_t(prefixes.size()));
  }
  w.finish();
  return {int64_t(prefixes.size()), w.bytes()};
}

}  // namespace k100::quant
