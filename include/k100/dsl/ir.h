// k100lc dsl: the typed IR of one kernel, between the typed tree and the
// lowering onto the authoring layer.
//
// Values are SSA: each is defined once, by a Compute node, and names its
// operands by index. Named variables of the source (and loop counters) are
// slots read by ReadVar values and written by WriteVar nodes: the layer
// allocates every virtual register anyway, so the IR needs no phi nodes and
// a variable written in both branches of a varying `if` stays one register.
//
// Control flow is structured: a Region is a list of nodes, `If` holds two
// regions, `Loop` one that runs until a Break leaves it (Continue starts the
// next trip), and the kernel body is a region that Return leaves. `for` and
// `while` become Loops whose first nodes test the exit condition, so the
// lowering sees only these forms.
//
// Uniform/varying per value and per variable comes from divergence.cpp
// (DSL.md §3); build_ir checks it against the front end's classification.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/dsl/ast.h"
#include "k100/dsl/builtins.h"
#include "k100/dsl/typing.h"

namespace k100::dsl::ir {

enum class Opcode : uint8_t {
  Const,    // bits: the bit pattern of `type`
  ReadVar,  // var: a local, or a scalar parameter
  Unary,    // op (Neg, Invert, Not) args[0]
  Binary,   // args[0] op args[1] (arithmetic, bit operations, And/Or on bools)
  Compare,  // args[0] op args[1] → bool; `operand` is the operands' type
  Convert,  // args[0] (of type `operand`) to `type`
  Select,   // args[0] ? args[1] : args[2]
  Call,     // builtin(args...)
  Load,     // var (a pointer parameter or LDS array)[args[0]]
  Load16,   // 16-bit load at var (a pointer parameter) + args[0] bytes
  Atomic,   // builtin on var[args[0]] with args[1] (cas: args[1] expected, args[2] new) → the old element
};

struct Value {
  Opcode op = Opcode::Const;
  Scalar type = Scalar::Void;     // result type
  Scalar operand = Scalar::Void;  // Compare/Convert: the operands' type
  Op aop = Op::Add;
  BuiltinId builtin = BuiltinId::Gid;
  std::vector<int> args;
  uint64_t bits = 0;
  int var = -1;
  bool varying = false;    // divergence.cpp
  int8_t front_end = -1;   // the typed tree's `varying` of the expression it comes from (-1: none)
  SourceLoc loc;
};

struct Node;
using Region = std::vector<Node>;

enum class NodeKind : uint8_t {
  Compute,   // defines value `value`
  WriteVar,  // var = value
  Store,     // var[index] = value (pointer parameter or LDS array)
  Barrier,
  If,        // value (bool) ? then : orelse
  Loop,      // body until Break
  Break,
  Continue,
  Return,
};

struct Node {
  NodeKind kind = NodeKind::Compute;
  int value = -1;
  int index = -1;
  int var = -1;
  bool varying = false;  // If/Loop: the front end's flag (a varying region)
  Region then, orelse;   // If: both; Loop: `then` is the body
  SourceLoc loc;
};

struct Function {
  const TypedKernel* kernel = nullptr;
  std::vector<Value> values;
  std::vector<bool> var_varying;  // per TypedKernel::vars entry (divergence.cpp)
  Region body;
  bool has_return = false;
  // Where divergence.cpp and the front end classify a value or variable
  // differently (the lowering then takes it as varying, which is always
  // correct); tests require none.
  std::vector<std::string> disagreements;
};

// Builds the IR of `k` and classifies it (divergence.cpp). A construct the
// IR does not represent is reported to `sink` (returns false).
bool build(const TypedKernel& k, const SourceText& src, DiagnosticSink& sink, Function& out);

// Uniform/varying of every value and variable (DSL.md §3): ids, loads and
// every non-literal float are varying, so is anything computed from a
// varying value, a variable written a varying value anywhere, and the
// counter of a varying loop.
void classify(Function& f);

// A readable text of the IR (tests, `k100-cc build --emit-ir`).
std::string print(const Function& f);

}  // namespace k100::dsl::ir
