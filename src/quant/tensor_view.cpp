#include "k100/quant/tensor_view.h"

#include "k100/base/error.h"
#include "k100/quant/codec.h"

namespace k100::quant {

uint64_t tensor_bytes(TensorType type, std::span<const uint64_t> dims, std::string_view what) {
  const TypeTraits& t = traits(type);
  if (dims.empty()) throw Error(std::string(what) + ": a tensor needs at least one dimension");
  if (dims[0] % t.block_elems != 0)
    throw Error(std::string(what) + ": " + t.name + " rows need a multiple of " + std::to_string(t.block_elems) +
                " elements, dims[0] is " + std::to_string(dims[0]));
  // bytes = blocks per row * block bytes * rows, each step checked for overflow
  unsigned __int128 bytes = (unsigned __int128)(dims[0] / t.block_elems) * t.block_bytes;
  unsigned __int128 elems = dims[0];
  const unsigned __int128 limit = uint64_t(INT64_MAX);
  for (size_t i = 1; i < dims.size(); ++i) {
    bytes *= dims[i];
    elems *= dims[i];
    if (bytes > limit || elems > limit) break;
  }
  if (bytes > limit || elems > limit)
    throw Error(std::string(what) + ": shape " + format_dims(dims) + " of " + t.name + " is too large (over 2^63 " +
                (elems > limit ? "elements" : "bytes") + ")");
  return uint64_t(bytes);
}

std::string format_dims(std::span<const uint64_t> dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
  return s.empty() ? "()" : s;
}

uint64_t TensorView::elements() const {
  uint64_t n = dims.empty() ? 0 : 1;
  for (uint64_t d : dims) n *= d;
  return n;
}

uint64_t TensorView::rows() const {
  uint64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i) n *= dims[i];
  return n;
}

uint64_t TensorView::row_size() const { return row_bytes(type, row_elements()); }

uint64_t TensorView::byte_size() const { return tensor_bytes(type, dims, name); }

void TensorView::dequantize_rows(uint64_t first, uint64_t count, float* out) const {
  const std::string what = "tensor '" + std::string(name) + "'";
  if (!traits(type).has_host_codec) throw Error(what + ": no host codec for tensor type " + type_name(type));
  if (first > rows() || count > rows() - first)
    throw Error(what + ": rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                ") are outside its " + std::to_string(rows()) + " rows");
  const uint64_t rb = row_size();
  if (bytes.size() < byte_size())
    throw Error(what + ": holds " + std::to_string(bytes.size()) + " bytes, its shape needs " +
                std::to_string(byte_size()));
  if (rb == 0) return;  // rows of zero elements
  for (uint64_t r = 0; r < count; ++r)
    dequantize_row(type, bytes.data() + (first + r) * rb, out + r * row_elements(), int64_t(row_elements()));
}

std::vector<float> TensorView::dequantize() const {
  std::vector<float> out(elements());
  dequantize_rows(0, rows(), out.data());
  return out;
}

}  // namespace k100::quant
