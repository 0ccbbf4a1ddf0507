// The dispatch follows the HSA ABI: user SGPRs in kernel_code_properties
// order, system SGPRs after USER_SGPR_COUNT, workitem ids in v0..v2, the AQL
// packet and queue in device memory, hidden kernel arguments, MODE from
// COMPUTE_PGM_RSRC1, and results independent of the host thread count.
#include <gtest/gtest.h>

#include <cstring>

#include "emu_test_support.h"
#include "k100/emu/loader.h"
#include "kernel_runner.h"

namespace k100::emu::test {

namespace {

// All user SGPRs: s[0:3] private segment buffer, s[4:5] dispatch ptr, s[6:7]
// queue ptr, s[8:9] kernarg, s[10:11] dispatch id, s[12:13] flat scratch
// init, s14 private segment size; system: s15..s17 workgroup id, s18
// workgroup info, s19 private segment wave offset. Each workgroup (one wave)
// writes a 1 KiB record: s0..s19, the packet, queue apertures, MODE, EXEC,
// and v0/v1/v2 of every lane.
const char* kAbiBody = R"(
  s_load_dwordx4 s[20:23], s[8:9], 0x0
  s_waitcnt lgkmcnt(0)
  s_mul_i32 s24, s17, s23
  s_add_u32 s24, s24, s16
  s_mul_i32 s24, s24, s22
  s_add_u32 s24, s24, s15
  s_lshl_b32 s24, s24, 10
  s_add_u32 s20, s20, s24
  s_addc_u32 s21, s21, 0
  s_store_dwordx4 s[0:3], s[20:21], 0x0
  s_store_dwordx4 s[4:7], s[20:21], 0x10
  s_store_dwordx4 s[8:11], s[20:21], 0x20
  s_store_dwordx4 s[12:15], s[20:21], 0x30
  s_store_dwordx4 s[16:19], s[20:21], 0x40
  s_load_dwordx16 s[32:47], s[4:5], 0x0
  s_load_dwordx2 s[48:49], s[6:7], 0x40
  s_getreg_b32 s50, hwreg(HW_REG_MODE)
  s_mov_b64 s[52:53], exec
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[32:35], s[20:21], 0x80
  s_store_dwordx4 s[36:39], s[20:21], 0x90
  s_store_dwordx4 s[40:43], s[20:21], 0xa0
  s_store_dwordx4 s[44:47], s[20:21], 0xb0
  s_store_dwordx2 s[48:49], s[20:21], 0xc0
  s_store_dword s50, s[20:21], 0xc8
  s_store_dwordx2 s[52:53], s[20:21], 0xd0
  v_mbcnt_lo_u32_b32 v3, -1, 0
  v_mbcnt_hi_u32_b32 v3, -1, v3
  v_lshlrev_b32 v4, 2, v3
  global_store_dword v4, v0, s[20:21] offset:0x100
  global_store_dword v4, v1, s[20:21] offset:0x200
  global_store_dword v4, v2, s[20:21] offset:0x300
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
)";

// Copies 32 kernarg dwords to out (the kernel's hidden arguments are checked on the host).
const char* kCopyKernarg = R"(
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_load_dwordx16 s[4:19], s[0:1], 0x0
  s_load_dwordx16 s[20:35], s[0:1], 0x40
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[4:7], s[2:3], 0x0
  s_store_dwordx4 s[8:11], s[2:3], 0x10
  s_store_dwordx4 s[12:15], s[2:3], 0x20
  s_store_dwordx4 s[16:19], s[2:3], 0x30
  s_store_dwordx4 s[20:23], s[2:3], 0x40
  s_store_dwordx4 s[24:27], s[2:3], 0x50
  s_store_dwordx4 s[28:31], s[2:3], 0x60
  s_store_dwordx4 s[32:35], s[2:3], 0x70
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";

// Workgroup of several waves: each wave records its workgroup info SGPR (s3)
// and the lane-0 workitem id at out[wave].
const char* kWaveInfo = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mbcnt_lo_u32_b32 v3, -1, 0
  v_mbcnt_hi_u32_b32 v3, -1, v3
  v_readfirstlane_b32 s6, v0
  s_lshr_b32 s7, s6, 6
  s_lshl_b32 s7, s7, 3
  s_waitcnt lgkmcnt(0)
  s_add_u32 s4, s4, s7
  s_addc_u32 s5, s5, 0
  s_store_dword s3, s[4:5], 0x0
  s_store_dword s6, s[4:5], 0x4
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";

std::string abi_source() {
  KernelOptions all;
  all.private_segment_buffer = all.dispatch_ptr = all.queue_ptr = all.kernarg_ptr = all.dispatch_id = true;
  all.flat_scratch_init = all.private_segment_size = all.wave_offset = true;
  all.wg_id_x = all.wg_id_y = all.wg_id_z = all.wg_info = true;
  all.workitem_id = 2;
  all.private_size = 100;
  all.lds = 1000;
  all.ieee = false;
  all.dx10_clamp = false;
  all.denorm32 = 1;
  KernelOptions copy;
  copy.kernarg_size = 128;
  KernelOptions info;
  info.wg_info = true;
  return kernel_asm("abi_all", kAbiBody, all) + kernel_asm("copy_kernarg", kCopyKernarg, copy) +
         kernel_asm("wave_info", kWaveInfo, info);
}

class EmuDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto co = assemble(abi_source(), "abi", &why);
    if (!co) K100_ORACLE_MISSING(why);
    co_ = *co;
    prog_ = dev_.load_code_object(co_, "abi.hsaco");
  }
  Device dev_;
  std::vector<uint8_t> co_;
  std::shared_ptr<const Program> prog_;
};

}  // namespace

