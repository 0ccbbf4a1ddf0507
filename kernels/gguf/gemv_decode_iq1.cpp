// Decoders of IQ1_S and IQ1_M for the fast GEMVs: per 8 elements an 11-bit
// index into the 2048-entry grid of signed values g (-1, 0, 1) and a delta
// of +-1/8; value dl * (g + delta).
//
// The kernel's LDS holds the grid as one dword per entry (quant::gemv_table):
// g + 1 (0, 1, 2) of element j at bits {0, 16, 2, 18, 4, 20, 6, 22}[j], so
// that four ANDs make the 8 elements' pairs at four scale classes (code *
// 4^a, f16 denormals), as Q2_0's codes. Per 8 elements: the entry address
// (the index's low byte shifted by SDWA, its three high bits, one
// v_lshl_or_b32), one ds_read_b32, four ANDs, 8 v_fma_mix_f32; the classes
// fold into one sum of (g + 1) x, and (delta - 1) times the sum of x of the
// delta's elements completes dl's run:
//   run = dl * (sum (g + 1) x + (delta - 1) sum x).
// IQ1_S: a group is two blocks, a slice two sub-blocks (32 elements each
// with one scale d (2 s + 1) and one delta; the header is the blocks' d);
// IQ1_M: a group is one block, a slice two sub-blocks (a scale per 16
// elements, a delta per 8; the header is the four scale words, whose top
// nibbles are the f16 d).
#include <algorithm>

#include "gemv_crumb_products.h"
#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

const char* const kByteSel[4] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3"};

class Iq1 final : public GemvDecoder {
 public:
  explicit Iq1(TensorType t) : m_(t == TensorType::IQ1_M) {}
  // The deltas' runs: the sub-block (IQ1_S) or the group of 8 (IQ1_M).
  int sumx_run() const override { return m_ ? 8 : 32; }
  // Issue-bound, the CUs with one tile more finish last: shared tiles even
  // that out (17408 x 5120, MODELED: IQ1_S 58.02 -> 47.60 us, IQ1_M 52.24 ->
  // 45.78 us).
  bool shares_tiles() const override { return true; }
  uint32_t lds_table_bytes() const override { return 2048 * 4; }
  // IQ1_S: two 256-element chunks of x sums per row (its groups are two blocks)
  int waves_per_simd() const override { return m_ ? 3 : 2; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8;
    hdr_ = k.vgpr(e.shape.header_dwords, "d / scale words");
    entry_ = k.vgpr(units, "grid entries");
    addr_ = k.vgpr(units, "entry addresses");
    top_ = k.vgpr(1, "index high bits");
    pairs_ = k.vgpr(4, "pairs");
    dl_ = k.vgpr(1, "run scale");
    off_ = k.vgpr(units, "(delta - 1) 2^-24");
    c_step_ = k.vgpr(1, "-2^-26");
    c_base_ = k.vgpr(1, "-7/8 2^-24");
    k.v_mov_b32(c_step_, -0.25f / kDenormalScale);
    k.v_mov_b32(c_base_, -0.875f / kDenormalScale);
    if (m_) d_ = k.vgpr(1, "d");
    acc_.clear();
    gt_.clear();
    for (int m = 0; m < e.M; ++m) {
      acc_.push_back(k.vgpr(4, "run sums x4^a"));
      gt_.push_back(k.vgpr(1, "block sum"));
    }
  }

  void header(GemvEmitter& e, VGPR h) override {
    Kernel& k = e.k;
    copy_dwords(k, hdr_, h, e.shape.header_dwords);
    if (!m_) return;
    // d: the top nibbles of the four scale words
    const VGPR t = top_;
    k.v_bfe_u32(d_, h[0], 12, 4);
    k.v_bfe_u32(t, h[0], 28, 4);
    k.v_lshl_or_b32(d_, t, 4, d_);
    k.v_bfe_u32(t, h[1], 12, 4);
    k.v_lshl_or_b32(d_, t, 8, d_);
    k.v_bfe_u32(t, h[1], 28, 4);
    k.v_lshl_or_b32(d_, t, 12, d_);
    k.v_cvt_f32_f16(d_, d_);
  }

