// W4Linear: compressed-tensors INT4, NVFP4 and RT4 weights on their decode
// GEMVs (include/k100/model/w4_linear.h).
#include "k100/model/w4_linear.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "k100/base/error.h"
#include "k100/quant/half.h"
#include "k100/quant/rt4.h"

namespace k100::model {

namespace {

// m = 1..4 activation rows per GEMV launch.
constexpr int64_t kMaxRows = 4;
// The weight group every INT4 kernel takes (scale per 128 k).
constexpr int64_t kInt4Group = 128;
// Rows per int4_gemv_k launch of one activation row: under the timing model
// a GEMV over many more rows than its benchmark's 17408 keeps more reads in
// flight than the open DRAM rows hold (MODELED, the 34816-row gate|up of a
// 27B-class layer in one launch: 585 us, 71 % of the HBM time opening rows;
// as two launches 2 x 98 us), so a longer matrix goes as consecutive
// launches of equal runs of rows (the rows of the layout are contiguous,
// its scales likewise).
constexpr int64_t kRunRows = 17408;

// The GEMVs by activation rows (PYTHON_API.md 6: W4A8_KERNEL, W4A4_KERNEL).
// NVFP4: one weight row per wave (NROW = 1) for every M.
constexpr const char* kW4A8Gemv[5] = {nullptr, "gemv_w4a8<1,false,1>", "gemv_w4a8<2,false,2>", "gemv_w4a8<3,false,2>",
                                      "gemv_w4a8<4,false,2>"};
constexpr const char* kW4A4Gemv[5] = {nullptr, "gemv_w4a4<1>", "gemv_w4a4<2>", "gemv_w4a4<3>", "gemv_w4a4<4>"};
constexpr const char* kNvfp4Gemv[5] = {nullptr, "nvfp4_gemv<1,1>", "nvfp4_gemv<2,1>", "nvfp4_gemv<3,1>",
                                       "nvfp4_gemv<4,1>"};

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The sizes a contract declares, by what they mean: `rows` of the matrix (n,
// N, nrows), its `k` (k, K), activation rows `m` (m, M; a quantiser's
// rows). The spec's kernels name them in either case.
std::map<std::string, int64_t> contract_sizes(const ContractKernel& c, int64_t n, int64_t k, int64_t m,
                                              const std::string& tag) {
  std::map<std::string, int64_t> out;
  for (const std::string& s : c.contract.sizes()) {
    const std::string l = lower(s);
    if (l == "n" || l == "nrows") out[s] = n;
    else if (l == "k") out[s] = k;
    else if (l == "m" || l == "rows") out[s] = m;
    else
      throw Error(tag + ": kernel '" + c.ref.name + "' declares the size '" + s +
                  "', which a 4-bit linear layer does not know");
  }
  return out;
}

// Launches `c` for these sizes with the arguments the contract does not
// derive taken from `given` (by name; an argument in neither is an error
// naming the kernel, from LaunchContract::argv).
void launch(Device& dev, const ContractKernel& c, const std::map<std::string, int64_t>& sizes,
            const std::map<std::string, uint64_t>& given) {
  const kernels::Launch l = c.plan(sizes);
  std::map<std::string, uint64_t> args;
  for (const std::string& a : c.contract.args())
    if (!l.args.count(a))
      if (auto it = given.find(a); it != given.end()) args[a] = it->second;
  c.launch(dev, l, args);
}

}  // namespace

const char* w4_kind_name(W4Kind k) {
  switch (k) {
    case W4Kind::CompressedInt4: return "compressed-tensors INT4";
    case W4Kind::Nvfp4: return "NVFP4";
    case W4Kind::Rt4: return "RT4";
  }
  return "?";
}

const char* w4_activations_name(W4Activations a) {
  switch (a) {
    case W4Activations::Default: return "default";
    case W4Activations::A16: return "a16";
    case W4Activations::A8: return "a8";
    case W4Activations::A4: return "a4";
  }
  return "?";
}

W4Activations parse_w4_activations(std::string_view text, std::string_view flag) {
  if (text == "a16") return W4Activations::A16;
  if (text == "a8") return W4Activations::A8;
  if (text == "a4") return W4Activations::A4;
  throw Error(std::string(flag) + " '" + std::string(text) + "': expected a16, a8 or a4");
}

W4Activations resolve_w4_activations(W4Kind kind, W4Activations a, const std::string& what) {
  if (a == W4Activations::Default) return kind == W4Kind::CompressedInt4 ? W4Activations::A16 : W4Activations::A8;
  const bool ok = kind == W4Kind::CompressedInt4 || (kind == W4Kind::Rt4 && a != W4Activations::A16) ||
                  (kind == W4Kind::Nvfp4 && a == W4Activations::A8);
  if (!ok)
    throw Error(what + ": " + w4_kind_name(kind) + " weights have no --act " + w4_activations_name(a) +
                " path (" + (kind == W4Kind::Nvfp4 ? "NVFP4 runs a8 only" : "RT4 runs a8 or a4") + ")");
  return a;
}

W4Linear::W4Linear(Device& dev, std::span<const W4Weight* const> parts, W4Activations act, Workspace* ws,
                   std::string tag)
    : Linear(dev, [&] {
        int64_t n = 0;
        for (const W4Weight* p : parts) n += p->matrix.n;
        return n;
      }(), parts.empty() ? 0 : parts.front()->matrix.k, DeviceWeights{quant::TensorType::I8, 0, 1, false}, ws,
             std::move(tag)),
      kind_(parts.front()->kind),
      act_(resolve_w4_activations(kind_, act, tag_)) {
  for (const W4Weight* p : parts) {
    if (p->kind != kind_ || p->matrix.k != k_)
      throw Error(tag_ + ": '" + p->key + "' (" + w4_kind_name(p->kind) + ", k = " + std::to_string(p->matrix.k) +
                  ") cannot share one layer with '" + parts.front()->key + "' (" + w4_kind_name(kind_) +
                  ", k = " + std::to_string(k_) + ")");
    if (kind_ != W4Kind::Nvfp4 && p->matrix.block() != kInt4Group)
      throw Error(tag_ + ": '" + p->key + "' has groups of " + std::to_string(p->matrix.block()) +
                  "; the INT4 kernels take groups of 128");
    if (kind_ == W4Kind::Nvfp4 && p->matrix.global != parts.front()->matrix.global)
      throw Error(tag_ + ": '" + p->key + "' and '" + parts.front()->key +
                  "' have different global scales; they cannot share one layer");
  }
  if (k_ % kInt4Group)
    throw Error(tag_ + ": k = " + std::to_string(k_) + " is not a multiple of 128, which the 4-bit GEMVs need");
  gscale_ = kind_ == W4Kind::Nvfp4 ? 1.0f / parts.front()->matrix.global : 1.0f;

  const char* const* names = nullptr;
  const char* fast = nullptr;  // the package's own GEMV of any m rows in one launch, taken when present
  if (kind_ == W4Kind::Nvfp4) {
    quant_ = ContractKernel(dev_, "nvfp4_quant_act", tag_);
    names = kNvfp4Gemv;
    fast = "nvfp4_gemv_fast_k";
  } else if (act_ == W4Activations::A8) {
    quant_ = ContractKernel(dev_, "quant_act", tag_);
    names = kW4A8Gemv;
    fast = "gemv_w4a8_fast_k";
  } else if (act_ == W4Activations::A4) {
    quant_ = ContractKernel(dev_, "quant_act4", tag_);
    names = kW4A4Gemv;
    fast = "gemv_w4a4_fast_k";
  }
  if (fast && dev_.has(fast)) {
    gemv_[0] = ContractKernel(dev_, fast, tag_);
  } else if (names) {
    for (int m = 1; m <= kMaxRows; ++m) gemv_[m] = ContractKernel(dev_, names[m], tag_);
  } else if (dev_.has("int4_gemv_k")) {
    gemv_[0] = ContractKernel(dev_, "int4_gemv_k", tag_);  // m = 1..4 in one launch
  } else {
    // a package without the one-launch GEMV: the block dot and the row reduction
    if (k_ == kInt4Group)
      throw Error(tag_ + ": int4_dot_k takes at least two blocks per row (k = 128); this package has no int4_gemv_k");
    dot_ = ContractKernel(dev_, "int4_dot_k", tag_);
    reduce_ = ContractKernel(dev_, "reduce_blocks_k", tag_);
    std::vector<uint32_t> ids(static_cast<size_t>(n_));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = uint32_t(i);
    ids_ = ws_->upload(tag_ + ".ids", ids.data(), ids.size() * 4);
  }
  add_ = ContractKernel(dev_, "add_inplace_k", tag_);
  upload(parts);
}

W4Linear::~W4Linear() {
  for (uint64_t p : {codes_, scales_}) {
    if (!p) continue;
    try {
      dev_.free(p);
    } catch (...) {
    }
  }
}

uint64_t W4Linear::weight_bytes() const {
  const uint64_t codes = uint64_t(n_) * uint64_t(k_) / 2;
  const uint64_t groups = uint64_t(n_) * uint64_t(k_ / (kind_ == W4Kind::Nvfp4 ? 16 : kInt4Group));
  return codes + groups * (kind_ == W4Kind::Nvfp4 ? 1 : 2);
}

void W4Linear::upload(std::span<const W4Weight* const> parts) {
  // RT4 on the integer-dot paths: two's-complement nibbles and f16 scales,
  // converted here from compressed-tensors INT4 (offset-binary, BF16) as
  // k100-rt4 convert does (quant/rt4.h).
  const bool to_rt4 = kind_ == W4Kind::CompressedInt4 && act_ != W4Activations::A16;
  const uint64_t code_bytes = uint64_t(n_) * uint64_t(k_) / 2;
  const uint32_t scale_size = kind_ == W4Kind::Nvfp4 ? 1 : 2;
  const uint64_t scale_bytes = weight_bytes() - code_bytes;
  codes_ = dev_.alloc(code_bytes);
  try {
    scales_ = dev_.alloc(scale_bytes);
  } catch (...) {
    dev_.free(codes_);
    codes_ = 0;
    throw;
  }
  uint64_t at_codes = 0, at_scales = 0;
  std::vector<uint8_t> q, s;
  for (const W4Weight* p : parts) {
    const quant::W4Matrix& m = p->matrix;
    if (!m.codes.empty()) {
      m.check(p->key);
      std::span<const uint8_t> codes = m.codes, scales = m.scales;
      if (to_rt4) {
        q.resize(codes.size());
        quant::offset_to_twos_complement(codes, q);
        codes = q;
        const int64_t G = m.groups_per_row();
        s.resize(size_t(m.n * G) * 2);
        for (int64_t r = 0; r < m.n; ++r)
          for (int64_t g = 0; g < G; ++g) {
            const float v = m.scale(r, g);
            const uint16_t h = quant::f32_to_f16(v);
            const float back = quant::f16_to_f32(h);
            if (!std::isfinite(back) || (back == 0.0f && v != 0.0f))
              throw Error(tag_ + ": '" + p->key + "' row " + std::to_string(r) + " group " + std::to_string(g) +
                          ": the scale " + std::to_string(v) + " is outside the range of f16, which --act " +
                          w4_activations_name(act_) + " runs on");
            s[size_t(2 * (r * G + g))] = uint8_t(h & 0xff);
            s[size_t(2 * (r * G + g) + 1)] = uint8_t(h >> 8);
          }
        scales = s;
      }
      dev_.upload(codes_ + at_codes, codes.data(), codes.size());
      dev_.upload(scales_ + at_scales, scales.data(), scales.size());
    }
    at_codes += uint64_t(m.n) * uint64_t(m.k) / 2;
    at_scales += uint64_t(m.n) * uint64_t(m.k / (kind_ == W4Kind::Nvfp4 ? 16 : kInt4Group)) * scale_size;
  }
  w_.ptr = codes_;
}

void W4Linear::quantize_rows(uint64_t x, int64_t m) {
  // One launch per row (M = 1), each row's outputs at its offsets (PYTHON_API.md 6.3).
  const int64_t half = k_ / 2;
  const int64_t group = kind_ == W4Kind::Nvfp4 ? 16 : act_ == W4Activations::A4 ? 32 : kInt4Group;
  const int64_t groups = k_ / group;
  const uint64_t codes = ws_->buffer("w4.act.codes", size_t(kMaxRows * k_));
  const uint64_t odd = codes + uint64_t(kMaxRows * half);
  const uint64_t scale = ws_->buffer("w4.act.scale", size_t(kMaxRows * groups) * 4);
  const uint64_t sum = ws_->buffer("w4.act.sum", size_t(kMaxRows * groups) * 4);
  for (int64_t r = 0; r < m; ++r) {
    const uint64_t ru = uint64_t(r);
    std::map<std::string, uint64_t> given = {{"x", x + ru * uint64_t(k_) * 4},
                                             {"ae", codes + ru * uint64_t(half)},
                                             {"aq", codes + ru * uint64_t(half)},
                                             {"ao", odd + ru * uint64_t(half)},
                                             {"asc", scale + ru * uint64_t(groups) * 4},
                                             {"as", scale + ru * uint64_t(groups) * 4},
                                             {"asu", sum + ru * uint64_t(groups) * 4},
                                             {"M", 1},
                                             {"m", 1},
                                             {"K", uint64_t(k_)},
                                             {"k", uint64_t(k_)}};
    launch(dev_, quant_, contract_sizes(quant_, n_, k_, 1, tag_), given);
  }
}

void W4Linear::gemv(uint64_t x, uint64_t y, int64_t m) {
  const uint64_t N = uint64_t(n_), K = uint64_t(k_);
  if (dot_.valid()) {
    // int4_dot_k over every block of every row, then reduce_blocks_k per activation row
    const int64_t nbpr = k_ / kInt4Group, nblocks = n_ * nbpr;
    constexpr int64_t kWholeRange = 0xFFFFFFFF;  // one group spanning every row (DotLinear::dot)
    const kernels::Launch l =
        dot_.plan({{"nblocks", nblocks}, {"nbpr", nbpr}, {"rows_per_exp", kWholeRange}, {"rows_per_w", kWholeRange}});
    check_div_magic(l.args.at("magic_nbpr"), nbpr, nblocks, tag_ + " nbpr");
    const uint64_t partial = ws_->buffer(tag_ + ".partial", size_t(nblocks) * 4);
    for (int64_t r = 0; r < m; ++r) {
      std::map<std::string, uint64_t> given = {{"w", codes_},   {"x", x + uint64_t(r) * K * 4},
                                               {"partial", partial}, {"scale", scales_},
                                               {"ids", ids_},   {"stride", uint64_t(nbpr) * 64}};
      std::map<std::string, uint64_t> args;
      for (const std::string& a : dot_.contract.args())
        if (!l.args.count(a) && given.count(a)) args[a] = given[a];
      dot_.launch(dev_, l, args);
      reduce_.launch(dev_, {{"nrows", n_}},
                     {{"partial", partial}, {"y", y + uint64_t(r) * N * 4}, {"nrows", N}, {"nbpr", uint64_t(nbpr)}});
    }
    return;
  }
  if (quant_.valid()) quantize_rows(x, m);
  const ContractKernel& g = gemv_[0].valid() ? gemv_[0] : gemv_[m];
  const int64_t half = k_ / 2;
  const int64_t group = kind_ == W4Kind::Nvfp4 ? 16 : act_ == W4Activations::A4 ? 32 : kInt4Group;
  const uint64_t codes = quant_.valid() ? ws_->buffer("w4.act.codes", size_t(kMaxRows * k_)) : 0;
  const uint64_t scale = quant_.valid() ? ws_->buffer("w4.act.scale", size_t(kMaxRows * (k_ / group)) * 4) : 0;
  const uint64_t sum = quant_.valid() ? ws_->buffer("w4.act.sum", size_t(kMaxRows * (k_ / group)) * 4) : 0;
  // the quantised rows of the m activations are consecutive in each stream (quantize_rows)
  std::map<std::string, uint64_t> given = {{"wq", codes_},
                                           {"w", codes_},
                                           {"ws", scales_},
                                           {"scale", scales_},
                                           {"x", x},
                                           {"y", y},
                                           {"ae", codes},
                                           {"aq", codes},
                                           {"ao", codes + uint64_t(kMaxRows * half)},
                                           {"asc", scale},
                                           {"as", scale},
                                           {"asu", sum},
                                           {"N", N},
                                           {"nrows", N},
                                           {"K", K},
                                           {"k", K},
                                           {"m", uint64_t(m)},
                                           {"M", uint64_t(m)},
                                           {"inv_gscale", f32_bits(gscale_)}};
  // m > 1: one launch (the kernels' y rows are n apart); only int4_gemv_k
  // gains from runs (the W4A8/W4A4 fast GEMVs are limited by their kernel
  // arguments' host-link reads instead: the same gate|up in two launches,
  // 2 x 150.9 us against 288.0 us in one, MODELED)
  const bool in_runs = m == 1 && g.ref.name == "int4_gemv_k";
  const int64_t runs = in_runs ? (n_ + kRunRows - 1) / kRunRows : 1;
  const int64_t chunk = (n_ / runs + 63) / 64 * 64;
  const int64_t scale_group = kind_ == W4Kind::Nvfp4 ? 16 : kInt4Group;
  const uint64_t scale_size = kind_ == W4Kind::Nvfp4 ? 1 : 2;
  for (int64_t r0 = 0; r0 < n_; r0 += chunk) {
    const int64_t rows = std::min(chunk, n_ - r0);
    const uint64_t w = codes_ + uint64_t(r0) * K / 2, s = scales_ + uint64_t(r0) * (K / uint64_t(scale_group)) * scale_size;
    for (const char* a : {"wq", "w"}) given[a] = w;
    for (const char* a : {"ws", "scale"}) given[a] = s;
    given["y"] = y + uint64_t(r0) * 4;
    for (const char* a : {"N", "nrows"}) given[a] = uint64_t(rows);
    launch(dev_, g, contract_sizes(g, rows, k_, m, tag_), given);
  }
}

void W4Linear::row(uint64_t x, uint64_t y, bool accumulate) { rows(x, 1, y, accumulate); }

void W4Linear::rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate) {
  // accumulating: the GEMV into a scratch buffer, then add_inplace_k
  const uint64_t acc = accumulate ? ws_->buffer(tag_ + ".acc", size_t(std::min(rows, kMaxRows) * n_) * 4) : 0;
  for (int64_t r = 0; r < rows; r += kMaxRows) {
    const int64_t m = std::min(kMaxRows, rows - r);
    const uint64_t xr = x + uint64_t(r * k_) * 4, outr = out + uint64_t(r * n_) * 4;
    gemv(xr, accumulate ? acc : outr, m);
    if (accumulate) add_.launch(dev_, {{"n", m * n_}}, {{"y", outr}, {"x", acc}, {"n", uint64_t(m * n_)}});
  }
}

void W4Linear::selected(uint64_t x, uint64_t, int64_t count, bool x_per_group, uint64_t out) {
  // one weight group: every id selects it
  if (x_per_group) {
    rows(x, count, out, false);
  } else {
    for (int64_t s = 0; s < count; ++s) gemv(x, out + uint64_t(s * n_) * 4, 1);
  }
}

}  // namespace k100::model
