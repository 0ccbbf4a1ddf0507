// Decoders of the i-quant super-blocks for the fast GEMVs: IQ4_XS here (a
// 16-level codebook under 6-bit sub-block scales); the grid types IQ2_XXS,
// IQ2_XS, IQ2_S, IQ3_S and IQ3_XXS in gemv_decode_grids.cpp.
//
// IQ4_XS: a group is one 256-element block; the header is d with scales_h
// (dword 0) and scales_l (dword 1), slice j is sub-block j. The codes become
// signed f16 half-words through the IQ4_NL table (one LDS read per code
// byte); slice j's products are scaled by (ls_j - 32), unpacked once per
// block, and the block's f16 d multiplies the block's sum.
#include "gemv_decoder.h"
#include "gemv_nibble_products.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

class CodebookSuper final : public GemvDecoder {
 public:
  CodebookSuper() : nibbles_(true) {}
  uint32_t lds_table_bytes() const override { return 1024; }
  // The accumulating form with its hand waits relaxed issues each row's
  // reads earlier and pays more row activations (17408 x 5120, MODELED:
  // 69.74 us relaxed, 68.79 us as written).
  GemvTuning tuning(std::optional<GemvFusion> f) const override { return {.relax_waits = f != GemvFusion::Accumulate}; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    ls_ = k.vgpr(8, "sub-block scales");
    d_ = k.vgpr(1, "d, scales_h");
    high_ = k.vgpr(1, "scale high bits");
    nibbles_.begin(e);
    gt_.clear();
    for (int m = 0; m < e.M; ++m) gt_.push_back(k.vgpr(1, "block sum"));
  }

  // ls_j = (nibble j of scales_l) | (bits 2j, 2j + 1 of scales_h) << 4.
  void header(GemvEmitter& e, VGPR h) override {
    Kernel& k = e.k;
    k.v_mov_b32(d_, h[0]);
    for (int j = 0; j < 8; ++j) {
      const VGPR ls = ls_[j];
      k.v_bfe_u32(ls, h[1], 4 * j, 4);
      k.v_bfe_u32(high_, h[0], 16 + 2 * j, 2);
      k.v_lshl_or_b32(ls, high_, 4, ls);
      k.v_subrev_u32(ls, 32, ls);
      k.v_cvt_f32_i32(ls, ls);
    }
  }

  void step(GemvEmitter& e, int, int q, VGPR data) override { nibbles_.step(e, q, data); }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = nibbles_.fold(e, m), gt = gt_[size_t(m)];
      if (j == 0) k.v_mul_f32(gt, ls_[j], a);
      else k.v_fmac_f32(gt, ls_[j], a);
      if (j == 7) {
        const VGPR total = totals[size_t(m)];
        k.v_fma_mix_f32(total, d_, gt, total, as::op_sel({0, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }


 private:
  NibbleProducts nibbles_;
  VGPR ls_, d_, high_;
  std::vector<VGPR> gt_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_iquant_decoder(TensorType type) {
  switch (type) {
    case TensorType::IQ4_XS: return std::make_unique<CodebookSuper>();
    case TensorType::IQ2_XXS:
    case TensorType::IQ2_XS:
    case TensorType::IQ2_S:
    case TensorType::IQ3_S:
    case TensorType::IQ3_XXS: return make_grid_decoder(type);
    default: throw Error("gemv: " + quant::type_name(type) + " is not an i-quant type");
  }
}

}  // namespace k100::kernels::gguf_gemv
