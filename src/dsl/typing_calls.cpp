// Typing of calls: the built-ins' rules (builtins.h) and helper inlining.
#include "checker.h"
#include "k100/base/closest_match.h"

namespace k100::dsl {
namespace {

ExprPtr make_call(const Expr& e, const Builtin& b, Type t, bool varying, std::vector<ExprPtr> args) {
  auto c = std::make_unique<Expr>();
  c->kind = ExprKind::Call;
  c->loc = e.loc;
  c->name = e.name;
  c->builtin = &b;
  c->type = t;
  c->varying = varying;
  c->args = std::move(args);
  return c;
}

bool any_varying(const std::vector<ExprPtr>& args) {
  for (const auto& a : args)
    if (a->varying) return true;
  return false;
}

}  // namespace

ExprPtr Checker::call(const Expr& e) {
  if (const Builtin* b = find_builtin(e.name)) return builtin_call(e, *b);
  auto h = info_.helpers.find(e.name);
  if (h != info_.helpers.end()) return inline_helper(e, *h->second);
  std::vector<std::string> cands;
  for (const auto& b : builtins()) cands.emplace_back(b.name);
  for (const auto& [n, f] : info_.helpers) cands.push_back(n);
  std::string near = closest_match(e.name, cands);
  error(e.loc, "unknown function '" + e.name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                   "; calls are to built-ins (DSL.md §5) or to helpers defined at the top level");
  return poison(e.loc);
}

std::optional<int> Checker::dimension_arg(const Expr& e, const Builtin& b) {
  if (e.args.empty()) return 0;
  auto v = eval_const(*e.args[0], frame().consts, info_.constants, *info_.src, sink_,
                      "the dimension of " + std::string(b.name) + "()");
  if (!v) return std::nullopt;
  if (v->is_float || v->i < 0 || v->i > 2) {
    error(e.args[0]->loc, "the dimension of " + std::string(b.name) + "() is 0 (x), 1 (y) or 2 (z)");
    return std::nullopt;
  }
  return static_cast<int>(v->i);
}

ExprPtr Checker::builtin_call(const Expr& e, const Builtin& b) {
  const std::string bn(b.name);
  if (b.use == BuiltinUse::LoopHeader) {
    error(e.loc, bn + "(...) is only allowed as the loop of 'for NAME in " + bn + "(...)'");
    return poison(e.loc);
  }
  if (b.use == BuiltinUse::Declaration) {
    error(e.loc, "lds(n) declares an LDS array and has no value here; write NAME = lds(n) at the top level of "
                 "the kernel body");
    return poison(e.loc);
  }
  if (b.use == BuiltinUse::Effect && effect_root_ != &e) {
    error(e.loc, bn + "(...) has a side effect; call it as a statement or as the whole right side of an "
                      "assignment (old = " + bn + "(...))");
    return poison(e.loc);
  }
  size_t n = e.args.size();
  if (n < b.min_args || n > b.max_args) {
    std::string count = b.min_args == b.max_args ? std::to_string(b.min_args)
                                                 : std::to_string(b.min_args) + " to " + std::to_string(b.max_args);
    error(e.loc, bn + " takes " + count + " argument" + (b.max_args == 1 ? "" : "s") + ", got " +
                     std::to_string(n) + " (" + std::string(b.usage) + ")");
    return poison(e.loc);
  }
  if (b.rule == BuiltinRule::Id) {
    auto d = dimension_arg(e, b);
    if (!d) return poison(e.loc);
    std::vector<ExprPtr> args;
    args.push_back(literal_int(e.loc, static_cast<uint64_t>(*d), Scalar::U32));
    return make_call(e, b, Type::value(Scalar::U32), b.id != BuiltinId::Bid, std::move(args));
  }
  if (b.rule == BuiltinRule::Barrier) return make_call(e, b, Type::value(Scalar::Void), false, {});

  // Atomics and load16 name their memory operand; type it without the
  // "cannot be used as a number" check.
  std::vector<ExprPtr> args;
  for (const auto& a : e.args) {
    args.push_back(expr(*a));
    if (poisoned(*args.back())) return poison(e.loc);
  }
  auto need_numeric = [&](size_t from) {
    for (size_t i = from; i < args.size(); ++i)
      if (!numeric(*args[i], "an argument of " + bn + "()")) return false;
    return true;
  };
  auto need_int = [&](size_t i, std::string_view what) {
    if (!numeric(*args[i], "an argument of " + bn + "()")) return false;
    if (!args[i]->type.is(Scalar::U32) && !args[i]->type.is(Scalar::S32)) {
      error(args[i]->loc, std::string(what) + " of " + bn + "() must be u32 or s32, not " + type_name(args[i]->type) +
                              (is_float(args[i]->type.scalar) ? "; convert with u32(x)" : ""));
      return false;
    }
    return true;
  };
  auto float_of = [&](ExprPtr& a) -> std::optional<Scalar> {
    Scalar s = a->type.scalar;
    if (s == Scalar::U64) {
      error(a->loc, bn + "() takes a number, not a u64 mask");
      return std::nullopt;
    }
    return s == Scalar::F16 || s == Scalar::BF16 ? s : Scalar::F32;
  };

  switch (b.rule) {
    case BuiltinRule::FloatMath: {
      if (!need_numeric(0)) return poison(e.loc);
      auto t = float_of(args[0]);
      if (!t) return poison(e.loc);
      args[0] = convert(std::move(args[0]), *t);
      return make_call(e, b, Type::value(*t), true, std::move(args));
    }
    case BuiltinRule::Fma: {
      if (!need_numeric(0)) return poison(e.loc);
      // f32 if an operand is f32 (an int literal adapts), or if f16 meets bf16
      bool f32 = false, f16 = false, bf16 = false;
      for (auto& a : args) {
        auto s = float_of(a);
        if (!s) return poison(e.loc);
        f32 |= *s == Scalar::F32 && (a->type.is(Scalar::F32) || a->kind != ExprKind::Int);
        f16 |= *s == Scalar::F16;
        bf16 |= *s == Scalar::BF16;
      }
      const Scalar t = f32 || (f16 && bf16) ? Scalar::F32 : f16 ? Scalar::F16 : bf16 ? Scalar::BF16 : Scalar::F32;
      for (auto& a : args) a = convert(std::move(a), t);
      return make_call(e, b, Type::value(t), true, std::move(args));
    }
    case BuiltinRule::MinMax: {
      if (!need_numeric(0)) return poison(e.loc);
      Scalar x = args[0]->type.scalar, y = args[1]->type.scalar;
      if (is_int(x) && is_int(y) && x != y && args[0]->kind != ExprKind::Int && args[1]->kind != ExprKind::Int) {
        error(e.loc, bn + " of " + scalar_name(x) + " and " + scalar_name(y) +
                         " is ambiguous; convert one side with u32(x) or s32(x)");
        return poison(e.loc);
      }
      auto t = common_type(*args[0], *args[1], e.loc, bn + "()");
      if (!t) return poison(e.loc);
      if (*t == Scalar::U64) {
        error(e.loc, bn + "() takes numbers, not u64 masks");
        return poison(e.loc);
      }
      for (auto& a : args) a = convert(std::move(a), *t);
      bool v = any_varying(args) || is_float(*t);
      return make_call(e, b, Type::value(*t), v, std::move(args));
    }
    case BuiltinRule::Convert: {
      if (!need_numeric(0)) return poison(e.loc);
      Scalar to = b.id == BuiltinId::ToF32 ? Scalar::F32
                  : b.id == BuiltinId::ToU32 ? Scalar::U32
                  : b.id == BuiltinId::ToS32 ? Scalar::S32
                  : b.id == BuiltinId::ToF16 ? Scalar::F16
                                             : Scalar::BF16;
      Scalar from = args[0]->type.scalar;
      if (from == Scalar::U64 && to != Scalar::U32) {
        error(e.loc, bn + "() of a u64 mask is not supported; take its low 32 bits with u32(x)");
        return poison(e.loc);
      }
      bool v = args[0]->varying || is_float(to);
      ExprPtr c = convert(std::move(args[0]), to);
      if (c->kind != ExprKind::Convert) return c;  // folded literal or no-op
      c->loc = e.loc;  // an explicit conversion is located at its call
      c->varying = v;
      return c;
    }
    case BuiltinRule::ByteToF32:
    case BuiltinRule::HalfBits:
    case BuiltinRule::SignExtend8: {
      if (!need_int(0, "the argument")) return poison(e.loc);
      Scalar t = b.rule == BuiltinRule::SignExtend8 ? Scalar::S32 : Scalar::F32;
      bool v = args[0]->varying || t == Scalar::F32;
      return make_call(e, b, Type::value(t), v, std::move(args));
    }
    case BuiltinRule::Load16: {
      if (args[0]->type.kind != Type::Kind::Ptr) {
        error(args[0]->loc, "the first argument of load16() must be a pointer parameter");
        return poison(e.loc);
      }
      if (!need_int(1, "the byte offset")) return poison(e.loc);
      return make_call(e, b, Type::value(Scalar::U32), true, std::move(args));
    }
    case BuiltinRule::Atomic: {
      if (!args[0]->type.is_memory()) {
        error(args[0]->loc, "the first argument of " + bn + "() must be a pointer parameter or an LDS array");
        return poison(e.loc);
      }
      Scalar elem = args[0]->type.scalar;
      const bool half_add = elem == Scalar::F16 && b.id == BuiltinId::AtomicAdd && args[0]->type.kind == Type::Kind::Ptr;
      if (elem != Scalar::U32 && elem != Scalar::S32 && elem != Scalar::F32 && !half_add) {
        error(args[0]->loc, bn + "() works on 32-bit elements (u32, s32, f32), not " + type_name(args[0]->type) +
                                (elem == Scalar::F16 ? "; on f16 pointers there is atomic_add" : ""));
        return poison(e.loc);
      }
      if (elem == Scalar::F32 && b.id != BuiltinId::AtomicAdd && b.id != BuiltinId::AtomicXchg &&
          b.id != BuiltinId::AtomicCas) {
        error(e.loc, bn + "() on f32 is not supported; f32 atomics are atomic_add, atomic_xchg and atomic_cas");
        return poison(e.loc);
      }
      if (!need_int(1, "the index") || !need_numeric(2)) return poison(e.loc);
      for (size_t i = 2; i < args.size(); ++i) {
        if (is_float(args[i]->type.scalar) && !is_float(elem)) {
          error(args[i]->loc, "the value of " + bn + "() on " + type_name(args[0]->type) + " must be an integer; "
                                  "convert with " + scalar_name(elem) + "(x)");
          return poison(e.loc);
        }
        if (args[i]->type.is(Scalar::U64)) {
          error(args[i]->loc, "a u64 mask cannot be stored; take u32(x)");
          return poison(e.loc);
        }
        args[i] = convert(std::move(args[i]), elem);
      }
      return make_call(e, b, Type::value(elem), true, std::move(args));
    }
    case BuiltinRule::Shuffle:
    case BuiltinRule::Broadcast:
    case BuiltinRule::WaveReduce: {
      if (!need_numeric(0)) return poison(e.loc);
      Scalar t = args[0]->type.scalar;
      if (t != Scalar::U32 && t != Scalar::S32 && t != Scalar::F32) {
        error(args[0]->loc, bn + "() moves 32-bit values (u32, s32, f32), not " + scalar_name(t));
        return poison(e.loc);
      }
      if (b.rule != BuiltinRule::WaveReduce && !need_int(1, "the lane")) return poison(e.loc);
      if (b.rule == BuiltinRule::Broadcast && args[1]->varying) {
        error(args[1]->loc, "the lane of broadcast() must be the same for the whole wave (a uniform value); use "
                            "shuffle(x, lane) for a per-lane source");
        return poison(e.loc);
      }
      bool v = b.rule == BuiltinRule::Shuffle || is_float(t);
      return make_call(e, b, Type::value(t), v, std::move(args));
    }
    case BuiltinRule::Ballot: {
      if (!args[0]->type.is(Scalar::Bool)) {
        error(args[0]->loc, "ballot() takes a comparison (e.g. ballot(x > 0))");
        return poison(e.loc);
      }
      return make_call(e, b, Type::value(Scalar::U64), false, std::move(args));
    }
    case BuiltinRule::PackHalves: {
      if (!need_numeric(0)) return poison(e.loc);
      for (auto& a : args) {
        if (a->type.is(Scalar::U64)) {
          error(a->loc, bn + "() takes numbers, not u64 masks");
          return poison(e.loc);
        }
        a = convert(std::move(a), Scalar::F16);
      }
      return make_call(e, b, Type::value(Scalar::U32), true, std::move(args));
    }
    case BuiltinRule::Dot: {
      if (!need_int(0, "the first operand") || !need_int(1, "the second operand") || !need_numeric(2))
        return poison(e.loc);
      for (int i = 0; i < 2; ++i) args[i] = convert(std::move(args[i]), Scalar::U32);
      Scalar acc = b.id == BuiltinId::Dot2 ? Scalar::F32 : Scalar::S32;
      if (acc == Scalar::S32 && !is_int(args[2]->type.scalar)) {
        error(args[2]->loc, "the accumulator of " + bn + "() is s32; convert with s32(x)");
        return poison(e.loc);
      }
      if (args[2]->type.is(Scalar::BF16) || args[2]->type.is(Scalar::U64)) {
        error(args[2]->loc, "the accumulator of " + bn + "() is " + scalar_name(acc));
        return poison(e.loc);
      }
      args[2] = convert(std::move(args[2]), acc);
      bool v = any_varying(args) || acc == Scalar::F32;
      return make_call(e, b, Type::value(acc), v, std::move(args));
    }
    default: break;
  }
  error(e.loc, "unexpected built-in " + bn);
  return poison(e.loc);
}

ExprPtr Checker::inline_helper(const Expr& e, const Function& h) {
  for (size_t i = 0; i < inline_stack_.size(); ++i) {
    if (inline_stack_[i] != h.name) continue;
    std::string chain;
    for (size_t j = i; j < inline_stack_.size(); ++j) chain += inline_stack_[j] + " -> ";
    error(e.loc, "recursive call of helper '" + h.name + "' (" + chain + h.name +
                     "); helpers are inlined, so recursion is not supported: write a loop");
    return poison(e.loc);
  }
  if (++inlined_ > kMaxInlined) {
    error(e.loc, "more than " + std::to_string(kMaxInlined) + " helper calls are inlined into this kernel; call "
                 "helpers in a loop instead of unrolling them");
    return poison(e.loc);
  }
  if (in_while_condition_) {
    error(e.loc, "a helper call in a while condition is not supported; compute it into a variable before the "
                 "loop and again at the end of its body");
    return poison(e.loc);
  }
  auto eff = info_.helper_effects.find(h.name);
  if (eff != info_.helper_effects.end() && eff->second && effect_root_ != &e) {
    error(e.loc, "helper '" + h.name + "' stores to memory (or uses atomics or barrier()); call it as a "
                 "statement or as the whole right side of an assignment");
    return poison(e.loc);
  }
  if (e.args.size() != h.params.size()) {
    error(e.loc, "helper '" + h.name + "' takes " + std::to_string(h.params.size()) + " argument" +
                     (h.params.size() == 1 ? "" : "s") + ", got " + std::to_string(e.args.size()));
    return poison(e.loc);
  }
  // Arguments are evaluated in the caller, then bound: memory arguments by
  // name (an alias), values into fresh variables of the helper.
  Frame f;
  f.fn = &h;
  f.loop_base = loops_.size();
  f.returns = h.returns;
  std::vector<StmtPtr> binds;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Param& p = h.params[i];
    ExprPtr a = expr(*e.args[i]);
    if (poisoned(*a)) return poison(e.loc);
    if (a->type.is_memory()) {
      if (p.ann && p.ann->type != a->type) {
        error(a->loc, "argument '" + a->name + "' is " + type_name(a->type) + " but helper parameter '" + p.name +
                          "' is " + type_name(p.ann->type));
        return poison(e.loc);
      }
      f.names[p.name] = a->var;
      continue;
    }
    if (p.ann && p.ann->type.is_memory()) {
      error(a->loc, "helper parameter '" + p.name + "' is " + type_name(p.ann->type) + "; pass a pointer parameter");
      return poison(e.loc);
    }
    if (!numeric(*a, "a helper argument") && !a->type.is(Scalar::Bool)) return poison(e.loc);
    if (a->type.is(Scalar::Bool)) {
      error(a->loc, "a comparison cannot be passed to a helper; pass (1 if c else 0)");
      return poison(e.loc);
    }
    Scalar t = a->type.scalar;
    if (p.ann) {
      Scalar want = p.ann->type.scalar;
      if (is_float(t) && is_int(want)) {
        error(a->loc, "helper parameter '" + p.name + "' is " + scalar_name(want) + " but the argument is " +
                          scalar_name(t) + "; convert with " + scalar_name(want) + "(x)");
        return poison(e.loc);
      }
      a = convert(std::move(a), want);
      t = want;
    }
    bool v = a->varying;
    int var = new_var(p.name, Type::value(t), v || is_float(t), p.loc);
    k_.vars[var].helper = h.name;
    f.names[p.name] = var;
    auto as = std::make_unique<Stmt>();
    as->kind = StmtKind::Assign;
    as->loc = e.loc;
    as->target = std::make_unique<Expr>();
    as->target->kind = ExprKind::Name;
    as->target->loc = p.loc;
    as->target->name = p.name;
    as->target->var = var;
    as->target->type = k_.vars[var].type;
    as->target->varying = k_.vars[var].varying;
    as->value = std::move(a);
    binds.push_back(std::move(as));
  }
  bool returns_value = !h.body.empty() && h.body.back()->kind == StmtKind::Return && h.body.back()->value;
  if (returns_value) {
    f.result_var = new_var(h.name, Type::value(Scalar::Void), false, e.loc);
    k_.vars[f.result_var].helper = h.name;
  }
  auto block = std::make_unique<Stmt>();
  block->kind = StmtKind::Inlined;
  block->loc = e.loc;
  block->name = h.name;
  block->var = f.result_var;
  block->body = std::move(binds);

