// Products of the 5-bit codes of a GEMV-layout slice with x, shared by the
// types whose 32-element slices are 5-bit codes: Q5_K, Q5_0 and Q5_1 (the
// arrangement of gemv_transcode.cpp: pairs 0..14 three to a dword at bits
// {5k..5k+4, 16+5k..}, pair 15 gathered from bits 15 / 31 of the five
// dwords).
//
// Pairs at bits 0-4 and 10-14 (after a shift) become f16 denormals (code *
// 2^-24) by one AND each, pairs at bits 5-9 as code * 32 into an accumulator
// of their own, folded with a factor 1/32 at the end of the slice.
#pragma once

#include <vector>

#include "gemv_decoder.h"

namespace k100::kernels::gguf_gemv {

class FiveBitProducts {
 public:
  void begin(GemvEmitter& e);
  // x-step q of a slice whose dwords are `data`.
  void step(GemvEmitter& e, int q, VGPR data);
  // Row m's sum over the slice of code * x * 2^-24 (the accumulator; valid until the next slice's first step).
  VGPR fold(GemvEmitter& e, int m);

 private:
  // Pair p (elements 2p, 2p + 1) as two f16 denormals into `dst`; whether they are code * 32.
  bool pair(Kernel& k, VGPR dst, VGPR data, int p);
  VGPR pairs_, shifted_;
  codegen::SGPR bit_mask_[5];
  std::vector<VGPR> acc1_, acc32_;
};

}  // namespace k100::kernels::gguf_gemv
