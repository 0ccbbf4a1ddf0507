// k100lc emu: registry of instruction semantics.
//
// Every row of the ISA table (k100::isa::instructions()) either has a
// semantic function here or is listed as unsupported with a reason. The
// vector ALU semantics (VOP1/VOP2/VOPC/VOP3/VOP3P with their SDWA and DPP
// forms) work on a WaveState alone and live in src/emu/valu/; scalar ALU,
// branches, scalar and vector memory, LDS and messages need the dispatch
// (memory, LDS, workgroup barrier) and are implemented by the core in
// src/emu/ (not through this interface).
#pragma once

#include <string>
#include <vector>

#include "k100/emu/wave.h"
#include "k100/isa/inst.h"

namespace k100::emu {

// A VALU semantic function: executes `inst` for the lanes enabled in EXEC.
// Throws k100::Error on a condition the hardware would trap on (the core adds
// kernel, PC and lane to the message).
using ValuFn = void (*)(WaveState& wave, const isa::Inst& inst);

// Indexed by instruction id; null for rows that are not vector ALU or not
// implemented. Built once.
const std::vector<ValuFn>& valu_semantics();

// Rows of the table the emulator deliberately does not implement, with why
// (graphics-only, hardware debug features, ...). Used by the coverage test.
struct Unsupported {
  uint16_t id;
  std::string reason;
};
// The whole list: the core's rows (core_unsupported) and the VALU's.
const std::vector<Unsupported>& unsupported_instructions();
// The vector ALU's own list (defined with valu_semantics).
const std::vector<Unsupported>& valu_unsupported();
// The core's own list (scalar, memory, LDS rows).
const std::vector<Unsupported>& core_unsupported();

// True when the core (not the VALU) has semantics for row `id`.
bool core_implements(uint16_t id);

// Counts over the table, for the coverage report.
struct SemanticsCoverage {
  size_t rows = 0;
  size_t implemented = 0;   // core + VALU
  size_t core = 0;
  size_t valu = 0;
  size_t unsupported = 0;
  std::vector<uint16_t> missing;  // neither implemented nor listed unsupported
  std::vector<uint16_t> both;     // implemented and also listed unsupported
};
SemanticsCoverage semantics_coverage();

}  // namespace k100::emu
