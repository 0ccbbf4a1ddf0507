// k100lc emu: registry of instruction semantics.
//
// Every row of the ISA table (k100::isa::instructions()) either has a
// semantic function here or is listed as unsupported with a reason. The
// vector ALU semantics (VOP1/VOP2/VOPC/VOP3/VOP3P with their SDWA and DPP
// forms) work on a WaveState alone; scalar ALU, branches, scalar and vector
// memory, LDS and messages need the core's ExecContext (memory, LDS,
// workgroup barrier), declared by the core in emu/exec_context.h.
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
const std::vector<Unsupported>& unsupported_instructions();

}  // namespace k100::emu
