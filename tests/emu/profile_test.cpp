// Profile counters (instruction classes, lane utilisation, bytes, 64-byte
// lines per access, distinct lines, LDS bank conflicts) and the tracer.
#include <gtest/gtest.h>

#include <sstream>

#include "emu_test_support.h"

namespace k100::emu::test {

namespace {

// Per wave: SALU 3, SMEM 1, waitcnt 2, VALU 3 (one with half the lanes), VMEM 2, LDS 1, branch 1, other 1 (s_endpgm).
const char* kMix = R"(
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_mov_b32 s4, 1
  s_add_u32 s4, s4, 2
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  global_load_dword v2, v1, s[2:3]
  s_mov_b32 s5, 0xffffffff
  s_waitcnt vmcnt(0)
  ds_write_b32 v1, v2
  s_mov_b32 exec_hi, 0
  v_add_u32 v2, 1, v2
  v_add_u32 v2, 1, v2
  s_branch .Lnext
.Lnext:
  global_store_dword v1, v2, s[2:3]
  s_endpgm
)";

// Strided vector accesses and LDS patterns for the detailed counters.
const char* kPatterns = R"(
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v3, 6, v0
  global_load_dword v2, v1, s[2:3]
  global_load_dword v4, v3, s[2:3]
  s_waitcnt vmcnt(0)
  ds_read_b32 v5, v1
  v_lshlrev_b32 v6, 7, v0
  ds_read_b32 v7, v6
  v_mov_b32 v8, 0
  ds_read_b32 v9, v8
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";

const char* kTraced = R"(
  s_mov_b32 s4, 0x1234
  v_mov_b32 v1, 0x55
  v_add_u32 v1, v0, v1
  s_endpgm
)";

class EmuProfile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    KernelOptions lds;
    lds.lds = 8192;
    auto co = assemble(kernel_asm("mix", kMix, lds) + kernel_asm("patterns", kPatterns, lds) + kernel_asm("traced", kTraced),
                       "profile", &why);
    if (!co) K100_ORACLE_MISSING(why);
    prog_ = dev_.load_code_object(*co, "profile.hsaco");
  }
  Device dev_;
  std::shared_ptr<const Program> prog_;
};

}  // namespace

TEST_F(EmuProfile, ClassesLanesAndBytes) {
  Buffers buf(dev_);
  uint64_t data = buf.zeros(64 * 4 * 4);
  LaunchConfig l;
  l.grid = {256, 1, 1};
  l.workgroup = {64, 1, 1};
  DispatchResult r = dev_.dispatch(*prog_, "mix", l, Args().add(data).bytes());
  ASSERT_TRUE(r.ok()) << r.fault->report();
  const Profile& p = r.profile;
  std::printf("%s", p.format_text().c_str());
  const uint64_t waves = 4;
  EXPECT_EQ(p.waves, waves);
  EXPECT_EQ(p.workgroups, 4u);
  EXPECT_EQ(p.count(InstClass::SALU), 4 * waves);
  EXPECT_EQ(p.count(InstClass::SMEM), 1 * waves);
  EXPECT_EQ(p.count(InstClass::Waitcnt), 2 * waves);
  EXPECT_EQ(p.count(InstClass::VALU), 3 * waves);
  EXPECT_EQ(p.count(InstClass::VMEM), 2 * waves);
  EXPECT_EQ(p.count(InstClass::LDS), 1 * waves);
  EXPECT_EQ(p.count(InstClass::Branch), 1 * waves);
  EXPECT_EQ(p.count(InstClass::Other), 1 * waves);
  EXPECT_EQ(p.wave_instructions, 15 * waves);
  // One full-width VALU instruction and two with 32 lanes: (64 + 32 + 32) / (3 * 64).
  EXPECT_DOUBLE_EQ(p.valu_utilization(), 128.0 / 192.0);
  // 8 kernarg bytes + 256 loaded per wave; 32 lanes store 4 bytes each.
  EXPECT_EQ(p.bytes_read, waves * (8 + 256));
  EXPECT_EQ(p.bytes_written, waves * 128);
  EXPECT_FALSE(p.detailed);
  std::string json = p.format_json();
  EXPECT_NE(json.find("\"valu\":12"), std::string::npos) << json;
}

