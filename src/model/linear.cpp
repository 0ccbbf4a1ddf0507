#include "k100/model/linear.h"

#include <algorithm>
#include <cstring>

#include "k100/base/error.h"
#include "k100/quant/iq_tables.h"

namespace k100::model {

using quant::TensorType;

namespace {

std::string sizes(int64_t n, int64_t k) { return std::to_string(n) + " x " + std::to_string(k); }

}  // namespace

// ------------------------------------------------------------------ Linear

Linear::Linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag)
    : dev_(dev), n_(n), k_(k), w_(w), ws_(dev, ws), tag_(std::move(tag)) {
  if (n <= 0 || k <= 0) throw Error(tag_ + ": a linear layer needs n, k > 0 (got " + sizes(n, k) + ")");
  if (w.groups < 1) throw Error(tag_ + ": weight groups must be >= 1");
}

Linear::~Linear() {
  if (w_.owned && w_.ptr) {
    try {
      dev_.free(w_.ptr);
    } catch (...) {
    }
  }
}

uint64_t Linear::weight_bytes() const {
  return quant::row_bytes(w_.type, uint64_t(k_)) * uint64_t(n_) * uint64_t(w_.groups);
}

DeviceWeights Linear::upload_weights(Device& dev, TensorType type, std::span<const uint8_t> bytes, int64_t groups) {
  DeviceWeights w{type, dev.alloc(bytes.size()), groups, true};
  dev.upload(w.ptr, bytes.data(), bytes.size());
  return w;
}

uint64_t Linear::forward_device(uint64_t x, int64_t rows, uint64_t out, bool accumulate) {
  if (rows <= 0) throw Error(tag_ + ": forward of " + std::to_string(rows) + " rows");
  if (!out) out = ws_->buffer(tag_ + ".out", size_t(rows * n_) * 4);
  this->rows(x, rows, out, accumulate);
  return out;
}

void Linear::rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate) {
  for (int64_t r = 0; r < rows; ++r) row(x + uint64_t(r * k_) * 4, out + uint64_t(r * n_) * 4, accumulate);
}

std::vector<float> Linear::forward(std::span<const float> x, int64_t rows) {
  if (int64_t(x.size()) != rows * k_)
    throw Error(tag_ + ": forward of " + std::to_string(x.size()) + " values, expected rows x k = " +
                sizes(rows, k_));
  const uint64_t px = ws_->upload(tag_ + ".x", x.data(), x.size_bytes());
  const uint64_t y = forward_device(px, rows);
  return dev_.download<float>(y, size_t(rows * n_));
}

void Linear::forward_selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) {
  if (count <= 0 || count > w_.groups * 64)
    throw Error(tag_ + ": " + std::to_string(count) + " selected groups of " + std::to_string(w_.groups));
  selected(x, ids, count, x_per_group, out);
}

// --------------------------------------------------------------- dispatch

uint32_t div_magic(int64_t d, int64_t max_i, std::string_view what) {
  if (d <= 0) throw Error(std::string(what) + ": divisor " + std::to_string(d) + " must be positive");
  if (max_i <= 0 || d == 1) return check_div_magic(0, d, max_i, what);
  const uint64_t m = (uint64_t(1) << 32) / uint64_t(d) + 1;
  if (m >= (uint64_t(1) << 32)) throw Error(std::string(what) + ": no magic multiplier for " + std::to_string(d));
  return check_div_magic(m, d, max_i, what);
}

uint32_t check_div_magic(uint64_t m, int64_t d, int64_t max_i, std::string_view what) {
  if (d <= 0) throw Error(std::string(what) + ": divisor " + std::to_string(d) + " must be positive");
  if (max_i <= 0) return uint32_t(m);
  if (d == 1) {
    if (max_i <= 1) return uint32_t(m);
    throw Error(std::string(what) + ": division by 1 has no 32-bit magic multiplier (dividends up to " +
                std::to_string(max_i - 1) + ")");
  }
  if (max_i > (int64_t(1) << 32))
    throw Error(std::string(what) + ": dividends up to " + std::to_string(max_i) + " do not fit 32 bits");
  if (m >= (uint64_t(1) << 32))
    throw Error(std::string(what) + ": multiplier " + std::to_string(m) + " exceeds 32 bits");
  // (i m) >> 32 == i / d for every i < max_i: the error grows with i and is
  // largest at the last dividend of each quotient, so checking those suffices.
  for (uint64_t q = 0; q * uint64_t(d) < uint64_t(max_i); ++q) {
    const uint64_t i = std::min<uint64_t>(q * uint64_t(d) + uint64_t(d) - 1, uint64_t(max_i) - 1);
    if (((i * m) >> 32) != q || ((q * uint64_t(d) * m) >> 32) != q)
      throw Error(std::string(what) + ": the magic multiplier of " + std::to_string(d) + " is not exact below " +
                  std::to_string(max_i));
  }
  return uint32_t(m);
}

