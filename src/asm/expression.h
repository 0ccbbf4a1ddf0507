// Integer expressions of the assembler: numbers, symbols, labels, operators.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lexer.h"

namespace k100::as {

// A value is absolute, or an offset into a section (a label's value plus a
// constant). The difference of two offsets in one section is absolute.
struct ExprValue {
  int64_t value = 0;
  std::string section;  // "" for absolute values
  bool absolute() const { return section.empty(); }
};

// Looks up a symbol: nullopt when undefined (yet).
using SymbolLookup = std::function<std::optional<ExprValue>(const std::string&)>;

struct ExprResult {
  std::optional<ExprValue> value;  // nullopt: refers to something undefined
  std::string error;               // syntax or type error ("" when fine)
  uint32_t error_col = 0;
  std::vector<std::string> undefined;  // symbols that were not defined
};

// Parses one expression starting at tokens[pos]; advances pos past it.
// Stops before ',' ':' ']' ')' (unmatched) and end of statement.
// `in_abs` stops at '|' (the closing bar of |x|) instead of reading it as "or".
// `float_bits` reads a floating-point number inside an expression as the bit
// pattern of the double, as llvm's expression parser does in instruction
// operands (`--1.0` is the integer 0x3ff0000000000000).
ExprResult parse_expression(const std::vector<Token>& tokens, size_t& pos, const SymbolLookup& lookup,
                            bool in_abs = false, bool float_bits = false);

// True when tokens[pos] can start an expression.
bool starts_expression(const std::vector<Token>& tokens, size_t pos);

}  // namespace k100::as
