#include "k100/asm/instruction_match.h"

#include <algorithm>

#include "k100/base/error.h"
#include "syntax.h"
#include "syntax_parser.h"
#include "parse_failure.h"

namespace k100::as {

namespace {

// The spelling a branch operand is matched with: the matcher only records
// that the operand is an expression (a fixup), never resolves it here.
constexpr std::string_view kLabelText = "label";

Syntax syntax_of(std::span<const Arg> args, int* label) {
  Syntax syn;
  for (const Arg& a : args) {
    if (a.is_modifier()) {
      syn.mods.push_back(a.modifier());
      continue;
    }
    SynOperand o = a.operand();
    if (a.label() >= 0) {
      if (*label >= 0) throw Error("two label operands");
      *label = a.label();
      Token t;
      t.kind = Tok::Identifier;
      t.text = kLabelText;
      o.expr = {t, Token{}};
      o.text = std::string(kLabelText);
    }
    syn.operands.push_back(std::move(o));
  }
  // modifiers must come in llvm's order; typed callers may give any order
  std::stable_sort(syn.mods.begin(), syn.mods.end(),
                   [](const SynModifier& x, const SynModifier& y) { return x.rank < y.rank; });
  return syn;
}

MatchedInst from_parsed(ParsedInstruction& p) {
  MatchedInst m;
  m.inst = p.inst;
  for (const InstFixup& f : p.fixups) {
    if (f.kind != InstFixup::Kind::Branch) throw Error("labels can only be branch targets");
    m.label_operand = f.operand;
    m.label_name = f.text;
  }
  return m;
}

}  // namespace

MatchedInst match_instruction(std::string_view mnemonic, std::span<const Arg> args, isa::Target target) {
  int label = -1;
  Syntax syn = syntax_of(args, &label);
  ParsedInstruction parsed;
  ParseError err;
  if (!match_syntax(mnemonic, 1, syn, target, parsed, err)) throw Error(err.message);
  MatchedInst m = from_parsed(parsed);
  m.label = m.label_operand >= 0 ? label : -1;
  m.label_name.clear();
  return m;
}

MatchedInst parse_instruction(std::string_view statement, isa::Target target) {
  std::vector<Token> tokens = lex_line(statement);
  if (tokens.empty() || tokens[0].kind != Tok::Identifier) throw Error("col 1: expected an instruction");
  Syntax syn;
  // Names are left unresolved: the matcher keeps them as branch fixups.
  const SymbolLookup none = [](const std::string&) -> std::optional<ExprValue> { return std::nullopt; };
  try {
    detail::parse_syntax(tokens, none, syn);
  } catch (const detail::Failure& f) {
    throw Error("col " + std::to_string(f.col ? f.col : tokens[0].col) + ": " + f.message);
  }
  ParsedInstruction parsed;
  ParseError err;
  if (!match_syntax(tokens[0].text, tokens[0].col, syn, target, parsed, err))
    throw Error("col " + std::to_string(err.col) + ": " + err.message);
  return from_parsed(parsed);
}

}  // namespace k100::as
