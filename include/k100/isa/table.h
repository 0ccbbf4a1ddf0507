// k100lc isa: the GFX9 instruction table (gfx906 and gfx926 share it).
//
// Every instruction is one row of include/k100/isa/gfx9_table.inc, derived from
// llvm-mc by tools/isa/derive_table.py: its encoding family, opcode(s), the
// mnemonic llvm prints, and the operands in printed order. Each operand names
// the encoding field it lives in, its width in dwords, its constant type (how
// literals fold into inline constants and how constants print) or immediate
// syntax, which kinds of values it accepts and which source modifiers apply.
// Encoder, decoder, printer and assembler are generic over this data; the
// emulator keys its semantics on the row id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace k100::isa {

// Encoding families. VOP3 covers VOP3A and VOP3B (the same 64-bit format; B
// has a scalar carry/condition destination where A has abs/op_sel/clamp bits).
enum class Family : uint8_t {
  SOP1, SOP2, SOPK, SOPC, SOPP, SMEM,
  VOP1, VOP2, VOPC, VOP3, VOP3P,
  DS, MUBUF, MTBUF, FLAT, GLOBAL, SCRATCH,
};
constexpr int kFamilyCount = 17;
const char* family_name(Family f);

// Which encoding of an instruction an Inst uses. Only VOP1/VOP2/VOPC rows have
// more than one: their native 32-bit form, the VOP3 form (e64), SDWA and DPP.
enum class Encoding : uint8_t { Native, E64, SDWA, DPP };

// Encoding fields an operand can live in.
enum class Field : uint8_t {
  // scalar
  sdst, ssrc0, ssrc1, simm16, literal, sdata, sbase, offset,
  // vector ALU
  vdst, sdst_vop3b, src0, src1, src2, vsrc1,
  // fixed tokens printed but not encoded in a field of their own
  vcc, off,
  // memory
  addr, data0, data1, vaddr, vdata, srsrc, soffset, saddr,
};
const char* field_name(Field f);

// Constant type of a source operand (how a literal folds into an inline
// constant, how an inline constant prints), or the syntax of an immediate.
enum class OpType : uint8_t {
  None,
  B32, F16, I16, F64, B64, V2F16, V2I16,  // register/constant sources
  // immediate syntaxes
  Label, Waitcnt, Sendmsg, Hwreg, GprIdx, Uimm16, Simm16, Imm32, Kimm, SmemOffset, Uimm7,
};

// What an operand accepts.
enum Accept : uint8_t {
  kAcceptVgpr = 1,     // v0 ...
  kAcceptSgpr = 2,     // s0 ..., vcc, exec, m0, ttmp, flat_scratch, ...
  kAcceptInline = 4,   // inline constants
  kAcceptLiteral = 8,  // 32-bit literal
  kAcceptOff = 16,     // the word `off`
};

// Source modifiers an operand accepts.
enum SourceMods : uint8_t { kModNeg = 1, kModAbs = 2, kModSext = 4 };

struct OperandSpec {
  Field field;
  uint8_t width;  // dwords
  OpType type;
  uint8_t accept;
  uint8_t mods;
  bool is_source() const;
  bool is_immediate() const { return type >= OpType::Label; }
};

// Row flags (see tools/isa/derive_table.py for how each is learned).
enum Flag : uint32_t {
  kFlagSdwa = 1u << 0,          // has an SDWA form
  kFlagDpp = 1u << 1,           // has a DPP form
  kFlagClamp = 1u << 2,         // VOP3/VOP3P form takes clamp
  kFlagOmod = 1u << 3,          // VOP3 form takes mul:/div:
  kFlagOpSel = 1u << 4,         // op_sel
  kFlagOpSelHi = 1u << 5,       // op_sel_hi (VOP3P)
  kFlagNegLo = 1u << 6,         // neg_lo (VOP3P)
  kFlagNegHi = 1u << 7,         // neg_hi (VOP3P)
  kFlagSdwaClamp = 1u << 8,
  kFlagSdwaOmod = 1u << 9,
  kFlagSdwaSgprDst = 1u << 10,  // VOPC SDWA may write an SGPR pair instead of vcc
  kFlagE32Suffix = 1u << 11,    // llvm accepts the _e32 suffix
  kFlagE64Suffix = 1u << 12,    // llvm accepts the _e64 suffix
  kFlagGlc = 1u << 13,
  kFlagSlc = 1u << 14,
  kFlagLds = 1u << 15,
  kFlagTfe = 1u << 16,
  kFlagGds = 1u << 17,
  kFlagDs2 = 1u << 18,          // DS with offset0/offset1
  kFlagSwizzle = 1u << 19,      // ds_swizzle_b32: offset prints as swizzle(...)
  kFlagAtomicRtn = 1u << 20,    // atomic with a returning form selected by glc
  kFlagOptImm = 1u << 21,       // SOPP whose immediate may be omitted (s_endpgm)
  kFlagNoImm = 1u << 22,        // SOPP without an immediate
  kFlagDecodeOnly = 1u << 23,   // an alias opcode llvm decodes; never chosen by the assembler
  // source modifiers of the SDWA and DPP forms (per source 0/1)
  kFlagSdwaSext0 = 1u << 24, kFlagSdwaSext1 = 1u << 25,
  kFlagSdwaNeg0 = 1u << 26, kFlagSdwaNeg1 = 1u << 27,  // neg and abs
  kFlagDppNeg0 = 1u << 28, kFlagDppNeg1 = 1u << 29,    // neg and abs
  kFlagDppSext0 = 1u << 30, kFlagDppSext1 = 1u << 31,  // encoded in the neg bit
};

