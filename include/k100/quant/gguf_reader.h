// k100lc quant: reading GGUF files (versions 2 and 3).
//
// A GgufFile maps the file read-only and parses the header, the typed
// metadata (nested arrays included) and the tensor infos up front. Every
// count, length, size and offset is checked against the bytes that are
// really there before it is used: a file that is truncated, has the wrong
// magic or version, claims more entries than it can hold, puts a tensor off
// its alignment, past the end of the file or over another tensor, is a
// k100::Error whose message names the file, the key or tensor, and the byte
// offset. Tensor data is not copied: tensor views point into the mapping,
// which lives as long as the GgufFile.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/quant/gguf_value.h"
#include "k100/quant/tensor_type.h"
#include "k100/quant/tensor_view.h"

namespace k100::quant {

inline constexpr uint32_t kGgufMagic = 0x46554747;  // "GGUF" read as a little-endian u32
inline constexpr uint32_t kGgufDefaultAlignment = 32;
inline constexpr const char* kGgufAlignmentKey = "general.alignment";
inline constexpr uint32_t kGgufMaxDims = 4;
inline constexpr int kGgufMaxArrayDepth = 8;  // arrays inside arrays, deeper is an error

struct TensorInfo {
  std::string name;
  TensorType type = TensorType::F32;
  std::vector<uint64_t> dims;  // GGUF order (dims[0] = elements per row)
  uint64_t offset = 0;         // from the start of the data section, as stored
  uint64_t file_offset = 0;    // from the start of the file
  uint64_t size = 0;           // bytes
  uint64_t elements = 0;
  uint64_t info_offset = 0;    // where its tensor info starts in the file (for messages)
};

class GgufFile {
 public:
  // Maps and parses a file. k100::Error when it cannot be opened or read.
  static GgufFile open(const std::string& path);
  // Parses bytes held by the caller (they must outlive the GgufFile); `name`
  // stands for the file in messages.
  static GgufFile parse(std::span<const uint8_t> bytes, std::string name);

  GgufFile(GgufFile&&) noexcept;
  GgufFile& operator=(GgufFile&&) noexcept;
  ~GgufFile();

  const std::string& path() const;
  uint32_t version() const;
  uint32_t alignment() const;
  uint64_t data_offset() const;  // where the data section starts
  uint64_t file_size() const;

  const std::vector<KeyValue>& metadata() const;
  const Value* find(std::string_view key) const;  // nullptr when absent
  // The value of a key; k100::Error naming the file and key when absent.
  const Value& at(std::string_view key) const;

  const std::vector<TensorInfo>& tensors() const;
  const TensorInfo* find_tensor(std::string_view name) const;
  // The tensor's bytes and shape; k100::Error naming the file and tensor when
  // absent.
  TensorView tensor(std::string_view name) const;
  TensorView tensor(const TensorInfo& info) const;
  std::span<const uint8_t> bytes() const;  // the whole file

 private:
  struct State;
  explicit GgufFile(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace k100::quant
