// The lexer: Python's tokenizer rules for the DSL's subset (see lexer.h).
#include "k100/dsl/lexer.h"

#include <array>
#include <cmath>
#include <cstring>
#include <string_view>

namespace k100::dsl {
namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Longest operators first so "**=" wins over "**" and "*".
constexpr std::array<std::string_view, 24> kLongOps = {
    "**=", "//=", ">>=", "<<=", "->", "**", "//", "<<", ">>", "<=", ">=", "==",
    "!=",  "+=",  "-=",  "*=",  "/=", "%=", "&=", "|=", "^=", ":=", "@=", "..."};
constexpr std::string_view kShortOps = "+-*/%&|^~<>()[]{},:.;@=";

class Lexer {
 public:
  Lexer(const SourceText& src, DiagnosticSink& sink) : src_(src), text_(src.text()), sink_(sink) {}

  std::vector<Token> run() {
    indents_.push_back(0);
    while (pos_ < text_.size()) {
      if (at_line_start_ && brackets_.empty()) {
        if (!indentation()) continue;
      }
      char c = text_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        ++pos_;
        ++col_;
        continue;
      }
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      if (c == '\\') {
        error(col_, "backslash line continuation is not supported; wrap the expression in parentheses, "
                    "inside which lines join");
        ++pos_;
        ++col_;
        if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '\n') {
          ++pos_;
          ++line_;
          col_ = 1;
        }
        continue;
      }
      if (string_start()) {
        skip_string();
        continue;
      }
      if (is_name_start(c)) {
        name();
      } else if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
        number();
      } else {
        op();
      }
    }
    if (!brackets_.empty()) {
      const auto& open = brackets_.back();
      report_error(sink_, src_, open.loc,
                   std::string("'") + open.ch + "' is never closed; add the matching '" + closing(open.ch) + "'");
    }
    if (line_has_tokens_) push(TokenKind::Newline, "", col_);
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(TokenKind::Dedent, "", 1);
    }
    push(TokenKind::End, "", col_);
    return std::move(tokens_);
  }

 private:
  struct Bracket {
    char ch;
    SourceLoc loc;
  };

  static char closing(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

  void error(uint32_t col, std::string message) { report_error(sink_, src_, src_.loc(line_, col), std::move(message)); }

  Token& push(TokenKind kind, std::string text, uint32_t col) {
    tokens_.push_back(Token{kind, std::move(text), 0, 0, src_.loc(line_, col)});
    if (kind != TokenKind::Newline && kind != TokenKind::Indent && kind != TokenKind::Dedent &&
        kind != TokenKind::End)
      line_has_tokens_ = true;
    return tokens_.back();
  }

  void newline() {
    if (brackets_.empty()) {
      if (line_has_tokens_) push(TokenKind::Newline, "", col_);
      line_has_tokens_ = false;
      at_line_start_ = true;
    }
    ++pos_;
    ++line_;
    col_ = 1;
  }

  // At the start of a logical line: measures the indentation and emits
  // INDENT/DEDENT. Returns false when the line was blank or a comment (the
  // position then is past it).
  bool indentation() {
    uint32_t width = 0;
    size_t p = pos_;
    bool tab = false;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\f')) {
      if (text_[p] == '\t') tab = true;
      if (text_[p] == ' ') ++width;
      ++p;
    }
    size_t end = p;
    if (end < text_.size() && text_[end] == '\r') ++end;
    if (end >= text_.size() || text_[end] == '\n' || text_[p] == '#') {
      // Blank or comment-only: no tokens, indentation does not count.
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      if (pos_ < text_.size()) {
        ++pos_;
        ++line_;
        col_ = 1;
      }
      return false;
    }
    at_line_start_ = false;
    col_ = static_cast<uint32_t>(p - pos_) + 1;
    pos_ = p;
    if (tab) {
      error(1, "a tab in indentation is not allowed; indent with spaces only");
      return true;  // keep the previous level: the block structure stays as it was
    }
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(TokenKind::Indent, "", col_);
    } else {
      while (width < indents_.back()) {
        indents_.pop_back();
        push(TokenKind::Dedent, "", col_);
      }
      if (width != indents_.back()) {
        error(col_, "this line's indentation (" + std::to_string(width) +
                        " spaces) matches no enclosing block; indent it like the block it belongs to (" +
                        std::to_string(indents_.back()) + " spaces)");
        indents_.push_back(width);  // continue as a block of its own to avoid a cascade
      }
    }
    return true;
  }

  bool string_start() const {
    size_t p = pos_;
    while (p < text_.size() && p < pos_ + 2 && std::strchr("rRbBuUfF", text_[p]) && text_[p] != '\0') ++p;
    return p < text_.size() && (text_[p] == '\'' || text_[p] == '"') &&
           (p == pos_ || !is_name_char(pos_ > 0 ? text_[pos_ - 1] : ' '));
  }

  void skip_string() {
    uint32_t start_col = col_;
    uint32_t start_line = line_;
    while (text_[pos_] != '\'' && text_[pos_] != '"') {
      ++pos_;
      ++col_;
    }
    char q = text_[pos_];
    bool triple = pos_ + 2 < text_.size() && text_[pos_ + 1] == q && text_[pos_ + 2] == q;
    pos_ += triple ? 3 : 1;
    col_ += triple ? 3 : 1;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') {
        pos_ += 2;
        col_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!triple) break;
        ++line_;
        col_ = 1;
        ++pos_;
        continue;
      }
      ++pos_;
      ++col_;
      if (c == q && (!triple || (pos_ + 1 < text_.size() && text_[pos_] == q && text_[pos_ + 1] == q))) {
        if (triple) {
          pos_ += 2;
          col_ += 2;
        }
        break;
      }
    }
    report_error(sink_, src_, src_.loc(start_line, start_col),
                 "string literals are not supported; kernels compute only with numbers (use a '#' comment "
                 "for documentation)");
    line_has_tokens_ = true;  // the statement it belonged to still ends at the newline
  }

  void name() {
    uint32_t col = col_;
    size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    col_ += static_cast<uint32_t>(pos_ - start);
    push(TokenKind::Name, text_.substr(start, pos_ - start), col);
  }

  // Digits in `base` with single '_' separators between digits.
  bool digits(int base, std::string& out) {
    bool any = false;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      int v = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : 99;
      if (c == '_' && any && pos_ + 1 < text_.size()) {
        char n = text_[pos_ + 1];
        int nv = is_digit(n) ? n - '0' : (n >= 'a' && n <= 'f') ? n - 'a' + 10 : (n >= 'A' && n <= 'F') ? n - 'A' + 10 : 99;
        if (nv < base) {
          ++pos_;
          continue;
        }
        return any;
      }
      if (v >= base) break;
      out += c;
      any = true;
      ++pos_;
    }
    return any;
  }

  void number() {
    uint32_t col = col_;
    size_t start = pos_;
    auto finish = [&](TokenKind kind) -> Token& {
      col_ += static_cast<uint32_t>(pos_ - start);
      return push(kind, text_.substr(start, pos_ - start), col);
    };
    std::string d;
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && std::strchr("xXoObB", text_[pos_ + 1]) &&
        text_[pos_ + 1] != '\0') {
      char p = static_cast<char>(text_[pos_ + 1] | 0x20);
      int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      pos_ += 2;
      if (pos_ < text_.size() && text_[pos_] == '_') ++pos_;
      bool ok = digits(base, d);
      uint64_t v = 0;
      bool overflow = false;
      for (char c : d) {
        uint64_t dv = is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
        if (v > (UINT64_MAX - dv) / base) overflow = true;
        v = overflow ? UINT64_MAX : v * base + dv;
      }
      bool trailing = pos_ < text_.size() && is_name_char(text_[pos_]);
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      Token& t = finish(TokenKind::Int);
      t.int_value = v;
      if (!ok || trailing) error(col, "malformed integer literal '" + t.text + "'");
      return;
    }
    bool is_float = false;
    digits(10, d);
    if (pos_ < text_.size() && text_[pos_] == '.' &&
        !(pos_ + 1 < text_.size() && (is_name_start(text_[pos_ + 1]) && text_[pos_ + 1] != 'e' && text_[pos_ + 1] != 'E'))) {
      is_float = true;
      d += '.';
      ++pos_;
      digits(10, d);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_;
      std::string e = "e";
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) e += text_[pos_++];
      if (digits(10, e)) {
        is_float = true;
        d += e;
      } else {
        pos_ = save;
      }
    }
    bool trailing = pos_ < text_.size() && is_name_char(text_[pos_]);
    bool imaginary = trailing && (text_[pos_] == 'j' || text_[pos_] == 'J');
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    Token& t = finish(is_float ? TokenKind::Float : TokenKind::Int);
    if (imaginary) {
      error(col, "complex literals are not supported; the DSL has f32, f16, bf16, u32 and s32 numbers");
      return;
    }
    if (trailing) {
      error(col, "malformed number '" + t.text + "'");
      return;
    }
    if (is_float) {
      t.float_value = std::strtod(d.c_str(), nullptr);
      return;
    }
    if (d.size() > 1 && d[0] == '0' && d.find_first_not_of('0') != std::string::npos) {
      error(col, "leading zeros in a decimal integer are not allowed; write 0o" + d.substr(1) +
                     " for an octal number or drop the zeros");
      return;
    }
    uint64_t v = 0;
    for (char c : d) {
      uint64_t dv = static_cast<uint64_t>(c - '0');
      v = v > (UINT64_MAX - dv) / 10 ? UINT64_MAX : v * 10 + dv;
    }
    t.int_value = v;
  }

  void op() {
    uint32_t col = col_;
    std::string_view rest(text_.data() + pos_, text_.size() - pos_);
    for (auto o : kLongOps) {
      if (rest.substr(0, o.size()) == o) {
        pos_ += o.size();
        col_ += static_cast<uint32_t>(o.size());
        push(TokenKind::Op, std::string(o), col);
        return;
      }
    }
    char c = text_[pos_];
    if (kShortOps.find(c) == std::string_view::npos) {
      unsigned char uc = static_cast<unsigned char>(c);
      std::string shown = uc >= 0x80 ? "a non-ASCII character" : std::string("'") + c + "'";
      error(col, "unexpected " + shown + "; kernels use ASCII names, numbers and Python's operators");
      // Skip a whole UTF-8 sequence so the next error is not in its middle.
      ++pos_;
      ++col_;
      while (pos_ < text_.size() && (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80) ++pos_;
      return;
    }
    ++pos_;
    ++col_;
    if (c == '(' || c == '[' || c == '{') {
      brackets_.push_back(Bracket{c, src_.loc(line_, col)});
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets_.empty()) {
        error(col, std::string("unmatched '") + c + "'");
        return;
      }
      if (closing(brackets_.back().ch) != c) {
        error(col, std::string("'") + c + "' does not match '" + brackets_.back().ch + "' opened at line " +
                       std::to_string(brackets_.back().loc.line) + "; close it with '" +
                       closing(brackets_.back().ch) + "'");
      }
      brackets_.pop_back();
    }
    push(TokenKind::Op, std::string(1, c), col);
  }

  const SourceText& src_;
  const std::string& text_;
  DiagnosticSink& sink_;
  size_t pos_ = 0;
  uint32_t line_ = 1, col_ = 1;
  bool at_line_start_ = true;
  bool line_has_tokens_ = false;
  std::vector<uint32_t> indents_;
  std::vector<Bracket> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(const SourceText& src, DiagnosticSink& sink) { return Lexer(src, sink).run(); }

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::Name: return "name '" + t.text + "'";
    case TokenKind::Int: return "integer " + t.text;
    case TokenKind::Float: return "number " + t.text;
    case TokenKind::Op: return "'" + t.text + "'";
    case TokenKind::Newline: return "end of line";
    case TokenKind::Indent: return "an indented block";
    case TokenKind::Dedent: return "the end of the block";
    case TokenKind::End: return "end of file";
  }
  return "token";
}

}  // namespace k100::dsl
