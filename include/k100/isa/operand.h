// k100lc isa: operand values and the GFX9 operand code space.
//
// Register and source operands are held as their 9-bit GFX9 source code:
// SGPRs and special registers below 128, inline constants 128..248, the
// literal marker 255, VGPRs at 256 + n. Fields that encode fewer bits (an
// 8-bit VGPR field, a 7-bit SGPR field, SMEM's sbase in pairs) are converted
// by the encoder and decoder, so everything above them sees one code space.
// Immediates (branch offsets, waitcnt, hwreg, offsets) carry kImmediate and
// their value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace k100::isa {

namespace code {
constexpr uint16_t kSgprLast = 101;
constexpr uint16_t kFlatScratchLo = 102, kFlatScratchHi = 103;
constexpr uint16_t kXnackMaskLo = 104, kXnackMaskHi = 105;
constexpr uint16_t kVccLo = 106, kVccHi = 107;
constexpr uint16_t kTtmpFirst = 108, kTtmpLast = 123;
constexpr uint16_t kM0 = 124;
constexpr uint16_t kExecLo = 126, kExecHi = 127;
constexpr uint16_t kZero = 128;         // 128..192 = 0..64
constexpr uint16_t kIntPosLast = 192;
constexpr uint16_t kIntNegFirst = 193;  // 193..208 = -1..-16
constexpr uint16_t kIntNegLast = 208;
constexpr uint16_t kSharedBase = 235, kSharedLimit = 236, kPrivateBase = 237, kPrivateLimit = 238;
constexpr uint16_t kPopsExitingWaveId = 239;
constexpr uint16_t kFloatFirst = 240;   // 0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0 1/(2*pi)
constexpr uint16_t kInvTwoPi = 248;
constexpr uint16_t kSdwa = 249, kDpp = 250;
constexpr uint16_t kVccz = 251, kExecz = 252, kScc = 253, kLdsDirect = 254;
constexpr uint16_t kLiteral = 255;
constexpr uint16_t kVgprFirst = 256;
constexpr uint16_t kVgprLast = 511;
// Not source codes: markers for the other operand kinds.
constexpr uint16_t kOff = 0x400;        // the word `off`
constexpr uint16_t kImmediate = 0x401;  // Operand::value holds an immediate
constexpr uint16_t kNone = 0xFFFF;
}  // namespace code

struct Operand {
  uint16_t code = code::kNone;
  uint8_t width = 1;   // registers in a range (v[0:3] -> 4); 1 for everything else
  uint32_t value = 0;  // literal (code == kLiteral) or immediate (code == kImmediate)

  static Operand reg(uint16_t c, uint8_t w = 1) { return {c, w, 0}; }
  static Operand vgpr(unsigned n, uint8_t w = 1) { return {uint16_t(code::kVgprFirst + n), w, 0}; }
  static Operand sgpr(unsigned n, uint8_t w = 1) { return {uint16_t(n), w, 0}; }
  static Operand literal(uint32_t v) { return {code::kLiteral, 1, v}; }
  static Operand imm(uint32_t v) { return {code::kImmediate, 1, v}; }
  static Operand off() { return {code::kOff, 1, 0}; }

  bool is_vgpr() const { return code >= code::kVgprFirst && code <= code::kVgprLast; }
  bool is_sgpr() const { return code <= code::kExecHi; }  // SGPRs and special registers
  bool is_inline() const {
    return (code >= code::kZero && code <= code::kIntNegLast) ||
           (code >= code::kFloatFirst && code <= code::kInvTwoPi);
  }
  bool is_literal() const { return code == code::kLiteral; }
  bool is_imm() const { return code == code::kImmediate; }
  bool is_off() const { return code == code::kOff; }
  bool present() const { return code != code::kNone; }
  unsigned vgpr_index() const { return code - code::kVgprFirst; }
  bool operator==(const Operand& o) const {
    return code == o.code && width == o.width && value == o.value;
  }
};

// Integer value of an inline integer code (128..208).
inline int32_t inline_int_value(uint16_t c) {
  return c <= code::kIntPosLast ? int32_t(c - code::kZero) : -int32_t(c - code::kIntPosLast);
}

// Name of a scalar register code (s5, vcc_lo, ttmp3, m0, ...) or "" if c is
// not a single scalar register.
std::string scalar_reg_name(uint16_t c);

// Bit patterns of the inline float constants (240..248) in each width.
uint32_t inline_float_bits32(uint16_t c);
uint16_t inline_float_bits16(uint16_t c);
uint64_t inline_float_bits64(uint16_t c);

}  // namespace k100::isa
