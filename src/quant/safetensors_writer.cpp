#include "k100/quant/safetensors_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "k100/base/error.h"
#include "k100/quant/json_document.h"

namespace k100::quant {

void SafetensorsWriter::add(const std::string& name, SafetensorsDtype dtype, std::vector<uint64_t> shape,
                            std::span<const uint8_t> bytes) {
  if (name == "__metadata__") throw Error("safetensors: '__metadata__' cannot name a tensor");
  for (const Item& i : items_)
    if (i.name == name) throw Error("safetensors: tensor '" + name + "' added twice");
  uint64_t n = dtype_info(dtype).bytes;
  for (uint64_t d : shape) n *= d;
  if (n != bytes.size())
    throw Error("safetensors: tensor '" + name + "' " + dtype_info(dtype).name + " " + format_shape(shape) + " needs " +
                std::to_string(n) + " bytes, given " + std::to_string(bytes.size()));
  items_.push_back({name, dtype, std::move(shape), std::vector<uint8_t>(bytes.begin(), bytes.end())});
}

std::vector<uint8_t> SafetensorsWriter::bytes() const {
  Json header = Json::object();
  if (!metadata_.empty()) {
    Json m = Json::object();
    for (const auto& [k, v] : metadata_) m[k] = v;
    header["__metadata__"] = m;
  }
  uint64_t at = 0;
  for (const Item& i : items_) {
    header[i.name] = {{"dtype", dtype_info(i.dtype).name}, {"shape", i.shape}, {"data_offsets", {at, at + i.data.size()}}};
    at += i.data.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<uint8_t> out;
  out.reserve(8 + text.size() + at);
  for (int b = 0; b < 8; ++b) out.push_back(uint8_t(uint64_t(text.size()) >> (8 * b)));
  out.insert(out.end(), text.begin(), text.end());
  for (const Item& i : items_) out.insert(out.end(), i.data.begin(), i.data.end());
  return out;
}

void SafetensorsWriter::write(const std::string& path) const {
  const std::vector<uint8_t> b = bytes();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot create: " + std::strerror(errno));
  const bool ok = std::fwrite(b.data(), 1, b.size(), f) == b.size();
  if (std::fclose(f) != 0 || !ok) throw Error(path + ": cannot write " + std::to_string(b.size()) + " bytes");
}

}  // namespace k100::quant
