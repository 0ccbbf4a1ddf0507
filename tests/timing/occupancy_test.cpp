// Occupancy: how many workgroups of a kernel one CU holds, from its VGPRs,
// SGPRs, LDS and workgroup size (GFX9 limits).
#include <gtest/gtest.h>

#include "k100/timing/occupancy.h"

namespace k100::timing {
namespace {

emu::ObservedDispatch kernel(uint32_t vgprs, uint32_t sgprs, uint32_t lds, uint32_t waves_per_group) {
  emu::ObservedDispatch d;
  d.kernel = "k";
  d.workgroups = 1000;
  d.vgprs = vgprs;
  d.sgprs = sgprs;
  d.lds_bytes = lds;
  d.waves_per_workgroup = waves_per_group;
  d.workgroup_items = 64 * waves_per_group;
  return d;
}

TEST(Occupancy, VgprsLimitWavesPerSimd) {
  const MachineParams m = k100_lc();
  EXPECT_EQ(occupancy(kernel(24, 16, 0, 1), m).waves_per_simd, 10u);  // slot limit
  EXPECT_EQ(occupancy(kernel(24, 16, 0, 1), m).limit, OccupancyLimit::Waves);
  for (uint32_t v : {32u, 64u, 128u, 256u}) {
    Occupancy o = occupancy(kernel(v, 16, 0, 1), m);
    EXPECT_EQ(o.waves_per_simd, 256 / v) << v << " VGPRs";
    EXPECT_EQ(o.limit, OccupancyLimit::Vgprs);
    EXPECT_EQ(o.workgroups_per_cu, 4 * (256 / v));  // one-wave workgroups fill all 4 SIMDs
  }
  // Granules of 4: 65 VGPRs allocate 68.
  EXPECT_EQ(occupancy(kernel(65, 16, 0, 1), m).vgpr_alloc, 68u);
}

TEST(Occupancy, SgprsAllocateInGranulesOf16) {
  const MachineParams m = k100_lc();
  Occupancy o = occupancy(kernel(16, 104, 0, 1), m);
  EXPECT_EQ(o.sgpr_alloc, 112u);
  EXPECT_EQ(o.waves_per_simd, 800u / 112u);  // 7
  EXPECT_EQ(o.limit, OccupancyLimit::Sgprs);
}

TEST(Occupancy, LdsLimitsWorkgroupsPerCu) {
  const MachineParams m = k100_lc();
  Occupancy o = occupancy(kernel(16, 16, 20000, 1), m);
  EXPECT_EQ(o.lds_alloc, 20480u);  // 512-byte granules
  EXPECT_EQ(o.workgroups_per_cu, 3u);
  EXPECT_EQ(o.limit, OccupancyLimit::Lds);
  EXPECT_DOUBLE_EQ(o.resident_waves_per_simd, 0.75);
}

TEST(Occupancy, WorkgroupSizeAndBarriers) {
  const MachineParams m = k100_lc();
  // 16-wave workgroups (1024 items) with 4 waves per SIMD: exactly one per CU.
  Occupancy big = occupancy(kernel(64, 16, 0, 16), m);
  EXPECT_EQ(big.workgroups_per_cu, 1u);
  EXPECT_DOUBLE_EQ(big.resident_waves_per_simd, 4.0);
  // With 3 waves per SIMD a 16-wave workgroup does not fit on a CU at all.
  EXPECT_EQ(occupancy(kernel(80, 16, 0, 16), m).workgroups_per_cu, 0u);
  // Two-wave workgroups would fit 20 per CU by wave slots; barriers allow 16.
  Occupancy two = occupancy(kernel(16, 16, 0, 2), m);
  EXPECT_EQ(two.workgroups_per_cu, 16u);
  EXPECT_EQ(two.limit, OccupancyLimit::Barriers);
  // One-wave workgroups use no barrier: 40 per CU.
  EXPECT_EQ(occupancy(kernel(16, 16, 0, 1), m).workgroups_per_cu, 40u);
}

}  // namespace
}  // namespace k100::timing
