// Operand code space helpers: scalar register names and inline float patterns.
#include "k100/isa/operand.h"

namespace k100::isa {

std::string scalar_reg_name(uint16_t c) {
  using namespace code;
  if (c <= kSgprLast) return "s" + std::to_string(c);
  switch (c) {
    case kFlatScratchLo: return "flat_scratch_lo";
    case kFlatScratchHi: return "flat_scratch_hi";
    case kXnackMaskLo: return "xnack_mask_lo";
    case kXnackMaskHi: return "xnack_mask_hi";
    case kVccLo: return "vcc_lo";
    case kVccHi: return "vcc_hi";
    case kM0: return "m0";
    case kExecLo: return "exec_lo";
    case kExecHi: return "exec_hi";
    // 125 has no register; llvm produces it when src_scc (253) is written to a
    // 7-bit scalar destination field, and src_scc re-creates it there.
    case 125: return "src_scc";
    default: break;
  }
  if (c >= kTtmpFirst && c <= kTtmpLast) return "ttmp" + std::to_string(c - kTtmpFirst);
  return {};
}

uint32_t inline_float_bits32(uint16_t c) {
  static const uint32_t bits[] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                  0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
  return bits[c - code::kFloatFirst];
}

uint16_t inline_float_bits16(uint16_t c) {
  static const uint16_t bits[] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                  0xc000, 0x4400, 0xc400, 0x3118};
  return bits[c - code::kFloatFirst];
}

uint64_t inline_float_bits64(uint16_t c) {
  static const uint64_t bits[] = {0x3fe0000000000000, 0xbfe0000000000000, 0x3ff0000000000000,
                                  0xbff0000000000000, 0x4000000000000000, 0xc000000000000000,
                                  0x4010000000000000, 0xc010000000000000, 0x3fc45f306dc9c882};
  return bits[c - code::kFloatFirst];
}

}  // namespace k100::isa
