#include "lexer.h"

#include <array>
#include <cctype>
#include <cstdlib>

namespace k100::as {

namespace {
// Character classes: bit 0 starts an identifier, bit 1 continues one.
constexpr auto kCharClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool digit = c >= '0' && c <= '9';
    bool extra = c == '_' || c == '.' || c == '$' || c == '@';
    t[size_t(c)] = uint8_t(((alpha || extra) ? 1 : 0) | ((alpha || digit || extra) ? 2 : 0));
  }
  return t;
}();
inline bool ident_start(char c) { return kCharClass[uint8_t(c)] & 1; }
inline bool ident_char(char c) { return kCharClass[uint8_t(c)] & 2; }
}  // namespace

std::vector<Token> lex_line(std::string_view s, uint32_t first_col) {
  std::vector<Token> out;
  lex_line(s, out, first_col);
  return out;
}

void lex_line(std::string_view s, std::vector<Token>& out, uint32_t first_col) {
  out.clear();
  size_t i = 0;
  bool space = false;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      space = true;
      continue;
    }
    Token t;
    t.col = uint32_t(i) + first_col;
    t.space_before = space;
    space = false;
    size_t start = i;
    if (ident_start(c) || (c == '#' && i + 1 < s.size() && ident_start(s[i + 1]))) {
      // '#alloc', '#write', '#execinstr': ELF section flags in the Solaris spelling, which
      // clang writes (.section .rodata,#alloc); '#' starts nothing else in this syntax
      ++i;
      while (i < s.size() && ident_char(s[i])) ++i;
      t.kind = Tok::Identifier;
    } else if (std::isdigit(uint8_t(c))) {
      // integer (dec, 0x hex, 0b binary) or float (digits . digits [e[+-]digits])
      size_t j = i;
      bool is_float = false;
      if (c == '0' && j + 1 < s.size() && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
        j += 2;
        while (j < s.size() && std::isxdigit(uint8_t(s[j]))) ++j;
      } else if (c == '0' && j + 1 < s.size() && (s[j + 1] == 'b' || s[j + 1] == 'B') &&
                 j + 2 < s.size() && (s[j + 2] == '0' || s[j + 2] == '1')) {
        j += 2;
        while (j < s.size() && (s[j] == '0' || s[j] == '1')) ++j;
      } else {
        while (j < s.size() && std::isdigit(uint8_t(s[j]))) ++j;
        if (j < s.size() && s[j] == '.' ) {
          is_float = true;
          ++j;
          while (j < s.size() && std::isdigit(uint8_t(s[j]))) ++j;
        }
        if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
          size_t k = j + 1;
          if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
          if (k < s.size() && std::isdigit(uint8_t(s[k]))) {
            is_float = true;
            j = k;
            while (j < s.size() && std::isdigit(uint8_t(s[j]))) ++j;
          }
        }
      }
      i = j;
      std::string_view text = s.substr(start, i - start);
      if (is_float) {
        t.kind = Tok::Float;
        t.float_value = std::strtod(std::string(text).c_str(), nullptr);
      } else {
        t.kind = Tok::Integer;
        uint64_t v = 0;
        if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {
          for (size_t k = 2; k < text.size(); ++k) {
            char d = text[k];
            v = v * 16 + uint64_t(std::isdigit(uint8_t(d)) ? d - '0' : (std::tolower(d) - 'a' + 10));
          }
        } else if (text.size() > 2 && (text[1] == 'b' || text[1] == 'B')) {
          for (size_t k = 2; k < text.size(); ++k) v = v * 2 + uint64_t(text[k] - '0');
        } else {
          for (char d : text) v = v * 10 + uint64_t(d - '0');
        }
        t.int_value = v;
        // a suffix glued to a number (12abc) is an error token
        if (i < s.size() && ident_char(s[i]) && s[i] != '.') {
          while (i < s.size() && ident_char(s[i])) ++i;
          t.kind = Tok::Error;
        }
      }
    } else if (c == '"') {
      ++i;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\' && i + 1 < s.size()) {
          i += 2;
          continue;
        }
        if (s[i] == '"') {
          closed = true;
          ++i;
          break;
        }
        ++i;
      }
      t.kind = closed ? Tok::String : Tok::Error;
    } else {
      auto two = [&](char a, char b) { return c == a && i + 1 < s.size() && s[i + 1] == b; };
      if (two('<', '<')) { t.kind = Tok::Shl; i += 2; }
      else if (two('>', '>')) { t.kind = Tok::Shr; i += 2; }
      else if (two('<', '=')) { t.kind = Tok::LessEq; i += 2; }
      else if (two('>', '=')) { t.kind = Tok::GreaterEq; i += 2; }
      else if (two('=', '=')) { t.kind = Tok::EqEq; i += 2; }
      else if (two('!', '=')) { t.kind = Tok::NotEq; i += 2; }
      else if (two('&', '&')) { t.kind = Tok::AmpAmp; i += 2; }
      else if (two('|', '|')) { t.kind = Tok::PipePipe; i += 2; }
      else {
        ++i;
        switch (c) {
          case ',': t.kind = Tok::Comma; break;
          case ':': t.kind = Tok::Colon; break;
          case '[': t.kind = Tok::LBracket; break;
          case ']': t.kind = Tok::RBracket; break;
          case '(': t.kind = Tok::LParen; break;
          case ')': t.kind = Tok::RParen; break;
          case '|': t.kind = Tok::Pipe; break;
          case '+': t.kind = Tok::Plus; break;
          case '-': t.kind = Tok::Minus; break;
          case '*': t.kind = Tok::Star; break;
          case '/': t.kind = Tok::Slash; break;
          case '%': t.kind = Tok::Percent; break;
          case '&': t.kind = Tok::Amp; break;
          case '^': t.kind = Tok::Caret; break;
          case '~': t.kind = Tok::Tilde; break;
          case '!': t.kind = Tok::Bang; break;
          case '=': t.kind = Tok::Equal; break;
          case '<': t.kind = Tok::Less; break;
          case '>': t.kind = Tok::Greater; break;
          default: t.kind = Tok::Error; break;
        }
      }
    }
    t.text = s.substr(start, i - start);
    out.push_back(t);
  }
  Token end;
  end.kind = Tok::End;
  end.col = uint32_t(s.size()) + first_col;
  end.space_before = space;
  out.push_back(end);
}

std::string string_value(const Token& t) {
  std::string out;
  std::string_view s = t.text;
  if (s.size() >= 2) s = s.substr(1, s.size() - 2);  // drop the quotes
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char e = s[++i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else {
      out += s[i];
    }
  }
  return out;
}

const char* token_name(Tok t) {
  switch (t) {
    case Tok::End: return "end of statement";
    case Tok::Identifier: return "identifier";
    case Tok::Integer: return "integer";
    case Tok::Float: return "floating-point number";
    case Tok::String: return "string";
    case Tok::Comma: return "','";
    case Tok::Colon: return "':'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::Pipe: return "'|'";
    case Tok::Minus: return "'-'";
    case Tok::Error: return "invalid character";
    default: return "operator";
  }
}

}  // namespace k100::as
