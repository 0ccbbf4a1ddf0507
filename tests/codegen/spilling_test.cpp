// Spilling and long branches on the emulator (its checks on, LDS races
// included): 300 VGPR values live at once under the 8-wave budget go to the
// LDS the workgroup has room for, then to scratch; a kernel whose spills fit
// in LDS uses no scratch (also in a 2D workgroup of one wave), the same
// kernel with no LDS to spare spills to scratch; 150 SGPR values go to VGPR lanes, and a loop body of 40,000
// instructions branches back through a long jump; each kernel's result is
// checked per lane (four waves per workgroup) against the host.
#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"
#include "test_kernels.h"

namespace {

using namespace k100::codegen;

using test_kernels::launched_here;
using namespace k100::kernels;

const Signature kSig("spill_k", {out("y", "u32"), value("n", "u32")});
constexpr int kValues = 300, kScalars = 150, kBody = 40000;

// Values that fit in LDS at 4 waves per SIMD (64 VGPRs; 16 slots per lane).
constexpr int kLdsValues = 72;

// v[i] = tid + 13 i for i < values, then acc = 3 acc + v[i] from the last to the first.
uint32_t vgpr_model(uint32_t tid, int values = kValues) {
  uint32_t acc = 0;
  for (int i = values - 1; i >= 0; --i) acc = 3 * acc + (tid + 13u * uint32_t(i));
  return acc;
}

// s[i] = n + 7 i for i < 150, then acc = 5 acc + s[i] from the last to the first (uniform).
uint32_t sgpr_model(uint32_t n) {
  uint32_t acc = 0;
  for (int i = kScalars - 1; i >= 0; --i) acc = 5 * acc + (n + 7u * uint32_t(i));
  return acc;
}

struct Built {
  BuildReport report;
};
Built g_vgpr, g_sgpr, g_long, g_lds, g_no_room, g_lds_2d;

// The work-item's flat id: the local id x, or x + width y in a 2D workgroup
// `width` wide.
void build_vgpr_kernel(Kernel& k, int values, int width = 0) {
  VGPR tid = k.local_id();
  if (width) {
    tid = k.vgpr(1, "flat id");
    k.v_mad_u32_u24(tid, k.local_id(1), width, k.local_id(0));
  }
  std::vector<VGPR> v;
  for (int i = 0; i < values; ++i) {
    v.push_back(k.vgpr(1, "v" + std::to_string(i)));
    k.v_add_u32(v.back(), 13 * i, tid);
  }
  const VGPR acc = k.vgpr(1, "acc"), t = k.vgpr(1, "t"), addr = k.vgpr(1, "address");
  k.v_mov_b32(acc, 0);
  for (int i = values - 1; i >= 0; --i) {
    k.v_lshlrev_b32(t, 1, acc);
    k.v_add_u32(acc, acc, t);
    k.v_add_u32(acc, acc, v[size_t(i)]);
  }
  k.v_lshlrev_b32(addr, 2, tid);
  k.global_store_dword(addr, acc, k.arg("y"));
}

// Builds `values` live VGPR values under `options`, keeping the report in `into`.
k100::codeobj::CodeObject build_values(k100::isa::Target target, const char* name, KernelOptions options, int values,
                                       Built& into, int width = 0) {
  Kernel k(Signature(name, kSig.params()), target, options);
  build_vgpr_kernel(k, values, width);
  auto co = k.build();
  into.report = k.report();
  return co;
}

k100::codeobj::CodeObject build_vgprs(k100::isa::Target target) {
  return build_values(target, "spill_vgpr_k", {.waves_per_simd = 8}, kValues, g_vgpr);
}

// 4 waves per SIMD, workgroups of up to 256: 16 KiB of LDS per workgroup
// keep that occupancy, 16 slots per lane.
k100::codeobj::CodeObject build_lds(k100::isa::Target target) {
  return build_values(target, "spill_lds_k", {.waves_per_simd = 4}, kLdsValues, g_lds);
}

// The same with 16 KiB of the kernel's own LDS: no room left.
k100::codeobj::CodeObject build_no_room(k100::isa::Target target) {
  return build_values(target, "spill_no_room_k", {.waves_per_simd = 4, .lds_bytes = 16384}, kLdsValues, g_no_room);
}

// A 2D workgroup of one wave (8 x 8): LDS slots by lane.
k100::codeobj::CodeObject build_lds_2d(k100::isa::Target target) {
  return build_values(target, "spill_lds_2d_k", {.waves_per_simd = 4, .max_workgroup = 64, .workitem_dims = 2},
                      kLdsValues, g_lds_2d, 8);
}

k100::codeobj::CodeObject build_sgprs(k100::isa::Target target) {
  Kernel k(Signature("spill_sgpr_k", kSig.params()), target, {.waves_per_simd = 8});
  std::vector<SGPR> s;
  for (int i = 0; i < kScalars; ++i) {
    s.push_back(k.sgpr(1, "s" + std::to_string(i)));
    k.s_add_u32(s.back(), k.arg("n"), 7 * i);
  }
  const SGPR acc = k.sgpr(1, "acc"), t = k.sgpr(1, "t");
  k.s_mov_b32(acc, 0);
  for (int i = kScalars - 1; i >= 0; --i) {
    k.s_lshl_b32(t, acc, 2);
    k.s_add_u32(acc, acc, t);
    k.s_add_u32(acc, acc, s[size_t(i)]);
  }
  const VGPR v = k.vgpr(1, "v"), addr = k.vgpr(1, "address");
  k.v_mov_b32(v, acc);
  k.v_lshlrev_b32(addr, 2, k.local_id());
  k.global_store_dword(addr, v, k.arg("y"));
  auto co = k.build();
  g_sgpr.report = k.report();
  return co;
}

// A uniform loop of n trips over a body of 40,000 adds: acc = n * 40000 + tid.
k100::codeobj::CodeObject build_long(k100::isa::Target target) {
  Kernel k(Signature("long_branch_k", kSig.params()), target);
  const VGPR acc = k.vgpr(1, "acc"), addr = k.vgpr(1, "address");
  const SGPR left = k.sgpr(1, "left");
  k.v_mov_b32(acc, k.local_id());
  k.s_mov_b32(left, k.arg("n"));
  k.loop_();
  k.s_cmp_eq_u32(left, 0);
  k.break_(Cond::Scc1);
  for (int i = 0; i < kBody; ++i) k.v_add_u32(acc, 1, acc);
  k.s_sub_u32(left, left, 1);
  k.end_loop();
  k.v_lshlrev_b32(addr, 2, k.local_id());
  k.global_store_dword(addr, acc, k.arg("y"));
  auto co = k.build();
  g_long.report = k.report();
  return co;
}

class Spilling : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = new Registry;
    registry_->add(launched_here(Signature("spill_vgpr_k", kSig.params()), build_vgprs));
    registry_->add(launched_here(Signature("spill_sgpr_k", kSig.params()), build_sgprs));
    registry_->add(launched_here(Signature("long_branch_k", kSig.params()), build_long));
    registry_->add(launched_here(Signature("spill_lds_k", kSig.params()), build_lds));
    registry_->add(launched_here(Signature("spill_no_room_k", kSig.params()), build_no_room));
    registry_->add(launched_here(Signature("spill_lds_2d_k", kSig.params()), build_lds_2d));
    dev_ = new EmuTestDevice(*registry_, std::string(K100_SOURCE_DIR) + "/kernels");
  }
  static void TearDownTestSuite() {
    delete dev_;
    delete registry_;
  }
  // One workgroup of `lanes` work-items (`rows` rows of them), every emulator check on.
  static std::vector<uint32_t> run(const std::string& kernel, uint32_t n, uint32_t lanes = 64, uint32_t rows = 1) {
    DeviceBuffer<uint32_t> dy(*dev_, lanes);
    dev_->options().checks = {};
    EXPECT_TRUE(dev_->options().checks.lds_races && dev_->options().checks.waits);
    dev_->launch(kernel, {lanes / rows, rows}, {lanes / rows, rows}, kSig.pack({dy.addr(), int64_t(n)}));
    return dy.download();
  }
  static Registry* registry_;
  static EmuTestDevice* dev_;
};
Registry* Spilling::registry_ = nullptr;
EmuTestDevice* Spilling::dev_ = nullptr;

