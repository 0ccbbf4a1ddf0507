// k100lc model: where the loader reads a model's tensors: a GGUF file, or
// shapes only (weights without contents, for timing a model of a size no
// file here has: k100-bench model).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "k100/model/w4_weight.h"
#include "k100/quant/gguf_reader.h"

namespace k100::model {

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual const std::string& origin() const = 0;  // names the source in messages (the file)
  // The tensor `name`, or nullptr when there is none. `expected` is the shape
  // the loader wants (a shape-only source makes the tensor with it; a file's
  // tensor is checked against it by the loader); `required`: the model cannot
  // do without it (a shape-only source leaves optional tensors out).
  virtual const quant::TensorInfo* tensor(const std::string& name, const std::vector<uint64_t>& expected,
                                          bool required) const = 0;
  // Its stored bytes; empty when the source has no contents (the device
  // buffer then keeps whatever it holds).
  virtual std::span<const uint8_t> bytes(const quant::TensorInfo& t) const = 0;
  virtual uint64_t total_bytes() const = 0;  // 0 when unknown
  // The name of every tensor the source holds, which the loader accounts
  // for; empty for a source that only makes tensors on request.
  virtual std::vector<std::string> names() const { return {}; }
  // The 4-bit matrix behind `t` (a tensor this source returned) when the
  // checkpoint stores it quantised, else nullptr; t's type is then only a
  // placeholder and its size the matrix's bytes.
  virtual const W4Weight* w4(const quant::TensorInfo&) const { return nullptr; }
};

class GgufTensorSource final : public TensorSource {
 public:
  explicit GgufTensorSource(const quant::GgufFile& f) : f_(f) {}
  const std::string& origin() const override { return f_.path(); }
  const quant::TensorInfo* tensor(const std::string& name, const std::vector<uint64_t>&, bool) const override {
    return f_.find_tensor(name);
  }
  std::span<const uint8_t> bytes(const quant::TensorInfo& t) const override { return f_.tensor(t).bytes; }
  uint64_t total_bytes() const override;
  std::vector<std::string> names() const override;

 private:
  const quant::GgufFile& f_;
};

// Every required tensor with the expected shape: weight matrices of the type
// `type_of(name)` returns, without contents; one-dimensional tensors (norms,
// biases) f32 with all values 1. With `w4_of`, the matrices it names
// (returning true and setting the kind) are 4-bit weights without contents.
class ShapeTensorSource final : public TensorSource {
 public:
  explicit ShapeTensorSource(std::function<quant::TensorType(const std::string& name)> type_of,
                             std::string origin = "shapes",
                             std::function<bool(const std::string& name, W4Kind* kind)> w4_of = {});
  const std::string& origin() const override { return origin_; }
  const quant::TensorInfo* tensor(const std::string& name, const std::vector<uint64_t>& expected,
                                  bool required) const override;
  std::span<const uint8_t> bytes(const quant::TensorInfo& t) const override;
  uint64_t total_bytes() const override { return 0; }
  const W4Weight* w4(const quant::TensorInfo& t) const override;

 private:
  std::function<quant::TensorType(const std::string&)> type_of_;
  std::function<bool(const std::string&, W4Kind*)> w4_of_;
  mutable std::deque<W4Weight> w4_;  // w4_[i] belongs to the i-th 4-bit tensor made
  std::string origin_;
  mutable std::deque<quant::TensorInfo> made_;
  mutable std::deque<std::vector<float>> ones_;
};

}  // namespace k100::model
