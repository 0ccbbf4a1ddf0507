// Encoder: Inst -> bytes, with the legality rules llvm-mc applies for gfx906.
#include <cstdio>
#include <set>

#include "k100/base/error.h"
#include "k100/isa/codec.h"
#include "k100/isa/symbolic.h"

namespace k100::isa {

const char* target_name(Target t) { return t == Target::gfx906 ? "gfx906" : "gfx926"; }

std::optional<Target> parse_target(std::string_view name) {
  if (name == "gfx906") return Target::gfx906;
  if (name == "gfx926") return Target::gfx926;
  return std::nullopt;
}

// ------------------------------------------------------------------ Inst

const Operand* Inst::find(Field field) const {
  const auto& s = specs();
  for (size_t i = 0; i < s.size() && i < num_operands; ++i)
    if (s[i].field == field) return &ops[i];
  return nullptr;
}

Operand* Inst::find(Field field) {
  return const_cast<Operand*>(static_cast<const Inst*>(this)->find(field));
}

bool Inst::has_literal() const {
  for (int i = 0; i < num_operands; ++i)
    if (ops[i].is_literal()) return true;
  return false;
}

int Inst::expected_width(int i) const {
  const auto& s = specs()[size_t(i)];
  Family fam = family();
  if ((fam == Family::MUBUF || fam == Family::MTBUF) && s.field == Field::vaddr)
    return (mods.offen && mods.idxen) ? 2 : 1;
  if (fam == Family::GLOBAL && s.field == Field::vaddr) {
    const Operand* saddr = find(Field::saddr);
    return (saddr && saddr->is_off()) ? 2 : 1;
  }
  if (encoding == Encoding::SDWA && s.field == Field::vcc) return 2;
  return s.width;
}

namespace {

bool is_special_source(uint16_t c) {
  return (c >= code::kSharedBase && c <= code::kPopsExitingWaveId) ||
         (c >= code::kVccz && c <= code::kLdsDirect);
}

// Scalar register ranges must be aligned: pairs on even registers, wider
// tuples on multiples of four (ttmp counts from ttmp0).
bool scalar_aligned(uint16_t c, int width) {
  if (width <= 1) return true;
  unsigned base = c;
  if (c >= code::kTtmpFirst && c <= code::kTtmpLast) base = c - code::kTtmpFirst;
  unsigned align = width == 2 ? 2 : 4;
  return base % align == 0;
}

bool scalar_range_valid(uint16_t c, int width) {
  if (c <= code::kSgprLast) return c + width - 1 <= code::kSgprLast;
  if (c >= code::kTtmpFirst && c <= code::kTtmpLast) return c + width - 1 <= code::kTtmpLast;
  if (width == 1) return !scalar_reg_name(c).empty();
  if (width == 2)
    return c == code::kVccLo || c == code::kExecLo || c == code::kFlatScratchLo ||
           c == code::kXnackMaskLo;
  return false;
}

// Number of source slots (src0..src2) in the operand list.
int source_index(Field f) {
  switch (f) {
    case Field::src0: case Field::ssrc0: return 0;
    case Field::src1: case Field::vsrc1: case Field::ssrc1: return 1;
    case Field::src2: return 2;
    default: return -1;
  }
}

bool reads_vcc_implicitly(const Inst& inst) {
  const InstDesc& d = inst.desc();
  if (inst.encoding == Encoding::E64) return false;
  for (const auto& s : inst.specs())
    if (s.field == Field::vcc && &s != &inst.specs().front()) {
      // a trailing vcc is an input (v_cndmask_b32, v_addc_co_u32); a vcc
      // right after vdst is the carry-out
      if (d.family == Family::VOP2 || d.family == Family::VOPC) {
        size_t idx = size_t(&s - inst.specs().data());
        if (idx + 1 == inst.specs().size() && idx >= 2) return true;
      }
    }
  return d.quirk(kQuirkReadsVcc);
}

}  // namespace

std::string check(const Inst& inst, Target target) {
  (void)target;
  const InstDesc& d = inst.desc();
  const auto& specs = inst.specs();
  Family fam = inst.family();
  if (inst.encoding == Encoding::E64 && !d.has_e64()) return "instruction has no VOP3 form";
  if (inst.encoding == Encoding::SDWA && !d.has(kFlagSdwa))
    return "sdwa variant of this instruction is not supported";
  if (inst.encoding == Encoding::DPP && !d.has(kFlagDpp))
    return "dpp variant of this instruction is not supported";
  if (inst.num_operands != specs.size()) return "wrong number of operands";

  bool vop = d.is_vop();
  bool vop3 = fam == Family::VOP3 || fam == Family::VOP3P;
  // distinct scalar registers read (code | width << 16: s0 and s[0:1] differ)
  struct SmallSet {
    uint32_t v[8];
    unsigned n = 0;
    bool count(uint32_t x) const {
      for (unsigned i = 0; i < n; ++i)
        if (v[i] == x) return true;
      return false;
    }
    void insert(uint32_t x) {
      if (!count(x) && n < 8) v[n++] = x;
    }
    unsigned size() const { return n; }
  } sgprs_read;
  std::optional<uint32_t> literal;
  for (size_t i = 0; i < specs.size(); ++i) {
    OperandSpec s = specs[i];
    s.accept = d.accept_of(inst.encoding, s);
    const Operand& o = inst.ops[i];
    // the operand's name, built only when there is something to report
    auto what = [&]() { return std::string("operand ") + std::to_string(i + 1) + " (" + field_name(s.field) + ")"; };
    if (s.field == Field::vcc || s.field == Field::off) continue;
    if (s.is_immediate()) {
      if (!o.is_imm() && !(s.type == OpType::SmemOffset && o.is_sgpr()))
        return what() + " must be an immediate";
      int64_t v = int32_t(o.value);
      switch (s.type) {
        case OpType::Label:
        case OpType::Simm16:
          if (int32_t(o.value) < -32768 || int32_t(o.value) > 65535)
            return what() + ": value " + std::to_string(v) + " does not fit in 16 bits";
          break;
        case OpType::Uimm16: case OpType::Waitcnt: case OpType::Sendmsg: case OpType::Hwreg:
        case OpType::GprIdx:
          if (o.value > 0xffff) return what() + ": value does not fit in 16 bits";
          break;
        case OpType::Uimm7:
          if (o.value > 0x7f) return what() + ": value does not fit in 7 bits";
          break;
        case OpType::SmemOffset:
          if (o.is_imm() && (int32_t(o.value) < -0x100000 || int32_t(o.value) > 0xfffff))
            return "expected a 21-bit signed offset";
          if (o.is_sgpr() && (o.width != 1 || !scalar_range_valid(o.code, 1)))
            return what() + ": expected one SGPR";
          break;
        case OpType::Kimm:
          if (d.name.size() > 3 && d.name.substr(d.name.size() - 3) == "f16" && o.value > 0xffff)
            return what() + ": value does not fit in 16 bits";
          break;
        default:
          break;
      }
      continue;
    }
    // register or constant source/destination
    int want = inst.expected_width(int(i));
    if (o.is_off()) {
      if (!(s.accept & kAcceptOff)) return what() + ": `off` not allowed here";
      continue;
    }
    if (o.is_vgpr()) {
      if (!(s.accept & kAcceptVgpr)) return what() + ": VGPRs not allowed here";
      if (o.width != want) return what() + ": expected " + std::to_string(want) + " registers";
      if (o.vgpr_index() + o.width - 1 > 255) return what() + ": register out of range";
      continue;
    }
    if (inst.encoding == Encoding::DPP && s.is_source()) return what() + ": DPP sources must be VGPRs";
    if (o.is_sgpr()) {
      if (!(s.accept & kAcceptSgpr)) return what() + ": SGPRs not allowed here";
      if (fam == Family::SMEM && s.field == Field::sdata &&
          (o.code == code::kExecLo || o.code == code::kExecHi || o.code == code::kM0))
        return what() + ": m0 and exec cannot be the data of a scalar memory instruction";
      if (o.width != want) return what() + ": expected " + std::to_string(want) + " registers";
      if (!scalar_range_valid(o.code, o.width)) return what() + ": invalid register range";
      if (!scalar_aligned(o.code, o.width)) return what() + ": invalid register alignment";
      if (s.is_source() || s.field == Field::soffset) sgprs_read.insert(o.code | uint32_t(o.width) << 16);
      continue;
    }
    if (is_special_source(o.code)) {
      // llvm accepts the special sources wherever a single SGPR goes, even as a
      // destination (the field keeps the low bits); lds_direct only as src0 of VALU ops
      // 64-bit operands take them only where constants are allowed too (not s_setpc_b64),
      // and as the scalar destination of a VOP3 form (v_cmp_*_e64, v_add_co_u32_e64)
      bool vop3_sdst = vop3 && (s.field == Field::vdst || s.field == Field::sdst_vop3b);
      if (!(s.accept & kAcceptSgpr) ||
          (want != 1 && !(s.is_source() && (s.accept & kAcceptInline)) && !vop3_sdst))
        return what() + ": special register not allowed here";
      if (o.code == code::kLdsDirect) {
        bool reversed = d.quirk(kQuirkReversed);  // llvm refuses lds_direct in the operand-reversed opcodes
        bool ok = vop && s.field == Field::src0 && (s.accept & kAcceptVgpr) &&
                  inst.encoding != Encoding::SDWA && inst.encoding != Encoding::DPP && !reversed;
        if (!ok) return "lds_direct cannot be used here (src0 of a VALU instruction only)";
        continue;  // lds_direct is not on the constant bus
      }
      if (s.is_source()) sgprs_read.insert(o.code | 1u << 16);
      continue;
    }
    if (o.is_inline()) {
      if (!(s.accept & kAcceptInline)) return what() + ": constants not allowed here";
      continue;
    }
    if (o.is_literal()) {
      if (inst.encoding == Encoding::SDWA || inst.encoding == Encoding::DPP)
        return "literal operands are not supported in SDWA or DPP";
      if (!(s.accept & kAcceptLiteral)) {
        if (vop3) return "literal operands are not supported";
        return what() + ": literal not allowed here";
      }
      if (literal && *literal != o.value) return "only one literal operand is allowed";
      literal = o.value;
      continue;
    }
    return what() + ": missing or invalid operand";
  }
  // madmk/madak: the K constant is a literal as well
  if (const Operand* k = inst.find(Field::literal); k && (fam == Family::VOP2)) {
    if (literal && *literal != k->value) return "only one literal operand is allowed";
    literal = k->value;
  }
  if (vop) {
    unsigned bus = unsigned(sgprs_read.size()) + (literal ? 1 : 0);
    if (reads_vcc_implicitly(inst) && !sgprs_read.count(code::kVccLo | 2u << 16)) ++bus;
    if (bus > 1) return "invalid operand (violates constant bus restrictions)";
  }

  // llvm: these destinations must not overlap any source register (early clobber)
  if (d.quirk(kQuirkEarlyClobber)) {
    const Operand* dst = inst.find(Field::vdst);
    for (size_t i = 0; dst && i < specs.size(); ++i) {
      const Operand& o = inst.ops[i];
      if (&o == dst || !o.is_vgpr()) continue;
      unsigned a0 = dst->vgpr_index(), a1 = a0 + dst->width, b0 = o.vgpr_index(), b1 = b0 + o.width;
      if (a0 < b1 && b0 < a1) return "destination must be different than all sources";
    }
  }

  // modifiers
  const Modifiers& m = inst.mods;
  uint8_t neg_ok = 0, abs_ok = 0, sext_ok = 0;
  for (const auto& s : specs) {
    int si = source_index(s.field);
    if (si < 0) continue;
    uint8_t sm = d.source_mods(inst.encoding, s);
    if (sm & kModNeg) neg_ok |= uint8_t(1 << si);
    if (sm & kModAbs) abs_ok |= uint8_t(1 << si);
    if (sm & kModSext) sext_ok |= uint8_t(1 << si);
    if (inst.encoding == Encoding::DPP && (sm & kModSext)) neg_ok |= uint8_t(1 << si);
  }
  bool e64_like = fam == Family::VOP3;
  bool src_mod_form = e64_like || fam == Family::VOP3P || inst.encoding == Encoding::SDWA ||
                      inst.encoding == Encoding::DPP;
  if ((m.neg || m.abs || m.sext) && !src_mod_form) return "source modifiers need a VOP3, SDWA or DPP form";
  bool packed_neg = fam == Family::VOP3P && neg_ok == 0;  // neg_lo/neg_hi lists, not operand modifiers
  if (!packed_neg && (m.neg & ~neg_ok)) return "neg not allowed on this operand";
  if (m.abs & ~abs_ok) return "abs not allowed on this operand";
  if (m.sext & ~sext_ok) return "sext not allowed on this operand";
  if (inst.encoding == Encoding::DPP && m.sext) return "sext not allowed in DPP";
  if (m.clamp) {
    bool ok = (fam == Family::VOP3 || fam == Family::VOP3P) ? d.has(kFlagClamp)
              : inst.encoding == Encoding::SDWA               ? d.has(kFlagSdwaClamp)
                                                              : false;
    if (!ok) return "clamp not allowed on this instruction";
  }
  if (m.omod) {
    bool ok = fam == Family::VOP3 ? d.has(kFlagOmod)
              : inst.encoding == Encoding::SDWA ? d.has(kFlagSdwaOmod)
                                                : false;
    if (!ok) return "omod not allowed on this instruction";
  }
  if (m.op_sel && !((fam == Family::VOP3 || fam == Family::VOP3P) && d.has(kFlagOpSel)))
    return "op_sel not allowed on this instruction";
  if (fam == Family::VOP3P) {
    if (packed_neg) {
      if (m.neg_hi && !d.has(kFlagNegHi)) return "neg_hi not allowed on this instruction";
      if (m.neg && !d.has(kFlagNegLo)) return "neg_lo not allowed on this instruction";
    } else if (m.neg_hi & ~abs_ok) {
      return "abs not allowed on this operand";
    }
  }
  if (inst.encoding == Encoding::DPP && !dpp::valid_ctrl(m.dpp_ctrl)) return "invalid dpp control";
  if (inst.encoding == Encoding::SDWA) {
    if (unsigned(m.dst_sel) > 6 || unsigned(m.src0_sel) > 6 || unsigned(m.src1_sel) > 6 ||
        unsigned(m.dst_unused) > 2)
      return "invalid sdwa select";
  }
  // memory
  auto flag_ok = [&](bool set, Flag f, const char* name) -> std::string {
    if (set && !d.has(f)) return std::string("instruction must not use ") + name;
    return {};
  };
  switch (fam) {
    case Family::DS:
      if (d.has(kFlagDs2)) {
        if (m.offset) return "invalid operand for instruction";
      } else if (m.offset < 0 || m.offset > 0xffff) {
        return "invalid offset: expected a 16-bit unsigned offset";
      }
      if (m.gds && !d.has(kFlagGds)) return "gds not allowed on this instruction";
      break;
    case Family::MUBUF: case Family::MTBUF: {
      if (m.offset < 0 || m.offset > 4095) return "expected a 12-bit unsigned offset";
      for (auto msg : {flag_ok(m.glc, kFlagGlc, "glc"), flag_ok(m.slc, kFlagSlc, "slc"),
                       flag_ok(m.lds, kFlagLds, "lds"), flag_ok(m.tfe, kFlagTfe, "tfe")})
        if (!msg.empty()) return msg;
      const Operand* va = inst.find(Field::vaddr);
      if (va && va->is_off() && (m.offen || m.idxen)) return "vaddr required with offen/idxen";
      if (va && va->is_vgpr() && !m.offen && !m.idxen) return "offen or idxen required with a VGPR address";
      if (fam == Family::MTBUF && (m.dfmt > 15 || m.nfmt > 7)) return "invalid buffer format";
      break;
    }
    case Family::FLAT:
      if (m.offset < 0 || m.offset > 4095) return "expected a 12-bit unsigned offset";
      [[fallthrough]];
    case Family::GLOBAL: case Family::SCRATCH: {
      if (fam != Family::FLAT && (m.offset < -4096 || m.offset > 4095))
        return "expected a 13-bit signed offset";
      if (d.has(kFlagAtomicRtn)) {
        if (m.glc != inst.atomic_dst.present())
          return m.glc ? "atomic with glc needs a destination" : "instruction must not use glc";
      } else if (auto msg = flag_ok(m.glc, kFlagGlc, "glc"); !msg.empty()) {
        return msg;
      }
      if (auto msg = flag_ok(m.slc, kFlagSlc, "slc"); !msg.empty()) return msg;
      if (auto msg = flag_ok(m.lds, kFlagLds, "lds"); !msg.empty()) return msg;
      if (fam == Family::SCRATCH) {
        const Operand* va = inst.find(Field::vaddr);
        const Operand* sa = inst.find(Field::saddr);
        if (va && sa && va->is_off() && sa->is_off()) return "invalid operands: vaddr and saddr are both off";
        if (va && sa && !va->is_off() && !sa->is_off()) return "invalid operands: use either vaddr or saddr";
        if (sa && sa->code == code::kExecHi) return "exec_hi cannot be a scratch base (its code means off)";
      }
      break;
    }
    case Family::SMEM:
      if (m.glc && !d.has(kFlagGlc) && !d.has(kFlagAtomicRtn)) return "instruction must not use glc";
      break;
    default:
      break;
  }
  return {};
}

// ------------------------------------------------------------------ encode

namespace {

uint32_t field_or_zero(const Inst& inst, Field f) {
  const Operand* o = inst.find(f);
  if (!o) return 0;
  if (o->is_imm()) return o->value;
  if (o->is_off()) return 0;
  return o->code;
}

uint32_t vreg8(const Inst& inst, Field f) {
  const Operand* o = inst.find(f);
  if (!o || o->is_off() || !o->present()) return 0;
  return o->is_vgpr() ? o->vgpr_index() : o->code;
}

void put32(std::vector<uint8_t>& out, uint32_t w) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
}

// The literal dword of an instruction, if any (all literals are equal after check()).
std::optional<uint32_t> literal_of(const Inst& inst) {
  for (int i = 0; i < inst.num_operands; ++i) {
    const auto& s = inst.specs()[size_t(i)];
    if (inst.ops[size_t(i)].is_literal()) return inst.ops[size_t(i)].value;
    if (s.field == Field::literal) return inst.ops[size_t(i)].value;
  }
  return std::nullopt;
}

}  // namespace

