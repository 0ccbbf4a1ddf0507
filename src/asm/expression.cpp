#include "expression.h"

#include <cstring>

namespace k100::as {

namespace {

struct Parser {
  const std::vector<Token>& t;
  size_t& pos;
  const SymbolLookup& lookup;
  bool in_abs = false;
  bool float_bits = false;
  ExprResult res;
  bool unresolved = false;

  const Token& cur() const { return t[pos]; }

  void fail(const std::string& msg, uint32_t col) {
    if (res.error.empty()) {
      res.error = msg;
      res.error_col = col;
    }
  }

  // Values carry an optional label; arithmetic on labels is limited to
  // label +/- constant and label - label (same section: absolute).
  ExprValue combine(Tok op, const ExprValue& a, const ExprValue& b, uint32_t col) {
    ExprValue r;
    if (op == Tok::Plus) {
      if (!a.absolute() && !b.absolute()) fail("cannot add two labels", col);
      r.value = a.value + b.value;
      r.section = a.absolute() ? b.section : a.section;
      return r;
    }
    if (op == Tok::Minus) {
      if (!a.absolute() && !b.absolute()) {
        if (a.section != b.section) fail("labels in different sections cannot be subtracted", col);
        r.value = a.value - b.value;
        return r;
      }
      if (a.absolute() && !b.absolute()) fail("cannot subtract a label from a number", col);
      r.value = a.value - b.value;
      r.section = a.section;
      return r;
    }
    if (!a.absolute() || !b.absolute()) {
      fail("expected an absolute expression", col);
      return r;
    }
    int64_t x = a.value, y = b.value;
    switch (op) {
      case Tok::Star: r.value = int64_t(uint64_t(x) * uint64_t(y)); break;
      case Tok::Slash:
        if (y == 0) fail("division by zero", col);
        else r.value = x / y;
        break;
      case Tok::Percent:
        if (y == 0) fail("division by zero", col);
        else r.value = x % y;
        break;
      case Tok::Shl: r.value = int64_t(uint64_t(x) << (y & 63)); break;
      case Tok::Shr: r.value = x >> (y & 63); break;
      case Tok::Amp: r.value = x & y; break;
      case Tok::Pipe: r.value = x | y; break;
      case Tok::Caret: r.value = x ^ y; break;
      case Tok::EqEq: r.value = x == y ? -1 : 0; break;
      case Tok::NotEq: r.value = x != y ? -1 : 0; break;
      case Tok::Less: r.value = x < y ? -1 : 0; break;
      case Tok::Greater: r.value = x > y ? -1 : 0; break;
      case Tok::LessEq: r.value = x <= y ? -1 : 0; break;
      case Tok::GreaterEq: r.value = x >= y ? -1 : 0; break;
      case Tok::AmpAmp: r.value = (x && y) ? 1 : 0; break;
      case Tok::PipePipe: r.value = (x || y) ? 1 : 0; break;
      default: fail("unexpected operator", col); break;
    }
    return r;
  }

  static int precedence(Tok k) {
    switch (k) {
      case Tok::PipePipe: return 1;
      case Tok::AmpAmp: return 2;
      case Tok::Pipe: return 3;
      case Tok::Caret: return 4;
      case Tok::Amp: return 5;
      case Tok::EqEq: case Tok::NotEq: return 6;
      case Tok::Less: case Tok::Greater: case Tok::LessEq: case Tok::GreaterEq: return 7;
      case Tok::Shl: case Tok::Shr: return 8;
      case Tok::Plus: case Tok::Minus: return 9;
      case Tok::Star: case Tok::Slash: case Tok::Percent: return 10;
      default: return 0;
    }
  }

  ExprValue primary() {
    const Token& tk = cur();
    ExprValue v;
    switch (tk.kind) {
      case Tok::Integer:
        ++pos;
        v.value = int64_t(tk.int_value);
        return v;
      case Tok::Float:
        if (!float_bits) break;
        ++pos;
        std::memcpy(&v.value, &tk.float_value, sizeof v.value);
        return v;
      case Tok::Identifier: {
        ++pos;
        std::string name(tk.text);
        auto found = lookup(name);
        if (!found) {
          unresolved = true;
          res.undefined.push_back(name);
          return v;
        }
        return *found;
      }
      case Tok::LParen: {
        ++pos;
        v = binary(1);
        if (cur().kind != Tok::RParen) fail("expected ')'", cur().col);
        else ++pos;
        return v;
      }
      case Tok::Minus: case Tok::Tilde: case Tok::Bang: case Tok::Plus: {
        ++pos;
        ExprValue a = primary();
        if (tk.kind == Tok::Plus) return a;
        if (!a.absolute()) {
          fail("expected an absolute expression", tk.col);
          return a;
        }
        if (tk.kind == Tok::Minus) a.value = int64_t(0 - uint64_t(a.value));
        else if (tk.kind == Tok::Tilde) a.value = ~a.value;
        else a.value = a.value ? 0 : 1;
        return a;
      }
      default:
        break;
    }
    fail(std::string("expected an expression, found ") + token_name(tk.kind), tk.col);
    if (tk.kind != Tok::End) ++pos;
    return v;
  }

  ExprValue binary(int min_prec) {
    ExprValue lhs = primary();
    while (true) {
      Tok op = cur().kind;
      if (op == Tok::Pipe && in_abs) break;
      int prec = precedence(op);
      if (prec < min_prec || prec == 0) break;
      uint32_t col = cur().col;
      ++pos;
      ExprValue rhs = binary(prec + 1);
      if (!unresolved) lhs = combine(op, lhs, rhs, col);
    }
    return lhs;
  }
};

}  // namespace

bool starts_expression(const std::vector<Token>& t, size_t pos) {
  switch (t[pos].kind) {
    case Tok::Integer: case Tok::Identifier: case Tok::LParen: case Tok::Minus: case Tok::Tilde:
    case Tok::Bang: case Tok::Plus:
      return true;
    default:
      return false;
  }
}

ExprResult parse_expression(const std::vector<Token>& tokens, size_t& pos, const SymbolLookup& lookup,
                            bool in_abs, bool float_bits) {
  Parser p{tokens, pos, lookup, in_abs, float_bits, {}};
  ExprValue v = p.binary(1);
  if (p.res.error.empty() && !p.unresolved) p.res.value = v;
  return std::move(p.res);
}

}  // namespace k100::as
