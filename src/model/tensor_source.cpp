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

ShapeTensorSource::ShapeTensorSource(std::function<quant::TensorType(const std::string&)> type_of, std::string origin)
    : type_of_(std::move(type_of)), origin_(std::move(origin)) {}

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
  if (expected.size() == 1) ones_.emplace_back(size_t(t.elements), 1.0f);
  made_.push_back(std::move(t));
  return &made_.back();
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