namespace {

bool rows8_fits(int64_t nrows, int64_t k) { return nrows % 8 == 0 && k % 128 == 0 && k <= kRows8MaxK; }

void gemv_f32_dispatch(Device& dev, uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k, bool acc) {
  const bool rows8 = rows8_fits(nrows, k);
  const char* name = rows8 ? (acc ? "gemv_f32_rows8_acc_k" : "gemv_f32_rows8_k")
                           : (acc ? "gemv_f32_warp_acc_k" : "gemv_f32_warp_k");
  ContractKernel(dev, name, "gemv_f32")
      .launch(dev, {{"nrows", nrows}},
              {{"w", w}, {"x", x}, {"y", y}, {"nrows", uint64_t(nrows)}, {"k", uint64_t(k)}, {"group_size", 64}});
}

}  // namespace

void gemv_f32(Device& dev, uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k) {
  gemv_f32_dispatch(dev, w, x, y, nrows, k, false);
}
void gemv_f32_acc(Device& dev, uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k) {
  gemv_f32_dispatch(dev, w, x, y, nrows, k, true);
}

// ------------------------------------------------------------ float types

namespace {

const char* grouped_kernel(TensorType t) {
  switch (t) {
    case TensorType::F32: return "gemv_grouped_f32_k";
    case TensorType::F16: return "gemv_grouped_f16_k";
    case TensorType::BF16: return "gemv_grouped_bf16_k";
    default: return nullptr;
  }
}

// gemv_grouped_*_k: the model runs them in workgroups of 256 (four rows each).
constexpr int64_t kGroupedWorkgroup = 256;
void launch_grouped(Device& dev, const ContractKernel& kr, uint64_t w, uint64_t x, uint64_t y, int64_t nrows,
                    int64_t k, bool acc, int64_t rows_per_w, uint64_t ids, uint64_t w_stride, uint64_t x_stride) {
  kr.launch(dev, {{"nrows", nrows}},
            {{"w", w}, {"x", x}, {"y", y}, {"nrows", uint64_t(nrows)}, {"k", uint64_t(k)}, {"acc", acc ? 1u : 0u},
             {"rows_per_w", uint64_t(rows_per_w)}, {"ids", ids}, {"w_stride", w_stride}, {"x_stride", x_stride}},
            {{"wg", kGroupedWorkgroup}});
}

uint64_t group_stride(const Linear& l) {
  const uint64_t b = quant::row_bytes(l.type(), uint64_t(l.k())) * uint64_t(l.n());
  if (b >> 32) throw Error(l.tag() + ": a weight group of " + std::to_string(b) + " bytes exceeds 4 GiB");
  return b;
}

}  // namespace

F32Linear::F32Linear(Device& dev, int64_t n, int64_t k, std::span<const float> weight, Workspace* ws, std::string tag,
                     int64_t groups)
    : Linear(dev, n, k, DeviceWeights{}, ws, std::move(tag)) {
  if (int64_t(weight.size()) != n * k * groups)
    throw Error(tag_ + ": weight has " + std::to_string(weight.size()) + " values, expected " +
                std::to_string(groups) + " x " + sizes(n, k));
  w_ = upload_weights(dev, TensorType::F32,
                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(weight.data()), weight.size_bytes()),
                      groups);
  init();
}

F32Linear::F32Linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag)
    : Linear(dev, n, k, w, ws, std::move(tag)) {
  if (w.type != TensorType::F32) throw Error(tag_ + ": F32Linear needs f32 weights, not " + quant::type_name(w.type));
  init();
}

