// The quantisation step every activation quantiser of the W4 and NVFP4 paths
// is built from (FORMATS.md 4 and 5.2): per group of consecutive f32,
//
//   s = max|x| / qmax (1.0 when the group is all zero)
//   q = clamp(rint(x / s), lo, qmax)          rint: to nearest, ties to even
//
// with both divisions correctly rounded, as the host references compute them
// (quant::quantize_activations), so codes, scale bits and sums match bit for
// bit.
//
// The unit of work is 8 consecutive f32 of one group in one lane (two
// 16-byte loads): 8 codes make one u32 of nibbles, or one u32 of the even-k
// and one of the odd-k int8 codes, so a lane packs what it quantised without
// reading other lanes. A group spans `lanes` consecutive lanes (1, 2, 4, 8
// or 16; the group's amax is reduced over them with DPP) and, per lane, one
// unit or several in a loop (the serial row quantisers): G = 8 * lanes *
// units.
#pragma once

#include "k100/codegen/codegen.h"

namespace k100::kernels::w4act {

// The codes a quantiser produces: [lo, qmax], s = amax / qmax.
struct CodeRange {
  int lo, qmax;
};
inline constexpr CodeRange kInt4Codes{-8, 7};       // W4A4 (decode and prefill)
inline constexpr CodeRange kInt8Codes{-128, 127};   // W4A8, NVFP4 activations
inline constexpr CodeRange kDigitCodes{-128, 119};  // int8 as two int4 digits (16 h + l)

// q = n / d rounded as the IEEE f32 division (v_div_scale, a refined
// v_rcp_f32, v_div_fmas, v_div_fixup; f32 denormals must be on, the layer's
// default). Writes VCC.
void divide_f32(codegen::Kernel& k, codegen::VGPR q, codegen::Operand n, codegen::Operand d);

class GroupQuantiser {
 public:
  GroupQuantiser(codegen::Kernel& k, CodeRange range, int lanes);

  // amax = max |x| over a unit (x8: 8 dwords); with `first` false it is
  // merged into the amax already there.
  void unit_amax(codegen::VGPR amax, codegen::VGPR x8, bool first = true) const;
  // The group's scale from each lane's amax: the maximum over the group's
  // lanes, then amax / qmax, 1.0 for 0. Every lane of the group gets it.
  codegen::VGPR scale(codegen::VGPR amax) const;
  // The unit's 8 codes as int32: clamp(rint(x / s), lo, qmax).
  void codes(codegen::VGPR codes8, codegen::VGPR x8, codegen::VGPR s) const;
  // unit_amax, scale and codes for a group of one unit per lane.
  codegen::VGPR quantise(codegen::VGPR codes8, codegen::VGPR x8) const;

  // Packing. word = 8 int4 codes, code j in bits 4j..4j+3 (two's complement).
  void nibbles(codegen::VGPR word, codegen::VGPR codes8) const;
  // even = the int8 codes 0, 2, 4, 6 (byte order), odd = 1, 3, 5, 7.
  void even_odd_bytes(codegen::VGPR even, codegen::VGPR odd, codegen::VGPR codes8) const;
  // The int32 sum of the group's codes (the unit's, then over the group's
  // lanes): every lane of the group gets it.
  codegen::VGPR group_sum(codegen::VGPR codes8) const;

 private:
  codegen::Kernel& k_;
  CodeRange range_;
  int lanes_;
  codegen::VGPR qmax_f32_, lo_, hi_;  // qmax as f32, the code range as int32
};

}  // namespace k100::kernels::w4act
