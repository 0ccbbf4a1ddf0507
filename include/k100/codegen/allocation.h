// k100lc codegen: register allocation over an instruction list with labels
// and branches.
//
// The input is what the allocator needs to know of a kernel: its virtual
// registers (file, width, alignment, a name for messages, or a fixed place for
// the values the hardware sets up at entry), and per instruction the
// registers it reads and writes and where control goes next.
//
// Liveness is deliberately conservative about partial writes: a VALU write
// changes only the lanes EXEC enables, and a write of some dwords of a range
// leaves the others, so no write ends a value. A register is live at a point
// when some write of it reaches the point and some read of it can follow; two
// registers live at one point (or written by one instruction) never share a
// physical register. Registers are placed lowest first in order of their first
// live point, each range at the alignment its file needs. When a register does
// not fit the budget, allocate() throws k100::Error naming the kernel, the
// register and the instruction where the most is live, with what is live there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/codegen/registers.h"

namespace k100::codegen {

struct VirtualReg {
  RegFile file = RegFile::Vector;
  uint8_t width = 1;
  uint8_t align = 1;
  std::string name;
  int fixed = -1;            // physical index when the hardware places it (entry values)
  bool entry_value = false;  // written before the first instruction
};

struct RegAccess {
  int32_t reg = 0;  // index in AllocationProblem::regs
  bool read = false, write = false;
};

struct FlowInst {
  std::vector<RegAccess> access;
  std::vector<int> targets;   // instruction indices a branch may go to
  bool falls_through = true;  // false after s_branch and s_endpgm
  bool early_clobber = false; // what it writes must not share a register with what it reads
  bool glued = false;         // nothing may be inserted before it (a pc-relative sequence)
  std::string text;           // for messages: "v_add_f32 acc, x, y"
};

struct AllocationProblem {
  std::string kernel;
  std::vector<VirtualReg> regs;
  std::vector<FlowInst> insts;
  int vgpr_budget = 256, sgpr_budget = 102;
};

struct Allocation {
  std::vector<int> base;  // physical first register of each virtual one
  int vgprs = 0, sgprs = 0;   // one past the highest register used (0 when none)
  int max_live_vgprs = 0, max_live_sgprs = 0;  // dwords live at the fullest point
};

Allocation allocate(const AllocationProblem& problem);

// Largest VGPR count (per lane) that lets `waves` waves run on one SIMD, and
// the same for SGPRs (GFX9: 256 VGPRs in granules of 4; 800 SGPRs in granules
// of 16, of which 6 per wave go to VCC, FLAT_SCRATCH and XNACK_MASK, and at
// most 102 addressable). Throws for waves outside 1..10.
int vgpr_budget(int waves_per_simd);
int sgpr_budget(int waves_per_simd);

}  // namespace k100::codegen
