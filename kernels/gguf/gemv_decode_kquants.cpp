// Decoders of the K-quant super-blocks for the fast GEMVs: Q4_K, Q5_K, Q6_K.
//
// Q4_K and Q5_K: a group is one 256-element block; the header is the block
// as stored up to its codes (d, dmin, the twelve bytes of 6-bit scale / min
// pairs), slice j is sub-block j (32 elements). The header's scales and mins
// are unpacked once per block into bytes (four masked dwords), and slice j
// converts its two; its code products (f16 denormals, as Q4_0) are scaled
// by sc_j and its sum of x by m_j, into two block sums that the block's f16
// d and dmin multiply at the end of the block:
//   block = d * sum_j sc_j * sum(code * x) - dmin * sum_j m_j * sum(x).
// Q5_K's 5-bit codes: gemv_five_bit_products.h.
//
// Q6_K: a group is two blocks; the header is their f16 d and their sixteen
// int8 scales each, slice j is 32 elements (two scales of 16). Per 8
// elements three pairs are whole 6-bit codes (one AND, or a shift and an
// AND) and the fourth is gathered from three 2-bit pieces. value = d * sc *
// (code - 32): each 16-element run's products lose 32 * its sum of x, are
// scaled by its int8 scale, and the block's d multiplies the block's sum.
#include "gemv_decoder.h"
#include "gemv_five_bit_products.h"
#include "gemv_nibble_products.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

// Q4_K, Q5_K.
class AffineSuper final : public GemvDecoder {
 public:
  explicit AffineSuper(bool five) : five_(five), nibbles_(false) {}
  int sumx_run() const override { return 32; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    sc_ = k.vgpr(1, "sub-block scale");
    mn_ = k.vgpr(1, "sub-block min");
    dd_ = k.vgpr(1, "d, dmin");
    unpack_ = k.vgpr(4, "unpacked scale bytes");
    scratch_ = k.vgpr(1, "scale scratch");
    c30_ = k.vgpr(1, "0x30303030");
    k.v_mov_b32(c30_, 0x30303030u);
    gt_.clear();
    gm_.clear();
    for (int m = 0; m < e.M; ++m) {
      gt_.push_back(k.vgpr(1, "block code sum"));
      gm_.push_back(k.vgpr(1, "block min sum"));
    }
    if (five_) fives_.begin(e);
    else nibbles_.begin(e);
  }

  // scales[0..3] = A & 63, mins[0..3] = B & 63, scales[4..7] = (C & 15) | (A >> 6) << 4,
  // mins[4..7] = (C >> 4) | (B >> 6) << 4, with A, B, C the header dwords 1, 2, 3.
  void header(GemvEmitter& e, VGPR h) override {
    Kernel& k = e.k;
    const VGPR u = unpack_;
    k.v_mov_b32(dd_, h[0]);
    k.v_and_b32(u[0], 0x3F3F3F3Fu, h[1]);
    k.v_and_b32(u[1], 0x3F3F3F3Fu, h[2]);
    k.v_and_b32(u[2], 0x0F0F0F0Fu, h[3]);
    k.v_lshrrev_b32(u[3], 2, h[1]);
    k.v_and_or_b32(u[2], u[3], c30_, u[2]);
    k.v_lshrrev_b32(u[3], 4, h[3]);
    k.v_and_b32(u[3], 0x0F0F0F0Fu, u[3]);
    const VGPR t = scratch_;
    k.v_lshrrev_b32(t, 2, h[2]);
    k.v_and_or_b32(u[3], t, c30_, u[3]);
  }