void F32Linear::init() {
  rows8_ = rows8_fits(n_, k_);
  plain_ = ContractKernel(dev_, rows8_ ? "gemv_f32_rows8_k" : "gemv_f32_warp_k", tag_);
  acc_ = ContractKernel(dev_, rows8_ ? "gemv_f32_rows8_acc_k" : "gemv_f32_warp_acc_k", tag_);
  if (w_.groups > 1) grouped_ = ContractKernel(dev_, "gemv_grouped_f32_k", tag_);
}

void F32Linear::row(uint64_t x, uint64_t y, bool accumulate) {
  (accumulate ? acc_ : plain_)
      .launch(dev_, {{"nrows", n_}},
              {{"w", w_.ptr}, {"x", x}, {"y", y}, {"nrows", uint64_t(n_)}, {"k", uint64_t(k_)}, {"group_size", 64}});
}

void F32Linear::selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) {
  if (!grouped_.valid()) grouped_ = ContractKernel(dev_, "gemv_grouped_f32_k", tag_);
  launch_grouped(dev_, grouped_, w_.ptr, x, out, count * n_, k_, false, n_, ids, group_stride(*this),
                 x_per_group ? uint64_t(k_) : 0);
}

FloatLinear::FloatLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag)
    : Linear(dev, n, k, w, ws, std::move(tag)) {
  init();
}

FloatLinear::FloatLinear(Device& dev, int64_t n, int64_t k, TensorType type, std::span<const uint8_t> bytes,
                         Workspace* ws, std::string tag, int64_t groups)
    : Linear(dev, n, k, DeviceWeights{}, ws, std::move(tag)) {
  if (!grouped_kernel(type)) throw Error(tag_ + ": FloatLinear takes f32, f16 or bf16, not " + quant::type_name(type));
  const uint64_t want = quant::row_bytes(type, uint64_t(k)) * uint64_t(n * groups);
  if (bytes.size() != want)
    throw Error(tag_ + ": " + std::to_string(bytes.size()) + " weight bytes, expected " + std::to_string(want) +
                " for " + std::to_string(groups) + " x " + sizes(n, k) + " " + quant::type_name(type));
  w_ = upload_weights(dev, type, bytes, groups);
  init();
}

void FloatLinear::init() {
  const char* name = grouped_kernel(w_.type);
  if (!name) throw Error(tag_ + ": FloatLinear takes f32, f16 or bf16, not " + quant::type_name(w_.type));
  grouped_ = ContractKernel(dev_, name, tag_);
}

void FloatLinear::row(uint64_t x, uint64_t y, bool accumulate) {
  launch_grouped(dev_, grouped_, w_.ptr, x, y, n_, k_, accumulate, n_, 0, 0, 0);
}

void FloatLinear::selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) {
  launch_grouped(dev_, grouped_, w_.ptr, x, out, count * n_, k_, false, n_, ids, group_stride(*this),
                 x_per_group ? uint64_t(k_) : 0);
}

// ------------------------------------------------------------ block types

std::span<const QuantSpec> quant_specs() {
  static const std::vector<QuantSpec> specs = {
      {TensorType::Q2_0, "q2_0", "q2_0_dot_k", "q2_0_dequant_k", true, 64, 18, {}},
      {TensorType::IQ4_NL, "iq4nl", "iq4nl_dot_k", "iq4nl_dequant_k", true, 32, 18, {}},
      {TensorType::IQ4_XS, "iq4xs", "iq4xs_dot_k", "iq4xs_dequant_k", true, 256, 136, {}},
      {TensorType::Q4_K, "q4k", "q4k_dot_k", "q4k_dequant", false, 256, 144, {}},
      {TensorType::Q5_K, "q5k", "q5k_dot_k", "q5k_dequant", false, 256, 176, {}},
      {TensorType::Q6_K, "q6k", "q6k_dot_k", "q6k_dequant", false, 256, 210, {}},
      {TensorType::Q8_0, "q8_0", "q8_0_dot_k", "q8_0_dequant_k", true, 32, 34, {}},
      {TensorType::Q4_0, "q4_0", "q4_0_dot_k", "q4_0_dequant_k", true, 32, 18, {}},
      {TensorType::IQ2_S, "iq2s", "iq2s_dot_k", "iq2s_dequant_k", true, 256, 82, {"iq2s_grid"}},
      {TensorType::IQ3_S, "iq3s", "iq3s_dot_k", "iq3s_dequant_k", true, 256, 110, {"iq3s_grid"}},
      {TensorType::IQ3_XXS, "iq3xxs", "iq3xxs_dot_k", "iq3xxs_dequant_k", true, 256, 98, {"iq3xxs_grid", "ksigns_iq2xs"}},
  };
  return specs;
}

