#include "k100/model/tensor_source.h"

#include <cstring>

namespace k100::model {

uint64_t GgufTensorSource::total_bytes() const {
  uint64_t n = 0;
  for (const auto& t : f_.tensors()) n += t.size;
  return n;
}

std::vector<std::string> GgufTensorSource::names() const {
  std::vector<std::string> out;
  for (const auto& t : f_.tensors()) out.push_back(t.name);
  return out;
}

ShapeTensorSource::ShapeTensorSource(std::function<quant::TensorType(const std::string&)> type_of, std::string origin,
                                     std::function<bool(const std::string&, W4Kind*)> w4_of)
    : type_of_(std::move(type_of)), w4_of_(std::move(w4_of)), origin_(std::move(origin)) {}

const quant::TensorInfo* ShapeTensorSource::tensor(const std::string& name, const std::vector<uint64_t>& expected,
                                                   bool required) const {
  if (!required) return nullptr;
  for (const auto& t : made_)
    if (t.name == name) return &t;
  quant::TensorInfo t;
  t.name = name;
  t.dims = expected;
  t.type = expected.size() == 1 ? quant::TensorType::F32 : type_of_(name);
  t.elements = 1;
  for (uint64_t d : expected) t.elements *= d;
  t.size = quant::tensor_bytes(t.type, expected, name);
  W4Kind kind = W4Kind::CompressedInt4;
  if (expected.size() == 2 && w4_of_ && w4_of_(name, &kind)) {
    // a 4-bit matrix of GGUF dims [k, n]; its bytes: codes and scales
    W4Weight w;
    w.kind = kind;
    w.key = name;
    w.matrix.format = kind == W4Kind::Nvfp4 ? &quant::kNvfp4 : kind == W4Kind::Rt4 ? &quant::kRt4Int4
                                                                                     : &quant::kCompressedTensorsInt4;
    w.matrix.k = int64_t(expected[0]);
    w.matrix.n = int64_t(expected[1]);
    t.type = quant::TensorType::I8;
    t.size = w.matrix.code_bytes() + w.matrix.scale_bytes();
    w4_.push_back(std::move(w));
    t.file_offset = w4_.size();  // 1 + its index in w4_
  }
  if (expected.size() == 1) ones_.emplace_back(size_t(t.elements), 1.0f);
  made_.push_back(std::move(t));
  return &made_.back();
}

const W4Weight* ShapeTensorSource::w4(const quant::TensorInfo& t) const {
  if (t.type != quant::TensorType::I8 || t.file_offset == 0 || t.file_offset > w4_.size()) return nullptr;
  return &w4_[size_t(t.file_offset - 1)];
}

std::span<const uint8_t> ShapeTensorSource::bytes(const quant::TensorInfo& t) const {
  if (t.dims.size() != 1) return {};
  size_t i = 0;
  for (const auto& m : made_) {
    if (m.dims.size() != 1) continue;
    if (&m == &t) return {reinterpret_cast<const uint8_t*>(ones_[i].data()), ones_[i].size() * 4};
    ++i;
  }
  return {};
}

}  // namespace k100::model
