// Instruction statements, syntax to instruction: the candidate encodings of a
// mnemonic (e32, e64, SDWA, DPP) in llvm's order, and for each the operands
// converted by the operand list's types (constants folded as llvm folds
// them), the modifiers checked in llvm's order and applied, and isa::check.
#include <cmath>
#include <cstring>
#include <optional>

#include "k100/base/closest_match.h"
#include "k100/isa/symbolic.h"
#include "modifier_names.h"
#include "parse_failure.h"
#include "syntax.h"

namespace k100::as {

using namespace isa;
using detail::fail;
using detail::Failure;
using detail::modifier_rank;
using detail::Validation;

namespace {


struct Candidate {
  const InstDesc* desc;
  Encoding enc;
};

bool name_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

unsigned operand_bits(OpType type) {
  if (type == OpType::F16 || type == OpType::I16) return 16;
  if (type == OpType::F64 || type == OpType::B64) return 64;
  return 32;
}

// v fits `bits` bits as a signed or an unsigned number
bool fits_bits(int64_t v, unsigned bits) {
  return (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1))) ||
         (v >= 0 && v < (int64_t(1) << bits));
}

// neg/abs applied to a constant's sign bit: bit 63 of a floating-point
// number (read as a double), else the top bit of the operand's size.
ConstantValue with_sign_modifiers(ConstantValue v, bool neg, bool abs, OpType type) {
  if (v.is_float) {
    if (abs) v.f = std::fabs(v.f);
    if (neg) v.f = -v.f;
    return v;
  }
  unsigned bits = operand_bits(type);
  uint64_t sign = 1ull << (bits - 1), x = uint64_t(v.i);
  if (abs) x &= ~sign;
  if (neg) x ^= sign;
  v.i = int64_t(x);
  return v;
}

class Matcher {
 public:
  Matcher(const Syntax& syn, const Candidate& c, std::vector<InstFixup>& fixups)
      : syn_(syn), c_(c), fixups_(fixups) {}

