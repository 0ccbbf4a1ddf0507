// Spilling: what allocation does when a file's registers do not fit.
//
// Registers to spill are chosen where the most is live, cheapest first: a
// constant is written again before each read (rematerialised); otherwise the
// register with the fewest reads and writes per point it lives. An SGPR goes
// to a lane of a linear VGPR (v_writelane_b32 after each write,
// v_readlane_b32 into a short-lived SGPR before each read); a VGPR to a dword
// slot in LDS while the workgroup has room (ds_write_b32 / ds_read_b32), then
// to the wave's scratch memory (buffer_store_dword / buffer_load_dword
// through the private segment buffer s[0:3] and the wave's scratch offset).
// Registers made by spilling are never spilled again.
//
// LDS slots: the spill area begins after the kernel's own LDS (lds_bytes,
// rounded up to a dword); slot k of the work-item with flat id i in its
// workgroup is the dword at area + 4 (k W + i), W = 64 x the waves of the
// largest workgroup (max_workgroup), so a slot's 64 lanes are 64 consecutive
// dwords (no bank conflict) and no two work-items of a workgroup share one.
// The flat id is the local id x when the kernel enables only that one (its
// workgroups are one-dimensional), the lane's index in the wave when a
// workgroup is one wave (max_workgroup <= 64); other kernels with 2D/3D
// local ids spill to scratch. Room: the LDS a workgroup may have without
// lowering the occupancy the kernel asks for (waves_per_simd) below what its
// own LDS already allows, and never over 64 KiB.
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
  bool lds_by_lane = false;  // the flat id is the lane's index in the wave (a one-wave workgroup)
  int vgpr_spills_to_lds = 0;
  std::vector<char> no_spill;    // per register
  std::vector<int> lanes_regs;   // linear VGPRs holding spilled SGPRs, 64 lanes each
  int lanes_used = 0;
  int rsrc_reg = -1, offset_reg = -1;  // scratch resource and offset entry values
  uint32_t scratch_dwords = 0;
  int sgpr_spills = 0, vgpr_spills = 0, remats = 0;
  int scope = -1;
};

// Where VGPR spills may go in LDS for a kernel with these options (sets the
// lds_* fields; none when `options` leave no room, or the workgroup may be
// more than one-dimensional and more than one wave).
void plan_lds_spills(const AllocationOptions& options, SpillState& s);

// Spills registers of `file` so that every point's pressure fits `budget`;
// when it already fits (placement failed for alignment), spills the cheapest
// register live where `failing` is most crowded. Returns false when nothing
// can be spilled.
bool spill_registers(MFunction& f, const Interference& ig, RegFile file, int budget, int failing, SpillState& s);

}  // namespace k100::codegen
