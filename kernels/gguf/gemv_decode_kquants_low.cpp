// Decoders of the 2- and 3-bit K-quants for the fast GEMVs: Q2_K, Q3_K.
// Both scale runs of 16 elements.
//
// Q2_K: a group is one block; the header is (d, dmin), then the 16 scale
// bytes (low nibble the run's scale, high nibble its min), unpacked once per
// block into scale bytes and min bytes. Slice dword t is one run, its pairs
// as Q2_0's: per 8 elements four ANDs give the pairs at four scale classes
// (code * 4^a, f16 denormals); at the run's end the classes fold into one
// sum that the run's scale multiplies, and the run's sum of x its min:
//   block = d * sum_r sc_r * sum(code * x) - dmin * sum_r m_r * sum(x).
//
// Q3_K: a group is two blocks (so that it is a whole number of dwords); the
// header is their d, then their 12 scale bytes, unpacked once per block
// into 16 bytes of 6-bit scales. A slice is 32 elements of 3-bit codes
// (the hmask bit over the two low bits, value code - 4): per dword three
// pairs by an AND each (code * 1, 8, 64), two more after a shift by 9
// (code * 1, 8), the sixteenth gathered from bits 15 / 31 of the slice's
// three dwords. A run's classes fold into one sum, less 4 times its sum of
// x, times its scale (sc - 32); the block's d multiplies the block's sum.
#include <algorithm>

#include "gemv_crumb_products.h"
#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

class TwoBit final : public GemvDecoder {
 public:
  int sumx_run() const override { return 16; }
  // As Q2_0 (the same 512-byte slices): one slice ahead of even slices, two
  // of odd ones.
  int in_flight_bytes() const override { return 512; }
  int in_flight_bytes_odd() const override { return 1024; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    dd_ = k.vgpr(1, "d, dmin");
    sc_bytes_ = k.vgpr(4, "run scales");
    mn_bytes_ = k.vgpr(4, "run mins");
    pairs_ = k.vgpr(4, "pairs");
    shifted_ = k.vgpr(1, "codes >> 8");
    sc_ = k.vgpr(1, "run scale");
    mn_ = k.vgpr(1, "run min");
    acc_.clear();
    gt_.clear();
    gm_.clear();
    for (int m = 0; m < e.M; ++m) {
      acc_.push_back(k.vgpr(4, "run sums x4^a"));
      gt_.push_back(k.vgpr(1, "block code sum"));
      gm_.push_back(k.vgpr(1, "block min sum"));
    }
  }

  void header(GemvEmitter& e, VGPR h) override {
    Kernel& k = e.k;
    k.v_mov_b32(dd_, h[0]);
    for (int w = 0; w < 4; ++w) {
      k.v_and_b32(sc_bytes_[w], 0x0F0F0F0Fu, h[1 + w]);
      k.v_lshrrev_b32(mn_bytes_[w], 4, h[1 + w]);
      k.v_and_b32(mn_bytes_[w], 0x0F0F0F0Fu, mn_bytes_[w]);
    }
  }

