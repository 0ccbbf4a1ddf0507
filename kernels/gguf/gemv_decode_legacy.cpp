// Decoders of the 32- and 64-element block types for the fast GEMVs: Q4_0,
// Q2_0 (codes with an offset), IQ4_NL (a 16-level codebook) and Q8_0; and
// (Block32, below) Q4_1, Q5_0, Q5_1 and MXFP4.
//
// Groups hold 8 blocks (Q2_0: 4); the header is the blocks' f16 scales, one
// slice is one block (Q2_0: half a block). Codes become f16 half-words with one AND each (the
// GEMV layout puts them in bits 0-9 of a half, where an f16 is the denormal
// code * 2^-24), and v_fma_mix_f32 multiplies the half by the f32 x from an
// SGPR. Codes at bits 4-7 of a half (x16) or 2a (x4^a) go to accumulators of
// their own, folded at the end of the block; the offset (code - 8, code - 1)
// is taken off there with the block's sum of x, and the block's f16 scale is
// applied by one more v_fma_mix_f32. IQ4_NL turns each code byte into two
// signed half-words with one LDS read of a 256-entry table. Q8_0 converts
// its int8 codes to f32 (SDWA) and multiplies with v_fmac_f32.
#include "gemv_crumb_products.h"
#include "gemv_decoder.h"
#include "gemv_five_bit_products.h"
#include "gemv_nibble_products.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

// The f16 scale of block b of the group: half b % 2 of header dword b / 2.
void apply_scale(Kernel& k, VGPR total, VGPR scales, int b, VGPR value) {
  k.v_fma_mix_f32(total, scales[b / 2], value, total, as::op_sel({b % 2, 0, 0}), as::op_sel_hi({1, 0, 0}));
}

// Q4_0: value = d * (code - 8); IQ4_NL: d * codebook[code].
class Nibbles final : public GemvDecoder {
 public:
  explicit Nibbles(bool codebook) : codebook_(codebook), products_(codebook) {}
  int sumx_run() const override { return codebook_ ? 0 : 32; }
  uint32_t lds_table_bytes() const override { return codebook_ ? 1024 : 0; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    scales_ = k.vgpr(4, "block scales");
    products_.begin(e);
    if (!codebook_) {
      offset_ = k.vgpr(1, "-8 * 2^-24");
      k.v_mov_b32(offset_, -8.0f / kDenormalScale);
    }
  }

  void header(GemvEmitter& e, VGPR header) override {
    copy_dwords(e.k, scales_, header, 4);
  }

  void step(GemvEmitter& e, int, int q, VGPR data) override { products_.step(e, q, data); }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = products_.fold(e, m);
      if (!codebook_) e.k.v_fmac_f32(a, e.sumx(m, j), offset_);
      apply_scale(e.k, totals[size_t(m)], scales_, j, a);
    }
  }


 private:
  bool codebook_;
  NibbleProducts products_;
  VGPR scales_, offset_;
};

// Q2_0: value = d * (code - 1), 64 elements per block, 2-bit codes. A
// slice is half a block (2 dwords, 32 elements): the block's accumulators
// start at its first slice and are folded at its second.
class Crumbs final : public GemvDecoder {
 public:
  int sumx_run() const override { return 64; }
  // One slice (512 bytes) ahead of even slices, two of odd ones: with the
  // four waves of a tile splitting its row, a 17408-row matrix has 1088
  // waves, and 1.5 slices each keep about 750 KiB in flight, under the
  // HBM's open rows (1 MiB); two whole slices each would not be.
  int in_flight_bytes() const override { return 512; }
  int in_flight_bytes_odd() const override { return 1024; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    scales_ = k.vgpr(e.shape.header_dwords, "block scales");
    pairs_ = k.vgpr(4, "pairs");
    shifted_ = k.vgpr(1, "codes >> 8");
    acc_.clear();
    for (int m = 0; m < e.M; ++m) acc_.push_back(k.vgpr(4, "block sums x4^a"));
    offset_ = k.vgpr(1, "-2^-24");
    k.v_mov_b32(offset_, -1.0f / kDenormalScale);
  }

  void header(GemvEmitter& e, VGPR header) override {
    copy_dwords(e.k, scales_, header, e.shape.header_dwords);
  }

  // Half-dword units: unit u of the slice is dword u / 2, shifted right by 8
  // when u is odd (8 elements). Unit by unit: its four pairs, then their
  // products for every row (four registers of pairs, not one per pair of the step).
  void step(GemvEmitter& e, int j, int q, VGPR data) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8, first_unit = q * units;
    for (int i = 0; i < units; ++i) {
      const int u = first_unit + i;
      const VGPR src = crumb_unit_bits(k, data, u, shifted_);
      crumb_unit(e, pairs_, src, acc_, 8 * i, j % 2 == 0 && u == 0);
    }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    if (j % 2 == 0) return;
    Kernel& k = e.k;
    const int b = j / 2;
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = acc_[size_t(m)];
      fold_crumb_classes(k, a);
      k.v_fmac_f32(a[0], e.sumx(m, b), offset_);
      apply_scale(k, totals[size_t(m)], scales_, b, a[0]);
    }
  }

 private:
  VGPR scales_, pairs_, shifted_, offset_;
  std::vector<VGPR> acc_;
};

