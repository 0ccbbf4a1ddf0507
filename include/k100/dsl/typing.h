// k100lc dsl: checking and typing, Module → one TypedKernel per kernel.
//
// Which functions are kernels: every top-level `def` that is neither
// decorated `@inline` nor called by another function. A helper (`@inline`,
// or called from some function) is inlined at each call; recursion is
// refused.
//
// THE TYPED TREE (what the IR step consumes). A TypedKernel's body uses the
// nodes of ast.h with these guarantees, so the next step never re-checks:
//   * Statements are only Assign, If, While, For, Break, Continue, Return,
//     ExprStmt and Inlined. AnnAssign/AugAssign became Assign, elif is an If
//     alone in `orelse`, `pass` is gone, static_range loops are unrolled
//     (their counter became a literal), LDS declarations moved to `lds`.
//   * Assign: target is a Name (Expr::var set) or a Subscript (a store to a
//     pointer parameter or an LDS array); the value already has the type of
//     the variable / element (a Convert node where one was implied).
//   * Every Expr has `type` (a value type: f32, f16, bf16, u32, s32, u64 or
//     bool; Name nodes of pointers and LDS arrays have Ptr/Lds types) and
//     `varying` (DSL.md §3: integer literals, integer parameters, bid(), the
//     counters of uniform loops and integer expressions of those are
//     uniform; ids, loads, atomics and every f32/f16/bf16 value except
//     literals are varying; a variable assigned a varying value anywhere is
//     varying everywhere).
//   * Int nodes hold the bit pattern of their type (-1 as s32 is 0xffffffff);
//     Float nodes are f32 or f16 constants. Module constants are folded.
//   * Binary/Compare operands have the same type after promotion (Convert
//     nodes inserted); shifts keep the left type and take any integer
//     count; `and`/`or`/`not` take bool. Integer `/` and `//` are division,
//     `%` the remainder; for s32 they round toward negative infinity as in
//     Python. Convert between u32 and s32 is a reinterpretation; int → float
//     is by value; float → int truncates; u32 → u64 zero-extends.
//   * Subscript: args[0] is the Name of a pointer or LDS array, args[1] an
//     u32/s32 index. Loads of u8/u16 zero-extend to u32, s8/s16 sign-extend
//     to s32. The byte address is a 64-bit sum: base + index * element size.
//   * Call: builtin is set; arguments have the types the rule asks for
//     (builtins.h): FloatMath/Fma/MinMax operands are the result type; Id's
//     argument is an Int (dimension); Atomic's value is the element type;
//     Dot: dot2(u32, u32, f32) → f32, dot4/dot8(u32, u32, s32) → s32.
//   * For: range_args are [start, stop] of the counter's type (u32, or s32
//     when a bound is s32 or the step negative), `step` is a non-zero
//     constant; the loop runs while counter < stop (step > 0) or counter >
//     stop (step < 0). `var` is the counter; the body never assigns it.
//   * While: value is a bool, or an Int literal for `while 1:`.
//   * Inlined: a helper's body; `var` receives its result (set by an Assign
//     before each Return); a Return inside an Inlined (not in a nested one)
//     leaves that block, elsewhere it ends the work-item.
//   * `varying` on If/While/For: the condition or bounds differ between
//     lanes, or a lane may leave the loop alone (break/continue/return under
//     varying control); such loops and both branches of such ifs are the
//     regions of the region rule.
#pragma once

#include <string>
#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/dsl/ast.h"
#include "k100/dsl/source.h"

namespace k100::dsl {

struct Variable {
  std::string name;      // as written
  std::string helper;    // the inlined helper it belongs to ("" for the kernel's own)
  Type type;
  bool varying = false;
  bool param = false;    // a kernel parameter (params are vars[0..param_count))
  SourceLoc loc;         // where it was created
  // LDS arrays (type Lds): placement in the workgroup's LDS.
  uint32_t lds_offset = 0;  // bytes, 16-aligned, in source order
  uint32_t lds_count = 0;   // elements (4 bytes each)
};

struct TypedKernel {
  std::string name;
  SourceLoc loc;
  size_t param_count = 0;
  std::vector<Variable> vars;  // parameters first, then locals, LDS arrays, helper locals
  uint32_t lds_bytes = 0;      // end of the last LDS array (≤ 65536)
  std::vector<StmtPtr> body;

  // "vadd(a: ptr[f32], b: ptr[f32], n: u32)"
  std::string signature() const;
};

// Checks every kernel of `module` (errors to `sink`, with carets from `src`)
// and returns the typed kernels in source order. Kernels with errors are
// left out; the result is complete only when the sink has no errors.
std::vector<TypedKernel> check(const Module& module, const SourceText& src, DiagnosticSink& sink);

// lex + parse + check; the front end in one call.
std::vector<TypedKernel> check_source(const SourceText& src, DiagnosticSink& sink);

}  // namespace k100::dsl
