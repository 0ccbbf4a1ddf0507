// k100lc quant: the safetensors files of one checkpoint, as one set of
// tensors: a single model.safetensors, or the shards that
// model.safetensors.index.json lists ({"metadata": {...}, "weight_map":
// {tensor name: shard file}}).
//
// Opening a sharded checkpoint opens every shard the index names and
// accounts for every tensor both ways: a name the index maps to a shard that
// does not hold it, a tensor of a shard the index does not list (or lists
// under another shard), a shard path that leaves the directory, and a tensor
// held by two shards are each a k100::Error naming the index, the shard and
// the tensor.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "k100/quant/safetensors_reader.h"

namespace k100::quant {

class SafetensorsCheckpoint {
 public:
  // `path`: a directory (model.safetensors.index.json, else model.safetensors),
  // an index file, or one .safetensors file.
  static SafetensorsCheckpoint open(const std::string& path);

  SafetensorsCheckpoint(SafetensorsCheckpoint&&) noexcept;
  SafetensorsCheckpoint& operator=(SafetensorsCheckpoint&&) noexcept;
  ~SafetensorsCheckpoint();

  // What was opened (the index file, or the single file).
  const std::string& origin() const;
  const std::vector<SafetensorsFile>& files() const;

  struct Entry {
    const SafetensorsFile* file;
    const SafetensorsTensor* tensor;
  };
  // Every tensor, shard by shard in the order the index first names them,
  // by tensor name inside a shard.
  const std::vector<Entry>& tensors() const;
  const Entry* find(std::string_view name) const;  // nullptr when absent
  const Entry& at(std::string_view name) const;    // k100::Error naming the checkpoint and tensor
  std::span<const uint8_t> bytes(const Entry& e) const { return e.file->bytes(*e.tensor); }
  uint64_t total_bytes() const;  // sum of the tensors' sizes

 private:
  struct State;
  explicit SafetensorsCheckpoint(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace k100::quant
