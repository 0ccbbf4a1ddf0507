// Products of the 4-bit codes of a GEMV-layout slice with x, shared by the
// four types whose slices are 4-bit codes: Q4_0 and Q4_K (the code itself,
// at the nibble positions of gemv_transcode.cpp) and IQ4_NL and IQ4_XS (a
// 16-level codebook, nibbles in natural order).
//
// Plain codes become f16 denormals (code * 2^-24) by one AND per pair of
// elements: bits 0-3 of each half-word directly, bits 4-7 as code * 16 into
// an accumulator of its own, folded with a factor 1/16 at the end of the
// slice. Codebook codes become two signed f16 half-words (value * 2^-24) per
// code byte by one LDS read of the 256-entry table (quant::gemv_table).
#pragma once

#include <vector>

#include "gemv_decoder.h"

namespace k100::kernels::gguf_gemv {

class NibbleProducts {
 public:
  // natural_order: the codes of a dword are elements 0..7 at bits 4j..4j+3
  // (a pair's halves hold elements p and p + 4), not the GEMV layout's order.
  explicit NibbleProducts(bool codebook, bool natural_order = false) : codebook_(codebook), natural_(natural_order) {}
  void begin(GemvEmitter& e);
  // x-step q of a slice whose dwords are `data`.
  void step(GemvEmitter& e, int q, VGPR data);
  // Row m's sum over the slice of value * x * 2^-24 (the accumulator; valid until the next slice's first step).
  VGPR fold(GemvEmitter& e, int m);

 private:
  bool codebook_, natural_;
  VGPR pairs_, shifted_, addr_;
  std::vector<VGPR> acc1_, acc16_;
};

}  // namespace k100::kernels::gguf_gemv
