// k100lc emu/valu: lane-loop drivers shared by the semantic files.
//
// A semantic function is usually one call of a driver with a small lambda
// for one lane: the driver fetches the sources through a Vop (so encodings,
// modifiers and modes are handled once), runs the lambda over 64 lanes in a
// loop the compiler can vectorise, and hands the results to the Vop's
// writeback. Lambdas work on raw bits (uint32_t/uint64_t) or on host float
// types, as each driver documents.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "float_bits.h"
#include "host_lanes.h"
#include "k100/emu/semantics.h"
#include "vop.h"

namespace k100::emu::valu {

// One registered semantic: the table row's identifier and its function.
struct SemanticDef {
  std::string name;
  ValuFn fn;
};
using Defs = std::vector<SemanticDef>;

// Files contributing semantics (each appends its rows).
void add_integer_ops(Defs& d);
void add_float32_ops(Defs& d);
void add_float64_ops(Defs& d);
void add_float16_ops(Defs& d);
void add_convert_ops(Defs& d);
void add_compare_ops(Defs& d);
void add_packed_ops(Defs& d);
void add_lane_ops(Defs& d);
void add_special_ops(Defs& d);
void add_transcendental_ops(Defs& d);

#define K100_VALU [](::k100::emu::WaveState & w [[maybe_unused]], const ::k100::isa::Inst& in [[maybe_unused]])

using True = std::true_type;
using False = std::false_type;

// r[i] = g(a[i]), g(a[i], b[i]) or g(a[i], b[i], c[i]) for the 64 lanes.
template <int N, class R, class S, class G>
inline void for_lanes(R* r, const S* a, const S* b, const S* c, G g) {
  for (int i = 0; i < kLanes; ++i) {
    if constexpr (N == 1) r[i] = g(a[i]);
    else if constexpr (N == 2) r[i] = g(a[i], b[i]);
    else r[i] = g(a[i], b[i], c[i]);
  }
}

// ---- 32-bit integer results ------------------------------------------------

// r = f(a, b, c) on the b32 views of the sources.
template <int N, class F>
inline void run_b32(WaveState& w, const isa::Inst& in, F f, Half h = Half::Full) {
  Vop v(w, in);
  const uint32_t* a = v.b32(0);
  const uint32_t* b = N > 1 ? v.b32(1) : a;
  const uint32_t* c = N > 2 ? v.b32(2) : a;
  uint32_t* r = h == Half::Full ? v.out32_direct() : v.out32();
  for_lanes<N>(r, a, b, c, f);
  v.write32(r, h);
}

// Same, with the clamp bit passed to the lambda as a compile-time constant
// (std::true_type / std::false_type) for saturating integer arithmetic.
template <int N, class F>
inline void run_b32_clamp(WaveState& w, const isa::Inst& in, F f, Half h = Half::Full) {
  if (in.mods.clamp)
    run_b32<N>(w, in, [&](auto... x) { return f(True{}, x...); }, h);
  else
    run_b32<N>(w, in, [&](auto... x) { return f(False{}, x...); }, h);
}

// Shifts: r = f(amount, value); a uniform amount (scalar source) keeps the
// loop vectorisable on hosts without per-lane variable shifts.
template <class F>
inline void run_shift32(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* b = v.b32(1);
  uint32_t* r = v.out32_direct();
  if (v.uniform(0)) {
    uint32_t s = v.b32(0)[0];
    for (int i = 0; i < kLanes; ++i) r[i] = f(s, b[i]);
  } else {
    const uint32_t* a = v.b32(0);
    for (int i = 0; i < kLanes; ++i) r[i] = f(a[i], b[i]);
  }
  v.write32(r);
}

// 16-bit integer sources (b16: VOP3 op_sel aware) with a 16-bit result.
template <int N, class F>
inline void run_b16(WaveState& w, const isa::Inst& in, F f, Half h) {
  Vop v(w, in);
  const uint32_t* a = v.b16(0);
  const uint32_t* b = N > 1 ? v.b16(1) : a;
  const uint32_t* c = N > 2 ? v.b16(2) : a;
  uint32_t* r = v.out32();
  for_lanes<N>(r, a, b, c, [&](auto... x) -> uint32_t { return uint16_t(f(uint16_t(x)...)); });
  v.write32(r, h);
}

template <int N, class F>
inline void run_b16_clamp(WaveState& w, const isa::Inst& in, F f, Half h) {
  if (in.mods.clamp)
    run_b16<N>(w, in, [&](auto... x) { return f(True{}, x...); }, h);
  else
    run_b16<N>(w, in, [&](auto... x) { return f(False{}, x...); }, h);
}

// ---- f32 -------------------------------------------------------------------

// f32 result from raw source bits (for ops that look at the encodings).
// `mad_flush`: the op never sees or produces denormals (v_mad_f32 family).
template <int N, class F>
inline void run_f32_bits(WaveState& w, const isa::Inst& in, F f, bool mad_flush = false) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0, mad_flush);
  const uint32_t* b = N > 1 ? v.f32(1, mad_flush) : a;
  const uint32_t* c = N > 2 ? v.f32(2, mad_flush) : a;
  uint32_t* r = v.out32_direct();
  {
    HostRounding g(v.mode.round32());
    for_lanes<N>(r, a, b, c, f);
  }
  v.finish_f32(r, mad_flush);
}