  Inst build() {
    Inst inst;
    inst.id = c_.desc->id;
    inst.encoding = c_.enc;
    const InstDesc& d = *c_.desc;
    Family fam = d.family_of(c_.enc);
    const auto& specs = d.operands_of(c_.enc);
    bool vop3 = fam == Family::VOP3 || fam == Family::VOP3P;
    // defaults
    if (fam == Family::VOP3P) inst.mods.op_sel_hi = d.quirk(kQuirkMix) ? 0 : 7;
    if (c_.enc == Encoding::SDWA) {
      inst.mods.dst_unused = SdwaUnused::UNUSED_PRESERVE;
      bool has_src1 = false;
      for (const auto& s : specs) has_src1 |= s.field == Field::vsrc1;
      if (!has_src1) inst.mods.src1_sel = SdwaSel::BYTE_0;  // encoded as 0 when unused
    }
    apply_modifiers(inst, fam);
    if (fam == Family::VOP3P) {
      // llvm drops neg_lo/neg_hi of packed 16-bit integer sources other than src0
      for (const auto& s : specs) {
        int slot = source_slot(s.field);
        if (slot >= 1 && s.type == OpType::V2I16) {
          inst.mods.neg &= uint8_t(~(1u << slot));
          inst.mods.neg_hi &= uint8_t(~(1u << slot));
        }
      }
    }
    // The operands as pointers (no allocation): ops[i]->..., front() dropped for atomics.
    struct OperandList {
      const SynOperand* p;
      size_t n;
      size_t size() const { return n; }
      bool empty() const { return n == 0; }
      const SynOperand* operator[](size_t i) const { return p + i; }
      const SynOperand* front() const { return p; }
      const SynOperand* back() const { return p + n - 1; }
    } ops{syn_.operands.data(), syn_.operands.size()};
    size_t nspec = specs.size();
    // SOPP with an optional immediate (s_endpgm)
    if (fam == Family::SOPP && d.has(kFlagOptImm) && ops.size() == 1 && ops[0]->kind == SynOperand::Kind::Const &&
        (ops[0]->cval.is_float || ops[0]->cval.i < 0 || ops[0]->cval.i > 0xffff))
      fail(ops[0]->col, "invalid operand for instruction");  // s_endpgm takes an unsigned 16-bit value
    if (fam == Family::SOPP && d.has(kFlagOptImm) && ops.empty()) {
      inst.num_operands = 1;
      inst.ops[0] = Operand::imm(0);
      return inst;
    }
    // FLAT/GLOBAL/SCRATCH atomics: with glc the first operand is the returned value
    if ((fam == Family::FLAT || fam == Family::GLOBAL || fam == Family::SCRATCH) &&
        d.has(kFlagAtomicRtn) && ops.size() == nspec + 1) {
      const SynOperand* dst = ops.front();
      ++ops.p;
      --ops.n;
      if (dst->kind != SynOperand::Kind::Reg || dst->code < code::kVgprFirst)
        fail(dst->col, "invalid operand for instruction");
      inst.atomic_dst = Operand::vgpr(dst->code - code::kVgprFirst, dst->width);
      if (!inst.mods.glc) fail(dst->col, "instruction must use glc");
      int want = 1;
      for (size_t i = 0; i < nspec; ++i)
        if (specs[i].field == Field::vdata) want = specs[i].width;
      if (d.quirk(kQuirkCmpswap)) want /= 2;
      if (dst->width != want) fail(dst->col, "invalid operand for instruction");
    }
    if (ops.size() < nspec) {
      uint32_t col = ops.empty() ? 0 : ops.back()->col;
      fail(col, "too few operands for instruction");
    }
    if (ops.size() > nspec) fail(ops[nspec]->col, "invalid operand for instruction");
    inst.num_operands = uint8_t(nspec);
    for (size_t i = 0; i < nspec; ++i) convert(inst, int(i), specs[i], *ops[i], vop3, fam);
    if (c_.enc == Encoding::SDWA) {
      // llvm folds a 16-bit integer such as 0xffff into an inline constant in
      // SDWA, yet counts it on the constant bus like a literal
      bool wide_const = false, sgpr = false;
      for (size_t i = 0; i < nspec; ++i) {
        const SynOperand& so = *ops[i];
        bool narrow = specs[i].type == OpType::I16 || specs[i].type == OpType::F16 ||
                      (specs[i].field == Field::vsrc1 && c_.desc->e64_operands.size() > 2 &&
                       (c_.desc->e64_operands[2].type == OpType::I16 || c_.desc->e64_operands[2].type == OpType::F16));
        if (narrow && so.kind == SynOperand::Kind::Const && !so.cval.is_float && (so.cval.i < -16 || so.cval.i > 64))
          wide_const = true;
        if (so.kind == SynOperand::Kind::Reg && so.code < code::kVgprFirst && specs[i].is_source()) sgpr = true;
      }
      if (wide_const && sgpr) fail(ops[0]->col, "invalid operand (violates constant bus restrictions)");
    }
    // widths of register operands follow the family rules
    for (size_t i = 0; i < nspec; ++i) {
      const Operand& o = inst.ops[i];
      if (!(o.is_vgpr() || o.is_sgpr())) continue;
      if (specs[i].field == Field::vcc) continue;
      int want = inst.expected_width(int(i));
      if (o.width != want) fail(ops[i]->col, "invalid operand for instruction");
    }
    return inst;
  }

 private:
  const Syntax& syn_;
  const Candidate& c_;
  std::vector<InstFixup>& fixups_;