  // Units of 8 elements: unit u of the slice is group u % 4 of sub-block u / 4
  // (its index low byte is byte u % 4 of dword u / 4; dword 2 holds the
  // high bits). The step's entries are read first, then decoded.
  void step(GemvEmitter& e, int j, int q, VGPR data) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8, first = q * units;
    for (int i = 0; i < units; ++i) {
      const int u = first + i, s = u / 4, l = u % 4;
      // low byte * 4 | high bits << 10
      k.v_lshlrev_b32(addr_[i], 2, data[s], as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                      as::sdwa_sel("src0_sel", "DWORD"), as::sdwa_sel("src1_sel", kByteSel[l]));
      k.v_bfe_u32(top_, data[2], m_ ? 4 * u : 16 * s + 3 * l, 3);
      k.v_lshl_or_b32(addr_[i], top_, 10, addr_[i]);
      k.ds_read_b32(entry_[i], addr_[i], as::offset(e.table_offset()));
      if (m_) delta_offset(k, off_[i], data[2], 4 * u + 3);
    }
    for (int i = 0; i < units; ++i) {
      const int u = first + i, l = u % 4;
      // IQ1_M: a scale's run is 16 elements, IQ1_S: 32
      const bool run_start = m_ ? u % 2 == 0 : l == 0, run_end = m_ ? u % 2 == 1 : l == 3;
      crumb_unit(e, pairs_, entry_[i], acc_, 8 * i, run_start);
      if (m_)
        for (int m = 0; m < e.M; ++m) k.v_fmac_f32(acc_[size_t(m)][0], e.sumx(m, 8 * j + u), off_[i]);  // this group's delta
      if (!run_end) continue;
      if (!m_) delta_offset(k, off_[0], data[2], 16 * (u / 4) + 15);
      // the run's scale 2 s + 1
      const int sub = (m_ ? 2 * j : 2 * (j % 4)) + u / 4;  // sub-block of the block
      if (m_) k.v_bfe_u32(dl_, hdr_[sub / 4], 16 * ((sub / 2) % 2) + 6 * (sub % 2) + 3 * ((u % 4) / 2), 3);
      else k.v_bfe_u32(dl_, data[2], 16 * (u / 4) + 12, 3);
      k.v_lshl_add_u32(dl_, dl_, 1, 1);
      k.v_cvt_f32_u32(dl_, dl_);
      const bool block_start = m_ ? j == 0 && u == 1 : j % 4 == 0 && u == 3;
      for (int m = 0; m < e.M; ++m) {
        const VGPR a = acc_[size_t(m)], gt = gt_[size_t(m)];
        fold_crumb_classes(k, a);
        if (!m_) k.v_fmac_f32(a[0], e.sumx(m, 2 * j + u / 4), off_[0]);  // the sub-block's delta
        if (block_start) k.v_mul_f32(gt, dl_, a[0]);
        else k.v_fmac_f32(gt, dl_, a[0]);
      }
    }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    const int per_block = 4;  // slices per block: 256 / 64
    if (j % per_block != per_block - 1) return;
    Kernel& k = e.k;
    for (int m = 0; m < e.M; ++m) {
      const VGPR total = totals[size_t(m)];
      if (m_) k.v_fmac_f32(total, d_, gt_[size_t(m)]);
      else
        k.v_fma_mix_f32(total, hdr_[0], gt_[size_t(m)], total, as::op_sel({j / per_block, 0, 0}),
                        as::op_sel_hi({1, 0, 0}));
    }
  }

 private:
  // off = (delta - 1) 2^-24 from the delta's sign bit `bit` of src: -7/8 or -9/8, times 2^-24.
  void delta_offset(Kernel& k, VGPR off, VGPR src, int bit) {
    k.v_bfe_u32(off, src, bit, 1);
    k.v_cvt_f32_u32(off, off);
    k.v_fma_f32(off, off, c_step_, c_base_);
  }

  bool m_;
  VGPR hdr_, entry_, addr_, top_, pairs_, dl_, off_, c_step_, c_base_, d_;
  std::vector<VGPR> acc_, gt_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_iq1_decoder(TensorType type) {
  switch (type) {
    case TensorType::IQ1_S:
    case TensorType::IQ1_M: return std::make_unique<Iq1>(type);
    default: throw Error("gemv: " + quant::type_name(type) + " is not an IQ1 type");
  }
}

}  // namespace k100::kernels::gguf_gemv
