// The NVFP4 decoder (nvfp4_format.h).
#include "nvfp4/nvfp4_format.h"

namespace k100::kernels::nvfp4 {

// 2 * E2M1 magnitude by the low three code bits, as bytes {0, 1, 2, 3 | 4, 6, 8, 12},
// and the same negated: one v_perm_b32 looks up four codes in each table.
constexpr uint32_t kPosLo = 0x03020100u, kPosHi = 0x0C080604u, kNegLo = 0xFDFEFF00u, kNegHi = 0xF4F8FAFCu;

Nvfp4Decoder::Nvfp4Decoder(Kernel& k)
    : k_(k), pos_lo_(k.vgpr(1, "e2m1 table +lo")), pos_hi_(k.vgpr(1, "e2m1 table +hi")),
      neg_lo_(k.vgpr(1, "e2m1 table -lo")), neg_hi_(k.vgpr(1, "e2m1 table -hi")), low3_(k.sgpr(1, "0x07 bytes")),
      sign_(k.sgpr(1, "0x04 bytes")) {
  k.v_mov_b32(pos_lo_, kPosLo);
  k.v_mov_b32(pos_hi_, kPosHi);
  k.v_mov_b32(neg_lo_, kNegLo);
  k.v_mov_b32(neg_hi_, kNegHi);
  k.s_mov_b32(low3_, 0x07070707u);
  k.s_mov_b32(sign_, 0x04040404u);
}

// dst byte i = sel byte i < 4 ? +table[idx byte i] : -table[idx byte i]: both
// lookups, then a v_perm_b32 that takes byte i of the positive word (selector
// i) or of the negative one (i + 4). sel = 0x03020100 + 4 * sign bits.
void Nvfp4Decoder::half(VGPR dst, VGPR idx, VGPR sel, VGPR t) const {
  k_.v_perm_b32(dst, pos_hi_, pos_lo_, idx);
  k_.v_perm_b32(t, neg_hi_, neg_lo_, idx);
  k_.v_perm_b32(dst, t, dst, sel);
}

void Nvfp4Decoder::codes(VGPR even, VGPR odd, VGPR word, VGPR t) const {
  // even k: the low nibbles, sign bits 3, 11, 19, 27 moved to bit 2 of each byte
  k_.v_and_b32(t[0], low3_, word);
  k_.v_lshrrev_b32(t[1], 1, word);
  k_.v_and_or_b32(t[1], t[1], sign_, pos_lo_);
  half(even, t[0], t[1], t[2]);
  // odd k: the high nibbles
  k_.v_lshrrev_b32(t[2], 4, word);
  k_.v_and_b32(t[0], low3_, t[2]);
  k_.v_lshrrev_b32(t[1], 5, word);
  k_.v_and_or_b32(t[1], t[1], sign_, pos_lo_);
  half(odd, t[0], t[1], t[2]);
}

void Nvfp4Decoder::scale(VGPR dst, VGPR bytes, int byte, VGPR t) const {
  k_.v_bfe_u32(t, bytes, 8 * byte, 7);      // exponent and mantissa
  k_.v_lshlrev_b32(t, 20, t);               // to an f32's exponent and top mantissa bits
  k_.v_bfe_u32(dst, bytes, 8 * byte + 7, 1);
  k_.v_lshl_or_b32(dst, dst, 31, t);        // the sign
  k_.v_mul_f32(dst, 0x1p119f, dst);         // rebias (2^120), times 1/2
}

}  // namespace k100::kernels::nvfp4
