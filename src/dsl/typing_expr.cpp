// Typing of expressions: names, literals, operators, promotion (DSL.md §4).
#include <cmath>
#include <cstring>

#include "checker.h"
#include "half_literal.h"
#include "k100/base/closest_match.h"

namespace k100::dsl {
namespace {

bool float_is_varying(Scalar s) { return is_float(s); }

}  // namespace

ExprPtr Checker::poison(const SourceLoc& loc) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Int;
  e->loc = loc;
  e->type = Type::value(Scalar::Void);
  return e;
}

ExprPtr Checker::literal_int(const SourceLoc& loc, uint64_t bits, Scalar type) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Int;
  e->loc = loc;
  e->int_value = type == Scalar::U64 ? bits : (bits & 0xFFFFFFFFull);
  e->type = Type::value(type);
  return e;
}

ExprPtr Checker::literal_float(const SourceLoc& loc, double v, Scalar type) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Float;
  e->loc = loc;
  // the value of the literal's type (f16/bf16: rounded as a conversion at run time would)
  e->float_value = type == Scalar::F32 ? static_cast<double>(static_cast<float>(v))
                   : type == Scalar::F16 ? (std::fabs(round_to_digits(v, 11, -14)) >= 65520.0
                                                ? std::copysign(HUGE_VAL, v)
                                                : round_to_digits(v, 11, -14))
                   : type == Scalar::BF16 ? static_cast<double>(static_cast<float>(round_to_digits(v, 8, -126)))
                                          : v;
  e->type = Type::value(type);
  return e;
}

std::string Checker::describe_value(const Expr& e) const {
  if (e.kind == ExprKind::Name) return "'" + e.name + "' (" + type_name(e.type) + ")";
  return "a " + type_name(e.type) + " value";
}

bool Checker::numeric(const Expr& e, std::string_view what) {
  if (poisoned(e)) return false;
  if (e.type.is_memory()) {
    error(e.loc, "'" + e.name + "' is " + (e.type.kind == Type::Kind::Ptr ? "a pointer" : "an LDS array") +
                     " and cannot be used as a number in " + std::string(what) + "; index it: " + e.name + "[i]");
    return false;
  }
  if (e.type.is(Scalar::Void)) {
    error(e.loc, "this call has no value; " + std::string(what) + " needs a number");
    return false;
  }
  if (e.type.is(Scalar::Bool)) {
    error(e.loc, "a comparison result cannot be used as a number in " + std::string(what) +
                     "; write (1 if c else 0) for an integer");
    return false;
  }
  return true;
}

ExprPtr Checker::convert(ExprPtr e, Scalar to) {
  if (poisoned(*e) || e->type.is(to)) return e;
  Scalar from = e->type.scalar;
  if (e->kind == ExprKind::Int && is_float(to)) {
    double v = is_signed(from) ? static_cast<double>(static_cast<int32_t>(e->int_value))
                               : static_cast<double>(e->int_value);
    return literal_float(e->loc, v, to);
  }
  if (e->kind == ExprKind::Int && is_int(to) && is_int(from)) {
    uint64_t bits = e->int_value;
    if (to == Scalar::U64 && is_signed(from)) bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    return literal_int(e->loc, bits, to);
  }
  if (e->kind == ExprKind::Float && to == Scalar::F32 && (from == Scalar::F16 || from == Scalar::BF16))
    return literal_float(e->loc, e->float_value, to);  // exact: the literal holds its type's value
  auto c = std::make_unique<Expr>();
  c->kind = ExprKind::Convert;
  c->loc = e->loc;
  c->type = Type::value(to);
  c->varying = e->varying || float_is_varying(to);
  c->args.push_back(std::move(e));
  return c;
}

