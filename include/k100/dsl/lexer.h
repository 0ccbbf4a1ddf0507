// k100lc dsl: tokens of the Python subset and the lexer that produces them.
//
// The lexer follows Python's tokenizer rules for the part of the language
// the DSL accepts: names (keywords are names the parser recognises), integer
// literals (decimal, 0x/0o/0b, `_` separators), float literals (with a point
// or an exponent), operators, `#` comments, implicit line joining inside
// (), [] and {}, and NEWLINE/INDENT/DEDENT from an indentation stack. Blank
// and comment-only lines produce nothing. Tabs in indentation, strings,
// backslash continuation and characters outside the subset are errors with
// a caret; after an error the lexer keeps going so one run reports several.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/dsl/source.h"

namespace k100::dsl {

enum class TokenKind : uint8_t { Name, Int, Float, Op, Newline, Indent, Dedent, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;         // the spelling (operators: "+", "**=", "->", ...)
  uint64_t int_value = 0;   // Int: the value (saturates at UINT64_MAX; the parser checks the range)
  double float_value = 0;   // Float: the value
  SourceLoc loc;
};

// Tokens of the whole source, always ending with Newline (if any line had
// tokens), the Dedents that close open blocks, and End.
std::vector<Token> lex(const SourceText& src, DiagnosticSink& sink);

// "name 'x'", "integer 12", "'+'", "end of line", ... for messages.
std::string describe(const Token& t);

}  // namespace k100::dsl