// Behaviours of a few instructions that the operand lists do not express,
// derived from their names once when the table loads (see table.cpp).
enum Quirk : uint16_t {
  kQuirkReadsVcc = 1 << 0,        // v_div_fmas_*: VCC is an implicit source (constant bus)
  kQuirkReversed = 1 << 1,        // *rev* opcodes: llvm refuses lds_direct
  kQuirkEarlyClobber = 1 << 2,    // destination must not overlap sources (qsad/mqsad)
  kQuirkLdsSyntax = 1 << 3,       // buffer_store_lds_dword: lds bit always set, `lds` before cache bits
  kQuirkMix = 1 << 4,             // v_fma_mix*: per-source neg/abs, op_sel_hi defaults to 0
  kQuirkCmpswap = 1 << 5,         // atomic compare-swap: the returned value is half the data
  kQuirkUnsignedImm = 1 << 6,     // s_cmpk_*_u32: unsigned 16-bit immediate
  kQuirkF16Constant = 1 << 7,     // madmk/madak f16: the K constant is 16-bit
};

struct InstDesc {
  uint16_t id;               // index in the table
  std::string name;          // base mnemonic: v_add_f32
  std::string ident;         // unique identifier (name, or name__alias_... for decode-only rows)
  Family family;             // native family
  uint16_t opcode;           // native opcode
  int16_t e64_opcode;        // VOP3 opcode of the e64 form, -1 when none
  uint32_t flags;
  uint16_t quirks = 0;       // Quirk bits
  std::string mnemonic;      // native mnemonic as printed (v_add_f32_e32)
  std::string e64_mnemonic;  // e64 mnemonic as printed, "" when none
  std::vector<OperandSpec> operands;
  std::vector<OperandSpec> e64_operands;

  bool has(Flag f) const { return (flags & f) != 0; }
  bool quirk(Quirk q) const { return (quirks & q) != 0; }
  bool is_vop() const;        // VOP1/VOP2/VOPC/VOP3/VOP3P
  bool has_e64() const { return e64_opcode >= 0; }
  // The operand list of a given encoding (SDWA and DPP use the native list).
  const std::vector<OperandSpec>& operands_of(Encoding e) const {
    return e == Encoding::E64 ? e64_operands : operands;
  }
  // Source modifiers (SourceMods bits) operand `spec` takes in encoding `e`:
  // SDWA and DPP forms have their own rules, the others use the operand list.
  uint8_t source_mods(Encoding e, const OperandSpec& spec) const;
  // Accept bits of operand `spec` in encoding `e` (SDWA sources take VGPRs,
  // SGPRs and inline constants; DPP sources only VGPRs).
  uint8_t accept_of(Encoding e, const OperandSpec& spec) const;
  // Family an encoding is emitted in (E64 -> VOP3).
  Family family_of(Encoding e) const { return e == Encoding::E64 ? Family::VOP3 : family; }
};

// The whole table, in table order (id = index).
namespace detail {
const std::vector<InstDesc>& load_instructions();
}
// Every row of the table, indexed by InstDesc::id (built on first use).
inline const std::vector<InstDesc>& instructions() {
  static const std::vector<InstDesc>& rows = detail::load_instructions();  // one guarded load per call
  return rows;
}
// By base name (v_add_f32) or printed mnemonic (v_add_f32_e32); null if unknown.
const InstDesc* find_instruction(std::string_view name);
// The row a (family, opcode) pair decodes to; VOP3 opcodes of e64 forms map
// to their VOP1/VOP2/VOPC row. Null when the opcode is not in the table.
const InstDesc* lookup_opcode(Family family, uint16_t opcode);
// Every base name and printed mnemonic, for "did you mean" suggestions.
const std::vector<std::string>& all_mnemonics();

}  // namespace k100::isa
