// The decoder of TQ2_0 for the fast GEMVs: 2-bit codes q, value (q - 1) * d
// with one f16 d per 256-element block. A group is two blocks (so that it
// is whole dwords); the header is their d, a slice 32 elements whose codes
// sit as Q2_0's pairs (gemv_crumb_products.h). The four classes collect a
// whole block and fold once at its end; the offset −1 takes the block's sum
// of x, and the block's d multiplies:
//   block = d * (sum(q * x) - sum(x)).
#include "gemv_crumb_products.h"
#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

class Ternary final : public GemvDecoder {
 public:
  int sumx_run() const override { return 256; }
  // Issue-bound, so the CUs with one tile more finish last: shared tiles
  // (17408 x 5120, MODELED: 41.57 -> 40.96 us).
  bool shares_tiles() const override { return true; }
  // As Q2_0 and Q2_K (the same 512-byte slices): one slice ahead of even slices, two of odd ones.
  int in_flight_bytes() const override { return 512; }
  int in_flight_bytes_odd() const override { return 1024; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    dd_ = k.vgpr(1, "d pair");
    pairs_ = k.vgpr(4, "pairs");
    shifted_ = k.vgpr(1, "codes >> 8");
    offset_ = k.vgpr(1, "-2^-24");
    k.v_mov_b32(offset_, -1.0f / kDenormalScale);
    acc_.clear();
    for (int m = 0; m < e.M; ++m) acc_.push_back(k.vgpr(4, "block sums x4^a"));
  }

  void header(GemvEmitter& e, VGPR h) override { e.k.v_mov_b32(dd_, h[0]); }

  // Units of 8 elements: unit u of the slice is half u % 2 of dword u / 2.
  void step(GemvEmitter& e, int j, int q, VGPR data) override {
    Kernel& k = e.k;
    const int units = e.step_elems / 8, first_unit = q * units;
    for (int i = 0; i < units; ++i) {
      const int u = first_unit + i;
      const VGPR src = crumb_unit_bits(k, data, u, shifted_);
      crumb_unit(e, pairs_, src, acc_, 8 * i, j % 8 == 0 && u == 0);
    }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    if (j % 8 != 7) return;
    Kernel& k = e.k;
    const int b = j / 8;
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = acc_[size_t(m)];
      fold_crumb_classes(k, a);
      k.v_fmac_f32(a[0], e.sumx(m, b), offset_);
      k.v_fma_mix_f32(totals[size_t(m)], dd_, a[0], totals[size_t(m)], as::op_sel({b, 0, 0}), as::op_sel_hi({1, 0, 0}));
    }
  }

 private:
  VGPR dd_, pairs_, shifted_, offset_;
  std::vector<VGPR> acc_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_ternary_decoder(TensorType type) {
  if (type != TensorType::TQ2_0) throw Error("gemv: " + quant::type_name(type) + " has no ternary decoder");
  return std::make_unique<Ternary>();
}

}  // namespace k100::kernels::gguf_gemv
