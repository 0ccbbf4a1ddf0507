// The 5-bit code products of gemv_five_bit_products.h.
#include "gemv_five_bit_products.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;

void FiveBitProducts::begin(GemvEmitter& e) {
  Kernel& k = e.k;
  pairs_ = k.vgpr(e.step_elems / 2, "pairs");
  shifted_ = k.vgpr(1, "shifted");
  acc1_.clear();
  acc32_.clear();
  for (int m = 0; m < e.M; ++m) {
    acc1_.push_back(k.vgpr(1, "slice sum"));
    acc32_.push_back(k.vgpr(1, "slice sum x32"));
  }
  for (int b = 1; b < 5; ++b) {
    bit_mask_[b] = k.sgpr(1, "bit mask");
    k.s_mov_b32(bit_mask_[b], 0x00010001u << b);
  }
}

bool FiveBitProducts::pair(Kernel& k, VGPR dst, VGPR data, int p) {
  if (p == 15) {
    gather_top_bits(k, dst, data, 5, shifted_, bit_mask_);
    return false;
  }
  const VGPR d = data[p / 3];
  switch (p % 3) {
    case 0: k.v_and_b32(dst, 0x001F001Fu, d); return false;
    case 1: k.v_and_b32(dst, 0x03E003E0u, d); return true;
    default:
      k.v_lshrrev_b32(dst, 10, d);
      k.v_and_b32(dst, 0x001F001Fu, dst);
      return false;
  }
}

void FiveBitProducts::step(GemvEmitter& e, int q, VGPR data) {
  Kernel& k = e.k;
  const int pairs = e.step_elems / 2, first = q * pairs;
  bool x32[16];
  for (int i = 0; i < pairs; ++i) x32[i] = pair(k, pairs_[i], data, first + i);
  for (int m = 0; m < e.M; ++m)
    for (int i = 0; i < pairs; ++i)
      for (int h = 0; h < 2; ++h) {
        const int p = first + i;
        e.fma_half(x32[i] ? acc32_[size_t(m)] : acc1_[size_t(m)], pairs_[i], h, m, 2 * i + h,
                   h == 0 && (p == 0 || p == 1));
      }
}

VGPR FiveBitProducts::fold(GemvEmitter& e, int m) {
  const VGPR a = acc1_[size_t(m)];
  e.k.v_fmac_f32(a, 0.03125f, acc32_[size_t(m)]);
  return a;
}

}  // namespace k100::kernels::gguf_gemv
