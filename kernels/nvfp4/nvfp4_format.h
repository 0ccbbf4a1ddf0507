// NVFP4 as the kernels read it (FORMATS.md 5, KERNELS.md 4.5): the format
// description the GEMVs and the GEMM share, apart from any schedule.
//
// A code word (u32 of the `wq` rows) holds 8 E2M1 codes, element 2i in the
// low nibble of byte i; the kernels turn it into two words of int8 values
// 2 * e2m1 (exact, -12..12): the even-k word (low nibbles, bytes 0..3) and the
// odd-k word (high nibbles), which pair with the even and odd activation
// streams word for word, so v_dot4_i32_i8 applies. The factor 1/2 goes into
// the block scale: an E4M3 byte decodes to 0.5 * E4M3 as an f32, by bit
// manipulation (gfx926 has no FP8 conversion): the 7 exponent and mantissa
// bits moved to an f32's exponent and mantissa (a subnormal E4M3 lands on an
// f32 denormal) times 2^119 (2^120 rebiases, 1/2 the factor), the sign moved
// to bit 31. 0x7F / 0xFF read as +-480 like the host reference.
#pragma once

#include "k100/codegen/codegen.h"

namespace k100::kernels::nvfp4 {

using codegen::Kernel;
using codegen::Operand;
using codegen::SGPR;
using codegen::VGPR;

class Nvfp4Decoder {
 public:
  // Sets the decoder's constants (4 VGPRs, 2 SGPRs) where it is created;
  // they must be written before any divergent region that uses them.
  explicit Nvfp4Decoder(Kernel& k);

  // even / odd = the int8 words 2 * e2m1 of the even-k and odd-k codes of
  // `word`; t (2 VGPRs) is scratch.
  void codes(VGPR even, VGPR odd, VGPR word, VGPR t) const;
  // dst = 0.5 * E4M3(byte `byte` (0..3) of `bytes`) as f32; t is scratch.
  void scale(VGPR dst, VGPR bytes, int byte, VGPR t) const;

 private:
  void half(VGPR dst, VGPR idx, VGPR sel, VGPR t) const;
  Kernel& k_;
  VGPR pos_lo_, pos_hi_, neg_lo_, neg_hi_;
  SGPR low3_, sign_;
};

}  // namespace k100::kernels::nvfp4
