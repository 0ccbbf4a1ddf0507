// k100lc quant: RT4 weight files (FORMATS.md 3): `<name>.rt4` holds the
// bytes, `<name>.rt4.json` (else `<stem>.json`) the manifest
//
//   {"format": "RT4-v1", "group": 128, "weight_file": "model.rt4",
//    "tensors": [{"name": "...weight", "kind": "i4", "shape": [N, K],
//                 "group": 128, "q_off": 0, "s_off": ..., "nbytes": ...}]}
//
// An `i4` tensor is N*K/2 bytes of two's-complement nibbles (even k low) at
// q_off and f16 scales [N, K/group] at s_off. The reader maps the weight
// file and checks every i4 tensor's regions against it (inside the file, no
// overlap between tensors, K a multiple of the group and of 8); tensors of
// other kinds are listed but refused by matrix(). The converter turns a
// compressed-tensors INT4 checkpoint into RT4 (FORMATS.md 3.4): each nibble
// moves from offset-binary to two's complement in place, each BF16 scale is
// rounded to f16.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/quant/safetensors_checkpoint.h"
#include "k100/quant/w4_formats.h"

namespace k100::quant {

inline constexpr const char* kRt4Format = "RT4-v1";

struct Rt4Tensor {
  std::string name;
  std::string kind;  // "i4"; other kinds are listed only
  int64_t n = 0, k = 0;
  int64_t group = 128;
  uint64_t q_off = 0, s_off = 0;
  uint64_t nbytes = 0;   // as the producer recorded it
  std::string src_type;  // optional
  uint64_t q_bytes() const { return uint64_t(n) * uint64_t(k) / 2; }
  uint64_t s_bytes() const { return uint64_t(n) * uint64_t(k / group) * 2; }
};

class Rt4File {
 public:
  // `path` must end in ".rt4"; the manifest is `path + ".json"`, else the
  // stem + ".json". k100::Error naming the file and the tensor for anything
  // the manifest gets wrong.
  static Rt4File open(const std::string& path);

  Rt4File(Rt4File&&) noexcept;
  Rt4File& operator=(Rt4File&&) noexcept;
  ~Rt4File();

  const std::string& path() const;
  const std::string& manifest_path() const;
  int64_t group() const;  // the manifest's default
  uint64_t file_size() const;

  const std::vector<Rt4Tensor>& tensors() const;  // manifest order
  const Rt4Tensor* find(std::string_view name) const;
  const Rt4Tensor& at(std::string_view name) const;  // k100::Error naming the file and tensor
  std::vector<std::string> names(std::string_view kind = {}) const;

  // An i4 tensor as a kRt4Int4 matrix over the mapping (k100::Error for
  // another kind).
  W4Matrix matrix(const Rt4Tensor& t) const;
  std::span<const uint8_t> q_bytes(const Rt4Tensor& t) const;
  std::span<const uint8_t> s_bytes(const Rt4Tensor& t) const;

 private:
  struct State;
  explicit Rt4File(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// The GEMM's scales (FORMATS.md 3.3): f32 [K/group, N], sb[g * N + n].
std::vector<float> group_major_scales(const W4Matrix& rt4);

// Streams tensors into `path` (must end in .rt4) as they are added, so a
// conversion never holds more than one layer; finish() writes the manifest
// `path`.json. k100::Error naming the file when it cannot be written.
class Rt4Writer {
 public:
  explicit Rt4Writer(std::string path, int64_t group = 128);
  ~Rt4Writer();
  Rt4Writer(const Rt4Writer&) = delete;
  Rt4Writer& operator=(const Rt4Writer&) = delete;
  // An i4 tensor: q = N*K/2 bytes, s = f16 [N, K/group] as raw bytes.
  void add_i4(const std::string& name, int64_t n, int64_t k, int64_t group, std::span<const uint8_t> q,
              std::span<const uint8_t> s, const std::string& src_type = "");
  void finish();
  size_t size() const { return tensors_.size(); }
  uint64_t bytes() const { return at_; }

 private:
  void put(std::span<const uint8_t> b);
  std::string path_;
  int64_t group_;
  std::FILE* file_ = nullptr;
  uint64_t at_ = 0;
  std::vector<Rt4Tensor> tensors_;
};

struct Rt4Conversion {
  int64_t layers = 0;
  uint64_t bytes = 0;  // of the .rt4 file
};

// Writes every INT4 layer of a pack-quantized checkpoint to `path`
// (<prefix>.weight, kind i4, group 128, src_type "compressed-tensors-int4").
// k100::Error naming the layer for a scale that f16 cannot hold (it would
// become infinite, or zero from a non-zero value) and for a checkpoint
// without INT4 layers. `progress(done, total)` counts layers.
Rt4Conversion convert_compressed_tensors_to_rt4(const SafetensorsCheckpoint& c, const std::string& path,
                                                const std::function<void(int64_t, int64_t)>& progress = {});

// Offset-binary compressed-tensors codes to RT4's two's complement, in
// place positions (FORMATS.md 3.4: nibble + 8 mod 16, i.e. bit 3 flipped).
void offset_to_twos_complement(std::span<const uint8_t> in, std::span<uint8_t> out);

}  // namespace k100::quant