// Q8_0: value = d * code, int8 codes converted to f32.
class Bytes final : public GemvDecoder {
 public:
  float total_factor() const override { return 1.0f; }
  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    scales_ = k.vgpr(4, "block scales");
    values_ = k.vgpr(8, "values");
    acc_.clear();
    for (int m = 0; m < e.M; ++m) acc_.push_back(k.vgpr(1, "block sum"));
  }

  void header(GemvEmitter& e, VGPR header) override {
    copy_dwords(e.k, scales_, header, 4);
  }

  void step(GemvEmitter& e, int, int q, VGPR data) override {
    Kernel& k = e.k;
    const int dwords = e.step_elems / 4, first_dword = q * dwords;
    // Two dwords (8 values) at a time: convert, then the products of every row.
    for (int i = 0; i < dwords; i += 2) {
      for (int d = 0; d < 2; ++d)
        for (int b = 0; b < 4; ++b) i8_to_f32(k, values_[4 * d + b], data[first_dword + i + d], b);
      for (int m = 0; m < e.M; ++m)
        for (int v = 0; v < 8; ++v)
          e.fma_f32(acc_[size_t(m)], values_[v], m, 4 * i + v, first_dword + i == 0 && v == 0);
    }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    for (int m = 0; m < e.M; ++m) apply_scale(e.k, totals[size_t(m)], scales_, j, acc_[size_t(m)]);
  }

 private:
  VGPR scales_, values_;
  std::vector<VGPR> acc_;
};


// Q4_1 (d * q + m, 4-bit codes), Q5_0 (d * (q - 16)), Q5_1 (d * q + m,
// 5-bit codes) and MXFP4 (kv[q] * 2^(e - 128), the codebook by LDS as
// IQ4_NL's): groups of 8 blocks, one block per slice. The header is the
// blocks' (d, m) pairs (Q4_1, Q5_1: dword b), d halves (Q5_0: half b % 2 of
// dword b / 2) or exponent bytes (MXFP4: byte b). The code products of a
// block (f16 denormals, gemv_nibble_products.h / gemv_five_bit_products.h)
// fold into one sum that Q5_0's offset -16 takes its sum of x from; the
// block's d multiplies it (v_fma_mix_f32), and m the block's sum of x times
// 2^-24; MXFP4's sum goes by v_ldexp_f32 with e - 128.
class Block32 final : public GemvDecoder {
 public:
  explicit Block32(TensorType t) : type_(t), nibbles_(t == TensorType::MXFP4) {}
  int sumx_run() const override { return type_ == TensorType::MXFP4 ? 0 : 32; }
  uint32_t lds_table_bytes() const override { return type_ == TensorType::MXFP4 ? 1024 : 0; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    hdr_ = k.vgpr(e.shape.header_dwords, "block scales");
    if (five()) fives_.begin(e);
    else nibbles_.begin(e);
    if (type_ == TensorType::Q5_0) {
      offset_ = k.vgpr(1, "-16 * 2^-24");
      k.v_mov_b32(offset_, -16.0f / kDenormalScale);
    }
    if (type_ == TensorType::MXFP4) exponent_ = k.vgpr(1, "e - 128");
    if (type_ == TensorType::Q4_1 || type_ == TensorType::Q5_1) {
      scaled_sum_ = k.vgpr(1, "sum of x * 2^-24");
      inv_scale_ = k.vgpr(1, "2^-24");
      k.v_mov_b32(inv_scale_, 1.0f / kDenormalScale);
    }
  }

  void header(GemvEmitter& e, VGPR header) override { copy_dwords(e.k, hdr_, header, e.shape.header_dwords); }

  void step(GemvEmitter& e, int, int q, VGPR data) override {
    if (five()) fives_.step(e, q, data);
    else nibbles_.step(e, q, data);
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    if (type_ == TensorType::MXFP4) {
      k.v_bfe_u32(exponent_, hdr_[j / 4], 8 * (j % 4), 8);
      k.v_subrev_u32(exponent_, 128, exponent_);
    }
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = five() ? fives_.fold(e, m) : nibbles_.fold(e, m), total = totals[size_t(m)];
      switch (type_) {
        case TensorType::MXFP4:
          k.v_ldexp_f32(a, a, exponent_);
          k.v_add_f32(total, total, a);
          break;
        case TensorType::Q5_0:
          k.v_fmac_f32(a, e.sumx(m, j), offset_);
          apply_scale(k, total, hdr_, j, a);
          break;
        default:  // (d, m) in dword j
          k.v_fma_mix_f32(total, hdr_[j], a, total, as::op_sel({0, 0, 0}), as::op_sel_hi({1, 0, 0}));
          k.v_mul_f32(scaled_sum_, e.sumx(m, j), inv_scale_);
          k.v_fma_mix_f32(total, hdr_[j], scaled_sum_, total, as::op_sel({1, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }

 private:
  bool five() const { return type_ == TensorType::Q5_0 || type_ == TensorType::Q5_1; }
  TensorType type_;
  NibbleProducts nibbles_;
  FiveBitProducts fives_;
  VGPR hdr_, offset_, exponent_, scaled_sum_, inv_scale_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_legacy_decoder(TensorType type) {
  switch (type) {
    case TensorType::Q4_0: return std::make_unique<Nibbles>(false);
    case TensorType::IQ4_NL: return std::make_unique<Nibbles>(true);
    case TensorType::Q2_0: return std::make_unique<Crumbs>();
    case TensorType::Q8_0: return std::make_unique<Bytes>();
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::MXFP4: return std::make_unique<Block32>(type);
    default: throw Error("gemv: " + quant::type_name(type) + " is not a 32- or 64-element block type");
  }
}

}  // namespace k100::kernels::gguf_gemv