// The block types without a fused dot kernel: their device decoders (token
// embeddings) and, through GemvLinear, their fast GEMVs.
std::span<const QuantSpec> decoder_only_specs() {
  static const std::vector<QuantSpec> specs = {
      {TensorType::Q4_1, "q4_1", nullptr, "q4_1_dequant_k", true, 32, 20, {}},
      {TensorType::Q5_0, "q5_0", nullptr, "q5_0_dequant_k", true, 32, 22, {}},
      {TensorType::Q5_1, "q5_1", nullptr, "q5_1_dequant_k", true, 32, 24, {}},
      {TensorType::MXFP4, "mxfp4", nullptr, "mxfp4_dequant_k", true, 32, 17, {}},
      {TensorType::Q2_K, "q2k", nullptr, "q2k_dequant_k", true, 256, 84, {}},
      {TensorType::Q3_K, "q3k", nullptr, "q3k_dequant_k", true, 256, 110, {}},
      {TensorType::IQ2_XXS, "iq2xxs", nullptr, "iq2xxs_dequant_k", true, 256, 66, {"iq2xxs_grid", "ksigns_iq2xs"}},
      {TensorType::IQ2_XS, "iq2xs", nullptr, "iq2xs_dequant_k", true, 256, 74, {"iq2xs_grid", "ksigns_iq2xs"}},
      {TensorType::IQ1_S, "iq1s", nullptr, "iq1s_dequant_k", true, 256, 50, {"iq1s_grid"}},
      {TensorType::IQ1_M, "iq1m", nullptr, "iq1m_dequant_k", true, 256, 56, {"iq1s_grid"}},
      {TensorType::TQ1_0, "tq1_0", nullptr, "tq1_0_dequant_k", true, 256, 54, {}},
      {TensorType::TQ2_0, "tq2_0", nullptr, "tq2_0_dequant_k", true, 256, 66, {}},
  };
  return specs;
}

const QuantSpec* quant_spec(TensorType type) {
  for (const auto& s : quant_specs())
    if (s.type == type) return &s;
  for (const auto& s : decoder_only_specs())
    if (s.type == type) return &s;
  return nullptr;
}

// The QUANT_SPECS names ("q4k"), or a format's ggml name ("q4_K").
const QuantSpec* quant_spec(std::string_view kind) {
  for (const auto& s : quant_specs())
    if (kind == s.kind) return &s;
  if (const auto t = quant::type_from_name(kind)) return quant_spec(*t);
  return nullptr;
}

uint64_t quant_table(Workspace& ws, const char* name) {
  const std::string key = std::string("tables.") + name;
  if (const size_t have = ws.size(key)) return ws.buffer(key, have);
  auto bytes = quant::table_bytes(name);
  if (bytes.empty()) throw Error(std::string("no constant table '") + name + "'");
  return ws.upload(key, bytes.data(), bytes.size());
}

DotLinear::DotLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag,
                     std::vector<uint64_t> tables)
    : Linear(dev, n, k, w, ws, std::move(tag)) {
  init(std::move(tables));
}

DotLinear::DotLinear(Device& dev, int64_t n, int64_t k, TensorType type, std::span<const uint8_t> bytes, Workspace* ws,
                     std::string tag, std::vector<uint64_t> tables, int64_t groups)
    : Linear(dev, n, k, DeviceWeights{type, 0, groups, false}, ws, std::move(tag)) {
  spec_ = quant_spec(type);
  if (!spec_) throw Error(tag_ + ": no device decoder for " + quant::type_name(type));
  if (k % spec_->elems)
    throw Error(tag_ + ": k = " + std::to_string(k) + " is not a multiple of the " + quant::type_name(type) +
                " block (" + std::to_string(spec_->elems) + ")");
  const uint64_t want = uint64_t(n * groups) * uint64_t(k / spec_->elems) * spec_->bytes;
  if (bytes.size() != want)
    throw Error(tag_ + ": " + std::to_string(bytes.size()) + " weight bytes, expected " + std::to_string(want) +
                " for " + std::to_string(groups) + " x " + sizes(n, k) + " " + quant::type_name(type));
  w_ = upload_weights(dev, type, bytes, groups);
  init(std::move(tables));
}