TEST_F(EmuDispatch, UserAndSystemSgprsPacketQueueAndWorkitemIds) {
  const Dim3 groups{3, 2, 2}, wg{4, 4, 2};  // 32 work-items: one wave, half the lanes
  Buffers buf(dev_);
  uint64_t out = buf.zeros(size_t(groups.volume()) * 1024);
  Args a;
  a.add(out).add(groups.x).add(groups.y);
  LaunchConfig l;
  l.grid = {groups.x * wg.x, groups.y * wg.y - 3, groups.z * wg.z};  // last row of groups in y is partial
  l.workgroup = wg;
  DispatchResult r = dev_.dispatch(*prog_, "abi_all", l, a.bytes());
  ASSERT_TRUE(r.ok()) << r.fault->report();
  auto rec = buf.download<uint32_t>(out, size_t(groups.volume()) * 256);
  uint64_t dispatch_id = 0;
  for (uint32_t gz = 0; gz < groups.z; ++gz)
    for (uint32_t gy = 0; gy < groups.y; ++gy)
      for (uint32_t gx = 0; gx < groups.x; ++gx) {
        SCOPED_TRACE("workgroup " + std::to_string(gx) + "," + std::to_string(gy) + "," + std::to_string(gz));
        const uint32_t* s = &rec[size_t((gz * groups.y + gy) * groups.x + gx) * 256];
        auto s64 = [&](int i) { return uint64_t(s[i]) | uint64_t(s[i + 1]) << 32; };
        // Private segment buffer: swizzled, element 4, index stride 64, thread id added.
        uint64_t scratch = uint64_t(s[0]) | uint64_t(s[1] & 0xffff) << 32;
        EXPECT_NE(scratch, 0u);
        EXPECT_EQ(s[1] >> 31, 1u);
        EXPECT_EQ((s[3] >> 19) & 3, 1u);
        EXPECT_EQ((s[3] >> 21) & 3, 3u);
        EXPECT_EQ((s[3] >> 23) & 1, 1u);
        auto alloc = dev_.find_allocation(scratch);  // freed after the dispatch
        EXPECT_FALSE(alloc.has_value());
        // Flat scratch init = this wave's scratch base (wave offset 0); private segment size.
        EXPECT_EQ(s64(12), scratch);
        EXPECT_EQ(s[14], 100u);
        // Kernarg pointer matches the packet's kernarg_address; dispatch id constant.
        const uint32_t* pkt = s + 32;
        EXPECT_EQ(pkt[0] & 0xff, 2u);                      // HSA_PACKET_TYPE_KERNEL_DISPATCH
        EXPECT_EQ(pkt[0] >> 16, 3u);                       // setup: 3 dimensions
        EXPECT_EQ(pkt[1], wg.x | wg.y << 16);              // workgroup_size_x, _y
        EXPECT_EQ(pkt[2] & 0xffff, wg.z);                  // workgroup_size_z
        EXPECT_EQ(pkt[3], l.grid.x);
        EXPECT_EQ(pkt[4], l.grid.y);
        EXPECT_EQ(pkt[5], l.grid.z);
        EXPECT_EQ(pkt[6], 100u);                            // private_segment_size
        EXPECT_EQ(pkt[7], 1000u);                           // group_segment_size
        EXPECT_EQ(uint64_t(pkt[10]) | uint64_t(pkt[11]) << 32, s64(8));  // kernarg_address
        EXPECT_EQ(uint64_t(pkt[8]) | uint64_t(pkt[9]) << 32, prog_->base_address() + prog_->find_kernel("abi_all")->entry);
        if (!dispatch_id) dispatch_id = s64(10);
        EXPECT_EQ(s64(10), dispatch_id);
        // Queue: LDS and scratch aperture bases (high halves).
        EXPECT_EQ(s[48], uint32_t(kSharedApertureBase >> 32));
        EXPECT_EQ(s[49], uint32_t(kPrivateApertureBase >> 32));
        // System SGPRs.
        EXPECT_EQ(s[15], gx);
        EXPECT_EQ(s[16], gy);
        EXPECT_EQ(s[17], gz);
        uint32_t ly = std::min(wg.y, l.grid.y - gy * wg.y);
        uint32_t items = wg.x * ly * wg.z;
        EXPECT_EQ(s[18], 0x80000000u | 1u);  // first wave, one wave in the group
        EXPECT_EQ(s[19], 0u);
        // MODE from rsrc1: denorm32 = 1, denorm16/64 = 3, no DX10 clamp, no IEEE.
        EXPECT_EQ(s[50], 0xd0u);
        EXPECT_EQ(s64(52), (uint64_t(1) << items) - 1);
        // Workitem ids of a (partial) workgroup, x fastest.
        for (uint32_t lane = 0; lane < items; ++lane) {
          EXPECT_EQ(s[64 + lane], lane % wg.x) << lane;
          EXPECT_EQ(s[128 + lane], (lane / wg.x) % ly) << lane;
          EXPECT_EQ(s[192 + lane], lane / (wg.x * ly)) << lane;
        }
      }
}