TEST_F(EmuProfile, LinesAndBankConflicts) {
  Buffers buf(dev_);
  uint64_t data = buf.zeros(64 * 64);
  LaunchConfig l;
  l.grid = {64, 1, 1};
  l.workgroup = {64, 1, 1};
  DispatchOptions opt;
  opt.detailed_profile = true;
  DispatchResult r = dev_.dispatch(*prog_, "patterns", l, Args().add(data).bytes(), opt);
  ASSERT_TRUE(r.ok()) << r.fault->report();
  const Profile& p = r.profile;
  std::printf("%s", p.format_text().c_str());
  // Coalesced dwords: 256 bytes = 4 lines; a 64-byte stride: 64 lines.
  EXPECT_EQ(p.vmem_accesses, 2u);
  EXPECT_EQ(p.vmem_lines, 4u + 64u);
  EXPECT_EQ(p.distinct_lines, 64u);  // the strided access covers the coalesced one's lines
  EXPECT_EQ(p.distinct_lines_read, 64u);
  EXPECT_EQ(p.distinct_lines_written, 0u);
  // LDS: consecutive dwords no conflict; a 128-byte stride puts 32 lanes of each
  // half-wave into one bank (31 extra cycles per half); a broadcast is free.
  EXPECT_EQ(p.lds_accesses, 3u);
  EXPECT_EQ(p.lds_bank_conflicts, 62u);
  EXPECT_NE(p.format_json().find("\"lds_bank_conflicts\":62"), std::string::npos);
}

TEST_F(EmuProfile, LinesReadWrittenAndPerRange) {
  Buffers buf(dev_);
  uint64_t data = buf.zeros(64 * 4 * 4);
  LaunchConfig l;
  l.grid = {256, 1, 1};
  l.workgroup = {64, 1, 1};
  DispatchOptions opt;
  opt.detailed_profile = true;
  opt.line_regions = {{data, data + 128}, {data + 128, data + 1024}};
  DispatchResult r = dev_.dispatch(*prog_, "mix", l, Args().add(data).bytes(), opt);
  ASSERT_TRUE(r.ok()) << r.fault->report();
  const Profile& p = r.profile;
  // Every wave loads the same 256 bytes (4 lines) and stores 32 lanes x 4 bytes (2 lines).
  EXPECT_EQ(p.distinct_lines, 4u);
  EXPECT_EQ(p.distinct_lines_read, 4u);
  EXPECT_EQ(p.distinct_lines_written, 2u);
  ASSERT_EQ(p.regions.size(), 2u);
  EXPECT_EQ(p.regions[0].distinct, 2u);
  EXPECT_EQ(p.regions[0].requested, 4u * (2 + 2));  // per wave: 2 lines loaded, 2 stored
  EXPECT_EQ(p.regions[1].distinct, 2u);
  EXPECT_EQ(p.regions[1].requested, 4u * 2);        // per wave: the load's other 2 lines
  EXPECT_NE(p.format_json().find("\"distinct_lines_written\":2"), std::string::npos);
}

TEST_F(EmuProfile, TracePrintsInstructionsAndWrittenRegisters) {
  std::ostringstream out;
  TraceOptions t;
  t.out = &out;
  t.filters.push_back({0, 0, 0x3});  // workgroup 0, wave 0, lanes 0 and 1
  DispatchOptions opt;
  opt.trace = &t;
  LaunchConfig l;
  l.grid = {128, 1, 1};
  l.workgroup = {64, 1, 1};
  DispatchResult r = dev_.dispatch(*prog_, "traced", l, {}, opt);
  ASSERT_TRUE(r.ok()) << r.fault->report();
  std::string s = out.str();
  std::printf("%s", s.c_str());
  EXPECT_NE(s.find("s_mov_b32 s4, 0x1234"), std::string::npos);
  EXPECT_NE(s.find("s4=0x00001234"), std::string::npos);
  EXPECT_NE(s.find("v1[0]=0x00000055"), std::string::npos);
  EXPECT_NE(s.find("v1[1]=0x00000056"), std::string::npos);  // lane 1: 1 + 0x55
  EXPECT_EQ(s.find("v1[2]"), std::string::npos);             // lane 2 not selected
  EXPECT_EQ(s.find("[wg 1"), std::string::npos);              // workgroup 1 not selected
  EXPECT_NE(s.find("s_endpgm"), std::string::npos);
}

}  // namespace k100::emu::test
