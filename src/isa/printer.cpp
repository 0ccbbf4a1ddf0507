// Printer: Inst -> llvm's AMDGPU assembly syntax.
#include <cstdio>

#include "k100/isa/codec.h"
#include "k100/isa/symbolic.h"

namespace k100::isa {

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string range(const char* prefix, unsigned first, unsigned width) {
  if (width <= 1) return prefix + std::to_string(first);
  return std::string(prefix) + "[" + std::to_string(first) + ":" + std::to_string(first + width - 1) + "]";
}

std::string scalar_text(uint16_t c, unsigned width) {
  using namespace code;
  if (c <= kSgprLast) return range("s", c, width);
  if (c >= kTtmpFirst && c <= kTtmpLast) return range("ttmp", c - kTtmpFirst, width);
  if (width >= 2) {
    switch (c) {
      case kVccLo: return "vcc";
      case kExecLo: return "exec";
      case kFlatScratchLo: return "flat_scratch";
      case kXnackMaskLo: return "xnack_mask";
      default: break;
    }
  }
  if (c == 125) return "null";  // what llvm prints for the code, also on gfx9
  std::string name = scalar_reg_name(c);
  return name.empty() ? hex(c) : name;
}

const char* float_text(uint16_t c, OpType type) {
  static const char* f[] = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
  if (c < code::kInvTwoPi) return f[c - code::kFloatFirst];
  if (type == OpType::F64 || type == OpType::B64) return "0.15915494309189532";
  return "0.15915494";
}

std::string special_source_text(uint16_t c) {
  switch (c) {
    case code::kSharedBase: return "src_shared_base";
    case code::kSharedLimit: return "src_shared_limit";
    case code::kPrivateBase: return "src_private_base";
    case code::kPrivateLimit: return "src_private_limit";
    case code::kPopsExitingWaveId: return "src_pops_exiting_wave_id";
    case code::kVccz: return "src_vccz";
    case code::kExecz: return "src_execz";
    case code::kScc: return "src_scc";
    case code::kLdsDirect: return "src_lds_direct";
    default: return hex(c);
  }
}

// Plain text of a register/constant operand (no modifiers).
std::string value_text(const Operand& o, const OperandSpec& s) {
  if (o.is_off()) return "off";
  if (o.is_vgpr()) return range("v", o.vgpr_index(), o.width);
  if (o.is_sgpr()) return scalar_text(o.code, o.width);
  if (o.code >= code::kZero && o.code <= code::kIntNegLast) return std::to_string(inline_int_value(o.code));
  // an integer 16-bit operand has no float constants: llvm prints the bit pattern
  if (o.code >= code::kFloatFirst && o.code <= code::kInvTwoPi && (s.type == OpType::I16 || s.type == OpType::V2I16))
    return hex(inline_float_bits16(o.code));
  if (o.code >= code::kFloatFirst && o.code <= code::kInvTwoPi) return float_text(o.code, s.type);
  // a 16-bit operand's literal prints as its low half, as llvm prints it
  if (o.is_literal() && (s.type == OpType::F16 || s.type == OpType::I16)) return hex(o.value & 0xffff);
  if (o.is_literal()) return hex(o.value);
  if (o.is_imm()) return hex(o.value);
  return special_source_text(o.code);
}

// Inline integer, inline float or literal: values whose text already may
// carry a sign, so a neg modifier on them needs the neg(...) form.
bool is_constant(const Operand& o) {
  return o.is_inline() || o.is_literal();
}

int source_slot(Field f) {
  switch (f) {
    case Field::src0: case Field::ssrc0: return 0;
    case Field::src1: case Field::vsrc1: case Field::ssrc1: return 1;
    case Field::src2: return 2;
    default: return -1;
  }
}

bool is_mix(const InstDesc& d) { return d.quirk(kQuirkMix); }

std::string bits_list(uint8_t bits, int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    if (i) out += ',';
    out += ((bits >> i) & 1) ? '1' : '0';
  }
  return out + "]";
}

int source_count(const Inst& inst) {
  int n = 0;
  for (const auto& s : inst.specs())
    if (source_slot(s.field) >= 0 && s.type != OpType::GprIdx) ++n;
  return n;
}