TEST_F(EmuDispatch, WorkgroupInfoPerWave) {
  Buffers buf(dev_);
  uint64_t out = buf.zeros(64);
  LaunchConfig l;
  l.grid = {200, 1, 1};  // 4 waves, the last one with 8 lanes
  l.workgroup = {256, 1, 1};
  DispatchResult r = dev_.dispatch(*prog_, "wave_info", l, Args().add(out).bytes());
  ASSERT_TRUE(r.ok()) << r.fault->report();
  auto o = buf.download<uint32_t>(out, 8);
  for (uint32_t w = 0; w < 4; ++w) {
    EXPECT_EQ(o[2 * w], (w == 0 ? 0x80000000u : 0u) | 4u) << w;
    EXPECT_EQ(o[2 * w + 1], w * 64) << w;
  }
  EXPECT_EQ(r.profile.waves, 4u);
}

TEST_F(EmuDispatch, HiddenArgumentsV5Layout) {
  // The same code with a hand-written v5-style argument list.
  CodeImage img = image_from_code_object(co_, "abi.hsaco");
  KernelSpec* k = nullptr;
  for (auto& x : img.kernels)
    if (x.name == "copy_kernarg") k = &x;
  ASSERT_NE(k, nullptr);
  k->args = {
      {"out", 0, 8, ArgKind::GlobalBuffer},
      {"", 8, 4, ArgKind::HiddenBlockCountX},     {"", 12, 4, ArgKind::HiddenBlockCountY},
      {"", 16, 4, ArgKind::HiddenBlockCountZ},    {"", 20, 2, ArgKind::HiddenGroupSizeX},
      {"", 22, 2, ArgKind::HiddenGroupSizeY},     {"", 24, 2, ArgKind::HiddenGroupSizeZ},
      {"", 26, 2, ArgKind::HiddenRemainderX},     {"", 28, 2, ArgKind::HiddenRemainderY},
      {"", 30, 2, ArgKind::HiddenRemainderZ},     {"", 32, 8, ArgKind::HiddenGlobalOffsetX},
      {"", 40, 8, ArgKind::HiddenGlobalOffsetY},  {"", 48, 8, ArgKind::HiddenGlobalOffsetZ},
      {"", 56, 2, ArgKind::HiddenGridDims},       {"", 64, 8, ArgKind::HiddenQueuePtr},
      {"", 72, 4, ArgKind::HiddenPrivateBase},    {"", 76, 4, ArgKind::HiddenSharedBase},
      {"", 80, 4, ArgKind::HiddenDynamicLdsSize}, {"", 84, 4, ArgKind::HiddenNone},
      {"", 88, 8, ArgKind::HiddenHeapV1},
  };
  auto prog = dev_.load(img);
  Buffers buf(dev_);
  uint64_t out = buf.zeros(128);
  LaunchConfig l;
  l.grid = {100, 7, 3};
  l.workgroup = {32, 2, 1};
  l.global_offset = {11, 22, 33};
  l.dynamic_lds = 512;
  std::vector<uint8_t> ka(96, 0xee);  // hidden slots are overwritten; explicit bytes kept
  std::memcpy(ka.data(), &out, 8);
  DispatchResult r = dev_.dispatch(*prog, "copy_kernarg", l, ka);
  ASSERT_TRUE(r.ok()) << r.fault->report();
  auto o = buf.download<uint8_t>(out, 96);
  auto u16 = [&](size_t at) { return uint32_t(o[at] | o[at + 1] << 8); };
  auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, &o[at], 4); return v; };
  auto u64 = [&](size_t at) { uint64_t v; std::memcpy(&v, &o[at], 8); return v; };
  EXPECT_EQ(u64(0), out);
  EXPECT_EQ(u32(8), 3u);   // full workgroups in x: 100 / 32
  EXPECT_EQ(u32(12), 3u);  // 7 / 2
  EXPECT_EQ(u32(16), 3u);
  EXPECT_EQ(u16(20), 32u);
  EXPECT_EQ(u16(22), 2u);
  EXPECT_EQ(u16(24), 1u);
  EXPECT_EQ(u16(26), 4u);  // 100 % 32
  EXPECT_EQ(u16(28), 1u);
  EXPECT_EQ(u16(30), 0u);
  EXPECT_EQ(u64(32), 11u);
  EXPECT_EQ(u64(40), 22u);
  EXPECT_EQ(u64(48), 33u);
  EXPECT_EQ(u16(56), 3u);
  EXPECT_NE(u64(64), 0u);
  EXPECT_EQ(u32(72), uint32_t(kPrivateApertureBase >> 32));
  EXPECT_EQ(u32(76), uint32_t(kSharedApertureBase >> 32));
  EXPECT_EQ(u32(80), 512u);
  EXPECT_EQ(u32(84), 0u);
  EXPECT_EQ(u64(88), 0u);
  EXPECT_EQ(r.profile.workgroups, 4u * 4 * 3);
}

