// The 2-bit code products of gemv_crumb_products.h.
#include "gemv_crumb_products.h"

namespace k100::kernels::gguf_gemv {

VGPR crumb_unit_bits(Kernel& k, VGPR data, int u, VGPR shifted) {
  if (u % 2 == 0) return data[u / 2];
  k.v_lshrrev_b32(shifted, 8, data[u / 2]);
  return shifted;
}

void crumb_unit(GemvEmitter& e, VGPR pairs, VGPR src, const std::vector<VGPR>& acc, int first_elem, bool first) {
  Kernel& k = e.k;
  for (int a = 0; a < 4; ++a) k.v_and_b32(pairs[a], 0x00030003u << (2 * a), src);
  for (int m = 0; m < e.M; ++m)
    for (int a = 0; a < 4; ++a)
      for (int h = 0; h < 2; ++h) e.fma_half(acc[size_t(m)][a], pairs[a], h, m, first_elem + 2 * a + h, first && h == 0);
}

void fold_crumb_classes(Kernel& k, VGPR a) {
  k.v_fmac_f32(a[0], 0.25f, a[1]);
  k.v_fmac_f32(a[0], 0.0625f, a[2]);
  k.v_fmac_f32(a[0], 0.015625f, a[3]);
}

}  // namespace k100::kernels::gguf_gemv
