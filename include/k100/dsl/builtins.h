// k100lc dsl: the built-in functions, one table (src/dsl/builtins.cpp).
//
// A row gives the name, the number of arguments, where the call may stand
// (a value, a statement, a declaration, a loop header) and the typing rule
// the checker applies (typing.h documents the result types). The lowering
// dispatches on `id`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace k100::dsl {

enum class BuiltinId : uint8_t {
  Gid, Bid, Lid, Tid, Lane,
  Exp, Sqrt, Rsqrt, Fabs, Floor, Ceil, Trunc, Rint, Fract,
  Fma, Min, Max,
  ToF32, ToU32, ToS32, ToF16, ToBF16, Ubyte, S8,
  Load16, F16ToF32,
  Barrier, Lds,
  AtomicAdd, AtomicMin, AtomicMax, AtomicXchg, AtomicCas,
  Shuffle, Broadcast, WaveSum, WaveMax, WaveMin, Ballot,
  Dot2, Dot4, Dot8, PackF16,
  Range, StaticRange,
};

// How the checker types a call (see typing.h for each rule's result).
enum class BuiltinRule : uint8_t {
  Id,          // optional constant dimension 0-2 → u32
  FloatMath,   // one float (ints convert by value) → the same float type
  Fma,         // three floats → common float type
  MinMax,      // two numbers → their common type
  Convert,     // one number → the named type
  ByteToF32,   // ubyte: integer → f32
  SignExtend8, // s8: integer → s32
  Load16,      // (pointer, byte offset) → u32
  HalfBits,    // f16_to_f32: integer (low 16 bits) → f32
  Barrier,     // no arguments, no value
  LdsDecl,     // lds(n[, elem]) declaration
  Atomic,      // (memory, index, value) or (memory, index, compare, value) → old element
  Shuffle,     // (x, source lane) → x's type
  Broadcast,   // (x, uniform lane) → x's type, uniform
  WaveReduce,  // (x) → x's type over the active lanes, uniform
  Ballot,      // (comparison) → u64 lane mask, uniform
  Dot,         // (packed a, packed b, accumulator)
  PackHalves,  // (low, high) → u32 holding two f16
  LoopHeader,  // range / static_range: only in `for`
};

enum class BuiltinUse : uint8_t {
  Value,        // has a result; a call alone as a statement is refused
  Statement,    // no result (barrier)
  Effect,       // has a result and a side effect: a statement, or the whole right side of an assignment
  Declaration,  // NAME = lds(n) at the top of a kernel body
  LoopHeader,   // for NAME in range(...)
};

struct Builtin {
  std::string_view name;
  BuiltinId id;
  BuiltinRule rule;
  uint8_t min_args, max_args;
  BuiltinUse use;
  std::string_view usage;  // "sqrt(x)": shown in arity errors
};

const std::vector<Builtin>& builtins();
const Builtin* find_builtin(std::string_view name);  // nullptr if unknown

}  // namespace k100::dsl
