// The 4-bit code products of gemv_nibble_products.h.
#include "gemv_nibble_products.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;

void NibbleProducts::begin(GemvEmitter& e) {
  Kernel& k = e.k;
  pairs_ = k.vgpr(e.step_elems / 2, "pairs");
  shifted_ = k.vgpr(1, "codes >> 8");
  addr_ = k.vgpr(4, "table address");
  acc1_.clear();
  acc16_.clear();
  for (int m = 0; m < e.M; ++m) {
    acc1_.push_back(k.vgpr(1, "slice sum"));
    if (!codebook_) acc16_.push_back(k.vgpr(1, "slice sum x16"));
  }
}

void NibbleProducts::step(GemvEmitter& e, int q, VGPR data) {
  Kernel& k = e.k;
  const int dwords = e.step_elems / 8, first_dword = q * dwords;
  // All pairs of the step first (the table reads overlap), then the products.
  for (int i = 0; i < dwords; ++i) {
    const VGPR c = data[first_dword + i];
    const VGPR p = pairs_.sub(4 * i, 4);
    if (codebook_) {
      for (int b = 0; b < 4; ++b) {
        static const char* kByte[4] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3"};
        k.v_lshlrev_b32(addr_[b], 2, c, as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                        as::sdwa_sel("src0_sel", "DWORD"), as::sdwa_sel("src1_sel", kByte[b]));
        k.ds_read_b32(p[b], addr_[b], as::offset(e.table_offset()));
      }
    } else {
      k.v_and_b32(p[0], 0x000F000Fu, c);
      k.v_and_b32(p[1], 0x00F000F0u, c);
      k.v_lshrrev_b32(shifted_, 8, c);
      k.v_and_b32(p[2], 0x000F000Fu, shifted_);
      k.v_and_b32(p[3], 0x00F000F0u, shifted_);
    }
  }
  for (int m = 0; m < e.M; ++m)
    for (int i = 0; i < dwords; ++i) {
      const int t = first_dword + i, base = 8 * i;  // element of the step
      const VGPR p = pairs_.sub(4 * i, 4);
      for (int pr = 0; pr < 4; ++pr)
        for (int h = 0; h < 2; ++h) {
          const bool x16 = !codebook_ && pr % 2 == 1;
          const bool first = t == 0 && h == 0 && (codebook_ ? pr == 0 : pr < 2);
          e.fma_half(x16 ? acc16_[size_t(m)] : acc1_[size_t(m)], p[pr], h, m, base + (natural_ ? pr + 4 * h : 2 * pr + h),
                     first);
        }
    }
}

VGPR NibbleProducts::fold(GemvEmitter& e, int m) {
  const VGPR a = acc1_[size_t(m)];
  if (!codebook_) e.k.v_fmac_f32(a, 0.0625f, acc16_[size_t(m)]);
  return a;
}

}  // namespace k100::kernels::gguf_gemv