  void convert(Inst& inst, int idx, const OperandSpec& spec, const SynOperand& so, bool vop3, Family fam) {
    Operand& o = inst.ops[size_t(idx)];
    OperandSpec s = spec;
    s.accept = c_.desc->accept_of(c_.enc, spec);
    if (c_.enc == Encoding::SDWA && s.field == Field::vsrc1 && s.type == OpType::None) {
      // an SDWA src1 constant has the type of the VOP3 form's src1
      for (const auto& e : c_.desc->e64_operands)
        if (e.field == Field::src1) s.type = e.type;
      if (s.type == OpType::None) s.type = OpType::B32;
    }
    int slot = source_slot(s.field);
    if ((so.neg || so.abs || so.sext) && slot >= 0 && c_.desc->source_mods(c_.enc, s) == 0 &&
        so.kind == SynOperand::Kind::Const && s.type != OpType::GprIdx) {
      // A constant with modifiers where this encoding has no modifier bits
      // (the e32 form of v_add_f32): llvm applies neg and abs to the value's
      // sign bit and drops sext.
      SynOperand plain = so;
      plain.neg = plain.abs = plain.sext = false;
      if (so.neg || so.abs) {
        Operand check;
        if (!constant_operand(so.cval, s.type, vop3, check)) fail(so.col, "invalid operand for instruction");
        // an integer under neg/abs for a 64-bit float operand would mean
        // different things in VOP1/2/C and VOP3: llvm refuses it
        if (!so.cval.is_float && s.type == OpType::F64) fail(so.col, "invalid operand for instruction");
        plain.cval = with_sign_modifiers(so.cval, so.neg, so.abs, s.type);
        unsigned bits = operand_bits(s.type);
        // a value that no longer fits the operand keeps its low bits (which
        // may then be an inline constant, as the encoder sees them)
        if (!plain.cval.is_float && bits < 64 && !fits_bits(plain.cval.i, bits))
          plain.cval.i = int64_t(uint64_t(plain.cval.i) & ((1ull << bits) - 1));
      }
      convert(inst, idx, spec, plain, vop3, fam);
      return;
    }
    if (so.neg || so.abs || so.sext) {
      bool ok = slot >= 0 && s.type != OpType::GprIdx;
      uint8_t allowed = c_.desc->source_mods(c_.enc, s);
      if (ok && so.neg && !(allowed & kModNeg)) ok = false;
      if (ok && so.abs && !(allowed & kModAbs)) ok = false;
      if (ok && so.sext && !(allowed & kModSext)) ok = false;
      if (!ok) fail(so.col, "not a valid operand.");
      if (fam == Family::VOP3P) {
        if (so.neg) inst.mods.neg |= uint8_t(1 << slot);
        if (so.abs) inst.mods.neg_hi |= uint8_t(1 << slot);
      } else if (c_.enc == Encoding::SDWA && (allowed & kModSext)) {
        // integer SDWA operand: llvm encodes neg or sext as the sext bit and drops abs
        if (so.neg || so.sext) inst.mods.sext |= uint8_t(1 << slot);
      } else if (c_.enc == Encoding::DPP && so.sext) {
        inst.mods.neg |= uint8_t(1 << slot);  // llvm encodes DPP sext in the neg bit
        if (so.abs) inst.mods.abs |= uint8_t(1 << slot);
      } else {
        if (so.neg) inst.mods.neg |= uint8_t(1 << slot);
        if (so.abs) inst.mods.abs |= uint8_t(1 << slot);
        if (so.sext) inst.mods.sext |= uint8_t(1 << slot);
      }
      if (fam == Family::VOP3 && inst.find(Field::sdst_vop3b) == nullptr) {
        // nothing more: abs/neg live in the VOP3A fields
      }
    }
    if (s.field == Field::vcc) {
      bool sdwa_sgpr = c_.enc == Encoding::SDWA && c_.desc->family == Family::VOPC;
      if (so.kind != SynOperand::Kind::Reg || so.width != 2 ||
          (so.code != code::kVccLo && !(sdwa_sgpr && so.code < code::kVgprFirst)))
        fail(so.col, "invalid operand for instruction");
      o = Operand::reg(so.code, 2);
      return;
    }
    if (s.field == Field::off) {
      if (so.kind != SynOperand::Kind::Off) fail(so.col, "invalid operand for instruction");
      o = Operand::off();
      return;
    }
    if (s.is_immediate()) {
      convert_immediate(inst, idx, s, so);
      return;
    }
    switch (so.kind) {
      case SynOperand::Kind::Reg:
        o = Operand::reg(so.code, so.width);
        if (o.is_vgpr() && !(s.accept & kAcceptVgpr)) fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !(s.accept & (kAcceptSgpr | kAcceptInline)))
          fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !o.is_sgpr() && !(s.accept & kAcceptSgpr)) fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !o.is_sgpr()) o.width = 1;
        return;
      case SynOperand::Kind::Off:
        if (!(s.accept & kAcceptOff)) fail(so.col, "invalid operand for instruction");
        o = Operand::off();
        return;
      case SynOperand::Kind::Const:
        if (!(s.accept & (kAcceptInline | kAcceptLiteral)) || s.type == OpType::None)
          fail(so.col, "invalid operand for instruction");
        if (!constant_operand(so.cval, s.type, vop3, o)) fail(so.col, "invalid operand for instruction");
        if (o.is_literal() && !(s.accept & kAcceptLiteral)) {
          if (vop3 || fam == Family::VOP3P) fail(so.col, "literal operands are not supported");
          if (reads_vcc_in_e32())  // llvm matches the e32 form, then its constant bus check fails
            throw Validation{Failure{so.col, "invalid operand (violates constant bus restrictions)"}};
          fail(so.col, "invalid operand for instruction");
        }
        return;
      case SynOperand::Kind::Expr:
        if (!(s.accept & kAcceptLiteral)) {
          if (vop3) fail(so.col, "literal operands are not supported");
          fail(so.col, "expected an absolute expression");
        }
        o = Operand::literal(0);
        fixups_.push_back({InstFixup::Kind::Literal, idx, so.expr, so.text, so.col});
        return;
      case SynOperand::Kind::Imm:
        fail(so.col, "invalid operand for instruction");
    }
  }

  // v_cndmask_b32, v_addc_co_u32, ...: their e32 form reads VCC as a last operand
  bool reads_vcc_in_e32() const {
    const auto& specs = c_.desc->operands_of(c_.enc);
    return c_.enc == Encoding::Native && c_.desc->family == Family::VOP2 && !specs.empty() &&
           specs.back().field == Field::vcc;
  }

  void convert_immediate(Inst& inst, int idx, const OperandSpec& s, const SynOperand& so) {
    Operand& o = inst.ops[size_t(idx)];
    auto want_int = [&](const char* what) -> int64_t {
      if (so.kind == SynOperand::Kind::Const && !so.cval.is_float) return so.cval.i;
      if (so.kind == SynOperand::Kind::Imm) return so.imm;
      fail(so.col, std::string("expected ") + what);
    };
    switch (s.type) {
      case OpType::Label:
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Branch, idx, so.expr, so.text, so.col});
          return;
        }
        {
          int64_t v = want_int("a branch target");
          if (v < -32768 || v > 65535) fail(so.col, "invalid immediate: only 16-bit values are legal");
          o = Operand::imm(uint32_t(int32_t(int16_t(uint16_t(v)))));
        }
        return;
      case OpType::Waitcnt: case OpType::Sendmsg: case OpType::Hwreg: case OpType::GprIdx: {
        if (so.kind == SynOperand::Kind::Expr) fail(so.col, "expected an absolute expression");
        int64_t v = want_int("an immediate");
        if (s.type == OpType::Waitcnt) v &= 0xffff;  // llvm keeps the low 16 bits
        if (v < 0 || v > 0xffff) fail(so.col, "invalid immediate: only 16-bit values are legal");
        if (s.type == OpType::GprIdx && so.kind == SynOperand::Kind::Const && (v < 0 || v > 15))
          fail(so.col, "invalid immediate: only 4-bit values are legal");
        o = Operand::imm(uint32_t(v));
        return;
      }
      case OpType::Uimm16: case OpType::Simm16: {
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Immediate, idx, so.expr, so.text, so.col});
          return;
        }
        int64_t v = want_int("an immediate");
        if (s.type == OpType::Simm16) {
          // SOPK: s_cmpk_*_u32 take an unsigned 16-bit value, the others a signed or unsigned one
          bool unsigned_only = c_.desc->quirk(kQuirkUnsignedImm);
          if (unsigned_only ? (v < 0 || v > 65535) : (v < -32768 || v > 65535))
            fail(so.col, "invalid operand for instruction");
          o = Operand::imm(uint32_t(int32_t(int16_t(uint16_t(v)))));
        } else {
          o = Operand::imm(uint32_t(v) & 0xffff);  // llvm keeps the low 16 bits of a SOPP immediate
        }
        return;
      }
      case OpType::Uimm7: {
        int64_t v = want_int("an immediate");
        o = Operand::imm(uint32_t(v) & 0x7f);  // llvm keeps the low 7 bits
        return;
      }
      case OpType::Imm32: case OpType::Kimm: {
        bool f16 = s.type == OpType::Kimm && c_.desc->quirk(kQuirkF16Constant);
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Immediate, idx, so.expr, so.text, so.col});
          return;
        }
        if (so.kind == SynOperand::Kind::Const) {
          Operand tmp;
          if (so.cval.is_float) {
            if (!constant_operand(so.cval, f16 ? OpType::I16 : OpType::B32, false, tmp))
              fail(so.col, "invalid operand for instruction");
            if (!tmp.is_literal()) tmp = Operand::literal(f16 ? 0u : 0u);
            // floats: their bit pattern (inline folding does not apply to K)
            if (f16) {
              Operand h;
              constant_operand(so.cval, OpType::I16, false, h);
              o = Operand::imm(h.value);
            } else if (s.type == OpType::Imm32) {
              o = Operand::imm(0);  // llvm encodes a floating-point value here as 0
            } else {
              float fv = float(so.cval.f);
              uint32_t bits;
              std::memcpy(&bits, &fv, 4);
              o = Operand::imm(bits);
            }
            return;
          }
          int64_t v = so.cval.i;
          if (f16 && (v < -32768 || v > 65535)) fail(so.col, "invalid operand for instruction");
          o = Operand::imm(uint32_t(v) & (f16 ? 0xffffu : 0xffffffffu));
          return;
        }
        fail(so.col, "invalid operand for instruction");
      }
      case OpType::SmemOffset:
        if (so.kind == SynOperand::Kind::Reg) {
          if (so.code >= code::kVgprFirst || so.width != 1 || so.code > code::kExecHi)
            fail(so.col, "invalid operand for instruction");
          o = Operand::reg(so.code, 1);
          return;
        }
        {
          int64_t v = want_int("an offset");
          bool buffer = false;  // a buffer resource base (s_buffer_*, s_atc_probe_buffer): unsigned offsets
          for (const auto& sp : c_.desc->operands) buffer |= sp.field == Field::sbase && sp.width == 4;
          if (buffer) {
            if (v < 0 || v > 0xfffff) fail(so.col, "expected a 20-bit unsigned offset");
          } else if (v < -0x100000 || v > 0xfffff) {
            fail(so.col, "expected a 21-bit signed offset");
          }
          o = Operand::imm(uint32_t(v));
        }
        return;
      default:
        fail(so.col, "invalid operand for instruction");
    }
  }

  void apply_modifiers(Inst& inst, Family fam) {
    Modifiers& m = inst.mods;
    const InstDesc& d = *c_.desc;
    bool vop3 = fam == Family::VOP3 || fam == Family::VOP3P;
    int last_rank = -1;
    auto bad_order = [&](const SynModifier& x) { fail(x.col, "invalid operand for instruction"); };
    bool has_src1 = false, has_src0 = false, has_vdst = false;
    for (const auto& s : d.operands_of(c_.enc)) {
      has_src1 |= s.field == Field::vsrc1;
      has_src0 |= s.field == Field::src0;
      has_vdst |= s.field == Field::vdst;
    }
    if (d.operands_of(c_.enc).empty() && !syn_.mods.empty() &&
        (fam == Family::DS || fam == Family::MUBUF))  // ds_nop, buffer_wbinvl1: nothing to modify
      fail(syn_.mods[0].col, "invalid operand for instruction");
    int dpp_controls = 0;
    for (size_t mi = 0; mi < syn_.mods.size(); ++mi) {
      const auto& md = syn_.mods[mi];
      for (size_t mj = 0; mj < mi; ++mj)
        if (syn_.mods[mj].name == md.name) fail(md.col, "invalid operand for instruction");
      if (md.dpp_control &&
          ++dpp_controls > 1)
        fail(md.col, "invalid operand for instruction");
      if (md.sdwa) {
        int rank = std::string_view(md.name) == "dst_sel" ? 0 : std::string_view(md.name) == "dst_unused" ? 1 : std::string_view(md.name) == "src0_sel" ? 2 : 3;
        if (rank == 3 && !has_src1) fail(md.col, "invalid operand for instruction");
        if (rank == 2 && !has_src0) fail(md.col, "invalid operand for instruction");
        if (rank <= 1 && (d.family == Family::VOPC || !has_vdst)) fail(md.col, "invalid operand for instruction");
      }
      // llvm reads modifiers in one fixed order (glc and slc in either order)
      int rank = md.rank;
      static const int kOffset1Rank = modifier_rank("offset1"), kCacheRank = modifier_rank("glc");
      if (d.quirk(kQuirkLdsSyntax)) {  // "... offset:N lds glc slc": lds must precede cache bits
        if (std::string_view(md.name) == "lds") rank = kOffset1Rank;
        if ((std::string_view(md.name) == "glc" || std::string_view(md.name) == "slc" || std::string_view(md.name) == "tfe") && !m.lds) bad_order(md);
      }
      if (rank < last_rank || (rank == last_rank && rank != kCacheRank))
        fail(md.col, "invalid operand for instruction");
      last_rank = rank;
      std::string_view n = md.name;  // compared with literals: length first, no strlen
      auto bad = [&]() { fail(md.col, "invalid operand for instruction"); };
      auto bits = [&](size_t max) -> uint8_t {
        if (md.list.empty() || md.list.size() > max) fail(md.col, "expected a list of 0 and 1");
        uint8_t b = 0;
        for (size_t i = 0; i < md.list.size(); ++i) {
          if (md.list[i] != 0 && md.list[i] != 1) fail(md.col, "expected a 0 or 1 value");
          b |= uint8_t(md.list[i] << i);
        }
        return b;
      };
      if (n == "clamp") {
        if (md.has_value) bad();
        m.clamp = true;
      } else if (n == "mul" || n == "div") {
        if (!(vop3 || c_.enc == Encoding::SDWA)) bad();
        if (n == "mul" && md.value == 1) m.omod = 0;
        else if (n == "mul" && md.value == 2) m.omod = 1;
        else if (n == "mul" && md.value == 4) m.omod = 2;
        else if (n == "div" && md.value == 2) m.omod = 3;
        else if (n == "div" && md.value == 1) m.omod = 0;
        else fail(md.col, "invalid output modifier");
      } else if (n == "op_sel") {
        if (!vop3) bad();
        uint8_t b = bits(4);
        if (fam == Family::VOP3 && md.list.size() >= 2) {
          // [src0, ..., dst]: the last entry is the destination bit (op_sel[3])
          size_t last = md.list.size() - 1;
          uint8_t dst = uint8_t((b >> last) & 1);
          b = uint8_t((b & ((1u << last) - 1)) | dst << 3);
        }
        m.op_sel = b;
      } else if (n == "op_sel_hi") {
        if (fam != Family::VOP3P) bad();
        uint8_t b = bits(3);
        size_t nl = md.list.size();
        uint8_t keep = uint8_t(m.op_sel_hi & ~((1u << nl) - 1));
        m.op_sel_hi = uint8_t(b | keep);
      } else if (n == "neg_lo") {
        if (fam != Family::VOP3P || !d.has(kFlagNegLo)) bad();
        m.neg |= bits(3);
      } else if (n == "neg_hi") {
        if (fam != Family::VOP3P || !d.has(kFlagNegHi)) bad();
        m.neg_hi |= bits(3);
      } else if (md.sdwa) {
        if (c_.enc != Encoding::SDWA) bad();
        if (n == "dst_unused") {
          auto u = sdwa_unused(md.ident);
          if (!u) fail(md.col, "invalid dst_unused value");
          m.dst_unused = SdwaUnused(*u);
        } else {
          auto s = sdwa_sel(md.ident);
          if (!s) fail(md.col, "invalid " + std::string(n) + " value");
          if (n == "dst_sel") m.dst_sel = SdwaSel(*s);
          if (n == "src0_sel") m.src0_sel = SdwaSel(*s);
          if (n == "src1_sel") m.src1_sel = SdwaSel(*s);
        }
      } else if (md.dpp) {
        if (c_.enc != Encoding::DPP) bad();
        dpp_modifier(m, md);
      } else if (n == "offset") {
        if (fam == Family::DS && d.has(kFlagDs2)) bad();
        if (!(fam == Family::DS || fam == Family::MUBUF || fam == Family::MTBUF || fam == Family::FLAT ||
              fam == Family::GLOBAL || fam == Family::SCRATCH))
          bad();
        if (md.ident == "swizzle" && !d.has(kFlagSwizzle)) bad();
        if (fam == Family::DS && (md.value < 0 || md.value > 0xffff)) fail(md.col, "invalid operand for instruction");
        if ((fam == Family::MUBUF || fam == Family::MTBUF) && (md.value < 0 || md.value > 0xffff))
          fail(md.col, "invalid operand for instruction");
        if (d.quirk(kQuirkLdsSyntax) && md.value > 4095) fail(md.col, "too few operands for instruction");
        if (fam == Family::FLAT && (md.value < 0 || md.value > 4095))
          fail(md.col, "expected a 12-bit unsigned offset");
        if ((fam == Family::GLOBAL || fam == Family::SCRATCH) && (md.value < -4096 || md.value > 4095))
          fail(md.col, "expected a 13-bit signed offset");
        m.offset = int32_t(md.value);
        if (fam == Family::MUBUF || fam == Family::MTBUF) m.offset &= 0xfff;  // llvm keeps the low 12 bits
      } else if (n == "offset0" || n == "offset1") {
        if (!(fam == Family::DS && d.has(kFlagDs2))) bad();
        if (md.value < 0 || md.value > 255) fail(md.col, "invalid operand for instruction");
        (n == "offset0" ? m.offset0 : m.offset1) = uint8_t(md.value);
      } else if (n == "gds") {
        if (fam != Family::DS) bad();
        m.gds = true;
      } else if (n == "glc" || n == "slc" || n == "lds" || n == "tfe") {
        bool mem = fam == Family::MUBUF || fam == Family::MTBUF || fam == Family::FLAT ||
                   fam == Family::GLOBAL || fam == Family::SCRATCH || fam == Family::SMEM;
        if (!mem) bad();
        if (n == "glc") m.glc = true;
        if (n == "slc") m.slc = true;
        if (n == "lds") m.lds = true;
        if (n == "tfe") m.tfe = true;
      } else if (n == "offen" || n == "idxen") {
        if (fam != Family::MUBUF && fam != Family::MTBUF) bad();
        (n == "offen" ? m.offen : m.idxen) = true;
      } else if (n == "format") {
        if (fam != Family::MTBUF) bad();
        size_t start = 0;
        std::string s = md.ident;
        bool any = false;
        while (start <= s.size() && !s.empty()) {
          size_t e = s.find(',', start);
          std::string part = s.substr(start, e == std::string::npos ? std::string::npos : e - start);
          if (auto df = buf_data_format(part)) m.dfmt = uint8_t(*df);
          else if (auto nf = buf_num_format(part)) m.nfmt = uint8_t(*nf);
          else fail(md.col, "unsupported format " + part);
          any = true;
          if (e == std::string::npos) break;
          start = e + 1;
        }
        if (!any && md.list.empty()) fail(md.col, "expected a format");
      } else if (n == "dfmt") {
        if (fam != Family::MTBUF || md.value < 0 || md.value > 15) bad();
        m.dfmt = uint8_t(md.value);
      } else if (n == "nfmt") {
        if (fam != Family::MTBUF || md.value < 0 || md.value > 7) bad();
        m.nfmt = uint8_t(md.value);
      } else {
        bad();
      }
    }
    if (c_.enc == Encoding::DPP && dpp_controls == 0) {
      // the DPP control has no default (llvm requires one too)
      for (const auto& md : syn_.mods)
        if (md.dpp) fail(md.col, "invalid operand for instruction");
      fail(0, "too few operands for instruction");
    }
  }

  void dpp_modifier(Modifiers& m, const SynModifier& md) {
    const std::string& n = md.name;
    auto range = [&](int64_t lo, int64_t hi) {
      if (md.value < lo || md.value > hi) fail(md.col, "invalid " + n + " value");
    };
    if (n == "quad_perm") {
      if (md.list.size() != 4) fail(md.col, "expected 4 lanes");
      uint16_t v = 0;
      for (size_t i = 0; i < 4; ++i) {
        if (md.list[i] < 0 || md.list[i] > 3) fail(md.col, "invalid quad_perm lane");
        v |= uint16_t(md.list[i] << (2 * i));
      }
      m.dpp_ctrl = v;
    } else if (n == "row_shl" || n == "row_shr" || n == "row_ror") {
      range(1, 15);
      m.dpp_ctrl = uint16_t((n == "row_shl" ? dpp::kRowShl : n == "row_shr" ? dpp::kRowShr : dpp::kRowRor) + md.value);
    } else if (n == "wave_shl" || n == "wave_rol" || n == "wave_shr" || n == "wave_ror") {
      range(1, 1);
      m.dpp_ctrl = n == "wave_shl" ? dpp::kWaveShl : n == "wave_rol" ? dpp::kWaveRol : n == "wave_shr" ? dpp::kWaveShr : dpp::kWaveRor;
    } else if (n == "row_mirror") {
      m.dpp_ctrl = dpp::kRowMirror;
    } else if (n == "row_half_mirror") {
      m.dpp_ctrl = dpp::kRowHalfMirror;
    } else if (n == "row_bcast") {
      if (md.value == 15) m.dpp_ctrl = dpp::kRowBcast15;
      else if (md.value == 31) m.dpp_ctrl = dpp::kRowBcast31;
      else fail(md.col, "invalid row_bcast value");
    } else if (n == "row_mask") {
      range(0, 15);
      m.row_mask = uint8_t(md.value);
    } else if (n == "bank_mask") {
      range(0, 15);
      m.bank_mask = uint8_t(md.value);
    } else if (n == "bound_ctrl") {
      range(0, 1);
      m.bound_ctrl = true;  // llvm 14 sets the bit for bound_ctrl:0 and bound_ctrl:1 alike
    }
  }
};

