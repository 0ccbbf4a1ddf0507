// Spilling: what allocation does when a file's registers do not fit.
//
// Registers to spill are chosen where the most is live, cheapest first: a
// constant is written again before each read (rematerialised); otherwise the
// register with the fewest reads and writes per point it lives. An SGPR goes
// to a lane of a linear VGPR (v_writelane_b32 after each write,
// v_readlane_b32 into a short-lived SGPR before each read); a VGPR to a dword
// slot of the wave's scratch memory (buffer_store_dword / buffer_load_dword
// through the private segment buffer s[0:3] and the wave's scratch offset).
// Registers made by spilling are never spilled again.
#pragma once

#include <cstdint>
#include <vector>

#include "interference.h"
#include "k100/codegen/allocation.h"

namespace k100::codegen {

struct SpillState {
  int scratch_offset_code = -1;  // where the hardware puts the wave's scratch offset (an SGPR)
  // LDS spill area: bytes [lds_base, lds_end) per workgroup, slots of
  // lds_stride bytes (4 x 64 x waves per workgroup); lds_end == lds_base: none.
  uint32_t lds_base = 0, lds_end = 0, lds_stride = 0;
  uint32_t lds_slots = 0;
  int lds_address_reg = -1;  // 4 x the flat local id, written at the kernel's entry
  int vgpr_spills_to_lds = 0;
  std::vector<char> no_spill;    // per register
  std::vector<int> lanes_regs;   // linear VGPRs holding spilled SGPRs, 64 lanes each
  int lanes_used = 0;
  int rsrc_reg = -1, offset_reg = -1;  // scratch resource and offset entry values
  uint32_t scratch_dwords = 0;
  int sgpr_spills = 0, vgpr_spills = 0, remats = 0;
  int scope = -1;
};

// Spills registers of `file` so that every point's pressure fits `budget`;
// when it already fits (placement failed for alignment), spills the cheapest
// register live where `failing` is most crowded. Returns false when nothing
// can be spilled.
// Where VGPR spills may go in LDS for a kernel with these options (sets the
// lds_* fields; none when `options` leave no room or the workgroup may be
// more than one-dimensional).
void plan_lds_spills(const AllocationOptions& options, SpillState& s);

bool spill_registers(MFunction& f, const Interference& ig, RegFile file, int budget, int failing, SpillState& s);

}  // namespace k100::codegen
