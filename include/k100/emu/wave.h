// k100lc emu: the architectural state of one wavefront and the contract
// between the emulator core and the per-instruction semantics.
//
// The core (dispatch, scheduling, memory, faults) owns WaveState objects and
// calls one semantic function per decoded instruction. Semantic functions are
// found by instruction id (the row of k100::isa::instructions()); each one
// works on whole waves: it reads its sources as arrays of 64 lanes (a VGPR
// row, or a scalar/constant broadcast to 64 lanes) and writes its destination
// under the EXEC mask. This keeps the inner loops simple enough for the
// compiler to vectorise.
#pragma once

#include <array>
#include <cstdint>

#include "k100/isa/inst.h"

namespace k100::emu {

constexpr int kWaveSize = 64;
using LaneMask = uint64_t;

// MODE register fields (GFX9): fp_round 3:0 (f32 2 bits, f16/f64 2 bits),
// fp_denorm 7:4 (f32 2 bits, f16/f64 2 bits), dx10_clamp 8, ieee 9.
struct ModeBits {
  static constexpr uint32_t kRoundF32Shift = 0, kRoundF16F64Shift = 2;
  static constexpr uint32_t kDenormF32Shift = 4, kDenormF16F64Shift = 6;
  static constexpr uint32_t kDx10Clamp = 1u << 8, kIeee = 1u << 9;
};

struct WaveState {
  // Scalar registers indexed by GFX9 operand code: s0..s101, flat_scratch
  // (102/103), xnack_mask (104/105), vcc (106/107), ttmp0..15 (108..123),
  // m0 (124), exec (126/127).
  std::array<uint32_t, 128> sgpr{};
  // vgpr[r][lane]
  std::array<std::array<uint32_t, kWaveSize>, 256> vgpr{};
  bool scc = false;
  uint32_t mode = 0;
  uint64_t pc = 0;  // byte offset into the loaded code object image (.text lies within it)
  uint32_t trap_status = 0;
  // Aperture bases the dispatch sets up (read by src_shared_base/limit,
  // src_private_base/limit as 64-bit values: base in the high dword).
  uint64_t shared_base = 0, shared_limit = 0, private_base = 0, private_limit = 0;

  LaneMask exec() const { return uint64_t(sgpr[126]) | uint64_t(sgpr[127]) << 32; }
  void set_exec(LaneMask m) { sgpr[126] = uint32_t(m); sgpr[127] = uint32_t(m >> 32); }
  LaneMask vcc() const { return uint64_t(sgpr[106]) | uint64_t(sgpr[107]) << 32; }
  void set_vcc(LaneMask m) { sgpr[106] = uint32_t(m); sgpr[107] = uint32_t(m >> 32); }
  uint32_t m0() const { return sgpr[124]; }
  uint64_t sgpr64(unsigned code) const { return uint64_t(sgpr[code]) | uint64_t(sgpr[code + 1]) << 32; }
  void set_sgpr64(unsigned code, uint64_t v) { sgpr[code] = uint32_t(v); sgpr[code + 1] = uint32_t(v >> 32); }
};

}  // namespace k100::emu