TEST_F(Spilling, ThreeHundredLiveVgprValuesGoToLdsThenScratchAndStayRight) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  const BuildReport& r = g_vgpr.report;
  EXPECT_LE(r.allocation.vgprs, 32);
  EXPECT_GE(r.vgpr_spills, kValues - 32);
  // 8 waves per SIMD, 4 waves per workgroup: 8 KiB of LDS per workgroup, 8 slots per lane
  EXPECT_EQ(r.vgpr_spills_to_lds, 8);
  EXPECT_EQ(r.lds_spill_bytes, 8u * 4 * 256);
  EXPECT_EQ(r.scratch_bytes, 4u * uint32_t(r.vgpr_spills - r.vgpr_spills_to_lds));
  for (uint32_t lanes : {64u, 256u}) {
    const auto y = run("spill_vgpr_k", 0, lanes);
    for (uint32_t lane = 0; lane < lanes; ++lane) ASSERT_EQ(y[lane], vgpr_model(lane)) << lane;
  }
}

TEST_F(Spilling, VgprSpillsThatFitInTheWorkgroupsLdsUseNoScratch) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  const BuildReport& r = g_lds.report;
  EXPECT_LE(r.allocation.vgprs, 64);
  EXPECT_GE(r.vgpr_spills, kLdsValues - 64);
  EXPECT_EQ(r.vgpr_spills_to_lds, r.vgpr_spills);
  EXPECT_EQ(r.lds_spill_bytes, uint32_t(r.vgpr_spills) * 4 * 256);
  EXPECT_EQ(r.scratch_bytes, 0u);
  for (uint32_t lanes : {64u, 200u, 256u}) {
    const auto y = run("spill_lds_k", 0, lanes);
    for (uint32_t lane = 0; lane < lanes; ++lane) ASSERT_EQ(y[lane], vgpr_model(lane, kLdsValues)) << lane;
  }
}

