// Checking and typing of statements: variables, assignments and stores,
// control flow, the uniform/varying classification and the region rule
// (typing.h). Expressions: typing_expr.cpp; calls: typing_calls.cpp; the
// module level: module_check.cpp.
#include "k100/dsl/typing.h"

#include "checker.h"

namespace k100::dsl {

void Checker::error(const SourceLoc& loc, std::string message) {
  // Unrolled loops and inlined helpers check the same text several times:
  // report each problem once.
  for (const auto& d : sink_.diagnostics())
    if (d.loc.line == loc.line && d.loc.col == loc.col && d.message == message) return;
  report_error(sink_, *info_.src, loc, std::move(message));
}

std::vector<std::string> Checker::visible_names() const {
  std::vector<std::string> out;
  for (const auto& [n, v] : frames_.back().names) out.push_back(n);
  for (const auto& [n, v] : frames_.back().consts) out.push_back(n);
  for (const auto& [n, v] : info_.constants) out.push_back(n);
  for (const auto& b : builtins()) out.emplace_back(b.name);
  return out;
}

int Checker::new_var(const std::string& name, Type type, bool varying, const SourceLoc& loc) {
  int idx = static_cast<int>(k_.vars.size());
  if (var_hints_.size() <= static_cast<size_t>(idx)) var_hints_.resize(idx + 1, false);
  varying = varying || var_hints_[idx];
  var_hints_[idx] = varying;
  Variable v;
  v.name = name;
  v.type = type;
  v.varying = varying;
  v.loc = loc;
  k_.vars.push_back(std::move(v));
  var_region_.push_back(regions_.back());
  return idx;
}

void Checker::make_varying(int var) {
  k_.vars[var].varying = true;
  var_hints_[var] = true;
}

void Checker::open_region(const SourceLoc& loc) {
  regions_.push_back(next_region_++);
  region_locs_.push_back(loc);
}

void Checker::close_region() { regions_.pop_back(); }

void Checker::check_region(int var, const SourceLoc& loc) {
  const Variable& v = k_.vars[var];
  if (v.varying || var_region_[var] == regions_.back()) return;
  std::string where = regions_.back() != 0
                          ? "inside the varying control flow at line " +
                                std::to_string(region_locs_[regions_.back()].line) + ", where"
                          : "outside the varying control flow at line " +
                                std::to_string(region_locs_[var_region_[var]].line) + " that created it, where";
  error(loc, "uniform variable '" + v.name + "' (created at line " + std::to_string(v.loc.line) +
                 ") cannot be assigned here, " + where +
                 " a scalar update would apply to the whole wave; use an f32 variable for a per-lane counter or "
                 "accumulator (" + v.name + " = 0.0), or create and update it in the same region");
}

void Checker::mark_varying_exit(bool to_frame_base) {
  size_t base = frame().loop_base;
  if (loops_.size() <= base) return;
  size_t first = to_frame_base ? base : loops_.size() - 1;
  for (size_t i = first; i < loops_.size(); ++i)
    if (varying_depth_ > loops_[i].entry_depth && !loops_[i].unrolled) loop_hints_[loops_[i].ordinal] = true;
}

void Checker::flush(std::vector<StmtPtr>& out) {
  for (auto& s : pending_) out.push_back(std::move(s));
  pending_.clear();
}

ExprPtr Checker::condition(const Expr& e, bool allow_literal) {
  ExprPtr c = expr(e);
  if (poisoned(*c) || c->type.is(Scalar::Bool)) return c;
  if (allow_literal && c->kind == ExprKind::Int && c->int_value != 0) return c;
  if (allow_literal && c->kind == ExprKind::Int) {
    error(e.loc, "'while 0' never runs; remove the loop");
    return poison(e.loc);
  }
  error(e.loc, std::string("a condition must be a comparison (or and/or/not of comparisons)") +
                   (is_integer_value(*c) ? "; for an integer write x != 0" : "") +
                   (allow_literal ? "; 'while 1:' loops until 'break'" : ""));
  return poison(e.loc);
}

namespace {

StmtPtr new_stmt(StmtKind k, const SourceLoc& loc) {
  auto s = std::make_unique<Stmt>();
  s->kind = k;
  s->loc = loc;
  return s;
}

ExprPtr name_ref(const TypedKernel& k, int var, const SourceLoc& loc) {
  auto n = std::make_unique<Expr>();
  n->kind = ExprKind::Name;
  n->loc = loc;
  n->name = k.vars[var].name;
  n->var = var;
  n->type = k.vars[var].type;
  n->varying = k.vars[var].varying;
  return n;
}

}  // namespace

void Checker::assign_name(const Stmt& s, const Expr& target, ExprPtr value, std::optional<TypeAnn> ann,
                          std::vector<StmtPtr>& out) {
  flush(out);
  const std::string& n = target.name;
  if (find_builtin(n)) return error(target.loc, "'" + n + "' is a built-in function; choose another variable name");
  if (info_.helpers.count(n)) return error(target.loc, "'" + n + "' is a helper function; choose another variable name");
  if (info_.constants.count(n) || frame().consts.count(n)) {
    int line = info_.constant_defs.count(n) ? static_cast<int>(info_.constant_defs.at(n)->loc.line) : 0;
    return error(target.loc, "'" + n + "' is a constant" + (line ? " (line " + std::to_string(line) + ")" : "") +
                                 "; choose another variable name");
  }
  auto found = frame().names.find(n);
  int idx = found == frame().names.end() ? -1 : found->second;
  if (idx >= 0) {
    const Variable& v = k_.vars[idx];
    if (v.param)
      return error(target.loc, "parameter '" + n + "' cannot be assigned; copy it into a local variable (m = " + n +
                                   ") and change that");
    if (v.type.kind == Type::Kind::Lds)
      return error(target.loc, "'" + n + "' is an LDS array; store an element: " + n + "[i] = v");
    if (v.type.kind == Type::Kind::Ptr)
      return error(target.loc, "'" + n + "' is a pointer; store an element: " + n + "[i] = v");
    if (counters_.count(idx))
      return error(target.loc, "the loop counter '" + n + "' cannot be assigned inside its loop; use another variable");
    if (v.type.is(Scalar::Void)) return;  // its creation failed and was reported
  }
  if (poisoned(*value)) {
    if (idx < 0) frame().names[n] = new_var(n, Type::value(Scalar::Void), false, target.loc);
    return;
  }
  if (value->type.is_memory())
    return error(value->loc, "local pointers are not supported; index the parameter directly (" + value->name + "[i])");
  if (value->type.is(Scalar::Bool))
    return error(value->loc, "a comparison result cannot be stored in a variable; use it directly in if/while, or "
                             "write (1 if c else 0)");
  if (value->type.is(Scalar::Void))
    return error(value->loc, "this call has no value to assign");

  Scalar from = value->type.scalar;
  Scalar to = from;
  if (ann) {
    to = ann->type.scalar;
    if (idx >= 0 && !k_.vars[idx].type.is(to))
      return error(ann->loc, "'" + n + "' is already " + type_name(k_.vars[idx].type) + " (line " +
                                 std::to_string(k_.vars[idx].loc.line) + "); an annotation cannot change its type");
    if (is_float(from) && is_int(to))
      return error(value->loc, "cannot initialise " + std::string(scalar_name(to)) + " '" + n + "' with " +
                                   describe_value(*value) + "; convert with " + scalar_name(to) + "(v)");
    if (from == Scalar::U64 && to != Scalar::U64)
      return error(value->loc, "a u64 mask cannot initialise a " + std::string(scalar_name(to)) + "; take u32(v)");
  } else if (idx >= 0) {
    const Variable& v = k_.vars[idx];
    to = v.type.scalar;
    std::string is = "'" + n + "' is " + scalar_name(to) + " (created at line " + std::to_string(v.loc.line) + ")";
    bool literal = value->kind == ExprKind::Int;
    if (from == to) {
    } else if (is_float(to) && is_int(from) && from != Scalar::U64) {
    } else if (to == Scalar::F32 && is_float(from)) {
    } else if (is_float(to) && is_float(from)) {
      return error(value->loc, is + " and the value is " + scalar_name(from) + "; convert explicitly with " +
                                   scalar_name(to) + "(v)");
    } else if (is_int(to) && is_float(from)) {
      return error(value->loc, is + " and the value is " + scalar_name(from) + "; convert with " + scalar_name(to) +
                                   "(v), or create it as a float (" + n + " = 0.0)");
    } else if (to == Scalar::U64 && from == Scalar::U32) {
    } else if (from == Scalar::U64) {
      return error(value->loc, is + " and the value is a u64 mask; take u32(v)");
    } else if (!literal) {
      return error(value->loc, is + " and the value is " + scalar_name(from) + "; write " + scalar_name(to) +
                                   "(v) to reinterpret it");
    }
  }
  value = convert(std::move(value), to);
  if (idx < 0) {
    idx = new_var(n, Type::value(to), value->varying || is_float(to), target.loc);
    frame().names[n] = idx;
  } else if (value->varying && !k_.vars[idx].varying) {
    make_varying(idx);  // a per-lane value turns the variable per-lane from here on (never back)
  } else {
    check_region(idx, s.loc);
  }
  auto st = new_stmt(StmtKind::Assign, s.loc);
  st->target = name_ref(k_, idx, target.loc);
  st->value = std::move(value);
  out.push_back(std::move(st));
}

void Checker::store(const Stmt& s, const Expr& target, ExprPtr value, std::vector<StmtPtr>& out) {
  ExprPtr t = subscript(target);
  flush(out);
  if (poisoned(*t) || poisoned(*value)) return;
  if (!numeric(*value, "a store")) return;
  Scalar elem = t->args[0]->type.scalar;
  Scalar from = value->type.scalar;
  std::string into = "'" + t->args[0]->name + "' (" + type_name(t->args[0]->type) + ")";
  if (from == Scalar::U64) return error(value->loc, "a u64 mask cannot be stored into " + into + "; take u32(v)");
  if (is_int(elem) && is_float(from))
    return error(value->loc, "storing " + describe_value(*value) + " into " + into +
                                 " needs an explicit conversion: " + scalar_name(elem == Scalar::S32 || is_signed(elem) ? Scalar::S32 : Scalar::U32) + "(v)");
  if (is_float(elem)) {
    value = convert(std::move(value), elem);
  } else if (elem == Scalar::U32 || elem == Scalar::S32) {
    value = convert(std::move(value), elem);  // same width: a reinterpretation
  }
  auto st = new_stmt(StmtKind::Assign, s.loc);
  st->target = std::move(t);
  st->value = std::move(value);
  out.push_back(std::move(st));
}

void Checker::lds_declaration(const Stmt& s, const Expr& call) {
  const Expr& target = *s.target;
  if (block_depth_ != 0 || frames_.size() > 1)
    return error(call.loc, "declare LDS arrays at the top level of the kernel body (NAME = lds(n)), not inside a "
                           "block, a loop or a helper");
  if (call.args.empty() || call.args.size() > 2)
    return error(call.loc, "lds takes 1 or 2 arguments (NAME = lds(n) or lds(n, u32|s32|f32)), got " +
                               std::to_string(call.args.size()));
  auto n = eval_const(*call.args[0], frame().consts, info_.constants, *info_.src, sink_, "the size of lds()");
  if (!n) return;
  if (n->is_float || n->i <= 0)
    return error(call.args[0]->loc, "the size of lds() must be a positive number of elements, got " +
                                        (n->is_float ? std::to_string(n->f) : std::to_string(n->i)));
  Scalar elem = Scalar::F32;
  if (call.args.size() == 2) {
    const Expr& a = *call.args[1];
    if (a.kind == ExprKind::Name && (a.name == "f32" || a.name == "u32" || a.name == "s32"))
      elem = a.name == "f32" ? Scalar::F32 : a.name == "u32" ? Scalar::U32 : Scalar::S32;
    else
      return error(a.loc, "the element type of lds() is f32, u32 or s32");
  }
  if (frame().names.count(target.name))
    return error(target.loc, "'" + target.name + "' is already defined (line " +
                                 std::to_string(k_.vars[frame().names[target.name]].loc.line) +
                                 "); each LDS array needs a new name");
  if (find_builtin(target.name) || info_.constants.count(target.name) || info_.helpers.count(target.name))
    return error(target.loc, "'" + target.name + "' is already a built-in, constant or helper; choose another name");
  uint64_t offset = (k_.lds_bytes + 15u) & ~15u;
  uint64_t end = offset + static_cast<uint64_t>(n->i) * 4;
  if (end > 65536)
    return error(call.loc, "LDS array '" + target.name + "' (" + std::to_string(n->i) + " elements, " +
                               std::to_string(n->i * 4) + " bytes at offset " + std::to_string(offset) +
                               ") does not fit: the kernel would use " + std::to_string(end) +
                               " bytes of LDS, more than the 65536 a workgroup has");
  int idx = new_var(target.name, Type::lds(elem), false, target.loc);
  k_.vars[idx].lds_offset = static_cast<uint32_t>(offset);
  k_.vars[idx].lds_count = static_cast<uint32_t>(n->i);
  k_.lds_bytes = static_cast<uint32_t>(end);
  frame().names[target.name] = idx;
}

void Checker::if_stmt(const Stmt& s, std::vector<StmtPtr>& out) {
  ExprPtr c = condition(*s.value, false);
  flush(out);
  auto st = new_stmt(StmtKind::If, s.loc);
  st->varying = c->varying;
  st->value = std::move(c);
  bool v = st->varying;
  if (v) ++varying_depth_;
  ++block_depth_;
  if (v) open_region(s.loc);
  statements(s.body, st->body);
  if (v) close_region();
  if (v) open_region(s.loc);
  statements(s.orelse, st->orelse);
  if (v) close_region();
  --block_depth_;
  if (v) --varying_depth_;
  out.push_back(std::move(st));
}

// The body of a while or for loop; a varying loop is a region of its own.
void Checker::loop_body(const Stmt& s, size_t ordinal, bool varying, Stmt& typed) {
  loops_.push_back(Loop{ordinal, varying_depth_, false, &typed});
  if (varying) ++varying_depth_, open_region(s.loc);
  ++block_depth_;
  statements(s.body, typed.body);
  --block_depth_;
  if (varying) --varying_depth_, close_region();
  loops_.pop_back();
  typed.varying = varying || loop_hints_[ordinal];
}

void Checker::while_stmt(const Stmt& s, std::vector<StmtPtr>& out) {
  in_while_condition_ = true;
  ExprPtr c = condition(*s.value, true);
  in_while_condition_ = false;
  flush(out);
  size_t ord = loop_count_++;
  if (loop_hints_.size() <= ord) loop_hints_.resize(ord + 1, false);
  auto st = new_stmt(StmtKind::While, s.loc);
  bool v = c->varying || loop_hints_[ord];
  st->value = std::move(c);
  loop_body(s, ord, v, *st);
  out.push_back(std::move(st));
}

void Checker::for_stmt(const Stmt& s, std::vector<StmtPtr>& out) {
  std::vector<ExprPtr> args;
  for (const auto& a : s.range_args) {
    if (args.size() == 2) break;  // the step is a constant, evaluated below
    args.push_back(expr(*a));
  }
  int64_t step = 1;
  if (s.range_args.size() == 3) {
    auto v = eval_const(*s.range_args[2], frame().consts, info_.constants, *info_.src, sink_, "the step of range()");
    if (!v) return;
    if (v->is_float || v->i == 0)
      return error(s.range_args[2]->loc, "the step of range() must be a non-zero integer constant; for a variable "
                                         "step write a while loop");
    if (v->i > INT32_MAX || v->i < INT32_MIN) return error(s.range_args[2]->loc, "the step of range() must fit in 32 bits");
    step = v->i;
  }
  for (const auto& a : args) {
    if (poisoned(*a)) return;
    if (!numeric(*a, "range()")) return;
    if (!a->type.is(Scalar::U32) && !a->type.is(Scalar::S32))
      return error(a->loc, "range bounds must be u32 or s32, not " + type_name(a->type) +
                               (is_float(a->type.scalar) ? "; convert with u32(x)" : ""));
  }
  ExprPtr start = args.size() == 1 ? literal_int(s.loc, 0, Scalar::U32) : std::move(args[0]);
  ExprPtr stop = args.size() == 1 ? std::move(args[0]) : std::move(args[1]);
  Scalar t = (start->type.is(Scalar::S32) || stop->type.is(Scalar::S32) || step < 0) ? Scalar::S32 : Scalar::U32;
  start = convert(std::move(start), t);
  stop = convert(std::move(stop), t);
  flush(out);
  size_t ord = loop_count_++;
  if (loop_hints_.size() <= ord) loop_hints_.resize(ord + 1, false);
  bool v = start->varying || stop->varying || loop_hints_[ord];

  int idx = -1;
  auto found = frame().names.find(s.name);
  if (find_builtin(s.name) || info_.constants.count(s.name) || frame().consts.count(s.name) ||
      info_.helpers.count(s.name))
    return error(s.loc, "the loop counter '" + s.name + "' has the name of a built-in, constant or helper; choose "
                        "another name");
  if (found != frame().names.end()) {
    idx = found->second;
    const Variable& var = k_.vars[idx];
    if (counters_.count(idx))
      return error(s.loc, "'" + s.name + "' is already the counter of an enclosing loop; use another name");
    if (var.param || var.type.is_memory() || !var.type.is(t))
      return error(s.loc, "the loop counter '" + s.name + "' would be " + scalar_name(t) + " but '" + s.name +
                              "' is already " + (var.param ? "a parameter" : type_name(var.type)) + " (line " +
                              std::to_string(var.loc.line) + "); use another name");
    if (v && !var.varying) make_varying(idx);
    else check_region(idx, s.loc);
  } else {
    idx = new_var(s.name, Type::value(t), v, s.loc);
    frame().names[s.name] = idx;
  }
  if (v && !k_.vars[idx].varying) make_varying(idx);

  auto st = new_stmt(StmtKind::For, s.loc);
  st->name = s.name;
  st->var = idx;
  st->step = step;
  st->range_args.push_back(std::move(start));
  st->range_args.push_back(std::move(stop));
  counters_.insert(idx);
  loop_body(s, ord, v, *st);
  counters_.erase(idx);
  out.push_back(std::move(st));
}

void Checker::static_for(const Stmt& s, std::vector<StmtPtr>& out) {
  std::vector<int64_t> bounds;
  for (const auto& a : s.range_args) {
    auto v = eval_const(*a, frame().consts, info_.constants, *info_.src, sink_,
                        "a bound of static_range() (use range() for run-time bounds)");
    if (!v) return;
    if (v->is_float) return error(a->loc, "static_range() bounds are integers");
    bounds.push_back(v->i);
  }
  int64_t start = bounds.size() == 1 ? 0 : bounds[0];
  int64_t stop = bounds.size() == 1 ? bounds[0] : bounds[1];
  int64_t step = bounds.size() == 3 ? bounds[2] : 1;
  if (step == 0) return error(s.range_args[2]->loc, "the step of static_range() must not be 0");
  if (frame().names.count(s.name) || info_.constants.count(s.name) || frame().consts.count(s.name))
    return error(s.loc, "the static_range counter '" + s.name + "' would hide an existing name; choose another");
  int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                           : (start > stop ? (start - stop - step - 1) / -step : 0);
  int64_t last = start + (count > 0 ? count - 1 : 0) * step;
  for (int64_t v : {start, last})
    if (v < INT32_MIN || v > static_cast<int64_t>(UINT32_MAX))
      return error(s.loc, "the static_range counter '" + s.name + "' would reach " + std::to_string(v) +
                              ", outside 32 bits");
  if (count > 4096)
    return error(s.loc, "static_range() unrolls " + std::to_string(count) +
                            " iterations, more than 4096; use range(...) for a run-time loop");
  unrolled_ += static_cast<size_t>(count);
  if (unrolled_ > kMaxUnrolled)
    return error(s.loc, "static_range() loops of this kernel unroll more than " + std::to_string(kMaxUnrolled) +
                            " iterations in all; use range(...) for run-time loops");
  loops_.push_back(Loop{0, varying_depth_, true, nullptr});
  ++block_depth_;
  for (int64_t i = 0; i < count; ++i) {
    frame().consts[s.name] = ConstValue{false, start + i * step, 0};
    statements(s.body, out);
  }
  --block_depth_;
  frame().consts.erase(s.name);
  loops_.pop_back();
}

void Checker::jump(const Stmt& s, std::vector<StmtPtr>& out) {
  const char* what = s.kind == StmtKind::Break ? "break" : "continue";
  if (loops_.size() <= frame().loop_base)
    return error(s.loc, std::string("'") + what + "' outside a loop" +
                            (frame().fn ? " (a helper cannot leave its caller's loop; return instead)" : ""));
  if (loops_.back().unrolled)
    return error(s.loc, std::string("'") + what + "' inside static_range is not supported: the loop is unrolled at "
                        "compile time; use range(...) for a loop that can be left");
  mark_varying_exit(false);
  out.push_back(new_stmt(s.kind, s.loc));
}

void Checker::return_stmt(const Stmt& s, std::vector<StmtPtr>& out) {
  // A copy: typing the value may inline helpers, which grows frames_.
  const Frame f = frame();
  if (!f.fn) {
    if (s.value)
      return error(s.value->loc, "a kernel returns nothing; results are stored through pointer parameters: write "
                                 "'return' alone");
    mark_varying_exit(true);
    out.push_back(new_stmt(StmtKind::Return, s.loc));
    return;
  }
  if (f.result_var < 0) {
    if (s.value)
      return error(s.value->loc, "helper '" + f.fn->name + "' returns a value here but does not end with "
                                 "'return <value>'; end it with one so every path returns a value");
  } else {
    if (!s.value)
      return error(s.loc, "helper '" + f.fn->name + "' returns a value on its last line, so every return needs one");
    ExprPtr v = expr(*s.value);
    flush(out);
    if (poisoned(*v)) return;
    if (!numeric(*v, "a return value")) return;
    int r = f.result_var;
    Variable& var = k_.vars[r];
    Scalar want = f.returns ? f.returns->type.scalar : var.type.is(Scalar::Void) ? v->type.scalar : var.type.scalar;
    Scalar from = v->type.scalar;
    if ((is_float(from) && is_int(want)) || (from == Scalar::U64) != (want == Scalar::U64))
      return error(v->loc, "helper '" + f.fn->name + "' returns " + scalar_name(want) + " but this value is " +
                               scalar_name(from) + "; convert with " + scalar_name(want) + "(v)");
    if (is_float(from) && is_float(want) && from != want && want != Scalar::F32)
      return error(v->loc, "helper '" + f.fn->name + "' returns " + scalar_name(want) + "; convert explicitly with " +
                               scalar_name(want) + "(v)");
    if (var.type.is(Scalar::Void)) var.type = Type::value(want);
    v = convert(std::move(v), want);
    if (!var.varying && (v->varying || is_float(want) || var_region_[r] != regions_.back())) make_varying(r);
    auto as = new_stmt(StmtKind::Assign, s.loc);
    as->target = name_ref(k_, r, s.loc);
    as->value = std::move(v);
    out.push_back(std::move(as));
  }
  mark_varying_exit(true);
  out.push_back(new_stmt(StmtKind::Return, s.loc));
}

void Checker::statements(const std::vector<StmtPtr>& in, std::vector<StmtPtr>& out) {
  for (const auto& s : in) {
    if (sink_.limit_reached()) return;
    statement(*s, out);
  }
}

void Checker::statement(const Stmt& s, std::vector<StmtPtr>& out) {
  pending_.clear();
  switch (s.kind) {
    case StmtKind::Pass: return;
    case StmtKind::Assign:
    case StmtKind::AnnAssign: {
      const Expr& target = *s.target;
      if (target.kind == ExprKind::Name && s.value->kind == ExprKind::Call && s.value->name == "lds" &&
          s.kind == StmtKind::Assign)
        return lds_declaration(s, *s.value);
      effect_root_ = s.value.get();
      ExprPtr v = expr(*s.value);
      effect_root_ = nullptr;
      if (target.kind == ExprKind::Name) return assign_name(s, target, std::move(v), s.ann, out);
      return store(s, target, std::move(v), out);
    }
    case StmtKind::AugAssign: {
      ExprPtr lhs = name(*s.target);
      effect_root_ = s.value.get();
      ExprPtr rhs = expr(*s.value);
      effect_root_ = nullptr;
      if (poisoned(*lhs) || poisoned(*rhs)) return flush(out);
      if (lhs->type.is_memory())
        return error(s.target->loc, "'" + s.target->name + "' is " + type_name(lhs->type) +
                                        "; update an element: " + s.target->name + "[i] = " + s.target->name +
                                        "[i] " + op_spelling(s.op) + " v");
      ExprPtr r = binary(s.op, s.loc, std::move(lhs), std::move(rhs));
      return assign_name(s, *s.target, std::move(r), std::nullopt, out);
    }
    case StmtKind::If: return if_stmt(s, out);
    case StmtKind::While: return while_stmt(s, out);
    case StmtKind::For: return s.static_range ? static_for(s, out) : for_stmt(s, out);
    case StmtKind::Break:
    case StmtKind::Continue: return jump(s, out);
    case StmtKind::Return: return return_stmt(s, out);
    case StmtKind::ExprStmt: {
      if (s.value->kind != ExprKind::Call)
        return error(s.value->loc, "this expression has no effect; assign it to a variable or store it (p[i] = v)");
      effect_root_ = s.value.get();
      ExprPtr c = expr(*s.value);
      effect_root_ = nullptr;
      flush(out);
      if (poisoned(*c) || !c->builtin) return;  // an error, or an inlined helper (already emitted)
      if (c->builtin->use == BuiltinUse::Value)
        return error(s.value->loc, "the result of " + s.value->name + "(...) is unused; assign it to a variable");
      auto st = new_stmt(StmtKind::ExprStmt, s.loc);
      st->value = std::move(c);
      out.push_back(std::move(st));
      return;
    }
    case StmtKind::Inlined: break;
  }
  error(s.loc, "unexpected statement");
}

TypedKernel Checker::kernel(const Function& f) {
  k_ = TypedKernel{};
  k_.name = f.name;
  k_.loc = f.loc;
  frames_.assign(1, Frame{});
  regions_.assign(1, 0);
  region_locs_.assign(1, f.loc);
  for (const auto& p : f.params) {
    Type t = Type::value(Scalar::Void);
    if (!p.ann)
      error(p.loc, "parameter '" + p.name + "' of kernel '" + f.name + "' needs a type: " + p.name + ": u32, " +
                       p.name + ": s32, " + p.name + ": f32 or " + p.name + ": ptr[f32] (ptr[u8], ...)");
    else
      t = p.ann->type;
    int idx = new_var(p.name, t, t.is(Scalar::F32), p.loc);
    k_.vars[idx].param = true;
    frame().names[p.name] = idx;
  }
  k_.param_count = f.params.size();
  if (f.returns)
    error(f.returns->loc, "a kernel returns nothing; remove '-> " + type_name(f.returns->type) +
                              "' (results are stored through pointer parameters)");
  statements(f.body, k_.body);
  return std::move(k_);
}

std::string TypedKernel::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < param_count; ++i) {
    if (i) s += ", ";
    s += vars[i].name + ": " + type_name(vars[i].type);
  }
  return s + ")";
}

}  // namespace k100::dsl
