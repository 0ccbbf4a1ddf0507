#include "k100/timing/occupancy.h"

#include <algorithm>

namespace k100::timing {

const char* occupancy_limit_name(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Waves: return "wave slots";
    case OccupancyLimit::Vgprs: return "VGPR";
    case OccupancyLimit::Sgprs: return "SGPR";
    case OccupancyLimit::Lds: return "LDS";
    case OccupancyLimit::Barriers: return "workgroups per CU";
  }
  return "?";
}

Occupancy occupancy(const emu::ObservedDispatch& d, const MachineParams& m) {
  Occupancy o;
  o.vgpr_alloc = round_up(std::max<uint32_t>(d.vgprs, 4), 4);
  o.sgpr_alloc = round_up(std::max<uint32_t>(d.sgprs, 16), m.sgpr_granule);
  o.lds_alloc = round_up(d.lds_bytes, m.lds_granule);
  uint32_t by_vgpr = m.vgprs_per_simd_lane / o.vgpr_alloc;
  uint32_t by_sgpr = m.sgprs_per_simd / o.sgpr_alloc;
  o.waves_per_simd = std::min({m.max_waves_per_simd, by_vgpr, by_sgpr});
  OccupancyLimit wave_limit = o.waves_per_simd == m.max_waves_per_simd ? OccupancyLimit::Waves
                              : o.waves_per_simd == by_vgpr           ? OccupancyLimit::Vgprs
                                                                      : OccupancyLimit::Sgprs;
  const uint32_t w = std::max<uint32_t>(d.waves_per_workgroup, 1);
  // A workgroup's waves go to the SIMDs round robin, so n workgroups put
  // ceil(n * w / SIMDs) waves on the fullest SIMD.
  uint32_t by_waves = 0;
  while (by_waves < 4096 && ((by_waves + 1) * w + m.simds_per_cu - 1) / m.simds_per_cu <= o.waves_per_simd) ++by_waves;
  uint32_t by_lds = o.lds_alloc ? m.lds_bytes_per_cu / o.lds_alloc : ~0u;
  uint32_t by_barrier = w > 1 ? m.max_workgroups_per_cu : ~0u;
  o.workgroups_per_cu = std::min({by_waves, by_lds, by_barrier});
  o.limit = o.workgroups_per_cu == by_waves ? wave_limit
            : o.workgroups_per_cu == by_lds ? OccupancyLimit::Lds
                                            : OccupancyLimit::Barriers;
  o.resident_waves_per_simd = double(o.workgroups_per_cu) * w / m.simds_per_cu;
  return o;
}

}  // namespace k100::timing
