// k100lc isa: one machine instruction in decoded form.
//
// An Inst is what the assembler produces, the encoder consumes, the decoder
// produces and the printer and the emulator read. Operands are held in the
// printed order of the row's operand list for the chosen encoding; modifiers
// that are instruction-wide (clamp, omod, op_sel, SDWA selects, DPP controls,
// memory offsets and flags) live in Inst::mods.
#pragma once

#include <array>
#include <cstdint>

#include "k100/isa/operand.h"
#include "k100/isa/table.h"

namespace k100::isa {

// SDWA operand selects (encoding values).
enum class SdwaSel : uint8_t { BYTE_0, BYTE_1, BYTE_2, BYTE_3, WORD_0, WORD_1, DWORD };
enum class SdwaUnused : uint8_t { UNUSED_PAD, UNUSED_SEXT, UNUSED_PRESERVE };

struct Modifiers {
  // per-source bits (bit i = source i): VOP3/SDWA/DPP neg and abs, SDWA sext
  uint8_t neg = 0, abs = 0, sext = 0;
  // VOP3 op_sel (bit 3 = destination), VOP3P op_sel / op_sel_hi / neg_hi
  uint8_t op_sel = 0, op_sel_hi = 0, neg_hi = 0;
  bool clamp = false;
  uint8_t omod = 0;  // 0 none, 1 mul:2, 2 mul:4, 3 div:2
  // SDWA
  SdwaSel dst_sel = SdwaSel::DWORD, src0_sel = SdwaSel::DWORD, src1_sel = SdwaSel::DWORD;
  SdwaUnused dst_unused = SdwaUnused::UNUSED_PAD;
  // DPP
  uint16_t dpp_ctrl = 0;
  uint8_t row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;
  // memory
  int32_t offset = 0;           // DS (16 bit), MUBUF/MTBUF (12 bit), FLAT (12/13 bit), SMEM imm
  uint8_t offset0 = 0, offset1 = 0;  // DS read2/write2
  bool glc = false, slc = false, lds = false, tfe = false, gds = false;
  bool offen = false, idxen = false, nv = false;
  uint8_t dfmt = 1, nfmt = 0;   // MTBUF format (defaults: BUF_DATA_FORMAT_8, UNORM)
};

constexpr int kMaxOperands = 6;

struct Inst {
  uint16_t id = 0;                  // row in instructions()
  Encoding encoding = Encoding::Native;
  uint8_t num_operands = 0;
  uint8_t size = 0;                 // bytes, set by the encoder/decoder
  std::array<Operand, kMaxOperands> ops{};
  // The returning destination of a FLAT/GLOBAL atomic with glc (printed first).
  Operand atomic_dst;
  Modifiers mods;

  const InstDesc& desc() const { return instructions()[id]; }
  const std::vector<OperandSpec>& specs() const { return desc().operands_of(encoding); }
  Family family() const { return desc().family_of(encoding); }
  // The operand living in `field`, or null.
  const Operand* find(Field field) const;
  Operand* find(Field field);
  // True when one of the operands carries a 32-bit literal.
  bool has_literal() const;
  // Registers operand i must span (family rules included: a MUBUF vaddr with
  // offen and idxen is a pair, a GLOBAL vaddr without saddr is a pair, ...).
  int expected_width(int i) const;
};

}  // namespace k100::isa