// r = f(float...) computed by the host in the wave's f32 rounding mode.
template <int N, class F>
inline void run_f32(WaveState& w, const isa::Inst& in, F f, bool mad_flush = false) {
  run_f32_bits<N>(w, in, [&](auto... x) { return bits_of(float(f(as_f32(x)...))); }, mad_flush);
}

// ---- f64 -------------------------------------------------------------------

template <int N, class F>
inline void run_f64_bits(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint64_t* a = v.f64(0);
  const uint64_t* b = N > 1 ? v.f64(1) : a;
  const uint64_t* c = N > 2 ? v.f64(2) : a;
  uint64_t* r = v.out64();
  {
    HostRounding g(v.mode.round16_64());
    for_lanes<N>(r, a, b, c, f);
  }
  v.finish_f64(r);
}

template <int N, class F>
inline void run_f64(WaveState& w, const isa::Inst& in, F f) {
  run_f64_bits<N>(w, in, [&](auto... x) { return bits_of(double(f(as_f64(x)...))); });
}

// ---- f16 -------------------------------------------------------------------

// r = f(double...) where the doubles are the exact f16 source values and the
// lambda returns the exact result (or a round-to-odd double); the Vop rounds
// it to f16 with the wave's mode.
template <int N, class F>
inline void run_f16(WaveState& w, const isa::Inst& in, F f, Half h, bool mad_flush = false) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0, mad_flush);
  const uint32_t* b = N > 1 ? v.f16(1, mad_flush) : a;
  const uint32_t* c = N > 2 ? v.f16(2, mad_flush) : a;
  alignas(64) double x[3][kLanes];
  f16_to_f64_lanes(x[0], a);
  if (N > 1) f16_to_f64_lanes(x[1], b);
  if (N > 2) f16_to_f64_lanes(x[2], c);
  double* r = v.outd();
  for_lanes<N>(r, x[0], x[1], x[2], f);
  v.finish_f16(r, h, mad_flush);
}

// f16 result computed on the raw f16 bits (low 16 bits of each lane).
template <int N, class F>
inline void run_f16_bits(WaveState& w, const isa::Inst& in, F f, Half h) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0);
  const uint32_t* b = N > 1 ? v.f16(1) : a;
  const uint32_t* c = N > 2 ? v.f16(2) : a;
  uint32_t* r = v.out32();
  for_lanes<N>(r, a, b, c, [&](auto... x) -> uint32_t { return f(uint32_t(x & 0xffffu)...) & 0xffffu; });
  v.finish_f16_bits(r, h);
}

// ---- saturation helpers ------------------------------------------------------

inline uint32_t sat_u32(uint64_t x) { return x > 0xffffffffull ? 0xffffffffu : uint32_t(x); }
inline uint32_t sat_i32(int64_t x) {
  return uint32_t(x > 0x7fffffffll ? 0x7fffffff : x < -0x80000000ll ? int32_t(-0x7fffffff - 1) : int32_t(x));
}
inline uint16_t sat_u16(int64_t x) { return uint16_t(x > 0xffff ? 0xffff : x < 0 ? 0 : x); }
inline uint16_t sat_i16(int64_t x) { return uint16_t(int16_t(x > 0x7fff ? 0x7fff : x < -0x8000 ? -0x8000 : x)); }

inline int32_t sext24(uint32_t x) { return int32_t(x << 8) >> 8; }

}  // namespace k100::emu::valu