  void step(GemvEmitter& e, int, int q, VGPR data) override {
    if (five_) fives_.step(e, q, data);
    else nibbles_.step(e, q, data);
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    u8_to_f32(k, sc_, unpack_[j < 4 ? 0 : 2], j % 4);
    u8_to_f32(k, mn_, unpack_[j < 4 ? 1 : 3], j % 4);
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = five_ ? fives_.fold(e, m) : nibbles_.fold(e, m);
      const VGPR gt = gt_[size_t(m)], gm = gm_[size_t(m)];
      if (j == 0) {
        k.v_mul_f32(gt, sc_, a);
        k.v_mul_f32(gm, e.sumx(m, j), mn_);
      } else {
        k.v_fmac_f32(gt, sc_, a);
        k.v_fmac_f32(gm, e.sumx(m, j), mn_);
      }
      if (j == 7) {
        const VGPR total = totals[size_t(m)];
        k.v_mul_f32(gm, -1.0f / kDenormalScale, gm);
        k.v_fma_mix_f32(total, dd_, gt, total, as::op_sel({0, 0, 0}), as::op_sel_hi({1, 0, 0}));
        k.v_fma_mix_f32(total, dd_, gm, total, as::op_sel({1, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }


 private:
  bool five_;
  NibbleProducts nibbles_;
  FiveBitProducts fives_;
  VGPR sc_, mn_, dd_, unpack_, c30_, scratch_;
  std::vector<VGPR> gt_, gm_;
};

// Q6_K.
class SixBit final : public GemvDecoder {
 public:
  int sumx_run() const override { return 16; }
  int waves_per_simd() const override { return 2; }  // two 256-element chunks of x sums per row

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    hdr_ = k.vgpr(9, "d pair, int8 scales");
    pairs_ = k.vgpr(e.step_elems / 2, "pairs");
    shifted_ = k.vgpr(1, "shifted");
    scale_ = k.vgpr(2, "run scales");
    offset_ = k.vgpr(1, "-32 * 2^-24");
    k.v_mov_b32(offset_, -32.0f / kDenormalScale);
    mask_c_ = k.sgpr(1, "0x000C000C");
    mask_30_ = k.sgpr(1, "0x00300030");
    k.s_mov_b32(mask_c_, 0x000C000Cu);
    k.s_mov_b32(mask_30_, 0x00300030u);
    acc_.clear();
    gt_.clear();
    for (int m = 0; m < e.M; ++m) {
      acc_.push_back(k.vgpr(2, "run sums"));
      gt_.push_back(k.vgpr(1, "block sum"));
    }
  }

  void header(GemvEmitter& e, VGPR h) override {
    copy_dwords(e.k, hdr_, h, 9);
  }

  // Units of 8 elements: pairs 4u .. 4u + 3 of the slice.
  void step(GemvEmitter& e, int, int q, VGPR data) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8, first = q * units;
    for (int i = 0; i < units; ++i) {
      const int u = first + i;
      for (int r = 0; r < 3; ++r) {
        const int R = 3 * u + r;
        const VGPR dst = pairs_[4 * i + r];
        if (R % 2) {
          k.v_lshrrev_b32(dst, 8, data[R / 2]);
          k.v_and_b32(dst, 0x003F003Fu, dst);
        } else {
          k.v_and_b32(dst, 0x003F003Fu, data[R / 2]);
        }
      }
      const VGPR dst = pairs_[4 * i + 3];
      const int b = 3 * (u / 2), sh = u % 2 ? 14 : 6;
      k.v_lshrrev_b32(dst, sh, data[b]);
      k.v_and_b32(dst, 0x00030003u, dst);
      k.v_lshrrev_b32(shifted_, sh - 2, data[b + 1]);
      k.v_and_or_b32(dst, shifted_, mask_c_, dst);
      k.v_lshrrev_b32(shifted_, sh - 4, data[b + 2]);
      k.v_and_or_b32(dst, shifted_, mask_30_, dst);
    }
    for (int m = 0; m < e.M; ++m)
      for (int i = 0; i < units; ++i) {
        const int u = first + i;
        const VGPR acc = acc_[size_t(m)][u / 2];
        for (int p = 0; p < 4; ++p)
          for (int h = 0; h < 2; ++h)
            e.fma_half(acc, pairs_[4 * i + p], h, m, 8 * i + 2 * p + h, u % 2 == 0 && p == 0 && h == 0);
      }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    const int b = j / 8, sub = j % 8;
    for (int half = 0; half < 2; ++half) {
      const int s = 2 * sub + half;  // scale of the block
      i8_to_f32(k, scale_[half], hdr_[1 + 4 * b + s / 4], s % 4);
    }
    for (int m = 0; m < e.M; ++m) {
      const VGPR gt = gt_[size_t(m)];
      for (int half = 0; half < 2; ++half) {
        const VGPR a = acc_[size_t(m)][half];
        k.v_fmac_f32(a, e.sumx(m, 2 * j + half), offset_);
        if (sub == 0 && half == 0) k.v_mul_f32(gt, scale_[half], a);
        else k.v_fmac_f32(gt, scale_[half], a);
      }
      if (sub == 7) {
        const VGPR total = totals[size_t(m)];
        k.v_fma_mix_f32(total, hdr_[0], gt, total, as::op_sel({b, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }


 private:
  VGPR hdr_, pairs_, shifted_, scale_, offset_;
  SGPR mask_c_, mask_30_;
  std::vector<VGPR> acc_, gt_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_kquant_decoder(TensorType type) {
  switch (type) {
    case TensorType::Q4_K: return std::make_unique<AffineSuper>(false);
    case TensorType::Q5_K: return std::make_unique<AffineSuper>(true);
    case TensorType::Q6_K: return std::make_unique<SixBit>();
    default: throw Error("gemv: " + quant::type_name(type) + " is not a K-quant type");
  }
}

}  // namespace k100::kernels::gguf_gemv
