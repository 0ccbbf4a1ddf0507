// The table of the DSL's built-in functions (builtins.h).
#include "k100/dsl/builtins.h"

namespace k100::dsl {

const std::vector<Builtin>& builtins() {
  using I = BuiltinId;
  using R = BuiltinRule;
  using U = BuiltinUse;
  static const std::vector<Builtin> table = {
      // Ids: the dimension is 0 (x), 1 (y) or 2 (z); default 0.
      {"gid", I::Gid, R::Id, 0, 1, U::Value, "gid() or gid(dim): global work-item id"},
      {"bid", I::Bid, R::Id, 0, 1, U::Value, "bid() or bid(dim): workgroup id"},
      {"lid", I::Lid, R::Id, 0, 1, U::Value, "lid() or lid(dim): work-item id in the workgroup"},
      {"tid", I::Tid, R::Id, 0, 0, U::Value, "tid(): work-item id in the workgroup (x)"},
      {"lane", I::Lane, R::Id, 0, 0, U::Value, "lane(): lane in the wave, 0-63"},
      // Float math.
      {"exp", I::Exp, R::FloatMath, 1, 1, U::Value, "exp(x)"},
      {"sqrt", I::Sqrt, R::FloatMath, 1, 1, U::Value, "sqrt(x)"},
      {"rsqrt", I::Rsqrt, R::FloatMath, 1, 1, U::Value, "rsqrt(x)"},
      {"fabs", I::Fabs, R::FloatMath, 1, 1, U::Value, "fabs(x)"},
      {"floor", I::Floor, R::FloatMath, 1, 1, U::Value, "floor(x)"},
      {"ceil", I::Ceil, R::FloatMath, 1, 1, U::Value, "ceil(x)"},
      {"trunc", I::Trunc, R::FloatMath, 1, 1, U::Value, "trunc(x)"},
      {"rint", I::Rint, R::FloatMath, 1, 1, U::Value, "rint(x)"},
      {"fract", I::Fract, R::FloatMath, 1, 1, U::Value, "fract(x)"},
      {"fma", I::Fma, R::Fma, 3, 3, U::Value, "fma(a, b, c)"},
      {"min", I::Min, R::MinMax, 2, 2, U::Value, "min(a, b)"},
      {"max", I::Max, R::MinMax, 2, 2, U::Value, "max(a, b)"},
      // Conversions.
      {"f32", I::ToF32, R::Convert, 1, 1, U::Value, "f32(x)"},
      {"u32", I::ToU32, R::Convert, 1, 1, U::Value, "u32(x)"},
      {"s32", I::ToS32, R::Convert, 1, 1, U::Value, "s32(x)"},
      {"f16", I::ToF16, R::Convert, 1, 1, U::Value, "f16(x)"},
      {"bf16", I::ToBF16, R::Convert, 1, 1, U::Value, "bf16(x)"},
      {"ubyte", I::Ubyte, R::ByteToF32, 1, 1, U::Value, "ubyte(x): low 8 bits as f32"},
      {"s8", I::S8, R::SignExtend8, 1, 1, U::Value, "s8(x): low 8 bits sign-extended to s32"},
      {"load16", I::Load16, R::Load16, 2, 2, U::Value, "load16(p, byte_offset)"},
      {"f16_to_f32", I::F16ToF32, R::HalfBits, 1, 1, U::Value, "f16_to_f32(bits)"},
      // Workgroup.
      {"barrier", I::Barrier, R::Barrier, 0, 0, U::Statement, "barrier()"},
      {"lds", I::Lds, R::LdsDecl, 1, 2, U::Declaration, "NAME = lds(n) or lds(n, u32|s32|f32)"},
      // Atomics on a pointer parameter or an LDS array; they return the old value.
      {"atomic_add", I::AtomicAdd, R::Atomic, 3, 3, U::Effect, "atomic_add(p, i, v)"},
      {"atomic_min", I::AtomicMin, R::Atomic, 3, 3, U::Effect, "atomic_min(p, i, v)"},
      {"atomic_max", I::AtomicMax, R::Atomic, 3, 3, U::Effect, "atomic_max(p, i, v)"},
      {"atomic_xchg", I::AtomicXchg, R::Atomic, 3, 3, U::Effect, "atomic_xchg(p, i, v)"},
      {"atomic_cas", I::AtomicCas, R::Atomic, 4, 4, U::Effect, "atomic_cas(p, i, expected, v)"},
      // Cross-lane.
      {"shuffle", I::Shuffle, R::Shuffle, 2, 2, U::Value, "shuffle(x, src_lane)"},
      {"broadcast", I::Broadcast, R::Broadcast, 2, 2, U::Value, "broadcast(x, lane)"},
      {"wave_sum", I::WaveSum, R::WaveReduce, 1, 1, U::Value, "wave_sum(x)"},
      {"wave_max", I::WaveMax, R::WaveReduce, 1, 1, U::Value, "wave_max(x)"},
      {"wave_min", I::WaveMin, R::WaveReduce, 1, 1, U::Value, "wave_min(x)"},
      {"ballot", I::Ballot, R::Ballot, 1, 1, U::Value, "ballot(condition)"},
      // Packed dot products.
      {"dot2", I::Dot2, R::Dot, 3, 3, U::Value, "dot2(a, b, acc): two f16 pairs, f32 accumulator"},
      {"dot4", I::Dot4, R::Dot, 3, 3, U::Value, "dot4(a, b, acc): four s8 pairs, s32 accumulator"},
      {"dot8", I::Dot8, R::Dot, 3, 3, U::Value, "dot8(a, b, acc): eight s4 pairs, s32 accumulator"},
      {"pack_f16", I::PackF16, R::PackHalves, 2, 2, U::Value, "pack_f16(lo, hi): two f16 in a u32, for dot2"},
      // Loop headers.
      {"range", I::Range, R::LoopHeader, 1, 3, U::LoopHeader, "range(stop), range(start, stop[, step])"},
      {"static_range", I::StaticRange, R::LoopHeader, 1, 3, U::LoopHeader,
       "static_range(stop), static_range(start, stop[, step])"},
  };
  return table;
}

const Builtin* find_builtin(std::string_view name) {
  for (const auto& b : builtins())
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace k100::dsl
