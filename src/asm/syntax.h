// The syntax-level form of an instruction statement, between the text parser
// and the matcher that turns it into an isa::Inst. The C++ kernel builder
// fills the same structures from typed operands, so both share one matcher.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "instruction_parser.h"
#include "lexer.h"

namespace k100::as {

struct SynOperand {
  enum class Kind { Reg, Const, Expr, Off, Imm } kind = Kind::Const;
  uint16_t code = 0;        // Reg: operand code (VGPR = 256 + n)
  uint8_t width = 1;        // Reg: registers in the range
  ConstantValue cval;       // Const
  std::vector<Token> expr;  // Expr: unresolved expression (+ End)
  std::string text;         // spelling (Expr: used for fixups and listings)
  uint32_t imm = 0;         // Imm: value of hwreg(...), sendmsg(...), waitcnt, ...
  bool neg = false, abs = false, sext = false;
  uint32_t col = 0;
};

struct SynModifier {
  std::string name;
  int rank = 0;              // position in llvm's modifier order
  bool dpp = false, sdwa = false, dpp_control = false;
  bool has_value = false;
  int64_t value = 0;
  std::vector<int64_t> list;
  std::string ident;  // DWORD, BYTE_0, swizzle, BUF_DATA_FORMAT_32,...
  uint32_t col = 0;
};

struct Syntax {
  std::vector<SynOperand> operands;
  std::vector<SynModifier> mods;
};

// The source slot (0, 1, 2) an operand field fills, -1 for the others.
inline int source_slot(isa::Field f) {
  using isa::Field;
  switch (f) {
    case Field::src0: case Field::ssrc0: return 0;
    case Field::src1: case Field::vsrc1: case Field::ssrc1: return 1;
    case Field::src2: return 2;
    default: return -1;
  }
}

// A modifier with its classification filled in (rank, DPP/SDWA).
SynModifier make_modifier(std::string name, uint32_t col = 0);
// True for clamp, glc, offset, op_sel, row_shr, ... (every modifier keyword).
bool is_modifier_name(std::string_view name);

// Chooses the encoding and builds the instruction, with llvm's rules.
bool match_syntax(std::string_view mnemonic, uint32_t mnemonic_col, const Syntax& syntax, isa::Target target,
                  ParsedInstruction& out, ParseError& err);

}  // namespace k100::as
