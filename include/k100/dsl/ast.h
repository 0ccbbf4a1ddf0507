// k100lc dsl: the syntax tree of a .kkl file, and the same nodes once typed.
//
// The parser (parser.h) builds a Module: top-level constants, and functions
// (kernels and helpers) whose bodies are Stmt/Expr trees exactly as written.
// The checker (typing.h) produces, per kernel, a new tree of the same nodes
// with the typed fields filled in (see typing.h for that contract). One
// node type for both keeps the steps small: the parser leaves the typed
// fields at their defaults.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k100/base/diagnostic.h"

namespace k100::dsl {

// Value and element types. U8/S8/U16/S16 occur only as pointer elements;
// U64 is the type of ballot() masks; Bool is a comparison result (a lane
// mask when varying, SCC when uniform).
enum class Scalar : uint8_t { Void, Bool, U32, S32, F32, F16, BF16, U64, U8, S8, U16, S16 };

struct Type {
  enum class Kind : uint8_t { Value, Ptr, Lds };
  Kind kind = Kind::Value;
  Scalar scalar = Scalar::Void;  // Value: the value type; Ptr/Lds: the element type

  static Type value(Scalar s) { return Type{Kind::Value, s}; }
  static Type ptr(Scalar elem) { return Type{Kind::Ptr, elem}; }
  static Type lds(Scalar elem) { return Type{Kind::Lds, elem}; }
  bool is(Scalar s) const { return kind == Kind::Value && scalar == s; }
  bool is_value() const { return kind == Kind::Value; }
  bool is_memory() const { return kind != Kind::Value; }
  bool operator==(const Type&) const = default;
};

const char* scalar_name(Scalar s);      // "f32", "u8", ...
std::string type_name(const Type& t);   // "f32", "ptr[u8]", "lds[f32]"
bool is_int(Scalar s);                  // U32, S32, U64 and the narrow element types
bool is_float(Scalar s);                // F32, F16, BF16
bool is_signed(Scalar s);               // S32, S8, S16
uint32_t element_bytes(Scalar s);       // 1, 2, 4 or 8

// A type annotation as written (parameters, `x: T = ...`).
struct TypeAnn {
  Type type;
  SourceLoc loc;
};

enum class Op : uint8_t {
  // binary arithmetic and bit operations
  Add, Sub, Mul, Div, FloorDiv, Mod, BitAnd, BitOr, BitXor, Shl, Shr,
  // unary
  Neg, Invert, Not,
  // boolean (both sides are always evaluated: expressions have no side effects)
  And, Or,
  // comparisons
  Eq, Ne, Lt, Le, Gt, Ge,
};
const char* op_spelling(Op op);  // "+", "//", "not", "<=", ...

enum class ExprKind : uint8_t {
  Name,       // name
  Int,        // int_value
  Float,      // float_value
  Unary,      // op args[0]
  Binary,     // args[0] op args[1]  (arithmetic, bit operations, and/or)
  Compare,    // args[0] op args[1]  (one comparison; chains are refused)
  Call,       // name(args...)       (typed: builtin set, or the call of an inlined helper is gone)
  Subscript,  // args[0][args[1]]    (args[0] is a Name)
  IfExp,      // args[1] if args[0] else args[2]
  Convert,    // typed tree only: args[0] converted by value to `type`
};

struct Builtin;  // builtins.h

struct Expr {
  ExprKind kind = ExprKind::Int;
  SourceLoc loc;
  Op op = Op::Add;
  std::string name;  // Name, Call: the name as written
  uint64_t int_value = 0;
  double float_value = 0;
  std::vector<std::unique_ptr<Expr>> args;

  // Filled in by the checker (typing.h).
  Type type;
  bool varying = false;
  int var = -1;                       // Name: index into TypedKernel::vars
  const Builtin* builtin = nullptr;   // Call: the built-in
};
using ExprPtr = std::unique_ptr<Expr>;

enum class StmtKind : uint8_t {
  Assign,     // target = value             (target: Name or Subscript)
  AnnAssign,  // target: ann = value        (parser only; the checker emits Assign)
  AugAssign,  // target op= value           (parser only; the checker emits Assign)
  If,         // if value: body else: orelse   (elif is an If alone in orelse)
  While,      // while value: body
  For,        // for name in range(args) / static_range(args): body
  Break,
  Continue,
  Return,     // return [value]
  Pass,       // parser only
  ExprStmt,   // value (a call)
  Inlined,    // typed tree only: an inlined helper's body; a Return inside leaves it
};

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  SourceLoc loc;
  ExprPtr target;
  std::optional<TypeAnn> ann;
  Op op = Op::Add;
  ExprPtr value;
  std::string name;                // For: the loop variable; Inlined: the helper's name
  std::vector<ExprPtr> range_args; // For: range's 1-3 arguments as written
  bool static_range = false;       // For: static_range(...) (unrolled by the checker)
  std::vector<std::unique_ptr<Stmt>> body, orelse;

  // Filled in by the checker.
  int var = -1;               // For: the counter variable; Inlined: the result variable (-1: none)
  int64_t step = 1;           // For: the constant step (never 0)
  bool varying = false;       // If/While/For: the condition or bounds differ between lanes, or a
                              // lane may leave the loop alone (varying break/continue/return)
};
using StmtPtr = std::unique_ptr<Stmt>;

struct Param {
  std::string name;
  SourceLoc loc;
  std::optional<TypeAnn> ann;  // required for kernels; optional for helpers
};

struct Function {
  std::string name;
  SourceLoc loc;
  bool inline_decorator = false;  // written with @inline
  std::vector<Param> params;
  std::optional<TypeAnn> returns;  // `-> T` (helpers; `-> None` leaves it empty)
  std::vector<StmtPtr> body;
};

// A top-level `NAME = <constant expression>`.
struct Constant {
  std::string name;
  SourceLoc loc;
  ExprPtr value;
};

struct Module {
  std::vector<Constant> constants;
  std::vector<Function> functions;  // in source order
};

// A readable S-expression of a tree (for tests and `k100-cc check -v`):
// "(if (< i n) (= (sub out i) (+ (sub a i) (sub b i))))". Typed nodes
// append ":type" and "'" for varying values.
std::string dump(const Expr& e, bool typed = false);
std::string dump(const Stmt& s, bool typed = false);
std::string dump(const std::vector<StmtPtr>& body, bool typed = false);

}  // namespace k100::dsl
