// Test helpers for the VALU semantics: build instructions by name, run them
// on a WaveState, and fill/read lanes.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <functional>
#include <string>
#include <vector>

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

// Exact references in binary128: the value of an f16, correct rounding of a
// binary128 value to f16 (by search over encodings), and a + b rounded to odd
// (so that one further rounding to f32 or f16 is correct).
using q128 = __float128;
q128 q_of_f16(uint16_t h);
uint16_t f16_round_q(q128 x, int mode = 0, bool flush = false);
q128 sum_to_odd(q128 a, q128 b);

// Ulp distance between two floats of the same sign/class (NaN == NaN is 0).
int64_t ulp_diff_f32(uint32_t a, uint32_t b);
int64_t ulp_diff_f64(uint64_t a, uint64_t b);
int64_t ulp_diff_f16(uint16_t a, uint16_t b);

}  // namespace k100::emu::valu_test

namespace k100::emu::valu_test {

// ---- per-row unit tests ----------------------------------------------------
// A row check runs one VALU row on chosen inputs and compares every lane with
// an independent host reference. Checks register under the row names they
// cover; the parameterized test ValuRow/<row> runs them, and fails for an
// implemented row with no check.
using RowCheck = void (*)(const std::string& row);
struct RowCheckRegistrar {
  RowCheckRegistrar(std::initializer_list<const char*> rows, RowCheck fn);
  RowCheckRegistrar(const std::vector<std::string>& rows, RowCheck fn);
};
const std::vector<RowCheck>* row_checks(const std::string& row);

#define K100_ROW_CHECK_CAT2(a, b) a##b
#define K100_ROW_CHECK_CAT(a, b) K100_ROW_CHECK_CAT2(a, b)
// ROW_CHECK(fn, "v_a", "v_b") { ... uses `row` ... }
#define ROW_CHECK(fn, ...)                                                                  \
  static void fn(const std::string& row);                                                   \
  static ::k100::emu::valu_test::RowCheckRegistrar K100_ROW_CHECK_CAT(fn, _registrar)({__VA_ARGS__}, fn); \
  static void fn(const std::string& row)

// The encodings a row is tested in: its native form, plus e64 when it has one.
std::vector<Encoding> forms_of(const std::string& row);

// Lane-wise checks over random inputs. Sources go to v1, v2, v3 (64-bit:
// v[2:3], v[4:5], v[6:7]); the destination is v10 (v[10:11]). `gen` makes
// the input of source s for a lane; `ref` gives the expected result.
using Gen32 = uint32_t (*)(std::mt19937&, int s);
using Gen64 = uint64_t (*)(std::mt19937&, int s);
struct Check32 {
  std::string row;
  int nsrc = 2;
  Gen32 gen = nullptr;
  std::function<uint32_t(uint32_t, uint32_t, uint32_t)> ref;
  // Alternatively: the expected result given the old destination value.
  std::function<uint32_t(uint32_t, uint32_t, uint32_t, uint32_t)> ref_old;
  // Compare only these result bits (16-bit ops: 0xffff), float NaNs equal.
  uint32_t mask = 0xffffffffu;
  bool nan_equal_f32 = false;
  bool nan_equal_f16 = false;
  isa::Modifiers mods = {};
  uint32_t mode = 0;  // 0: fresh_wave() default
  int rounds = 4;
};
void check32(const Check32& c);

uint32_t gen_u32(std::mt19937& rng, int s);   // mix of small, boundary and random values
uint32_t gen_f32(std::mt19937& rng, int s);   // pick_f32
uint32_t gen_f16(std::mt19937& rng, int s);   // pick_f16 in the low half, random high half
uint32_t gen_small(std::mt19937& rng, int s);  // 0..31 (shift amounts, offsets)

}  // namespace k100::emu::valu_test
