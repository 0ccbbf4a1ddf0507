// The checker's state, shared by typing.cpp (kernels, statements, regions),
// typing_expr.cpp (expressions, promotion) and typing_calls.cpp (built-in
// calls and helper inlining). Private to the dsl module.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "k100/dsl/builtins.h"
#include "k100/dsl/typing.h"

namespace k100::dsl {

// A compile-time value: top-level constants, static_range counters, LDS sizes.
struct ConstValue {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
};

// What the whole module knows before any kernel is checked.
struct ModuleInfo {
  const Module* module = nullptr;
  const SourceText* src = nullptr;
  std::map<std::string, ConstValue> constants;
  std::map<std::string, const Constant*> constant_defs;
  std::map<std::string, const Function*> helpers;
  std::map<std::string, bool> helper_effects;  // stores, atomics or barriers (transitively)
};

// Evaluates a constant expression (literals, constants, + - * / // % << >>
// & | ^ and unary - ~); reports and returns nullopt when it is not one.
std::optional<ConstValue> eval_const(const Expr& e, const std::map<std::string, ConstValue>& names,
                                     const std::map<std::string, ConstValue>& module_constants,
                                     const SourceText& src, DiagnosticSink& sink, std::string_view what);

class Checker {
 public:
  Checker(const ModuleInfo& info, DiagnosticSink& sink, std::vector<bool> var_hints, std::vector<bool> loop_hints)
      : info_(info), sink_(sink), var_hints_(std::move(var_hints)), loop_hints_(std::move(loop_hints)) {}

  TypedKernel kernel(const Function& f);
  const std::vector<bool>& var_hints() const { return var_hints_; }
  const std::vector<bool>& loop_hints() const { return loop_hints_; }

  // ---- shared by the typing_*.cpp files ----
  struct Frame {
    std::map<std::string, int> names;           // variable name → index into vars
    std::map<std::string, ConstValue> consts;   // static_range counters
    const Function* fn = nullptr;               // the helper (nullptr: the kernel)
    int result_var = -1;                        // helper result
    size_t loop_base = 0;                       // loops_ below this belong to callers
    std::optional<TypeAnn> returns;
  };
  struct Loop {
    size_t ordinal = 0;       // index into loop hints
    size_t entry_depth = 0;   // varying_depth_ when the loop started
    bool unrolled = false;    // static_range
    Stmt* stmt = nullptr;
  };

  void error(const SourceLoc& loc, std::string message);
  Frame& frame() { return frames_.back(); }

  // Expressions (typing_expr.cpp).
  ExprPtr expr(const Expr& e);
  ExprPtr name(const Expr& e);
  ExprPtr literal_int(const SourceLoc& loc, uint64_t bits, Scalar type);
  ExprPtr literal_float(const SourceLoc& loc, double v, Scalar type);
  ExprPtr unary(Op op, const SourceLoc& loc, ExprPtr a);
  ExprPtr binary(Op op, const SourceLoc& loc, ExprPtr a, ExprPtr b);
  ExprPtr compare(Op op, const SourceLoc& loc, ExprPtr a, ExprPtr b);
  ExprPtr subscript(const Expr& e);
  ExprPtr if_exp(const Expr& e);
  ExprPtr poison(const SourceLoc& loc);
  static bool poisoned(const Expr& e) { return e.type.is(Scalar::Void) && e.kind != ExprKind::Call; }
  // Converts a numeric value to `to` (literals folded; Convert node otherwise).
  ExprPtr convert(ExprPtr e, Scalar to);
  // The common type of two numeric operands for arithmetic/comparison, or
  // nullopt after reporting why there is none.
  std::optional<Scalar> common_type(const Expr& a, const Expr& b, const SourceLoc& loc, std::string_view what);
  // A value usable as a number (reports pointers, bools, void).
  bool numeric(const Expr& e, std::string_view what);
  bool is_integer_value(const Expr& e) const { return e.type.is_value() && is_int(e.type.scalar); }
  std::string describe_value(const Expr& e) const;

  // Calls (typing_calls.cpp).
  ExprPtr call(const Expr& e);
  ExprPtr builtin_call(const Expr& e, const Builtin& b);
  ExprPtr inline_helper(const Expr& e, const Function& h);
  std::optional<int> dimension_arg(const Expr& e, const Builtin& b);

  // Statements (typing.cpp).
  void statements(const std::vector<StmtPtr>& in, std::vector<StmtPtr>& out);
  void statement(const Stmt& s, std::vector<StmtPtr>& out);
  void assign_name(const Stmt& s, const Expr& target, ExprPtr value, std::optional<TypeAnn> ann,
                   std::vector<StmtPtr>& out);
  void store(const Stmt& s, const Expr& target, ExprPtr value, std::vector<StmtPtr>& out);
  void lds_declaration(const Stmt& s, const Expr& call);
  void if_stmt(const Stmt& s, std::vector<StmtPtr>& out);
  void while_stmt(const Stmt& s, std::vector<StmtPtr>& out);
  void for_stmt(const Stmt& s, std::vector<StmtPtr>& out);
  void loop_body(const Stmt& s, size_t ordinal, bool varying, Stmt& typed);
  void static_for(const Stmt& s, std::vector<StmtPtr>& out);
  void jump(const Stmt& s, std::vector<StmtPtr>& out);
  void return_stmt(const Stmt& s, std::vector<StmtPtr>& out);
  ExprPtr condition(const Expr& e, bool allow_literal);
  int new_var(const std::string& name, Type type, bool varying, const SourceLoc& loc);
  void make_varying(int var);
  void check_region(int var, const SourceLoc& loc);
  void open_region(const SourceLoc& loc);
  void close_region();
  void mark_varying_exit(bool to_frame_base);
  void flush(std::vector<StmtPtr>& out);
  std::vector<std::string> visible_names() const;

  const ModuleInfo& info_;
  DiagnosticSink& sink_;
  std::vector<bool> var_hints_, loop_hints_;
  TypedKernel k_;
  std::vector<uint32_t> var_region_;   // region each variable was created in
  std::vector<Frame> frames_;
  std::vector<Loop> loops_;
  std::vector<std::string> inline_stack_;
  std::vector<uint32_t> regions_;      // open regions, innermost last
  std::vector<SourceLoc> region_locs_;
  uint32_t next_region_ = 1;
  size_t varying_depth_ = 0;           // varying ifs and loops around the current statement
  size_t block_depth_ = 0;             // statements nested in if/loop bodies (0: kernel top)
  size_t loop_count_ = 0;
  std::set<int> counters_;             // for counters of the loops around
  std::vector<StmtPtr> pending_;       // inlined helper bodies to emit before the current statement
  const Expr* effect_root_ = nullptr;  // the call that may have effects (statement / assignment value)
  bool in_while_condition_ = false;
  // Budgets that keep a hostile file from unrolling or inlining without end.
  size_t unrolled_ = 0;               // static_range iterations checked so far
  size_t inlined_ = 0;                // helper bodies inlined so far
  static constexpr size_t kMaxUnrolled = 65536;
  static constexpr size_t kMaxInlined = 4096;
};

}  // namespace k100::dsl
