// k100lc quant: writing safetensors files (test checkpoints, converted
// weights). Tensors are laid out back to back in the order added; the JSON
// header is padded with spaces to a multiple of 8 bytes so the data starts
// aligned, as the common writers do.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "k100/quant/safetensors_reader.h"

namespace k100::quant {

class SafetensorsWriter {
 public:
  // k100::Error naming the tensor for a repeated name or bytes that do not
  // match dtype x shape.
  void add(const std::string& name, SafetensorsDtype dtype, std::vector<uint64_t> shape, std::span<const uint8_t> bytes);
  void add_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }

  std::vector<uint8_t> bytes() const;
  void write(const std::string& path) const;

 private:
  struct Item {
    std::string name;
    SafetensorsDtype dtype;
    std::vector<uint64_t> shape;
    std::vector<uint8_t> data;
  };
  std::vector<Item> items_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace k100::quant
