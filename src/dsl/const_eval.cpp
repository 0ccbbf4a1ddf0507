// Compile-time constants: top-level constants, static_range bounds, LDS
// sizes, range steps and id dimensions (checker.h).
#include "checker.h"

namespace k100::dsl {

std::optional<ConstValue> eval_const(const Expr& e, const std::map<std::string, ConstValue>& names,
                                     const std::map<std::string, ConstValue>& module_constants,
                                     const SourceText& src, DiagnosticSink& sink, std::string_view what) {
  auto fail = [&](const SourceLoc& loc, const std::string& why) -> std::optional<ConstValue> {
    report_error(sink, src, loc, std::string(what) + " must be a compile-time constant (literals, top-level "
                                 "constants, static_range counters and + - * / // % << >> & | ^); " + why);
    return std::nullopt;
  };
  switch (e.kind) {
    case ExprKind::Int: return ConstValue{false, static_cast<int64_t>(e.int_value), 0};
    case ExprKind::Float: return ConstValue{true, 0, e.float_value};
    case ExprKind::Name: {
      auto it = names.find(e.name);
      if (it != names.end()) return it->second;
      it = module_constants.find(e.name);
      if (it != module_constants.end()) return it->second;
      return fail(e.loc, "'" + e.name + "' is not a constant");
    }
    case ExprKind::Unary: {
      auto a = eval_const(*e.args[0], names, module_constants, src, sink, what);
      if (!a) return a;
      if (e.op == Op::Neg) return a->is_float ? ConstValue{true, 0, -a->f} : ConstValue{false, -a->i, 0};
      if (e.op == Op::Invert && !a->is_float) return ConstValue{false, ~a->i, 0};
      return fail(e.loc, std::string("'") + op_spelling(e.op) + "' is not allowed here");
    }
    case ExprKind::Binary: {
      auto a = eval_const(*e.args[0], names, module_constants, src, sink, what);
      if (!a) return a;
      auto b = eval_const(*e.args[1], names, module_constants, src, sink, what);
      if (!b) return b;
      if (a->is_float || b->is_float) {
        double x = a->is_float ? a->f : static_cast<double>(a->i);
        double y = b->is_float ? b->f : static_cast<double>(b->i);
        switch (e.op) {
          case Op::Add: return ConstValue{true, 0, x + y};
          case Op::Sub: return ConstValue{true, 0, x - y};
          case Op::Mul: return ConstValue{true, 0, x * y};
          case Op::Div: return ConstValue{true, 0, x / y};
          default: return fail(e.loc, std::string("'") + op_spelling(e.op) + "' does not take floats");
        }
      }
      int64_t x = a->i, y = b->i;
      auto floordiv = [](int64_t p, int64_t q) { return p / q - ((p % q != 0) && ((p < 0) != (q < 0))); };
      int64_t r = 0;
      switch (e.op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul: {
          bool over = e.op == Op::Add   ? __builtin_add_overflow(x, y, &r)
                      : e.op == Op::Sub ? __builtin_sub_overflow(x, y, &r)
                                        : __builtin_mul_overflow(x, y, &r);
          if (over || r > (int64_t{1} << 40) || r < -(int64_t{1} << 40))
            return fail(e.loc, "the value is far outside 32 bits");
          return ConstValue{false, r, 0};
        }
        case Op::Div:
        case Op::FloorDiv:
        case Op::Mod:
          if (y == 0) return fail(e.args[1]->loc, "division by zero");
          return ConstValue{false, e.op == Op::Mod ? x - floordiv(x, y) * y : floordiv(x, y), 0};
        case Op::Shl:
          if (y < 0 || y > 32 || x < 0 || x > (int64_t{1} << 32))
            return fail(e.args[1]->loc, "the shift is out of range");
          return ConstValue{false, x << y, 0};
        case Op::Shr:
          if (y < 0 || y > 62) return fail(e.args[1]->loc, "shift count out of range");
          return ConstValue{false, x >> y, 0};
        case Op::BitAnd: return ConstValue{false, x & y, 0};
        case Op::BitOr: return ConstValue{false, x | y, 0};
        case Op::BitXor: return ConstValue{false, x ^ y, 0};
        default: return fail(e.loc, std::string("'") + op_spelling(e.op) + "' is not allowed here");
      }
    }
    default: return fail(e.loc, "this expression is computed at run time");
  }
}

}  // namespace k100::dsl
