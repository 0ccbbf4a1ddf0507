// k100lc quant: reading safetensors files (the weight files of Hugging Face
// checkpoints).
//
// Layout: an 8-byte little-endian header length H, H bytes of JSON mapping
// each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
// (offsets relative to byte 8 + H) plus an optional "__metadata__" object of
// strings, then the data. A SafetensorsFile maps the file read-only and
// checks the header before anything is used: a file shorter than its header,
// a header that is not a JSON object, an unknown dtype, a shape whose byte
// size differs from its offsets, offsets past the end of the data, tensors
// that overlap, and data bytes that belong to no tensor are each a k100::Error
// naming the file and the tensor. Tensor bytes are not copied: views point
// into the mapping, which lives as long as the SafetensorsFile.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/quant/tensor_type.h"
#include "k100/quant/tensor_view.h"

namespace k100::quant {

enum class SafetensorsDtype {
  BOOL, U8, I8, F8_E4M3, F8_E5M2, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64,
};

struct SafetensorsDtypeInfo {
  SafetensorsDtype dtype;
  const char* name;  // as the header spells it ("BF16", "F8_E4M3")
  uint32_t bytes;    // per element
  // The GGUF tensor type with the same element encoding, when there is one
  // (F32, F16, BF16, I8, I16, I32, I64, F64), so the host codecs and the
  // model loader read such tensors as they read GGUF ones.
  std::optional<TensorType> tensor_type;
};

const SafetensorsDtypeInfo& dtype_info(SafetensorsDtype d);
std::optional<SafetensorsDtype> safetensors_dtype(std::string_view name);

inline constexpr uint64_t kSafetensorsMaxHeader = uint64_t(100) << 20;  // a longer header is refused

struct SafetensorsTensor {
  std::string name;
  SafetensorsDtype dtype = SafetensorsDtype::F32;
  std::vector<uint64_t> shape;  // row-major, as stored (shape[0] = rows)
  uint64_t begin = 0, end = 0;  // data_offsets: relative to data_offset()
  uint64_t file_offset = 0;     // absolute offset of the first byte
  uint64_t elements = 1;        // product of the shape (1 for a scalar)
  uint64_t size() const { return end - begin; }
  // "BF16 [4096, 11008]"
  std::string describe() const;
};

class SafetensorsFile {
 public:
  // Maps and checks a file. k100::Error when it cannot be opened or read.
  static SafetensorsFile open(const std::string& path);
  // Checks bytes held by the caller (they must outlive the file); `name`
  // stands for the file in messages.
  static SafetensorsFile parse(std::span<const uint8_t> bytes, std::string name);

  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  ~SafetensorsFile();

  const std::string& path() const;
  uint64_t header_size() const;  // H
  uint64_t data_offset() const;  // 8 + H
  uint64_t file_size() const;

  // By name.
  const std::vector<SafetensorsTensor>& tensors() const;
  const SafetensorsTensor* find(std::string_view name) const;  // nullptr when absent
  const SafetensorsTensor& at(std::string_view name) const;    // k100::Error naming file and tensor
  std::span<const uint8_t> bytes(const SafetensorsTensor& t) const;
  // "__metadata__" (string values only), empty when absent.
  const std::map<std::string, std::string>& metadata() const;

  // The tensor as a TensorView (GGUF dim order: the shape reversed) for
  // dtypes with a GGUF tensor type; k100::Error naming it otherwise.
  TensorView view(const SafetensorsTensor& t) const;

 private:
  struct State;
  explicit SafetensorsFile(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// The shape in GGUF order (reversed; a scalar becomes [1]).
std::vector<uint64_t> gguf_dims(const SafetensorsTensor& t);
// "[4096, 11008]"
std::string format_shape(std::span<const uint64_t> shape);

}  // namespace k100::quant