void DotLinear::init(std::vector<uint64_t> tables) {
  spec_ = quant_spec(w_.type);
  if (!spec_) throw Error(tag_ + ": no device decoder for " + quant::type_name(w_.type));
  if (k_ % spec_->elems)
    throw Error(tag_ + ": k = " + std::to_string(k_) + " is not a multiple of the " + quant::type_name(w_.type) +
                " block (" + std::to_string(spec_->elems) + ")");
  if (!tables.empty() && tables.size() != spec_->tables.size())
    throw Error(tag_ + ": " + spec_->kind + " takes " + std::to_string(spec_->tables.size()) + " tables, got " +
                std::to_string(tables.size()));
  if (tables.empty())
    for (const char* t : spec_->tables) tables.push_back(quant_table(*ws_, t));
  tables_ = std::move(tables);
  if (!spec_->dot_kernel)
    throw Error(tag_ + ": " + quant::type_name(w_.type) + " has no fused dot kernel; its fast GEMV runs it (GemvLinear)");
  dot_ = ContractKernel(dev_, spec_->dot_kernel, tag_);
  reduce_ = ContractKernel(dev_, "reduce_blocks_k", tag_);
  add_ = ContractKernel(dev_, "add_inplace_k", tag_);
  nbpr_ = k_ / spec_->elems;
  if (nbpr_ == 1) concat_ = ContractKernel(dev_, "concat2_k", tag_);
  std::vector<uint32_t> ids(static_cast<size_t>(n_));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = uint32_t(i);
  ids_ = ws_->upload(tag_ + ".ids", ids.data(), ids.size() * 4);
}

void DotLinear::dot(uint64_t x, uint64_t partial, int64_t rows, int64_t rows_per_exp, uint64_t ids, uint64_t stride,
                    int64_t rows_per_w, uint64_t out, bool accumulate) {
  // The dot kernels divide block indices by nbpr, rows_per_exp and rows_per_w
  // with 32-bit magic multipliers, which a divisor of 1 does not have. A matrix
  // of one block per row (k = the block length, e.g. 256 for the K-quants)
  // therefore runs as pairs of rows of two blocks each: concat2_k lays every x
  // group out twice ([x_g, x_g]), so block i, still at local index i, meets the
  // whole of x either way, the pair counts replace the row counts, and each
  // partial is a complete row sum (no reduce_blocks_k).
  const bool paired = nbpr_ == 1;
  int64_t nbpr = nbpr_, units = rows, unit_rpe = rows_per_exp, unit_rpw = rows_per_w;
  if (paired) {
    const int64_t pairs = (rows + 1) / 2;
    auto in_pairs = [&](int64_t per, const char* what) {
      if (per >= rows) return pairs;  // one group spans every row
      if (per % 2)
        throw Error(tag_ + ": " + what + " = " + std::to_string(per) + " must be even for a " +
                    quant::type_name(w_.type) + " matrix of one block per row (k = " + std::to_string(k_) + ")");
      return per / 2;
    };
    unit_rpe = in_pairs(rows_per_exp, "rows_per_exp");
    unit_rpw = in_pairs(rows_per_w, "rows_per_w");
    const int64_t xgroups = rows_per_exp >= rows ? 1 : rows / rows_per_exp;
    const uint64_t twice = ws_->buffer(tag_ + ".x_twice", size_t(2 * xgroups * k_) * 4);
    concat_.launch(dev_, {{"n", xgroups * k_}},
                   {{"y", twice}, {"a", x}, {"b", x}, {"pre", uint64_t(k_)}, {"n", uint64_t(xgroups * k_)}});
    x = twice;
    nbpr = 2;
    units = pairs;
    partial = accumulate ? ws_->buffer(tag_ + ".acc", size_t(rows) * 4) : out;
  }
  // A group spanning every row gets the largest u32 divisor: its multiplier (2)
  // gives quotient 0 for every dividend below 2^31, where the multiplier of
  // the row count itself stops being exact once rows exceed about 2^16 (the
  // output projection of a 151936-token vocabulary).
  constexpr int64_t kWholeRange = 0xFFFFFFFF;
  if (unit_rpe >= units) unit_rpe = kWholeRange;
  if (unit_rpw >= units) unit_rpw = kWholeRange;
  const int64_t nblocks = rows * nbpr_;
  // The contract derives the counts and their magic multipliers; each is
  // checked exact over its dividends here (an error names the layer).
  const kernels::Launch l =
      dot_.plan({{"nblocks", nblocks}, {"nbpr", nbpr}, {"rows_per_exp", unit_rpe}, {"rows_per_w", unit_rpw}});
  check_div_magic(l.args.at("magic_nbpr"), nbpr, nblocks, tag_ + " nbpr");
  check_div_magic(l.args.at("magic_rpe"), unit_rpe, units, tag_ + " rows_per_exp");
  check_div_magic(l.args.at("magic_rpw"), unit_rpw, units, tag_ + " rows_per_w");
  std::map<std::string, uint64_t> given = {
      {"w", w_.ptr}, {"x", x}, {"partial", partial}, {"ids", ids}, {"stride", stride}};
  // the type's tables, in the order of its arguments
  size_t table = 0;
  for (const std::string& a : dot_.contract.args())
    if (!given.count(a) && !l.args.count(a) && table < tables_.size()) given[a] = tables_[table++];
  dot_.launch(dev_, l, given);
  const uint64_t y = accumulate ? ws_->buffer(tag_ + ".acc", size_t(rows) * 4) : out;
  if (!paired) {
    reduce_.launch(dev_, {{"nrows", rows}},
                   {{"partial", partial}, {"y", y}, {"nrows", uint64_t(rows)}, {"nbpr", uint64_t(nbpr_)}});
  }
  if (accumulate) {
    add_.launch(dev_, {{"n", rows}}, {{"y", out}, {"x", y}, {"n", uint64_t(rows)}});
  }
}