TEST_F(Spilling, AOneWaveTwoDimensionalWorkgroupSpillsToLdsByLane) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  const BuildReport& r = g_lds_2d.report;
  EXPECT_GE(r.vgpr_spills, kLdsValues - 64);
  EXPECT_EQ(r.vgpr_spills_to_lds, r.vgpr_spills);
  EXPECT_EQ(r.scratch_bytes, 0u);
  const auto y = run("spill_lds_2d_k", 0, 64, 8);
  for (uint32_t lane = 0; lane < 64; ++lane) ASSERT_EQ(y[lane], vgpr_model(lane, kLdsValues)) << lane;
}

TEST_F(Spilling, WithNoLdsToSpareVgprSpillsGoToScratch) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  const BuildReport& r = g_no_room.report;
  EXPECT_GE(r.vgpr_spills, kLdsValues - 64);
  EXPECT_EQ(r.vgpr_spills_to_lds, 0);
  EXPECT_EQ(r.lds_spill_bytes, 0u);
  EXPECT_EQ(r.scratch_bytes, 4u * uint32_t(r.vgpr_spills));
  const auto y = run("spill_no_room_k", 0, 256);
  for (uint32_t lane = 0; lane < 256; ++lane) ASSERT_EQ(y[lane], vgpr_model(lane, kLdsValues)) << lane;
}

TEST_F(Spilling, SgprPressureSpillsToVgprLanes) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  EXPECT_LE(g_sgpr.report.allocation.sgprs, sgpr_budget(8));
  EXPECT_GT(g_sgpr.report.sgpr_spills, 0);
  EXPECT_EQ(g_sgpr.report.vgpr_spills, 0);
  for (uint32_t n : {0u, 9u, 123456u}) {
    const auto y = run("spill_sgpr_k", n);
    for (uint32_t lane = 0; lane < 64; ++lane) ASSERT_EQ(y[lane], sgpr_model(n)) << lane;
  }
}

TEST_F(Spilling, AFortyThousandInstructionLoopBodyBranchesBackThroughALongJump) {
  ASSERT_TRUE(dev_->broken().empty()) << dev_->broken()[0].second;
  EXPECT_GE(g_long.report.relaxed_branches, 1);
  for (uint32_t n : {0u, 1u, 2u}) {
    const auto y = run("long_branch_k", n);
    for (uint32_t lane = 0; lane < 64; ++lane) ASSERT_EQ(y[lane], lane + n * uint32_t(kBody)) << lane;
  }
}

TEST(SpillingOff, OverBudgetIsANamedErrorWhenSpillingIsOff) {
  Kernel k(kSig, k100::isa::Target::gfx926, {.waves_per_simd = 8, .spill = false});
  std::vector<VGPR> v;
  for (int i = 0; i < 40; ++i) {
    v.push_back(k.vgpr(1, "v" + std::to_string(i)));
    k.v_add_u32(v.back(), i, k.local_id());
  }
  for (int i = 1; i < 40; ++i) k.v_add_u32(v[0], v[0], v[size_t(i)]);
  k.global_store_dword(v[0], v[0], k.arg("y"));
  try {
    k.build();
    FAIL() << "40 live VGPRs fit in 32";
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit in 32 VGPRs"), std::string::npos) << e.what();
  }
}

}  // namespace
