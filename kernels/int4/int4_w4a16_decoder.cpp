// The compressed-tensors INT4 decoder of the fast GEMVs' skeleton
// (gemv_decoder.h): value = bf16 scale * (code - 8), codes in natural order
// (element j of a word at bits 4j..4j+3).
//
// The codes become f16 denormals (code * 2^-24) by one AND per pair, as in
// Q4_0 (gemv_nibble_products.h), only with a pair's halves holding elements
// p and p + 4 of a word; v_fma_mix_f32 multiplies them by x from SGPRs. The
// four slices of a block add into its sum; at its end the offset comes off
// with the block's two 64-element sums of x, and the scale (the header: the
// bf16 in the low half, widened by a shift) multiplies the block once.
#include "gguf/gemv_nibble_products.h"
#include "int4/int4_dot_generators.h"
#include "int4/int4_w4a16_gemv.h"

namespace k100::kernels::int4 {

using namespace codegen;
using gguf_gemv::GemvEmitter;
using gguf_gemv::kDenormalScale;

namespace {

class W4A16Decoder final : public gguf_gemv::GemvDecoder {
 public:
  W4A16Decoder() : products_(false, true) {}
  int sumx_run() const override { return 64; }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    scale_ = k.vgpr(1, "block scale");
    scales_ = k.vgpr(1, "group scales");
    products_.begin(e);
    offset_ = k.vgpr(1, "-8 * 2^-24");
    k.v_mov_b32(offset_, -8.0f / kDenormalScale);
    block_.clear();
    for (int m = 0; m < e.M; ++m) block_.push_back(k.vgpr(1, "block sum"));
  }

  void header(GemvEmitter& e, VGPR header) override { e.k.v_mov_b32(scales_, header[0]); }

  void step(GemvEmitter& e, int, int q, VGPR data) override { products_.step(e, q, data); }

  // Slice j of the group belongs to block b = j / (slices per block); the
  // block's sum starts at its first slice and is finished at its last.
  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    const int per_block = e.shape.slices / e.shape.blocks_per_group, b = j / per_block;
    const bool first = j % per_block == 0, last = j % per_block == per_block - 1;
    if (last) bf16_to_f32(k, scale_, scales_, b);
    for (int m = 0; m < e.M; ++m) {
      const VGPR a = products_.fold(e, m), sum = block_[size_t(m)];
      if (!last) {
        if (first) k.v_mov_b32(sum, a);
        else k.v_add_f32(sum, sum, a);
        continue;
      }
      const VGPR s = first ? a : sum;
      if (!first) k.v_add_f32(sum, sum, a);
      k.v_fmac_f32(s, e.sumx(m, 2 * b), offset_);
      k.v_fmac_f32(s, e.sumx(m, 2 * b + 1), offset_);
      k.v_fmac_f32(totals[size_t(m)], scale_, s);
    }
  }

 private:
  gguf_gemv::NibbleProducts products_;
  VGPR scale_, scales_, offset_;
  std::vector<VGPR> block_;
};

}  // namespace

gguf_gemv::GroupShape w4a16_group_shape() {
  gguf_gemv::GroupShape s{quant::TensorType::I32, kBlockElems, 2, 1, 16, 2};
  s.rows = true;
  s.block_bytes = kBlockBytes;
  s.scale_bytes = 2;  // G=2 experiment
  return s;
}

std::unique_ptr<gguf_gemv::GemvDecoder> make_w4a16_decoder() { return std::make_unique<W4A16Decoder>(); }

}  // namespace k100::kernels::int4
