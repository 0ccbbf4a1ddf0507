#include "k100/quant/compressed_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compressed_tensors_layer.h"
#include "k100/base/error.h"
#include "k100/quant/half.h"

namespace k100::quant {

const char* scheme_name(CompressedTensorsScheme s) {
  return s == CompressedTensorsScheme::Int4Group128 ? "compressed-tensors INT4 (pack-quantized, group 128)"
                                                    : "compressed-tensors NVFP4 (nvfp4-pack-quantized)";
}

namespace {

// The weights' quantisation arguments of one config group, checked against
// what the scheme's layout means.
void check_weight_args(const JsonObject& w, CompressedTensorsScheme scheme) {
  const bool int4 = scheme == CompressedTensorsScheme::Int4Group128;
  if (const int64_t bits = w.integer("num_bits"); bits != 4) w.fail("num_bits", "is " + std::to_string(bits) + "; only 4 is supported");
  const std::string type = w.string("type");
  if (type != (int4 ? "int" : "float"))
    w.fail("type", "is '" + type + "', expected '" + (int4 ? "int" : "float") + "' for this format");
  if (const auto sym = w.optional_boolean("symmetric"); sym && !*sym)
    w.fail("symmetric", "is false; asymmetric weights (zero points) are not supported");
  const int64_t group = w.integer("group_size");
  if (group != (int4 ? 128 : 16))
    w.fail("group_size", "is " + std::to_string(group) + "; this format is supported with group " + (int4 ? "128" : "16"));
  if (const auto strategy = w.optional_string("strategy")) {
    if (*strategy != (int4 ? "group" : "tensor_group"))
      w.fail("strategy", "is '" + *strategy + "', expected '" + (int4 ? "group" : "tensor_group") + "'");
  }
  if (const auto order = w.optional_string("actorder"); order && *order == "group")
    w.fail("actorder", "is 'group': the columns are permuted (g_idx), which is not supported");
  if (const auto dynamic = w.find("dynamic"); dynamic && dynamic->is_boolean() && dynamic->get<bool>())
    w.fail("dynamic", "is true; weights must be quantised statically");
}

}  // namespace

QuantizationConfig read_quantization_config(const JsonObject& qc) {
  QuantizationConfig q;
  const std::string method = qc.string("quant_method");
  if (method != "compressed-tensors")
    qc.fail("quant_method", "is '" + method + "'; the supported method is 'compressed-tensors' (pack-quantized INT4 "
                            "group 128, nvfp4-pack-quantized)");
  q.format = qc.string("format");
  if (q.format == "pack-quantized") q.scheme = CompressedTensorsScheme::Int4Group128;
  else if (q.format == "nvfp4-pack-quantized") q.scheme = CompressedTensorsScheme::Nvfp4;
  else
    qc.fail("format", "is '" + q.format + "'; supported: 'pack-quantized' (INT4 group 128), 'nvfp4-pack-quantized'");
  q.group_size = q.scheme == CompressedTensorsScheme::Int4Group128 ? 128 : 16;
  if (const auto status = qc.optional_string("quantization_status"); status && *status != "compressed")
    qc.fail("quantization_status", "is '" + *status + "'; the weights must be stored compressed");
  if (qc.has("ignore")) q.ignore = qc.strings("ignore");
  const JsonObject groups = qc.object("config_groups");
  if (groups.json().empty()) qc.fail("config_groups", "is empty");
  for (auto it = groups.json().begin(); it != groups.json().end(); ++it) {
    const JsonObject g = groups.object(it.key());
    if (const auto f = g.optional_string("format"); f && *f != q.format)
      g.fail("format", "is '" + *f + "', which differs from the checkpoint's format '" + q.format + "'");
    check_weight_args(g.object("weights"), q.scheme);
  }
  return q;
}

std::vector<std::string> packed_layer_prefixes(const SafetensorsCheckpoint& c) {
  static const std::string suffix = ".weight_packed";
  std::vector<std::string> out;
  for (const auto& e : c.tensors()) {
    const std::string& n = e.tensor->name;
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(n.substr(0, n.size() - suffix.size()));
  }
  return out;
}

Int4Layer find_int4_layer(const SafetensorsCheckpoint& c, const std::string& prefix) {
  using detail::expect_shape;
  using detail::layer_tensor;
  Int4Layer L;
  L.prefix = prefix;
  L.packed = &layer_tensor(c, prefix + ".weight_packed", SafetensorsDtype::I32, "INT4 codes, I32 [N, K/8]");
  L.scale = &layer_tensor(c, prefix + ".weight_scale", SafetensorsDtype::BF16, "INT4 scales, BF16 [N, K/128]");
  L.shape = &layer_tensor(c, prefix + ".weight_shape", SafetensorsDtype::I64, "the layer's [N, K], I64 [2]");
  detail::refuse_tensor(c, prefix + ".weight_zero_point", "zero points (asymmetric INT4) are not supported");
  detail::refuse_tensor(c, prefix + ".weight_g_idx", "a column permutation (actorder group) is not supported");
  expect_shape(c, *L.shape, {2}, "weight_shape holds [N, K]");
  int64_t nk[2];
  std::memcpy(nk, c.bytes(*L.shape).data(), 16);
  L.n = nk[0];
  L.k = nk[1];
  if (L.n <= 0 || L.k <= 0 || L.k % 128)
    throw Error(c.origin() + ": tensor '" + prefix + ".weight_shape' is [" + std::to_string(L.n) + ", " +
                std::to_string(L.k) + "]; K must be a positive multiple of 128");
  expect_shape(c, *L.packed, {uint64_t(L.n), uint64_t(L.k / 8)}, "[N, K/8] for weight_shape [N, K]");
  expect_shape(c, *L.scale, {uint64_t(L.n), uint64_t(L.k / 128)}, "[N, K/128] for weight_shape [N, K]");
  L.matrix = detail::layer_matrix(c, prefix, kCompressedTensorsInt4, L.n, L.k, *L.packed, *L.scale);
  return L;
}

PackedInt4 pack_int4_group128(std::span<const float> w, int64_t n, int64_t k) {
  if (n <= 0 || k <= 0 || k % 128 || w.size() != uint64_t(n) * uint64_t(k))
    throw Error("pack_int4_group128: " + std::to_string(w.size()) + " weights for [" + std::to_string(n) + ", " +
                std::to_string(k) + "] (K a multiple of 128)");
  PackedInt4 p;
  p.packed.assign(size_t(n * k / 8), 0);
  p.scale.resize(size_t(n * k / 128));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t g = 0; g < k / 128; ++g) {
      const float* x = w.data() + r * k + g * 128;
      float amax = 0;
      for (int i = 0; i < 128; ++i) amax = std::max(amax, std::fabs(x[i]));
      const uint16_t sb = f32_to_bf16(amax == 0 ? 1.0f : amax / 7.0f);
      p.scale[size_t(r * (k / 128) + g)] = sb;
      const float s = bf16_to_f32(sb);
      for (int i = 0; i < 128; ++i) {
        const int code = int(std::clamp(std::nearbyint(x[i] / s) + 8.0f, 0.0f, 15.0f));
        const int64_t col = g * 128 + i;
        p.packed[size_t((r * k + col) / 8)] |= int32_t(uint32_t(code) << (4 * (col % 8)));
      }
    }
  return p;
}

}  // namespace k100::quant