void encode(Inst& inst, std::vector<uint8_t>& out, Target target) {
  if (std::string err = check(inst, target); !err.empty()) throw Error(err);
  encode_checked(inst, out, target);
}

void encode_checked(Inst& inst, std::vector<uint8_t>& out, Target target) {
  (void)target;
  const InstDesc& d = inst.desc();
  const Modifiers& m = inst.mods;
  size_t start = out.size();
  Family fam = inst.family();
  uint32_t op = inst.encoding == Encoding::E64 ? uint32_t(d.e64_opcode) : d.opcode;
  auto src = [&](Field f) -> uint32_t {
    const Operand* o = inst.find(f);
    if (!o || !o->present()) return 0;
    return o->code;
  };
  switch (fam) {
    case Family::SOP2:
      put32(out, 0x80000000u | op << 23 | (src(Field::sdst) & 0x7f) << 16 |
                     (src(Field::ssrc1) & 0xff) << 8 | (src(Field::ssrc0) & 0xff));
      break;
    case Family::SOPK: {
      uint32_t imm = field_or_zero(inst, Field::simm16) & 0xffff;
      put32(out, 0xB0000000u | op << 23 | (src(Field::sdst) & 0x7f) << 16 | imm);
      break;
    }
    case Family::SOP1:
      put32(out, 0xBE800000u | (src(Field::sdst) & 0x7f) << 16 | op << 8 | (src(Field::ssrc0) & 0xff));
      break;
    case Family::SOPC: {
      const Operand* s1 = inst.find(Field::ssrc1);
      uint32_t v1 = s1 ? (s1->is_imm() ? s1->value : s1->code) : 0;
      put32(out, 0xBF000000u | op << 16 | (v1 & 0xff) << 8 | (src(Field::ssrc0) & 0xff));
      break;
    }
    case Family::SOPP:
      put32(out, 0xBF800000u | op << 16 | (field_or_zero(inst, Field::simm16) & 0xffff));
      break;
    case Family::SMEM: {
      const Operand* off = inst.find(Field::offset);
      bool imm = off && off->is_imm();
      const Operand* sd = inst.find(Field::sdata);
      uint32_t sdata = sd ? (sd->is_imm() ? sd->value : sd->code) : 0;
      uint32_t sbase = src(Field::sbase) >> 1;
      put32(out, 0xC0000000u | op << 18 | (imm ? 1u : 0u) << 17 | (m.glc ? 1u : 0u) << 16 |
                     (m.nv ? 1u : 0u) << 15 | (sdata & 0x7f) << 6 | (sbase & 0x3f));
      put32(out, off ? (off->is_imm() ? off->value & 0x1fffff : off->code) : 0);
      break;
    }
    case Family::VOP1:
    case Family::VOP2:
    case Family::VOPC: {
      uint32_t s0 = src(Field::src0);
      if (inst.encoding == Encoding::SDWA) s0 = code::kSdwa;
      if (inst.encoding == Encoding::DPP) s0 = code::kDpp;
      uint32_t w;
      if (fam == Family::VOP1)
        w = 0x7E000000u | (vreg8(inst, Field::vdst) & 0xff) << 17 | op << 9 | s0;
      else if (fam == Family::VOP2)
        w = op << 25 | (vreg8(inst, Field::vdst) & 0xff) << 17 | (vreg8(inst, Field::vsrc1) & 0xff) << 9 | s0;
      else
        w = 0x7C000000u | op << 17 | (vreg8(inst, Field::vsrc1) & 0xff) << 9 | s0;
      put32(out, w);
      if (inst.encoding == Encoding::SDWA) {
        const Operand* a = inst.find(Field::src0);
        const Operand* b = inst.find(Field::vsrc1);
        uint32_t x = 0;
        if (a && a->present()) x |= a->is_vgpr() ? a->vgpr_index() : (a->code | 0u);
        if (a && a->present() && !a->is_vgpr()) x |= 1u << 23;
        if (fam == Family::VOPC) {
          const Operand* dst = inst.ops[0].present() ? &inst.ops[0] : nullptr;
          if (dst && dst->code != code::kVccLo) x |= (dst->code & 0x7f) << 8 | 1u << 15;
        } else {
          x |= uint32_t(m.dst_sel) << 8 | uint32_t(m.dst_unused) << 11 | (m.clamp ? 1u : 0u) << 13 |
               uint32_t(m.omod) << 14;
        }
        if (!inst.find(Field::vdst) && fam != Family::VOPC) x &= ~0xffffu;  // v_nop: no destination select
        if (a && a->present())
          x |= uint32_t(m.src0_sel) << 16 | ((m.sext >> 0) & 1u) << 19 | ((m.neg >> 0) & 1u) << 20 |
               ((m.abs >> 0) & 1u) << 21;
        if (b && b->present() && !b->is_vgpr()) x |= 1u << 31;  // src1 is an SGPR or constant
        if (b && b->present())
          x |= uint32_t(m.src1_sel) << 24 | ((m.sext >> 1) & 1u) << 27 | ((m.neg >> 1) & 1u) << 28 |
               ((m.abs >> 1) & 1u) << 29;
        put32(out, x);
      } else if (inst.encoding == Encoding::DPP) {
        const Operand* a = inst.find(Field::src0);
        uint32_t x = (a ? a->vgpr_index() : 0) | uint32_t(m.dpp_ctrl) << 8 |
                     (m.bound_ctrl ? 1u : 0u) << 19 | ((m.neg >> 0) & 1u) << 20 |
                     ((m.abs >> 0) & 1u) << 21 | ((m.neg >> 1) & 1u) << 22 |
                     ((m.abs >> 1) & 1u) << 23 | uint32_t(m.bank_mask & 0xf) << 24 |
                     uint32_t(m.row_mask & 0xf) << 28;
        put32(out, x);
      } else if (auto lit = literal_of(inst)) {
        put32(out, *lit);
      }
      break;
    }
    case Family::VOP3: {
      const Operand* vd = inst.find(Field::vdst);
      uint32_t vdst = vd && vd->present() ? (vd->is_vgpr() ? vd->vgpr_index() : vd->code) : 0;
      uint32_t w0 = 0xD0000000u | op << 16 | (m.clamp ? 1u : 0u) << 15 | (vdst & 0xff);
      const Operand* sd = inst.find(Field::sdst_vop3b);
      if (sd) {
        w0 |= (sd->code & 0x7f) << 8;
      } else {
        w0 |= uint32_t(m.op_sel & 0xf) << 11 | uint32_t(m.abs & 7) << 8;
      }
      uint8_t neg = m.neg | m.sext;  // llvm encodes sext on a VOP3 source as its neg bit
      uint32_t w1 = uint32_t(neg & 7) << 29 | uint32_t(m.omod & 3) << 27 | (src(Field::src2) & 0x1ff) << 18 |
                    (src(Field::src1) & 0x1ff) << 9 | (src(Field::src0) & 0x1ff);
      put32(out, w0);
      put32(out, w1);
      break;
    }
    case Family::VOP3P: {
      const Operand* vd = inst.find(Field::vdst);
      uint32_t vdst = vd ? vd->vgpr_index() : 0;
      uint32_t w0 = 0xD3800000u | op << 16 | (m.clamp ? 1u : 0u) << 15 |
                    uint32_t((m.op_sel_hi >> 2) & 1) << 14 | uint32_t(m.op_sel & 7) << 11 |
                    uint32_t(m.neg_hi & 7) << 8 | (vdst & 0xff);
      uint32_t w1 = uint32_t(m.neg & 7) << 29 | uint32_t(m.op_sel_hi & 3) << 27 |
                    (src(Field::src2) & 0x1ff) << 18 | (src(Field::src1) & 0x1ff) << 9 |
                    (src(Field::src0) & 0x1ff);
      put32(out, w0);
      put32(out, w1);
      break;
    }
    case Family::DS: {
      uint32_t off0 = d.has(kFlagDs2) ? m.offset0 : uint32_t(m.offset) & 0xff;
      uint32_t off1 = d.has(kFlagDs2) ? m.offset1 : (uint32_t(m.offset) >> 8) & 0xff;
      put32(out, 0xD8000000u | op << 17 | (m.gds ? 1u : 0u) << 16 | off1 << 8 | off0);
      put32(out, vreg8(inst, Field::vdst) << 24 | vreg8(inst, Field::data1) << 16 |
                     vreg8(inst, Field::data0) << 8 | vreg8(inst, Field::addr));
      break;
    }
    case Family::MUBUF:
    case Family::MTBUF: {
      uint32_t w0 = uint32_t(m.offset) & 0xfff;
      w0 |= (m.offen ? 1u : 0u) << 12 | (m.idxen ? 1u : 0u) << 13 | (m.glc ? 1u : 0u) << 14;
      uint32_t w1 = vreg8(inst, Field::vaddr) | vreg8(inst, Field::vdata) << 8 |
                    (src(Field::srsrc) >> 2) << 16 | (m.tfe ? 1u : 0u) << 23 |
                    (src(Field::soffset) & 0xff) << 24;
      if (fam == Family::MUBUF) {
        bool lds = m.lds || d.quirk(kQuirkLdsSyntax);  // that opcode always has the lds bit
        w0 |= 0xE0000000u | op << 18 | (m.slc ? 1u : 0u) << 17 | (lds ? 1u : 0u) << 16;
      } else {
        w0 |= 0xE8000000u | op << 15 | uint32_t(m.dfmt & 0xf) << 19 | uint32_t(m.nfmt & 7) << 23;
        w1 |= (m.slc ? 1u : 0u) << 22;
      }
      put32(out, w0);
      put32(out, w1);
      break;
    }
    case Family::FLAT:
    case Family::GLOBAL:
    case Family::SCRATCH: {
      uint32_t seg = fam == Family::FLAT ? 0 : fam == Family::SCRATCH ? 1 : 2;
      uint32_t w0 = 0xDC000000u | op << 18 | (m.slc ? 1u : 0u) << 17 | (m.glc ? 1u : 0u) << 16 |
                    seg << 14 | (m.lds ? 1u : 0u) << 13 | (uint32_t(m.offset) & 0x1fff);
      uint32_t saddr = 0;
      if (fam != Family::FLAT) {
        const Operand* sa = inst.find(Field::saddr);
        saddr = (!sa || sa->is_off()) ? 0x7f : sa->code;
      }
      uint32_t vdst = inst.atomic_dst.present() ? inst.atomic_dst.vgpr_index() : vreg8(inst, Field::vdst);
      uint32_t w1 = vreg8(inst, Field::vaddr) | vreg8(inst, Field::vdata) << 8 | (saddr & 0x7f) << 16 |
                    (m.nv ? 1u : 0u) << 23 | vdst << 24;
      put32(out, w0);
      put32(out, w1);
      break;
    }
  }
  // SOP literals follow the instruction word.
  if (fam == Family::SOP1 || fam == Family::SOP2 || fam == Family::SOPC || fam == Family::SOPK) {
    if (auto lit = literal_of(inst)) put32(out, *lit);
  }
  inst.size = uint8_t(out.size() - start);
}

}  // namespace k100::isa
