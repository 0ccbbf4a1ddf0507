// Test helpers for the VALU semantics: build instructions by name, run them
// on a WaveState, and fill/read lanes.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>

#include "k100/emu/semantics.h"
#include "k100/emu/wave.h"
#include "k100/isa/codec.h"
#include "k100/isa/inst.h"
#include "k100/isa/table.h"

namespace k100::emu::valu_test {

using isa::Encoding;
using isa::Operand;

inline Operand V(unsigned n, uint8_t w = 1) { return Operand::vgpr(n, w); }
inline Operand S(unsigned n, uint8_t w = 1) { return Operand::sgpr(n, w); }
inline Operand VCC() { return Operand::reg(isa::code::kVccLo, 2); }
inline Operand Lit(uint32_t v) { return Operand::literal(v); }
// Inline integer constant -16..64.
inline Operand Int(int v) {
  return Operand::reg(uint16_t(v >= 0 ? isa::code::kZero + v : isa::code::kIntPosLast - v));
}
// Inline float constant by code (240 0.5, 241 -0.5, 242 1.0, ... 248 1/(2pi)).
inline Operand FConst(uint16_t code) { return Operand::reg(code); }
inline Operand Imm(uint32_t v) { return Operand::imm(v); }

// Builds an instruction of row `name` in encoding `enc`; operands in printed
// order. VOP3P rows default to op_sel_hi = all ones (llvm's default), except
// the mix ops.
isa::Inst make(const std::string& name, Encoding enc, std::initializer_list<Operand> ops,
               const isa::Modifiers& mods = {}, bool default_opsel_hi = true);

// Runs `in` on `w` through valu_semantics(); fails the test when the row has
// no semantics or (when `check_legal`) the encoder rejects the instruction.
void run(WaveState& w, const isa::Inst& in, bool check_legal = true);

// A wave with all lanes active, IEEE mode, denormals allowed, RNE.
WaveState fresh_wave();

inline uint32_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline float fval(uint32_t b) { return std::bit_cast<float>(b); }
inline uint64_t dbits(double d) { return std::bit_cast<uint64_t>(d); }
inline double dval(uint64_t b) { return std::bit_cast<double>(b); }

inline void set64(WaveState& w, unsigned reg, int lane, uint64_t v) {
  w.vgpr[reg][lane] = uint32_t(v);
  w.vgpr[reg + 1][lane] = uint32_t(v >> 32);
}
inline uint64_t get64(const WaveState& w, unsigned reg, int lane) {
  return uint64_t(w.vgpr[reg][lane]) | uint64_t(w.vgpr[reg + 1][lane]) << 32;
}

// Interesting f32 bit patterns: zeros, denormals, normals around 1, large,
// infinities, NaNs, and random values.
uint32_t pick_f32(std::mt19937& rng);
uint64_t pick_f64(std::mt19937& rng);
uint16_t pick_f16(std::mt19937& rng);

// Host references for f16 (independent of the emulator's implementation):
// exact value of an f16, and correct rounding of a long double to f16.
long double f16_value(uint16_t h);
uint16_t f16_round(long double x, int mode = 0, bool flush = false);

// Ulp distance between two floats of the same sign/class (NaN == NaN is 0).
int64_t ulp_diff_f32(uint32_t a, uint32_t b);
int64_t ulp_diff_f64(uint64_t a, uint64_t b);
int64_t ulp_diff_f16(uint16_t a, uint16_t b);

}  // namespace k100::emu::valu_test