void DotLinear::row(uint64_t x, uint64_t y, bool accumulate) {
  const uint64_t partial = ws_->buffer(tag_ + ".partial", size_t(n_ * nbpr_) * 4);
  dot(x, partial, n_, n_, ids_, uint64_t(nbpr_) * spec_->bytes, n_, y, accumulate);
}

void DotLinear::selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) {
  const int64_t rows = count * n_;
  const uint64_t partial = ws_->buffer(tag_ + ".partial", size_t(rows * nbpr_) * 4);
  dot(x, partial, rows, x_per_group ? n_ : rows, ids, group_stride(*this), n_, out, false);
}

void DotLinear::forward_experts(uint64_t x, uint64_t ids, uint32_t stride_bytes, int64_t rows_per_exp,
                                int64_t rows_per_w, uint64_t out) {
  const uint64_t partial = ws_->buffer(tag_ + ".partial", size_t(n_ * nbpr_) * 4);
  dot(x, partial, n_, rows_per_exp, ids, stride_bytes, rows_per_w, out ? out : ws_->buffer(tag_ + ".out", size_t(n_) * 4),
      false);
}

// ------------------------------------------------------------------ factory

std::unique_ptr<Linear> make_linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag) {
  if (w.gemv_layout) return std::make_unique<GemvLinear>(dev, n, k, w, ws, std::move(tag));
  switch (w.type) {
    case TensorType::F32:
      // grouped weights run through the grouped kernel; dense ones through the f32 dispatcher
      return std::make_unique<F32Linear>(dev, n, k, w, ws, std::move(tag));
    case TensorType::F16:
    case TensorType::BF16:
      return std::make_unique<FloatLinear>(dev, n, k, w, ws, std::move(tag));
    default:
      if (!quant_spec(w.type))
        throw Error(tag + ": tensors of type " + quant::type_name(w.type) + " cannot run on the device (types: f32, "
                    "f16, bf16, q4_0, q8_0, q2_0, q4_K, q5_K, q6_K, iq4_nl, iq4_xs, iq2_s, iq3_s, iq3_xxs)");
      return std::make_unique<DotLinear>(dev, n, k, w, ws, std::move(tag));
  }
}

}  // namespace k100::model
