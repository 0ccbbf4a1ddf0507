// The module level of checking: constants, which functions are kernels and
// which are helpers (and whether helpers have effects), and the rounds of
// checking each kernel until its uniform/varying classification is stable.
#include <functional>

#include "checker.h"
#include "k100/dsl/parser.h"

namespace k100::dsl {

namespace {

void collect_calls(const Expr& e, std::vector<const Expr*>& calls) {
  if (e.kind == ExprKind::Call) calls.push_back(&e);
  for (const auto& a : e.args) collect_calls(*a, calls);
}

void collect_calls(const std::vector<StmtPtr>& body, std::vector<const Expr*>& calls, bool& stores) {
  for (const auto& s : body) {
    if (s->target) {
      collect_calls(*s->target, calls);
      if (s->target->kind == ExprKind::Subscript && s->kind == StmtKind::Assign) stores = true;
    }
    if (s->value) collect_calls(*s->value, calls);
    for (const auto& a : s->range_args) collect_calls(*a, calls);
    collect_calls(s->body, calls, stores);
    collect_calls(s->orelse, calls, stores);
  }
}

}  // namespace

std::vector<TypedKernel> check(const Module& module, const SourceText& src, DiagnosticSink& sink) {
  ModuleInfo info;
  info.module = &module;
  info.src = &src;
  for (const auto& c : module.constants) {
    if (info.constants.count(c.name)) {
      report_error(sink, src, c.loc, "constant '" + c.name + "' is defined twice (first at line " +
                                         std::to_string(info.constant_defs[c.name]->loc.line) + ")");
      continue;
    }
    if (find_builtin(c.name)) {
      report_error(sink, src, c.loc, "'" + c.name + "' is a built-in function; choose another constant name");
      continue;
    }
    std::map<std::string, ConstValue> none;
    auto v = eval_const(*c.value, none, info.constants, src, sink, "a top-level constant");
    if (!v) continue;
    if (!v->is_float && (v->i > 0xFFFFFFFFll || v->i < INT32_MIN)) {
      report_error(sink, src, c.value->loc, "constant '" + c.name + "' = " + std::to_string(v->i) +
                                                " does not fit in 32 bits (u32 or s32)");
      continue;
    }
    info.constants[c.name] = *v;
    info.constant_defs[c.name] = &c;
  }

  // Helpers: @inline, or called by some function. Their effects decide where
  // calls may stand.
  std::map<std::string, const Function*> by_name;
  std::map<std::string, std::vector<const Expr*>> calls;
  std::map<std::string, bool> stores;
  for (const auto& f : module.functions) {
    by_name[f.name] = &f;
    bool st = false;
    collect_calls(f.body, calls[f.name], st);
    stores[f.name] = st;
  }
  for (const auto& f : module.functions) {
    if (f.inline_decorator) info.helpers[f.name] = &f;
    for (const Expr* c : calls[f.name])
      if (by_name.count(c->name) && !find_builtin(c->name)) info.helpers[c->name] = by_name[c->name];
  }
  std::function<bool(const std::string&, std::set<std::string>&)> effects = [&](const std::string& n,
                                                                                std::set<std::string>& seen) {
    if (!seen.insert(n).second) return false;
    if (stores[n]) return true;
    for (const Expr* c : calls[n]) {
      const Builtin* b = find_builtin(c->name);
      if (b && (b->use == BuiltinUse::Effect || b->use == BuiltinUse::Statement)) return true;
      if (!b && info.helpers.count(c->name) && effects(c->name, seen)) return true;
    }
    return false;
  };
  for (const auto& [n, f] : info.helpers) {
    std::set<std::string> seen;
    info.helper_effects[n] = effects(n, seen);
  }

  std::vector<TypedKernel> out;
  bool any_kernel = false;
  for (const auto& f : module.functions) {
    if (info.helpers.count(f.name)) continue;
    any_kernel = true;
    // The uniform/varying classification is whole-kernel (a variable that
    // is ever assigned a per-lane value is per-lane), and a loop becomes
    // varying when a lane can leave it alone; both are found by checking
    // again with what the previous round learnt until nothing changes.
    std::vector<bool> var_hints, loop_hints;
    for (int round = 0;; ++round) {
      DiagnosticSink scratch;
      Checker c(info, scratch, var_hints, loop_hints);
      TypedKernel k = c.kernel(f);
      bool stable = c.var_hints() == var_hints && c.loop_hints() == loop_hints;
      if (stable || round == 16) {
        for (const auto& d : scratch.diagnostics()) sink.report(d);
        if (!scratch.has_errors()) out.push_back(std::move(k));
        break;
      }
      var_hints = c.var_hints();
      loop_hints = c.loop_hints();
    }
    if (sink.limit_reached()) break;
  }
  if (!any_kernel && !module.functions.empty())
    report_error(sink, src, module.functions.front().loc,
                 "no kernel in this file: every function is a helper (decorated @inline or called by another "
                 "function); a kernel is a top-level def that nothing calls");
  return out;
}

std::vector<TypedKernel> check_source(const SourceText& src, DiagnosticSink& sink) {
  Module m = parse_source(src, sink);
  if (sink.has_errors()) return {};
  return check(m, src, sink);
}

}  // namespace k100::dsl