std::optional<Scalar> Checker::common_type(const Expr& a, const Expr& b, const SourceLoc& loc,
                                           std::string_view what) {
  Scalar x = a.type.scalar, y = b.type.scalar;
  if (x == Scalar::U64 || y == Scalar::U64) {
    Scalar other = x == Scalar::U64 ? y : x;
    if (other == Scalar::U64 || other == Scalar::U32) return Scalar::U64;
    error(loc, std::string(what) + " mixes a u64 mask with " + scalar_name(other) +
                   "; u64 values combine only with u64 and u32");
    return std::nullopt;
  }
  if (x == Scalar::F32 || y == Scalar::F32) return Scalar::F32;
  // bf16 and f16 hold different ranges and precisions: together they are f32
  if (x == Scalar::BF16 || y == Scalar::BF16)
    return (x == Scalar::F16 || y == Scalar::F16) ? Scalar::F32 : Scalar::BF16;
  if (x == Scalar::F16 || y == Scalar::F16) return Scalar::F16;
  if (x == Scalar::S32 || y == Scalar::S32) return Scalar::S32;
  return Scalar::U32;
}

ExprPtr Checker::name(const Expr& e) {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    // Helpers see only their own names (and constants), never the caller's.
    auto v = it->names.find(e.name);
    if (v != it->names.end()) {
      auto n = std::make_unique<Expr>();
      n->kind = ExprKind::Name;
      n->loc = e.loc;
      n->name = e.name;
      n->var = v->second;
      n->type = k_.vars[v->second].type;
      n->varying = k_.vars[v->second].varying;
      return n;
    }
    auto c = it->consts.find(e.name);
    if (c != it->consts.end()) {
      int64_t i = c->second.i;
      return literal_int(e.loc, static_cast<uint64_t>(i), i < 0 ? Scalar::S32 : Scalar::U32);
    }
    break;
  }
  auto c = info_.constants.find(e.name);
  if (c != info_.constants.end()) {
    if (c->second.is_float) return literal_float(e.loc, c->second.f, Scalar::F32);
    int64_t i = c->second.i;
    return literal_int(e.loc, static_cast<uint64_t>(i), i < 0 ? Scalar::S32 : Scalar::U32);
  }
  if (find_builtin(e.name)) {
    error(e.loc, "'" + e.name + "' is a built-in function; call it: " + e.name + "(...)");
  } else if (info_.helpers.count(e.name)) {
    error(e.loc, "'" + e.name + "' is a helper function; call it: " + e.name + "(...)");
  } else {
    std::string near = closest_match(e.name, visible_names());
    error(e.loc, "unknown name '" + e.name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                     "; a variable must be assigned before it is read");
  }
  return poison(e.loc);
}

ExprPtr Checker::unary(Op op, const SourceLoc& loc, ExprPtr a) {
  if (poisoned(*a)) return a;
  if (op == Op::Not) {
    if (!a->type.is(Scalar::Bool)) {
      error(loc, "'not' takes a comparison; for an integer write x == 0");
      return poison(loc);
    }
  } else {
    if (!numeric(*a, std::string("'") + op_spelling(op) + "'")) return poison(loc);
    Scalar s = a->type.scalar;
    if (op == Op::Invert && !is_int(s)) {
      error(loc, "'~' needs an integer; " + describe_value(*a) + " has no bit operations");
      return poison(loc);
    }
    if (op == Op::Neg && a->kind == ExprKind::Int && s != Scalar::U64) {
      uint64_t v = a->int_value;
      if (s == Scalar::U32 && v > 0x80000000ull) {
        error(loc, "-" + std::to_string(v) + " does not fit in 32 bits (s32 reaches -2147483648)");
        return poison(loc);
      }
      Scalar t = (s == Scalar::U32 && v <= 0x80000000ull) ? Scalar::S32 : s;
      return literal_int(loc, (~v + 1) & 0xFFFFFFFFull, t);
    }
    if (op == Op::Neg && a->kind == ExprKind::Float) return literal_float(loc, -a->float_value, s);
  }
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Unary;
  e->op = op;
  e->loc = loc;
  e->type = a->type;
  e->varying = a->varying || float_is_varying(a->type.scalar);
  e->args.push_back(std::move(a));
  return e;
}