std::string immediate_text(const Inst& inst, const OperandSpec& s, const Operand& o, const PrintOptions& opts) {
  const InstDesc& d = inst.desc();
  switch (s.type) {
    case OpType::Label:
      if (opts.label_for) {
        if (const char* name = opts.label_for(opts.label_ctx, int32_t(o.value))) return name;
      }
      return std::to_string(o.value & 0xffff);  // llvm prints the offset unsigned
    case OpType::Waitcnt: {
      // bits outside the counters are not printed, as llvm prints them
      return print_waitcnt(uint16_t(o.value));
    }
    case OpType::Sendmsg: {
      auto t = print_sendmsg(uint16_t(o.value));
      return t ? *t : std::to_string(o.value);
    }
    case OpType::Hwreg:
      return print_hwreg(uint16_t(o.value));
    case OpType::GprIdx:
      return o.value <= 15 ? print_gpr_idx(uint16_t(o.value)) : hex(o.value);
    case OpType::Simm16:
      return hex(o.value & 0xffff);
    case OpType::SmemOffset:
      if (o.is_sgpr()) return scalar_text(o.code, 1);
      if (int32_t(o.value) < 0) return "-" + hex(uint32_t(-int32_t(o.value)));
      return hex(o.value);
    case OpType::Imm32:
    case OpType::Kimm:
      return hex(o.value);
    case OpType::Uimm7:  // s_atc_probe's 7-bit mode: in hex above the inline integers, as llvm prints it
      return o.value <= 64 ? std::to_string(o.value) : hex(o.value);
    case OpType::Uimm16:
      (void)d;
      return std::to_string(o.value);
    default:
      return std::to_string(o.value);
  }
}

}  // namespace

std::string print_operand(const Inst& inst, int index) {
  OperandSpec s = inst.specs()[size_t(index)];
  // SDWA's vsrc1 takes constants, of the type of src0 (the native list types it as a VGPR only)
  if (inst.encoding == Encoding::SDWA && s.field == Field::vsrc1) {
    for (const auto& other : inst.specs())
      if (other.field == Field::src0) s.type = other.type;
  }
  const Operand& o = inst.ops[size_t(index)];
  if (s.field == Field::vcc) {
    if (o.present() && o.code != code::kVccLo) return scalar_text(o.code, 2);
    return "vcc";
  }
  if (s.field == Field::off) return "off";
  if (s.is_immediate()) return immediate_text(inst, s, o, {});
  std::string t = value_text(o, s);
  int slot = source_slot(s.field);
  if (slot < 0) return t;
  const Modifiers& m = inst.mods;
  Family fam = inst.family();
  bool neg = (m.neg >> slot) & 1, abs = (m.abs >> slot) & 1, sext = (m.sext >> slot) & 1;
  if (fam == Family::VOP3P) {
    if (!(s.mods & kModNeg)) return t;  // packed ops print neg_lo/neg_hi lists instead
    abs = (m.neg_hi >> slot) & 1;        // mix ops: neg_hi holds abs
  }
  uint8_t allowed = inst.desc().source_mods(inst.encoding, s);
  if ((fam == Family::VOP3 || inst.encoding == Encoding::DPP) && neg && !(allowed & kModNeg) &&
      (allowed & kModSext)) {
    sext = true;  // an integer VOP3 source with its neg bit: llvm's sext
    neg = false;
  }
  if (inst.encoding == Encoding::DPP || inst.encoding == Encoding::SDWA || fam == Family::VOP3 ||
      fam == Family::VOP3P) {
    if (fam == Family::VOP3 && inst.find(Field::sdst_vop3b)) abs = false;
    if (abs) t = "|" + t + "|";
    if (neg && !abs && is_constant(o)) {
      t = "neg(" + t + ")";  // `-12` would read back as the inline constant -12, `-1.0` as -1.0
    } else if (neg) {
      t = "-" + t;
    }
    if (sext) t = "sext(" + t + ")";
  }
  return t;
}