  // Units of 8 elements: unit u of the slice is half u % 2 of dword u / 2
  // (run 2j + u / 2 of the block); a run ends with its odd unit.
  void step(GemvEmitter& e, int j, int q, VGPR data) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8, first_unit = q * units;
    for (int i = 0; i < units; ++i) {
      const int u = first_unit + i;
      const VGPR src = crumb_unit_bits(k, data, u, shifted_);
      crumb_unit(e, pairs_, src, acc_, 8 * i, u % 2 == 0);
      if (u % 2 == 0) continue;
      const int r = 2 * j + u / 2;  // run of the block
      u8_to_f32(k, sc_, sc_bytes_[r / 4], r % 4);
      u8_to_f32(k, mn_, mn_bytes_[r / 4], r % 4);
      for (int m = 0; m < e.M; ++m) {
        const VGPR a = acc_[size_t(m)], gt = gt_[size_t(m)], gm = gm_[size_t(m)];
        fold_crumb_classes(k, a);
        if (r == 0) {
          k.v_mul_f32(gt, sc_, a[0]);
          k.v_mul_f32(gm, e.sumx(m, r), mn_);
        } else {
          k.v_fmac_f32(gt, sc_, a[0]);
          k.v_fmac_f32(gm, e.sumx(m, r), mn_);
        }
      }
    }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    if (j != e.shape.slices - 1) return;
    Kernel& k = e.k;
    for (int m = 0; m < e.M; ++m) {
      const VGPR total = totals[size_t(m)], gm = gm_[size_t(m)];
      k.v_mul_f32(gm, -1.0f / kDenormalScale, gm);
      k.v_fma_mix_f32(total, dd_, gt_[size_t(m)], total, as::op_sel({0, 0, 0}), as::op_sel_hi({1, 0, 0}));
      k.v_fma_mix_f32(total, dd_, gm, total, as::op_sel({1, 0, 0}), as::op_sel_hi({1, 0, 0}));
    }
  }

 private:
  VGPR dd_, sc_bytes_, mn_bytes_, pairs_, shifted_, sc_, mn_;
  std::vector<VGPR> acc_, gt_, gm_;
};

class ThreeBit final : public GemvDecoder {
 public:
  int sumx_run() const override { return 16; }
  int waves_per_simd() const override { return 2; }  // two 256-element chunks of x sums per row
  // The plain kernel's lane-read SGPR otherwise shares a register with the
  // next load's address: the hazard's s_nop (17408 x 5120, MODELED: 60.05 us
  // sharing, 59.38 us apart).
  GemvTuning tuning(std::optional<GemvFusion> f) const override { return {.avoid_sgpr_hazard_sharing = !f}; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    dd_ = k.vgpr(1, "d pair");
    scales_ = k.vgpr(8, "6-bit scales");
    t_ = k.vgpr(1, "scale bits");
    c30_ = k.vgpr(1, "0x30303030");
    k.v_mov_b32(c30_, 0x30303030u);
    pairs_ = k.vgpr(e.step_elems / 2, "pairs");
    shifted_ = k.vgpr(3, "codes >> 9");
    sc_ = k.vgpr(1, "run scale");
    offset_ = k.vgpr(1, "-4 * 2^-24");
    k.v_mov_b32(offset_, -4.0f / kDenormalScale);
    for (int b = 1; b < 3; ++b) {
      bit_mask_[b] = k.sgpr(1, "bit mask");
      k.s_mov_b32(bit_mask_[b], 0x00010001u << b);
    }
    acc_.clear();
    gt_.clear();
    for (int m = 0; m < e.M; ++m) {
      acc_.push_back(k.vgpr(6, "run sums x1, x8, x64"));
      gt_.push_back(k.vgpr(1, "block sum"));
    }
  }

  // Block b's scales from its bytes A, B, C (header dwords 1 + 3b ..): bytes
  // 0-3 = A & 15 | (C << 4) & 0x30, 4-7 = B & 15 | (C << 2) & 0x30, 8-11 =
  // A >> 4 & 15 | C & 0x30, 12-15 = B >> 4 & 15 | (C >> 2) & 0x30.
  void header(GemvEmitter& e, VGPR h) override {
    Kernel& k = e.k;
    k.v_mov_b32(dd_, h[0]);
    for (int b = 0; b < 2; ++b) {
      const VGPR A = h[1 + 3 * b], B = h[2 + 3 * b], C = h[3 + 3 * b], s = scales_.sub(4 * b, 4);
      k.v_and_b32(s[0], 0x0F0F0F0Fu, A);
      k.v_lshlrev_b32(t_, 4, C);
      k.v_and_or_b32(s[0], t_, c30_, s[0]);
      k.v_and_b32(s[1], 0x0F0F0F0Fu, B);
      k.v_lshlrev_b32(t_, 2, C);
      k.v_and_or_b32(s[1], t_, c30_, s[1]);
      k.v_lshrrev_b32(s[2], 4, A);
      k.v_and_b32(s[2], 0x0F0F0F0Fu, s[2]);
      k.v_and_or_b32(s[2], C, c30_, s[2]);
      k.v_lshrrev_b32(s[3], 4, B);
      k.v_and_b32(s[3], 0x0F0F0F0Fu, s[3]);
      k.v_lshrrev_b32(t_, 2, C);
      k.v_and_or_b32(s[3], t_, c30_, s[3]);
    }
  }

