#include "k100/dsl/lexer.h"

#include <gtest/gtest.h>

namespace k100::dsl {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  DiagnosticSink sink;
};

Lexed run(std::string_view text) {
  Lexed out;
  SourceText src("t.kkl", text);
  out.tokens = lex(src, out.sink);
  return out;
}

// Token kinds and spellings in one string: "N:def N:f (:( ... NL IN DE END".
std::string shape(const std::vector<Token>& ts) {
  std::string s;
  for (const auto& t : ts) {
    if (!s.empty()) s += ' ';
    switch (t.kind) {
      case TokenKind::Name: s += "N:" + t.text; break;
      case TokenKind::Int: s += "I:" + std::to_string(t.int_value); break;
      case TokenKind::Float: s += "F:" + t.text; break;
      case TokenKind::Op: s += t.text; break;
      case TokenKind::Newline: s += "NL"; break;
      case TokenKind::Indent: s += "IN"; break;
      case TokenKind::Dedent: s += "DE"; break;
      case TokenKind::End: s += "END"; break;
    }
  }
  return s;
}

TEST(DslLexer, IndentationBlocksAndComments) {
  auto r = run("def k(a):  # c\n    x = 1\n\n    # only a comment\n    if x:\n        y = 2\nz = 3\n");
  EXPECT_FALSE(r.sink.has_errors()) << r.sink.format_all();
  EXPECT_EQ(shape(r.tokens),
            "N:def N:k ( N:a ) : NL IN N:x = I:1 NL N:if N:x : NL IN N:y = I:2 NL DE DE N:z = I:3 NL END");
}

TEST(DslLexer, LocationsAreOneBased) {
  auto r = run("x = 1\n  \n  y\n");
  ASSERT_GE(r.tokens.size(), 6u);
  EXPECT_EQ(r.tokens[0].loc.line, 1u);
  EXPECT_EQ(r.tokens[0].loc.col, 1u);
  EXPECT_EQ(r.tokens[2].loc.col, 5u);
  // "y" on line 3, col 3, after an INDENT.
  EXPECT_EQ(r.tokens[4].kind, TokenKind::Indent);
  EXPECT_EQ(r.tokens[5].text, "y");
  EXPECT_EQ(r.tokens[5].loc.line, 3u);
  EXPECT_EQ(r.tokens[5].loc.col, 3u);
  EXPECT_EQ(r.tokens[5].loc.file, "t.kkl");
}

TEST(DslLexer, BracketsJoinLinesAndEndOfFileClosesBlocks) {
  auto r = run("f(a,\n      b)\nif x:\n    g()");
  EXPECT_FALSE(r.sink.has_errors()) << r.sink.format_all();
  EXPECT_EQ(shape(r.tokens), "N:f ( N:a , N:b ) NL N:if N:x : NL IN N:g ( ) NL DE END");
}

TEST(DslLexer, Numbers) {
  auto r = run("1_000 0xff 0XDEAD_BEEF 0o17 0b1010 0 00 1.5 .25 3e2 1e-3 2.");
  EXPECT_FALSE(r.sink.has_errors()) << r.sink.format_all();
  EXPECT_EQ(shape(r.tokens), "I:1000 I:255 I:3735928559 I:15 I:10 I:0 I:0 F:1.5 F:.25 F:3e2 F:1e-3 F:2. NL END");
  EXPECT_DOUBLE_EQ(r.tokens[10].float_value, 1e-3);
  EXPECT_DOUBLE_EQ(r.tokens[7].float_value, 1.5);
}

TEST(DslLexer, Operators) {
  auto r = run("a //= b ** c >> d <<= e != f -> g += h ~i");
  EXPECT_FALSE(r.sink.has_errors()) << r.sink.format_all();
  EXPECT_EQ(shape(r.tokens), "N:a //= N:b ** N:c >> N:d <<= N:e != N:f -> N:g += N:h ~ N:i NL END");
}

void expect_error(std::string_view text, const std::string& where, const std::string& message,
                  const std::string& caret_line) {
  auto r = run(text);
  ASSERT_TRUE(r.sink.has_errors()) << text;
  std::string all = r.sink.format_all();
  EXPECT_NE(all.find("t.kkl:" + where + ": error: "), std::string::npos) << all;
  EXPECT_NE(all.find(message), std::string::npos) << all;
  EXPECT_NE(all.find(caret_line), std::string::npos) << all;
}

TEST(DslLexer, Errors) {
  expect_error("def k():\n\tx = 1\n", "2:1", "a tab in indentation is not allowed; indent with spaces only",
               "\tx = 1\n^\n");
  expect_error("if a:\n    x = 1\n  y = 2\n", "3:3", "matches no enclosing block; indent it like the block",
               "  y = 2\n  ^\n");
  expect_error("x = 'hi'\n", "1:5", "string literals are not supported", "x = 'hi'\n    ^\n");
  expect_error("x = \"\"\"doc\nmore\"\"\" + 1\n", "1:5", "string literals are not supported", "    ^\n");
  expect_error("x = 1 + \\\n  2\n", "1:9", "backslash line continuation is not supported; wrap the expression in "
               "parentheses", "        ^\n");
  expect_error("x = 012\n", "1:5", "leading zeros in a decimal integer are not allowed; write 0o12", "    ^\n");
  expect_error("x = 3j\n", "1:5", "complex literals are not supported", "    ^\n");
  expect_error("x = 0x\n", "1:5", "malformed integer literal '0x'", "    ^\n");
  expect_error("x = a $ b\n", "1:7", "unexpected '$'", "      ^\n");
  expect_error("f(a, [b)\n", "1:8", "')' does not match '[' opened at line 1; close it with ']'", "       ^\n");
  expect_error("f(a,\n  b\n", "1:2", "'(' is never closed; add the matching ')'", " ^\n");
  expect_error("x = 1)\n", "1:6", "unmatched ')'", "     ^\n");
}

TEST(DslLexer, KeepsGoingAfterAnError) {
  auto r = run("x = 'a'\ny = $\n");
  EXPECT_EQ(r.sink.error_count(), 2u) << r.sink.format_all();
}

}  // namespace
}  // namespace k100::dsl
