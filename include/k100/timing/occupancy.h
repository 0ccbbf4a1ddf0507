// k100lc timing: how many workgroups and waves of a kernel one CU holds.
//
// GFX9 rules: a wave holds its VGPRs (per lane, in granules of 4, 256 per
// SIMD lane), its SGPRs (granules of 16, 800 per SIMD) and a slot (10 per
// SIMD); a workgroup holds its LDS (granules of 512 bytes, 64 KiB per CU),
// all its waves on one CU, and, when it has more than one wave, one of the
// CU's 16 barrier resources.
#pragma once

#include <cstdint>

#include "k100/emu/observer.h"
#include "k100/timing/machine.h"

namespace k100::timing {

enum class OccupancyLimit : uint8_t { Waves, Vgprs, Sgprs, Lds, Barriers };
const char* occupancy_limit_name(OccupancyLimit l);

struct Occupancy {
  uint32_t vgpr_alloc = 0, sgpr_alloc = 0, lds_alloc = 0;  // per wave / per workgroup, rounded to granules
  uint32_t waves_per_simd = 0;     // wave slots per SIMD the registers allow (<= 10)
  uint32_t workgroups_per_cu = 0;  // resident workgroups per CU
  double resident_waves_per_simd = 0;  // workgroups_per_cu * waves per workgroup / SIMDs
  OccupancyLimit limit = OccupancyLimit::Waves;  // what stops one more workgroup
};

Occupancy occupancy(const emu::ObservedDispatch& d, const MachineParams& m);

inline uint32_t round_up(uint32_t v, uint32_t granule) { return granule ? (v + granule - 1) / granule * granule : v; }

}  // namespace k100::timing