  void step(GemvEmitter& e, int, int q, VGPR data) override {
    Kernel& k = e.k;
    const int pairs = e.step_elems / 2, first = q * pairs;
    bool shifted[3] = {false, false, false};
    int cls[16];
    for (int i = 0; i < pairs; ++i) {
      const int p = first + i;
      const VGPR dst = pairs_[i];
      if (p == 15) {
        gather_top_bits(k, dst, data, 3, t_, bit_mask_);
        cls[i] = 0;
        continue;
      }
      const int w = p / 5, kk = p % 5;
      static const uint32_t kMask[3] = {0x00070007u, 0x00380038u, 0x01C001C0u};
      if (kk < 3) {
        k.v_and_b32(dst, kMask[kk], data[w]);
        cls[i] = kk;
      } else {
        if (!shifted[w]) k.v_lshrrev_b32(shifted_[w], 9, data[w]);
        shifted[w] = true;
        k.v_and_b32(dst, kMask[kk - 3], shifted_[w]);
        cls[i] = kk - 3;
      }
    }
    for (int m = 0; m < e.M; ++m)
      for (int i = 0; i < pairs; ++i) {
        const int p = first + i, run = p / 8;
        const VGPR acc = acc_[size_t(m)][3 * run + cls[i]];
        for (int h = 0; h < 2; ++h) e.fma_half(acc, pairs_[i], h, m, 2 * i + h, h == 0 && first_of_class(p));
      }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    const int b = j / 8, sub = j % 8;
    for (int run = 0; run < 2; ++run) {
      const int r = 2 * sub + run;  // run of the block
      u8_to_f32(k, sc_, scales_[4 * b + r / 4], r % 4);
      k.v_add_f32(sc_, -32.0f, sc_);
      for (int m = 0; m < e.M; ++m) {
        const VGPR a = acc_[size_t(m)].sub(3 * run, 3), gt = gt_[size_t(m)];
        k.v_fmac_f32(a[0], 0.125f, a[1]);
        k.v_fmac_f32(a[0], 0.015625f, a[2]);
        k.v_fmac_f32(a[0], e.sumx(m, 2 * j + run), offset_);
        if (r == 0) k.v_mul_f32(gt, sc_, a[0]);
        else k.v_fmac_f32(gt, sc_, a[0]);
      }
    }
    if (sub == 7)
      for (int m = 0; m < e.M; ++m) {
        const VGPR total = totals[size_t(m)];
        k.v_fma_mix_f32(total, dd_, gt_[size_t(m)], total, as::op_sel({b, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
  }

 private:
  // Whether pair p is the first of its run (pairs 0-7, 8-15) in its class:
  // run 0's x1, x8, x64 classes start at pairs 0, 1, 2, run 1's at 8 (bits
  // 9-11 of dword 1), 9 and 12.
  static bool first_of_class(int p) { return p == 0 || p == 1 || p == 2 || p == 8 || p == 9 || p == 12; }

  VGPR dd_, scales_, t_, c30_, pairs_, shifted_, sc_, offset_;
  SGPR bit_mask_[3];
  std::vector<VGPR> acc_, gt_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_low_kquant_decoder(TensorType type) {
  switch (type) {
    case TensorType::Q2_K: return std::make_unique<TwoBit>();
    case TensorType::Q3_K: return std::make_unique<ThreeBit>();
    default: throw Error("gemv: " + quant::type_name(type) + " is not a 2- or 3-bit K-quant type");
  }
}

}  // namespace k100::kernels::gguf_gemv
