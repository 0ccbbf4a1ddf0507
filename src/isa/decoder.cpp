// Decoder: bytes -> Inst, generic per encoding family.
#include <cstring>

#include "k100/isa/codec.h"
#include "k100/isa/symbolic.h"

namespace k100::isa {

namespace {

uint32_t read32(std::span<const uint8_t> b, size_t at) {
  uint32_t w = 0;
  for (int i = 0; i < 4; ++i) w |= uint32_t(b[at + size_t(i)]) << (8 * i);
  return w;
}

struct Words {
  std::span<const uint8_t> bytes;
  size_t used = 4;
  bool ok = true;
  uint32_t at(size_t dw) {
    if ((dw + 1) * 4 > bytes.size()) {
      ok = false;
      return 0;
    }
    used = std::max(used, (dw + 1) * 4);
    return read32(bytes, dw * 4);
  }
};

// 7-bit scalar register fields: every value names something (125 is what
// src_scc becomes there).
bool valid_scalar_code(uint16_t c) { return c <= code::kExecHi; }

// A 9-bit source code as llvm accepts it in VOP/SOP sources (125 is
// printed as null, a gfx10 register llvm-mc-14 decodes on gfx9 too).
bool valid_source_code(uint16_t c) {
  if (c <= code::kExecHi) return true;
  if (c >= code::kZero && c <= code::kIntNegLast) return true;
  if (c >= code::kSharedBase && c <= code::kPopsExitingWaveId) return true;
  if (c >= code::kFloatFirst && c <= code::kInvTwoPi) return true;
  if (c >= code::kVccz && c <= code::kLiteral) return true;
  return c >= code::kVgprFirst && c <= code::kVgprLast;
}

Family family_of_word(uint32_t w, uint32_t* opcode) {
  if ((w >> 30) == 0x2) {  // 10xx: SOP2 / SOPK / SOP1 / SOPC / SOPP
    if ((w >> 23) == 0x17D) { *opcode = (w >> 8) & 0xff; return Family::SOP1; }
    if ((w >> 23) == 0x17E) { *opcode = (w >> 16) & 0x7f; return Family::SOPC; }
    if ((w >> 23) == 0x17F) { *opcode = (w >> 16) & 0x7f; return Family::SOPP; }
    if ((w >> 28) == 0xB) { *opcode = (w >> 23) & 0x1f; return Family::SOPK; }
    *opcode = (w >> 23) & 0x7f;
    return Family::SOP2;
  }
  if ((w >> 31) == 0) {
    if ((w >> 25) == 0x3F) { *opcode = (w >> 9) & 0xff; return Family::VOP1; }
    if ((w >> 25) == 0x3E) { *opcode = (w >> 17) & 0xff; return Family::VOPC; }
    *opcode = (w >> 25) & 0x3f;
    return Family::VOP2;
  }
  switch (w >> 26) {
    case 0x30: *opcode = (w >> 18) & 0xff; return Family::SMEM;
    case 0x34:
      if ((w >> 23) == 0x1A7) { *opcode = (w >> 16) & 0x7f; return Family::VOP3P; }
      *opcode = (w >> 16) & 0x3ff;
      return Family::VOP3;
    case 0x36: *opcode = (w >> 17) & 0xff; return Family::DS;
    case 0x37: {
      *opcode = (w >> 18) & 0x7f;
      unsigned seg = (w >> 14) & 3;
      if (seg == 3) break;  // no such segment
      return seg == 0 ? Family::FLAT : seg == 1 ? Family::SCRATCH : Family::GLOBAL;
    }
    case 0x38: *opcode = (w >> 18) & 0x7f; return Family::MUBUF;
    case 0x3A: *opcode = (w >> 15) & 0xf; return Family::MTBUF;
    default: break;
  }
  *opcode = 0xffff;
  return Family::SOPP;
}

// Modifier bits on a source that takes no such modifier: llvm refuses the
// word (it would print a modifier its assembler rejects), except abs on an
// integer VOP3 source that takes sext in the neg bit, which it ignores.
// Returns false to refuse.
int source_slot_of(Field f) {
  return f == Field::src0 ? 0 : (f == Field::src1 || f == Field::vsrc1) ? 1 : f == Field::src2 ? 2 : -1;
}

bool refuse_modifier_bits(Inst& inst) {
  const InstDesc& d = inst.desc();
  const auto& specs = inst.specs();
  Modifiers& m = inst.mods;
  uint8_t slots = 0;  // the sources the form has
  for (const auto& s : specs)
    if (int k = source_slot_of(s.field); k >= 0) slots = uint8_t(slots | 1u << k);
  if ((m.op_sel & 7 & ~slots) && inst.family() != Family::VOP3P) return false;
  if (inst.family() == Family::VOP3P) {
    if ((m.neg | m.neg_hi | m.op_sel) & ~slots) return false;  // bits of a source the form lacks
    if (d.quirk(kQuirkMix)) return true;  // neg and abs (in neg_hi) on every source
    if (!(m.neg == 0 || d.has(kFlagNegLo)) || !(m.neg_hi == 0 || d.has(kFlagNegHi))) return false;
    for (const auto& s : specs)  // packed 16-bit integers: neg on src0 only
      if (s.type == OpType::V2I16 && (s.field == Field::src1 || s.field == Field::src2)) {
        uint8_t bit = uint8_t(s.field == Field::src1 ? 2 : 4);
        if ((m.neg | m.neg_hi) & bit) return false;
      }
    return true;
  }
  if (d.name == "v_readlane_b32") {
    m.neg = m.abs = 0;  // llvm ignores the bits here (and refuses them on v_writelane_b32)
    return true;
  }
  if (inst.encoding == Encoding::DPP && d.name == "v_cndmask_b32") {
    m.neg = m.abs = 0;  // llvm's DPP form of v_cndmask prints no modifiers and ignores the bits
    return true;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    int slot = source_slot_of(specs[i].field);
    if (slot < 0) continue;
    uint8_t allowed = d.source_mods(inst.encoding, specs[i]);
    uint8_t bit = uint8_t(1u << slot);
    if (inst.encoding == Encoding::SDWA) {
      if ((m.sext & bit) && !(allowed & kModSext)) return false;
      // a source takes integer or float modifiers, not both: where sext is
      // allowed, `-x` is the assembler's spelling of it and the neg and abs
      // bits are refused (v_cndmask_b32)
      uint8_t float_ok = (allowed & kModSext) ? 0 : allowed;
      if ((m.neg & bit) && !(float_ok & kModNeg)) return false;
      if ((m.abs & bit) && !(float_ok & kModAbs)) return false;
      continue;
    }
    if (inst.encoding == Encoding::DPP) {
      // DPP keeps sext in the neg bit; an integer source ignores its abs bit
      if ((m.neg & bit) && !(allowed & (kModNeg | kModSext))) return false;
      if ((m.abs & bit) && !(allowed & kModAbs)) {
        if (!(allowed & kModSext)) return false;
        m.abs &= uint8_t(~bit);
      }
      continue;
    }
    if ((m.neg & bit) && !(allowed & (kModNeg | kModSext))) return false;
    if ((m.abs & bit) && !(allowed & kModAbs)) {
      if (!(allowed & kModSext)) return false;
      m.abs &= uint8_t(~bit);
    }
  }
  // modifier bits of a source the form does not have (VOP1's src1 in SDWA,
  // src2 of a two-source VOP3)
  if ((m.neg | m.abs | m.sext) & ~slots) return false;
  return true;
}

// A scalar register tuple as llvm decodes it: SGPR and trap-temporary pairs
// start at an even register, wider tuples at a multiple of four (the low
// bits of a misaligned code are dropped, as the hardware addresses them);
// of the special registers only those with a 64-bit name start a tuple
// (llvm prints that name for wider tuples too).
// Returns false to refuse.
bool align_scalar_tuple(Operand& o) {
  using namespace code;
  bool sgpr = o.code <= kSgprLast, ttmp = o.code >= kTtmpFirst && o.code <= kTtmpLast;
  if (sgpr || ttmp) {
    uint16_t base = sgpr ? 0 : kTtmpFirst, align = o.width >= 4 ? 4 : 2;
    o.code = uint16_t(o.code - (o.code - base) % align);
    // llvm's SGPR tuples end at s105 (s[100:103] exists, s[100:107] not)
    return o.code + o.width - 1 <= (sgpr ? 105 : kTtmpLast);
  }
  if (o.width > 4) return false;
  return o.code == kFlatScratchLo || o.code == kXnackMaskLo || o.code == kVccLo || o.code == kExecLo ||
         o.code == 125;
}

// A constant in a source that takes only registers: llvm has no text for
// it (it prints "/*invalid immediate*/"). Registers it prints whatever the
// operand takes (v_readfirstlane_b32 s0, s1).
bool constant_accepted(const Operand& o, uint8_t accept) {
  if (o.is_imm()) return true;  // an immediate operand of its own (gpr_idx), not a source code
  if (o.is_inline()) return accept & kAcceptInline;
  if (o.is_literal()) return accept & (kAcceptLiteral | kAcceptInline);
  return true;
}

bool has_field(const std::vector<OperandSpec>& specs, Field f) {
  for (const auto& s : specs)
    if (s.field == f) return true;
  return false;
}

// Fields an instruction does not have are zero in llvm's encodings, and its
// decoder refuses a word with bits there.
bool unused_fields_clear(const InstDesc& d, Encoding e, Words& wd) {
  const auto& specs = d.operands_of(e);
  auto clear = [&](Field f, size_t dw, uint32_t mask) {
    return has_field(specs, f) || (wd.at(dw) & mask) == 0;
  };
  switch (d.family_of(e)) {
    case Family::DS:
      return clear(Field::addr, 1, 0xff) && clear(Field::data0, 1, 0xff00) && clear(Field::data1, 1, 0xff0000) &&
             clear(Field::vdst, 1, 0xff000000);
    case Family::VOP1:
      if (e != Encoding::Native) return true;  // SDWA / DPP: their own rules
      return clear(Field::vdst, 0, 0x1fe0000);  // (llvm ignores an unused src0: v_nop, v_clrexcp)
    case Family::VOP3:
    case Family::VOP3P: {
      if (d.name == "v_readlane_b32") return true;  // llvm does not look at its src2 field or modifiers
      bool sdst = has_field(specs, Field::vdst) || has_field(specs, Field::sdst);
      return (sdst || (wd.at(0) & 0xff) == 0) && clear(Field::src0, 1, 0x1ff) && clear(Field::src1, 1, 0x3fe00) &&
             clear(Field::src2, 1, 0x7fc0000);
    }
    default:
      return true;
  }
}

int32_t sext16(uint32_t v) { return int32_t(int16_t(uint16_t(v))); }

}  // namespace

Decoded decode(std::span<const uint8_t> bytes, Target target) {
  (void)target;
  Decoded out;
  if (bytes.size() < 4) return out;
  Words wd{bytes};
  uint32_t w0 = wd.at(0);
  uint32_t opcode = 0;
  Family fam = family_of_word(w0, &opcode);
  if (opcode == 0xffff) return out;
  const InstDesc* d = lookup_opcode(fam, uint16_t(opcode));
  if (!d) return out;
  Inst& inst = out.inst;
  inst.id = d->id;
  inst.encoding = Encoding::Native;
  if (fam == Family::VOP3 && d->family != Family::VOP3) inst.encoding = Encoding::E64;
  bool vopx = fam == Family::VOP1 || fam == Family::VOP2 || fam == Family::VOPC;
  if (vopx && (w0 & 0x1ff) == code::kSdwa) inst.encoding = Encoding::SDWA;
  if (vopx && (w0 & 0x1ff) == code::kDpp) inst.encoding = Encoding::DPP;
  if (inst.encoding == Encoding::SDWA && !d->has(kFlagSdwa)) return out;
  if (inst.encoding == Encoding::DPP && !d->has(kFlagDpp)) return out;
  Modifiers& m = inst.mods;
  const auto& specs = inst.specs();
  inst.num_operands = uint8_t(specs.size());

  // Second dword of 64-bit encodings.
  bool wide = fam == Family::SMEM || fam == Family::VOP3 || fam == Family::VOP3P || fam == Family::DS ||
              fam == Family::MUBUF || fam == Family::MTBUF || fam == Family::FLAT ||
              fam == Family::GLOBAL || fam == Family::SCRATCH || inst.encoding == Encoding::SDWA ||
              inst.encoding == Encoding::DPP;
  uint32_t w1 = wide ? wd.at(1) : 0;
  size_t next_dw = wide ? 2 : 1;
  bool literal_read = false;
  uint32_t literal = 0;
  auto take_literal = [&]() {
    if (!literal_read) {
      literal = wd.at(next_dw);
      literal_read = true;
    }
    return literal;
  };

  if (fam == Family::SOPP && d->has(kFlagNoImm) && (w0 & 0xffff)) return out;  // llvm has no text for it
  if (!unused_fields_clear(*d, inst.encoding, wd)) return out;

  // Instruction-wide fields.
  switch (fam) {
    case Family::SMEM:
      // llvm ignores glc where the instruction has none (s_dcache_wb, s_memtime)
      m.glc = d->has(kFlagGlc) && ((w0 >> 16) & 1);
      m.nv = (w0 >> 15) & 1;
      if (!has_field(specs, Field::offset) && ((w0 >> 17) & 1)) return out;  // an offset form without an offset
      break;
    case Family::VOP3:
      m.clamp = (w0 >> 15) & 1;
      m.omod = uint8_t((w1 >> 27) & 3);
      m.neg = uint8_t((w1 >> 29) & 7);
      break;
    case Family::VOP3P:
      m.clamp = (w0 >> 15) & 1;
      m.op_sel = uint8_t((w0 >> 11) & 7);
      m.op_sel_hi = uint8_t(((w1 >> 27) & 3) | ((w0 >> 14) & 1) << 2);
      m.neg_hi = uint8_t((w0 >> 8) & 7);
      m.neg = uint8_t((w1 >> 29) & 7);
      break;
    case Family::DS:
      m.gds = (w0 >> 16) & 1;
      if (m.gds && !d->has(kFlagGds)) return out;
      if (d->has(kFlagDs2)) {
        m.offset0 = uint8_t(w0 & 0xff);
        m.offset1 = uint8_t((w0 >> 8) & 0xff);
      } else {
        m.offset = int32_t(w0 & 0xffff);
      }
      break;
    case Family::MUBUF:
    case Family::MTBUF:
      m.offset = int32_t(w0 & 0xfff);
      m.offen = (w0 >> 12) & 1;
      m.idxen = (w0 >> 13) & 1;
      m.glc = (w0 >> 14) & 1;
      m.tfe = (w1 >> 23) & 1;
      if (fam == Family::MUBUF) {
        m.lds = (w0 >> 16) & 1;
        m.slc = (w0 >> 17) & 1;
        if (m.lds && !d->has(kFlagLds)) return out;
        // tfe: llvm ignores the bit where the form has none (atomics, the lds loads)
        if (!d->has(kFlagTfe) || (m.lds && !d->quirk(kQuirkLdsSyntax))) m.tfe = 0;
        if (!has_field(specs, Field::vaddr) && (m.offen || m.idxen)) return out;  // buffer_store_lds_dword
        if (specs.empty()) {  // buffer_wbinvl1*: addressing bits are refused, the others ignored
          if (m.glc || m.lds || ((w0 >> 15) & 1)) return out;
          m.offset = 0;
          m.slc = m.tfe = 0;
        }
      } else {
        m.dfmt = uint8_t((w0 >> 19) & 0xf);
        m.nfmt = uint8_t((w0 >> 23) & 7);
        m.slc = (w1 >> 22) & 1;
      }
      break;
    case Family::FLAT:
    case Family::GLOBAL:
    case Family::SCRATCH: {
      // FLAT's offset is unsigned (llvm reads all 13 bits), the others' signed
      uint32_t off = w0 & 0x1fff;
      m.offset = fam == Family::FLAT ? int32_t(off) : int32_t(off << 19) >> 19;
      if ((w0 >> 13) & 1) return out;  // lds: no such form on gfx9
      if (fam == Family::FLAT && ((w1 >> 16) & 0x7f)) return out;  // FLAT has no saddr: the field is zero
      m.glc = (w0 >> 16) & 1;
      m.slc = (w0 >> 17) & 1;
      m.nv = 0;  // llvm ignores the bit on gfx9 (and refuses `nv` there)
      break;
    }
    default:
      break;
  }
  if (fam == Family::VOP3) {
    bool vop3b = false;
    for (const auto& s : specs)
      if (s.field == Field::sdst_vop3b) vop3b = true;
    if (!vop3b) {
      m.abs = uint8_t((w0 >> 8) & 7);
      // llvm ignores op_sel where the instruction has none
      m.op_sel = d->has(kFlagOpSel) ? uint8_t((w0 >> 11) & 0xf) : 0;
    }
    if ((m.clamp && !d->has(kFlagClamp)) || (m.omod && !d->has(kFlagOmod))) return out;
  }
  uint32_t sdwa = 0;
  if (inst.encoding == Encoding::SDWA) {
    sdwa = w1;
    if (fam != Family::VOPC) {
      m.dst_sel = SdwaSel((sdwa >> 8) & 7);
      m.dst_unused = SdwaUnused((sdwa >> 11) & 3);
      m.clamp = (sdwa >> 13) & 1;
      m.omod = uint8_t((sdwa >> 14) & 3);
    }
    m.src0_sel = SdwaSel((sdwa >> 16) & 7);
    m.src1_sel = SdwaSel((sdwa >> 24) & 7);
    m.sext = uint8_t(((sdwa >> 19) & 1) | ((sdwa >> 27) & 1) << 1);
    m.neg = uint8_t(((sdwa >> 20) & 1) | ((sdwa >> 28) & 1) << 1);
    m.abs = uint8_t(((sdwa >> 21) & 1) | ((sdwa >> 29) & 1) << 1);
    // select 7 and dst_unused 3 have no name (llvm-mc-14 dies on the first
    // and prints the second as UNUSED_PAD)
    if (unsigned(m.dst_sel) > 6 || unsigned(m.src0_sel) > 6 || unsigned(m.src1_sel) > 6 ||
        unsigned(m.dst_unused) > 2)
      return out;
    if ((m.clamp && !d->has(kFlagSdwaClamp)) || (m.omod && !d->has(kFlagSdwaOmod))) return out;
    if (fam == Family::VOP1 && (sdwa & 0xbf000000)) return out;  // src1 fields of a one-source form
    // v_nop: no operand fields at all (dst_sel / dst_unused are not looked at)
    if (d->name == "v_nop" && (((w0 >> 17) & 0xff) || (sdwa & ~0x40401f00u))) return out;
  }
  if (inst.encoding == Encoding::DPP) {
    m.dpp_ctrl = uint16_t((w1 >> 8) & 0x1ff);
    m.bound_ctrl = (w1 >> 19) & 1;
    m.neg = uint8_t(((w1 >> 20) & 1) | ((w1 >> 22) & 1) << 1);
    m.abs = uint8_t(((w1 >> 21) & 1) | ((w1 >> 23) & 1) << 1);
    m.bank_mask = uint8_t((w1 >> 24) & 0xf);
    m.row_mask = uint8_t((w1 >> 28) & 0xf);
    if (!dpp::valid_ctrl(m.dpp_ctrl)) return out;
    if (d->name == "v_nop" && (((w0 >> 17) & 0xff) || (w1 & 0x00f000ff))) return out;
  }

  // Operands, field by field.
  for (size_t i = 0; i < specs.size(); ++i) {
    const OperandSpec& s = specs[i];
    Operand& o = inst.ops[i];
    o.width = s.width;
    auto vgpr8 = [&](uint32_t v) { o.code = uint16_t(code::kVgprFirst + (v & 0xff)); };
    auto source9 = [&](uint32_t v) {
      o.code = uint16_t(v & 0x1ff);
      if (!valid_source_code(o.code)) wd.ok = false;
      if (o.code == code::kLiteral) {
        bool literal_ok = (fam == Family::SOP1 || fam == Family::SOP2 || fam == Family::SOPC ||
                           ((vopx) && inst.encoding == Encoding::Native));
        if (!literal_ok) wd.ok = false;
        o.value = take_literal();
      }
      if (o.code == code::kSdwa || o.code == code::kDpp) wd.ok = false;
      if (!o.is_vgpr() && !o.is_sgpr()) o.width = 1;
    };
    auto scalar7 = [&](uint32_t v) {
      o.code = uint16_t(v & 0x7f);
      if (!valid_scalar_code(o.code)) wd.ok = false;
    };
    // 8-bit VALU destination fields holding a scalar register (v_readlane,
    // v_readfirstlane): special sources keep their full code there
    auto scalar8 = [&](uint32_t v) {
      o.code = uint16_t(v & 0xff);
      bool special = (o.code >= code::kSharedBase && o.code <= code::kPopsExitingWaveId) ||
                     (o.code >= code::kVccz && o.code <= code::kLdsDirect);
      if (!valid_scalar_code(o.code) && !special) wd.ok = false;
    };
    switch (s.field) {
      case Field::vcc:
        o.code = code::kVccLo;
        o.width = uint8_t(inst.expected_width(int(i)));
        if (inst.encoding == Encoding::SDWA && fam == Family::VOPC && (sdwa >> 15) & 1) {
          o.code = uint16_t((sdwa >> 8) & 0x7f);
          if (!valid_scalar_code(o.code)) wd.ok = false;
        }
        o.width = 2;
        break;
      case Field::off:
        o = Operand::off();
        break;
      case Field::sdst:
        if (fam == Family::SOPK) scalar7((w0 >> 16) & 0x7f);
        else scalar7((w0 >> 16) & 0x7f);
        break;
      case Field::ssrc0:
        source9(w0 & 0xff);
        break;
      case Field::ssrc1:
        if (s.type == OpType::GprIdx) {
          o = Operand::imm((w0 >> 8) & 0xff);
        } else {
          source9((w0 >> 8) & 0xff);
        }
        break;
      case Field::simm16: {
        uint32_t v = w0 & 0xffff;
        o = Operand::imm((s.type == OpType::Label || s.type == OpType::Simm16) ? uint32_t(sext16(v)) : v);
        break;
      }
      case Field::literal:
        o = Operand::imm(take_literal());
        break;
      case Field::sdata:
        if (s.type == OpType::Uimm7) o = Operand::imm((w0 >> 6) & 0x7f);
        else scalar7((w0 >> 6) & 0x7f);
        o.width = s.width;
        break;
      case Field::sbase:
        o.code = uint16_t((w0 & 0x3f) << 1);
        break;
      case Field::offset:
        // the bits above the field are not looked at
        if ((w0 >> 17) & 1) {
          o = Operand::imm(uint32_t(int32_t(w1 << 11) >> 11));  // 21-bit signed
        } else {
          scalar7(w1 & 0xff);
          o.width = 1;
        }
        break;
      case Field::vdst:
        if (fam == Family::DS) vgpr8(w1 >> 24);
        else if (fam == Family::FLAT || fam == Family::GLOBAL || fam == Family::SCRATCH) vgpr8(w1 >> 24);
        else if (fam == Family::VOP3 || fam == Family::VOP3P) {
          if (s.accept & kAcceptVgpr) vgpr8(w0 & 0xff);
          else if (s.width == 1) scalar8(w0 & 0xff);
          else if ((w0 & 0xff) <= 0x7f) scalar7(w0 & 0xff);
          else {  // the 8-bit field above the registers: the src_* sources, as llvm decodes them
            o.code = uint16_t(w0 & 0xff);
            bool special = (o.code >= code::kSharedBase && o.code <= code::kPopsExitingWaveId) ||
                           (o.code >= code::kVccz && o.code <= code::kScc);
            if (!special) wd.ok = false;
          }
        } else if (s.accept & kAcceptVgpr) {
          vgpr8((w0 >> 17) & 0xff);
        } else {
          scalar8((w0 >> 17) & 0xff);
        }
        break;
      case Field::sdst_vop3b:
        scalar7((w0 >> 8) & 0x7f);
        break;
      case Field::src0:
        if (inst.encoding == Encoding::SDWA) {
          uint32_t r = sdwa & 0xff;
          if ((sdwa >> 23) & 1) source9(r);
          else vgpr8(r);
        } else if (inst.encoding == Encoding::DPP) {
          vgpr8(w1 & 0xff);
        } else if (fam == Family::VOP3 || fam == Family::VOP3P) {
          source9(w1 & 0x1ff);
        } else if (d->name == "v_swap_b32") {
          vgpr8(w0 & 0xff);  // llvm reads the field as a VGPR whatever its bit 8
        } else {
          source9(w0 & 0x1ff);
        }
        break;
      case Field::src1:
        source9((w1 >> 9) & 0x1ff);
        break;
      case Field::src2:
        source9((w1 >> 18) & 0x1ff);
        break;
      case Field::vsrc1: {
        uint32_t r = (w0 >> 9) & 0xff;
        if (inst.encoding == Encoding::SDWA && (sdwa >> 31) & 1) source9(r);
        else vgpr8(r);
        break;
      }
      case Field::addr:
        vgpr8(w1 & 0xff);
        break;
      case Field::data0:
        vgpr8((w1 >> 8) & 0xff);
        break;
      case Field::data1:
        vgpr8((w1 >> 16) & 0xff);
        break;
      case Field::vaddr:
        if (fam == Family::MUBUF || fam == Family::MTBUF) {
          if (m.offen || m.idxen) vgpr8(w1 & 0xff);
          else o = Operand::off();
        } else if (fam == Family::SCRATCH) {
          if (((w1 >> 16) & 0x7f) != 0x7f) o = Operand::off();
          else vgpr8(w1 & 0xff);
        } else {
          vgpr8(w1 & 0xff);
        }
        break;
      case Field::vdata:
        if (fam == Family::MUBUF || fam == Family::MTBUF) vgpr8((w1 >> 8) & 0xff);
        else vgpr8((w1 >> 8) & 0xff);
        break;
      case Field::srsrc:
        o.code = uint16_t(((w1 >> 16) & 0x1f) << 2);
        break;
      case Field::soffset:
        source9((w1 >> 24) & 0xff);
        if (o.is_literal()) wd.ok = false;
        break;
      case Field::saddr: {
        uint32_t sa = (w1 >> 16) & 0x7f;
        if (sa == 0x7f) o = Operand::off();
        else scalar7(sa);
        break;
      }
    }
  }
  // Widths that depend on other fields (GLOBAL vaddr, MUBUF vaddr pairs).
  for (size_t i = 0; i < specs.size(); ++i)
    if (inst.ops[i].is_vgpr() || inst.ops[i].is_sgpr())
      inst.ops[i].width = uint8_t(inst.expected_width(int(i)));
  for (size_t i = 0; i < specs.size(); ++i)
    if (inst.ops[i].is_sgpr() && inst.ops[i].width > 1 && !align_scalar_tuple(inst.ops[i])) return out;
  for (size_t i = 0; i < specs.size(); ++i)
    if ((source_slot_of(specs[i].field) >= 0 || specs[i].field == Field::ssrc0 || specs[i].field == Field::ssrc1) &&
        !constant_accepted(inst.ops[i], d->accept_of(inst.encoding, specs[i])))
      return out;
  if ((fam == Family::FLAT || fam == Family::GLOBAL || fam == Family::SCRATCH) &&
      d->has(kFlagAtomicRtn) && m.glc) {
    const Operand* data = inst.find(Field::vdata);
    int w = data ? data->width : 1;
    if (d->quirk(kQuirkCmpswap)) w /= 2;
    inst.atomic_dst = Operand::vgpr((w1 >> 24) & 0xff, uint8_t(w));
  }
  bool modifier_bits = fam == Family::VOP3 || fam == Family::VOP3P || inst.encoding == Encoding::SDWA ||
                       inst.encoding == Encoding::DPP;
  if (modifier_bits && !refuse_modifier_bits(inst)) return out;
  if (d->quirk(kQuirkLdsSyntax) && !m.lds) return out;  // its lds bit is part of the opcode
  for (size_t i = 0; i < specs.size(); ++i)  // a VGPR range ends at v255
    if (inst.ops[i].is_vgpr() && inst.ops[i].vgpr_index() + inst.ops[i].width > 256) return out;
  if (inst.atomic_dst.present() && inst.atomic_dst.vgpr_index() + inst.atomic_dst.width > 256) return out;
  for (size_t i = 0; i < specs.size(); ++i)  // lds_direct is a 32-bit source only
    if (inst.ops[i].code == code::kLdsDirect && inst.ops[i].width == 1 && specs[i].width == 2) return out;
  if (!wd.ok) return out;
  out.size = uint8_t(wd.used);
  if (literal_read) out.size = uint8_t(std::max<size_t>(wd.used, (next_dw + 1) * 4));
  inst.size = out.size;
  out.ok = true;
  return out;
}

}  // namespace k100::isa