  const Expr* saved_root = effect_root_;
  std::vector<StmtPtr> saved_pending = std::move(pending_);
  pending_.clear();
  frames_.push_back(std::move(f));
  inline_stack_.push_back(h.name);
  size_t saved_block_depth = block_depth_;
  block_depth_ = 1;  // an LDS declaration in a helper is not at the kernel's top level
  statements(h.body, block->body);
  block_depth_ = saved_block_depth;
  inline_stack_.pop_back();
  int result = frames_.back().result_var;
  frames_.pop_back();
  pending_ = std::move(saved_pending);
  effect_root_ = saved_root;
  pending_.push_back(std::move(block));

  if (result < 0) {
    // Called for its effect: the caller accepts Void only as a statement.
    auto c = std::make_unique<Expr>();
    c->kind = ExprKind::Call;
    c->loc = e.loc;
    c->name = h.name;
    c->type = Type::value(Scalar::Void);
    return c;
  }
  auto n = std::make_unique<Expr>();
  n->kind = ExprKind::Name;
  n->loc = e.loc;
  n->name = h.name;
  n->var = result;
  n->type = k_.vars[result].type;
  n->varying = k_.vars[result].varying;
  if (n->type.is(Scalar::Void)) return poison(e.loc);  // its return had an error
  return n;
}

}  // namespace k100::dsl
