// Instruction statements: mnemonic + operands + modifiers -> isa::Inst.
//
// The parser reads llvm's AMDGPU syntax generically: operands are parsed to a
// syntax-level form first (registers, numbers, expressions, symbolic
// immediates, source modifiers), then matched against the operand list of
// each candidate encoding of the row (e32, e64, SDWA, DPP), converting
// constants by the operand's type exactly as llvm folds them.
#pragma once

#include <string>
#include <vector>

#include "expression.h"
#include "k100/isa/codec.h"
#include "lexer.h"

namespace k100::as {

// An operand whose value is only known once every label is placed.
struct InstFixup {
  enum class Kind { Branch, Literal, Immediate } kind;
  int operand = 0;                 // index in Inst::ops
  std::vector<Token> expr;         // the expression tokens (+ End)
  std::string text;                // its spelling, for listings
  uint32_t col = 0;
};

struct ParsedInstruction {
  isa::Inst inst;
  std::vector<InstFixup> fixups;
};

struct ParseError {
  uint32_t col = 0;
  std::string message;
};

class InstructionParser {
 public:
  InstructionParser(isa::Target target, SymbolLookup lookup) : target_(target), lookup_(std::move(lookup)) {}

  // tokens[0] is the mnemonic; the statement ends with Tok::End.
  // Returns false and fills `err` on a problem.
  bool parse(const std::vector<Token>& tokens, ParsedInstruction& out, ParseError& err) const;

 private:
  isa::Target target_;
  SymbolLookup lookup_;
};

// Converts a constant written in the source to an operand of the given type:
// an inline constant when llvm would fold it, else a literal. `vop3` is true in
// VOP3/VOP3P encodings, where some 16-bit foldings differ. Returns false when
// the value cannot be represented.
struct ConstantValue {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
};
bool constant_operand(const ConstantValue& v, isa::OpType type, bool vop3, isa::Operand& out);

}  // namespace k100::as