std::string print(const Inst& inst, const PrintOptions& opts) {
  const InstDesc& d = inst.desc();
  const Modifiers& m = inst.mods;
  Family fam = inst.family();
  std::string out;
  switch (inst.encoding) {
    case Encoding::Native: out = d.mnemonic; break;
    case Encoding::E64: out = d.e64_mnemonic; break;
    // v_nop has no operands to tell its SDWA and DPP forms apart: llvm
    // prints them without the suffix
    case Encoding::SDWA: out = d.name == "v_nop" ? d.name : d.name + "_sdwa"; break;
    case Encoding::DPP: out = d.name == "v_nop" ? d.name : d.name + "_dpp"; break;
  }
  const auto& specs = inst.specs();
  std::vector<std::string> operands;
  if (inst.atomic_dst.present())
    operands.push_back(opts.atomic_dst_text && !opts.atomic_dst_text->empty()
                           ? *opts.atomic_dst_text
                           : range("v", inst.atomic_dst.vgpr_index(), inst.atomic_dst.width));
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    if (opts.operand_text && !opts.operand_text[i].empty()) {
      operands.push_back(opts.operand_text[i]);
      continue;
    }
    if (s.is_immediate()) {
      if (fam == Family::SOPP && d.has(kFlagOptImm) && inst.ops[i].value == 0) continue;
      operands.push_back(immediate_text(inst, s, inst.ops[i], opts));
      continue;
    }
    operands.push_back(print_operand(inst, int(i)));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    out += i ? ", " : " ";
    out += operands[i];
  }
  auto mod = [&](const std::string& t) { out += " " + t; };
  int nsrc = source_count(inst);
  auto omod_text = [&]() {
    static const char* t[] = {"", "mul:2", "mul:4", "div:2"};
    if (m.omod) mod(t[m.omod]);
  };
  switch (fam) {
    case Family::VOP3:
      if (m.op_sel) {
        // [src0, ..., dst]: the destination bit is op_sel[3]
        uint8_t list = uint8_t((m.op_sel & ((1u << nsrc) - 1)) | ((m.op_sel >> 3) & 1) << nsrc);
        mod("op_sel:" + bits_list(list, nsrc + 1));
      }
      if (m.clamp) mod("clamp");
      omod_text();
      break;
    case Family::VOP3P: {
      bool mix = is_mix(d);
      uint8_t def_hi = mix ? 0 : uint8_t((1 << nsrc) - 1);
      bool mods_on_operands = !specs.empty() && (specs.back().mods & kModNeg);
      if (m.op_sel) mod("op_sel:" + bits_list(m.op_sel, nsrc));
      if ((m.op_sel_hi & ((1 << nsrc) - 1)) != def_hi) mod("op_sel_hi:" + bits_list(m.op_sel_hi, nsrc));
      if (!mods_on_operands) {
        if (m.neg) mod("neg_lo:" + bits_list(m.neg, nsrc));
        if (m.neg_hi) mod("neg_hi:" + bits_list(m.neg_hi, nsrc));
      }
      if (m.clamp) mod("clamp");
      break;
    }
    case Family::VOP1:
    case Family::VOP2:
    case Family::VOPC:
      if (inst.encoding == Encoding::SDWA) {
        if (d.name == "v_nop") break;
        if (m.clamp) mod("clamp");
        omod_text();
        if (fam != Family::VOPC && inst.find(Field::vdst)) {
          mod(std::string("dst_sel:") + sdwa_sel_name(unsigned(m.dst_sel)));
          mod(std::string("dst_unused:") + sdwa_unused_name(unsigned(m.dst_unused)));
        }
        if (nsrc >= 1) mod(std::string("src0_sel:") + sdwa_sel_name(unsigned(m.src0_sel)));
        if (nsrc >= 2) mod(std::string("src1_sel:") + sdwa_sel_name(unsigned(m.src1_sel)));
      } else if (inst.encoding == Encoding::DPP) {
        mod(dpp::print_ctrl(m.dpp_ctrl));
        mod("row_mask:" + hex(m.row_mask));
        mod("bank_mask:" + hex(m.bank_mask));
        if (m.bound_ctrl) mod("bound_ctrl:1");  // as llvm 14 prints the bit
      }
      break;
    case Family::SMEM:
      if (m.glc) mod("glc");
      break;
    case Family::DS:
      if (d.has(kFlagSwizzle)) {
        if (m.offset) {
          std::string t = print_swizzle(uint16_t(m.offset));
          mod("offset:" + t);
        }
      } else if (d.has(kFlagDs2)) {
        if (m.offset0) mod("offset0:" + std::to_string(m.offset0));
        if (m.offset1) mod("offset1:" + std::to_string(m.offset1));
      } else if (m.offset) {
        mod("offset:" + std::to_string(m.offset));
      }
      if (m.gds) mod("gds");
      break;
    case Family::MUBUF:
    case Family::MTBUF:
      if (fam == Family::MTBUF && (m.dfmt != 1 || m.nfmt != 0)) {
        // the default of each part (BUF_DATA_FORMAT_8, BUF_NUM_FORMAT_UNORM) is left out, as llvm does
        std::string parts;
        if (m.dfmt != 1) parts = buf_data_format_name(m.dfmt);
        if (m.nfmt != 0) parts += std::string(parts.empty() ? "" : ",") + buf_num_format_name(m.nfmt);
        mod("format:[" + parts + "]");
      }
      if (m.idxen) mod("idxen");
      if (m.offen) mod("offen");
      if (m.offset) mod("offset:" + std::to_string(m.offset));
      // buffer_store_lds_dword spells its always-set lds bit before the cache bits
      if (m.lds && d.quirk(kQuirkLdsSyntax)) mod("lds");
      if (m.glc) mod("glc");
      if (m.slc) mod("slc");
      if (m.lds && !d.quirk(kQuirkLdsSyntax)) mod("lds");
      if (m.tfe) mod("tfe");
      break;
    case Family::FLAT:
    case Family::GLOBAL:
    case Family::SCRATCH:
      if (m.offset) mod("offset:" + std::to_string(m.offset));
      if (m.glc) mod("glc");
      if (m.slc) mod("slc");
      if (m.lds) mod("lds");
      if (m.nv) mod("nv");
      break;
    default:
      break;
  }
  return out;
}

}  // namespace k100::isa