ExprPtr Checker::binary(Op op, const SourceLoc& loc, ExprPtr a, ExprPtr b) {
  if (poisoned(*a) || poisoned(*b)) return poison(loc);
  std::string what = std::string("'") + op_spelling(op) + "'";
  auto make = [&](Type t) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::Binary;
    e->op = op;
    e->loc = loc;
    e->type = t;
    e->varying = a->varying || b->varying || (t.is_value() && float_is_varying(t.scalar));
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  };
  if (op == Op::And || op == Op::Or) {
    for (const Expr* x : {a.get(), b.get()})
      if (!x->type.is(Scalar::Bool)) {
        error(x->loc, what + " combines comparisons; for an integer write x != 0");
        return poison(loc);
      }
    return make(Type::value(Scalar::Bool));
  }
  if (!numeric(*a, what) || !numeric(*b, what)) return poison(loc);
  bool bits = op == Op::BitAnd || op == Op::BitOr || op == Op::BitXor || op == Op::Shl || op == Op::Shr;
  if (bits) {
    for (const Expr* x : {a.get(), b.get()})
      if (!is_int(x->type.scalar)) {
        error(x->loc, what + " needs integers; " + describe_value(*x) +
                          " has no bit operations (bit operations take u32, s32 or u64)");
        return poison(loc);
      }
  }
  if (op == Op::Shl || op == Op::Shr) {
    // The result has the left operand's type; the count is any integer.
    Type t = a->type;
    if (b->type.is(Scalar::U64)) b = convert(std::move(b), Scalar::U32);
    return make(t);
  }
  auto t = common_type(*a, *b, loc, what);
  if (!t) return poison(loc);
  if (*t == Scalar::U64 && (op == Op::Mul || op == Op::Div || op == Op::FloorDiv || op == Op::Mod)) {
    error(loc, what + " on u64 masks is not supported; u64 values take + - & | ^ << >> == !=");
    return poison(loc);
  }
  if (is_float(*t) && op == Op::FloorDiv) {
    error(loc, "'//' on floats is not supported; write floor(a / b)");
    return poison(loc);
  }
  if (is_float(*t) && op == Op::Mod) {
    error(loc, "'%' on floats is not supported; write a - b * floor(a / b)");
    return poison(loc);
  }
  if (is_int(*t) && (op == Op::Div || op == Op::FloorDiv || op == Op::Mod) && b->kind == ExprKind::Int &&
      b->int_value == 0) {
    error(b->loc, "division by zero");
    return poison(loc);
  }
  a = convert(std::move(a), *t);
  b = convert(std::move(b), *t);
  return make(Type::value(*t));
}