// The encodings to try, in order (at most four).

struct Candidates {
  Candidate c[4];
  int n = 0;
  void push_back(Candidate x) { c[n++] = x; }
  bool empty() const { return n == 0; }
  const Candidate* begin() const { return c; }
  const Candidate* end() const { return c + n; }
};

Candidates candidates(std::string_view mnemonic, const Syntax& syn, uint32_t col) {
  Candidates out;
  bool dpp = false, sdwa = false;
  for (const auto& m : syn.mods) {
    dpp |= m.dpp;
    sdwa |= m.sdwa;
  }
  auto strip = [&](std::string_view suffix) -> const InstDesc* {
    if (!name_ends_with(mnemonic, suffix)) return nullptr;
    std::string_view base = mnemonic.substr(0, mnemonic.size() - suffix.size());
    const InstDesc* d = find_instruction(base);
    return (d && d->name == base) ? d : nullptr;
  };
  if (const InstDesc* d = strip("_sdwa")) {
    out.push_back({d, Encoding::SDWA});
    return out;
  }
  if (const InstDesc* d = strip("_dpp")) {
    out.push_back({d, Encoding::DPP});
    return out;
  }
  if (const InstDesc* d = strip("_e32")) {
    if (d->family == Family::VOP1 || d->family == Family::VOP2 || d->family == Family::VOPC) {
      out.push_back({d, Encoding::Native});
      return out;
    }
  }
  if (const InstDesc* d = strip("_e64")) {
    if (d->has_e64()) out.push_back({d, Encoding::E64});
    else if (d->family == Family::VOP3 || d->family == Family::VOP3P) out.push_back({d, Encoding::Native});
    if (!out.empty()) return out;
  }
  const InstDesc* d = find_instruction(mnemonic);
  if (!d || d->has(kFlagDecodeOnly)) {
    std::string near = closest_match(std::string(mnemonic), all_mnemonics());
    fail(col, "invalid instruction" + (near.empty() ? std::string() : ", did you mean: " + near + "?"));
  }
  if (mnemonic == d->e64_mnemonic && !d->e64_mnemonic.empty() && mnemonic != d->mnemonic) {
    out.push_back({d, Encoding::E64});
    return out;
  }
  if (dpp && d->has(kFlagDpp)) {
    out.push_back({d, Encoding::DPP});
    return out;
  }
  if (sdwa && d->has(kFlagSdwa)) {
    out.push_back({d, Encoding::SDWA});
    return out;
  }
  out.push_back({d, Encoding::Native});
  if (d->has_e64()) out.push_back({d, Encoding::E64});
  // llvm also tries the SDWA and DPP forms (v_mov_b32 v0, v1 clamp is SDWA)
  if (d->has(kFlagSdwa)) out.push_back({d, Encoding::SDWA});
  if (d->has(kFlagDpp)) out.push_back({d, Encoding::DPP});
  return out;
}

}  // namespace

