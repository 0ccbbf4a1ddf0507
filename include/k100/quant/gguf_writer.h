// k100lc quant: writing GGUF files (version 3 by default, 2 on request).
//
// The writer collects metadata and tensors, then lays the file out the way
// ggml's reader expects: header, metadata in insertion order, tensor infos,
// padding to the alignment, and the tensors back to back in insertion order,
// each padded to the alignment. Everything is checked when added (unique
// keys and names, a shape that fits the type, the exact byte count), so a
// file that is written can be read back.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/quant/gguf_value.h"
#include "k100/quant/tensor_type.h"

namespace k100::quant {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3);

  // Sets general.alignment (a power of two); the default is 32 and then no
  // key is written unless one was added.
  void set_alignment(uint32_t alignment);
  void add(std::string key, Value value);

  // A tensor from its encoded bytes (row_bytes of the type times the rows).
  void add_tensor(std::string name, TensorType type, std::vector<uint64_t> dims,
                  std::vector<uint8_t> bytes);
  // A tensor from f32 values, encoded with the host quantiser of `type`.
  void add_tensor_from_f32(std::string name, TensorType type, std::vector<uint64_t> dims,
                           std::span<const float> values);

  std::vector<uint8_t> bytes() const;
  // Writes the file; k100::Error naming the path when it cannot be written.
  void write(const std::string& path) const;

 private:
  struct Tensor {
    std::string name;
    TensorType type;
    std::vector<uint64_t> dims;
    std::vector<uint8_t> bytes;
  };
  uint32_t alignment() const;

  uint32_t version_;
  std::vector<KeyValue> kv_;
  std::vector<Tensor> tensors_;
};

}  // namespace k100::quant