ExprPtr Checker::compare(Op op, const SourceLoc& loc, ExprPtr a, ExprPtr b) {
  if (poisoned(*a) || poisoned(*b)) return poison(loc);
  std::string what = std::string("'") + op_spelling(op) + "'";
  if (!numeric(*a, what) || !numeric(*b, what)) return poison(loc);
  auto t = common_type(*a, *b, loc, "comparison " + what);
  if (!t) return poison(loc);
  if (*t == Scalar::U64 && op != Op::Eq && op != Op::Ne) {
    error(loc, "u64 masks compare only with == and !=");
    return poison(loc);
  }
  a = convert(std::move(a), *t);
  b = convert(std::move(b), *t);
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Compare;
  e->op = op;
  e->loc = loc;
  e->type = Type::value(Scalar::Bool);
  e->varying = a->varying || b->varying || float_is_varying(*t);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

ExprPtr Checker::subscript(const Expr& e) {
  const Expr& base = *e.args[0];
  ExprPtr b = name(base);
  if (poisoned(*b)) return b;
  if (!b->type.is_memory()) {
    error(base.loc, "'" + base.name + "' is " + describe_value(*b) +
                        ", not a pointer or an LDS array; only those can be indexed");
    return poison(e.loc);
  }
  ExprPtr idx = expr(*e.args[1]);
  if (poisoned(*idx)) return idx;
  if (!numeric(*idx, "an index")) return poison(e.loc);
  if (!idx->type.is(Scalar::U32) && !idx->type.is(Scalar::S32)) {
    error(idx->loc, "an index must be u32 or s32, not " + type_name(idx->type) +
                        (is_float(idx->type.scalar) ? "; convert with u32(x)" : "; convert with u32(x)"));
    return poison(e.loc);
  }
  if (idx->kind == ExprKind::Int) {
    int64_t i = idx->type.is(Scalar::S32) ? static_cast<int32_t>(idx->int_value) : static_cast<int64_t>(idx->int_value);
    const Variable& v = k_.vars[b->var];
    if (i < 0 && b->type.kind == Type::Kind::Lds) {
      error(idx->loc, "index " + std::to_string(i) + " is negative; LDS array '" + v.name + "' starts at 0");
      return poison(e.loc);
    }
    if (b->type.kind == Type::Kind::Lds && static_cast<uint64_t>(i) >= v.lds_count) {
      error(idx->loc, "index " + std::to_string(i) + " is outside LDS array '" + v.name + "' of " +
                          std::to_string(v.lds_count) + " elements (0 to " + std::to_string(v.lds_count - 1) + ")");
      return poison(e.loc);
    }
  }
  Scalar elem = b->type.scalar;
  Scalar value = elem == Scalar::U8 || elem == Scalar::U16 ? Scalar::U32
                 : elem == Scalar::S8 || elem == Scalar::S16 ? Scalar::S32
                                                            : elem;
  auto s = std::make_unique<Expr>();
  s->kind = ExprKind::Subscript;
  s->loc = e.loc;
  s->type = Type::value(value);
  s->varying = true;  // every memory load is per lane
  s->args.push_back(std::move(b));
  s->args.push_back(std::move(idx));
  return s;
}

ExprPtr Checker::if_exp(const Expr& e) {
  ExprPtr c = condition(*e.args[0], false);
  ExprPtr a = expr(*e.args[1]);
  ExprPtr b = expr(*e.args[2]);
  if (poisoned(*c) || poisoned(*a) || poisoned(*b)) return poison(e.loc);
  Type t;
  if (a->type.is(Scalar::Bool) && b->type.is(Scalar::Bool)) {
    t = a->type;
  } else {
    if (!numeric(*a, "a conditional expression") || !numeric(*b, "a conditional expression")) return poison(e.loc);
    auto s = common_type(*a, *b, e.loc, "a conditional expression");
    if (!s) return poison(e.loc);
    t = Type::value(*s);
    a = convert(std::move(a), *s);
    b = convert(std::move(b), *s);
  }
  auto r = std::make_unique<Expr>();
  r->kind = ExprKind::IfExp;
  r->loc = e.loc;
  r->type = t;
  r->varying = c->varying || a->varying || b->varying || float_is_varying(t.scalar);
  r->args.push_back(std::move(c));
  r->args.push_back(std::move(a));
  r->args.push_back(std::move(b));
  return r;
}

ExprPtr Checker::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name: return name(e);
    case ExprKind::Int: return literal_int(e.loc, e.int_value, Scalar::U32);
    case ExprKind::Float: return literal_float(e.loc, e.float_value, Scalar::F32);
    case ExprKind::Unary: return unary(e.op, e.loc, expr(*e.args[0]));
    case ExprKind::Binary: {
      ExprPtr a = expr(*e.args[0]);
      ExprPtr b = expr(*e.args[1]);
      return binary(e.op, e.loc, std::move(a), std::move(b));
    }
    case ExprKind::Compare: {
      ExprPtr a = expr(*e.args[0]);
      ExprPtr b = expr(*e.args[1]);
      return compare(e.op, e.loc, std::move(a), std::move(b));
    }
    case ExprKind::Call: return call(e);
    case ExprKind::Subscript: return subscript(e);
    case ExprKind::IfExp: return if_exp(e);
    case ExprKind::Convert: break;
  }
  error(e.loc, "unexpected expression");
  return poison(e.loc);
}

}  // namespace k100::dsl