TEST_F(EmuDispatch, ProgramsUnmapTheirImage) {
  uint64_t before = dev_.bytes_allocated();
  auto extra = dev_.load_code_object(co_, "abi again");
  EXPECT_GT(dev_.bytes_allocated(), before);
  uint64_t base = extra->base_address();
  ASSERT_TRUE(dev_.find_allocation(base).has_value());
  EXPECT_NE(dev_.find_allocation(base)->label.find("abi again"), std::string::npos);
  extra.reset();
  EXPECT_EQ(dev_.bytes_allocated(), before);
  EXPECT_FALSE(dev_.find_allocation(base).has_value());
}

TEST_F(EmuDispatch, RejectsInvalidLaunches) {
  LaunchConfig l;
  l.grid = {64, 1, 1};
  l.workgroup = {2048, 1, 1};
  EXPECT_THROW(dev_.dispatch(*prog_, "wave_info", l, {}), Error);
  l.workgroup = {64, 1, 1};
  l.grid = {0, 1, 1};
  EXPECT_THROW(dev_.dispatch(*prog_, "wave_info", l, {}), Error);
  l.grid = {64, 1, 1};
  l.dynamic_lds = 70000;
  EXPECT_THROW(dev_.dispatch(*prog_, "wave_info", l, {}), Error);
}

// The same kernels with 1 and 4 host threads give identical bytes (no atomics involved).
TEST(EmuThreads, ResultsDoNotDependOnThreadCount) {
  K100_LOAD_KERNELS(p, "reductions_v5", false);
  K100_LOAD_KERNELS(q, "private_v4", false);
  Device& dev = shared_device();
  Rng rng(77);
  const int M = 64, N = 80, K = 48;
  auto A = rng.floats(size_t(M * K), -1, 1), B = rng.floats(size_t(K * N), -1, 1);
  auto ints = rng.words(4096);
  std::vector<std::vector<float>> mm;
  std::vector<std::vector<uint32_t>> priv;
  std::vector<Profile> profiles;
  for (unsigned threads : {1u, 4u, 3u}) {
    Buffers buf(dev);
    uint64_t dA = buf.upload(A), dB = buf.upload(B), dC = buf.zeros(size_t(M * N) * 4);
    auto r = run_kernel(*p, "matmul_tiled", LaunchConfig::groups({5, 4, 1}, {16, 16, 1}),
                        Args().add(dA).add(dB).add(dC).add(M).add(N).add(K), threads);
    mm.push_back(buf.download<float>(dC, size_t(M * N)));
    profiles.push_back(r.profile);
    uint64_t di = buf.upload(ints), dout = buf.zeros(4096 * 4);
    run_kernel(*q, "private_array", global({4096, 1, 1}, {128, 1, 1}), Args().add(di).add(dout).add(uint32_t(4096)), threads);
    priv.push_back(buf.download<uint32_t>(dout, 4096));
  }
  for (size_t i = 1; i < mm.size(); ++i) {
    EXPECT_EQ(0, std::memcmp(mm[0].data(), mm[i].data(), mm[0].size() * 4)) << "matmul, run " << i;
    EXPECT_EQ(priv[0], priv[i]) << "private_array, run " << i;
    EXPECT_EQ(profiles[0].wave_instructions, profiles[i].wave_instructions);
    EXPECT_EQ(profiles[0].by_class, profiles[i].by_class);
    EXPECT_EQ(profiles[0].bytes_read, profiles[i].bytes_read);
  }
}

}  // namespace k100::emu::test
