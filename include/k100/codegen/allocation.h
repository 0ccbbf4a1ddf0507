// k100lc codegen: register allocation of the machine IR.
//
// Liveness (liveness.h) ends a value where it is overwritten: an SGPR write
// always; a VGPR write (which changes only the lanes EXEC enables) when no
// EXEC write the author placed lies between it and the reads that follow, and
// along each lane's own control flow (a then-branch's value does not flow
// into the else-branch). Liveness is per dword, so a register written dword
// by dword ends dword by dword.
//
// Two registers interfere when one is live where the other is written (or
// both are written by one instruction); copies between registers that do not
// interfere are coalesced (the copy disappears); registers are placed lowest
// first, each range at the alignment its file needs, fixed entry values
// first. Over budget the allocator spills (spilling.cpp): SGPRs to lanes of a
// VGPR, VGPRs to scratch memory, constants by writing them again where they
// are read; a kernel that may not spill (KernelOptions::spill = false) gets a
// k100::Error naming the kernel, the register and the instruction where the
// most is live, with what is live there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/codegen/registers.h"

namespace k100::codegen {

struct Allocation {
  std::vector<int> base;  // physical first register of each virtual one (-1: never live)
  int vgprs = 0, sgprs = 0;   // one past the highest register used (0 when none)
  int max_live_vgprs = 0, max_live_sgprs = 0;  // dwords live at the fullest point
};

struct AllocationOptions {
  int vgpr_budget = 256, sgpr_budget = 102;
  bool spill = true;
  // LDS bytes per workgroup the kernel itself uses and the most work-items a
  // workgroup has: spilled VGPRs go to LDS while the LDS a workgroup may have
  // (spilling.h: without lowering the occupancy waves_per_simd asks for)
  // holds them, else to scratch. Only for one-dimensional workgroups
  // (workitem_dims 1: the local id x is the work-item's flat id) or
  // workgroups of one wave (max_workgroup <= 64: the lane is).
  uint32_t lds_bytes = 0;
  uint32_t max_workgroup = 256;
  int waves_per_simd = 8;
  int workitem_dims = 1;
  // The SGPR where the hardware puts the wave's scratch offset when the
  // kernel asks for it (VGPR spills need it; -1: VGPRs cannot spill).
  int scratch_offset_sgpr = -1;
  // Keep an SGPR a VALU writes apart from one a VMEM instruction or a lane
  // select reads just after, where a register allows (costly_sharing.h).
  bool avoid_sgpr_hazard_sharing = false;
};

// Largest VGPR count (per lane) that lets `waves` waves run on one SIMD, and
// the same for SGPRs (GFX9: 256 VGPRs in granules of 4; 800 SGPRs in granules
// of 16, of which 6 per wave go to VCC, FLAT_SCRATCH and XNACK_MASK, and at
// most 102 addressable). Throws for waves outside 1..10.
int vgpr_budget(int waves_per_simd);
int sgpr_budget(int waves_per_simd);

}  // namespace k100::codegen