bool match_syntax(std::string_view mnemonic_text, uint32_t mnemonic_col, const Syntax& syn, isa::Target target,
                  ParsedInstruction& out, ParseError& err) {
  try {
    std::string_view mnemonic = mnemonic_text;
    Candidates cands = candidates(mnemonic, syn, mnemonic_col);
    Failure first{0, ""};
    bool have_first = false;
    for (const auto& c : cands) {
      std::vector<InstFixup> fixups;
      try {
        Matcher m(syn, c, fixups);
        Inst inst = m.build();
        std::string problem = check(inst, target);
        // llvm checks the constant bus of the encoding it matched and does
        // not try the next one when that fails (v_cndmask_b32 with a literal and vcc)
        if (!problem.empty() && problem.find("constant bus") != std::string::npos)
          throw Validation{Failure{mnemonic_col, problem}};
        if (!problem.empty()) throw Failure{mnemonic_col, problem};
        out.inst = inst;
        out.fixups = std::move(fixups);
        return true;
      } catch (const Validation& v) {
        throw v.failure;
      } catch (const Failure& f) {
        // Prefer the error of the encoding the user most likely meant: the
        // VOP3 form when the native one cannot hold the operands.
        if (!have_first || c.enc == Encoding::E64) {
          first = f;
          have_first = true;
        }
      }
    }
    throw first;
  } catch (const Failure& f) {
    err.col = f.col ? f.col : mnemonic_col;
    err.message = f.message;
    return false;
  }
}

}  // namespace k100::as
