// Tokens of AMDGPU assembly, with their source columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace k100::as {

enum class Tok : uint8_t {
  End,         // end of the statement
  Identifier,  // v_add_f32, s0, .text, .Lfoo, foo$bar
  Integer,
  Float,
  String,
  Comma, Colon, LBracket, RBracket, LParen, RParen, Pipe,
  Plus, Minus, Star, Slash, Percent, Shl, Shr, Amp, Caret, Tilde, Bang, Equal,
  Less, Greater, LessEq, GreaterEq, EqEq, NotEq, AmpAmp, PipePipe,
  Error,       // an unlexable character
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // spelling in the source line
  uint32_t col = 0;       // 1-based column
  uint64_t int_value = 0; // Integer: value (wraps modulo 2^64)
  double float_value = 0; // Float
  bool space_before = false;
};

// The contents of a String token, escapes resolved.
std::string string_value(const Token& t);

// Splits one logical line into tokens (comments removed by the caller).
std::vector<Token> lex_line(std::string_view line, uint32_t first_col = 1);
// The same into `out` (cleared first; reusing one vector avoids an allocation per line).
void lex_line(std::string_view line, std::vector<Token>& out, uint32_t first_col = 1);

const char* token_name(Tok t);

}  // namespace k100::as
