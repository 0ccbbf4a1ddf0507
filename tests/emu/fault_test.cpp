// Faults: each bad behaviour stops the dispatch with the documented report
// (kernel, PC, disassembled instruction, lane, address, nearest allocation,
// distance) and the test process carries on using the same device.
#include <gtest/gtest.h>

#include "emu_test_support.h"

namespace k100::emu::test {

namespace {

const char* kLoadOut = "  s_load_dwordx2 s[2:3], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n";

}  // namespace

std::string fault_kernels_source() {
  KernelOptions lds;
  lds.lds = 256;
  KernelOptions plain;
  return kernel_asm("oob_store", std::string(kLoadOut) + "  v_lshlrev_b32 v1, 2, v0\n  global_store_dword v1, v0, s[2:3]\n  s_endpgm\n", plain) +
         kernel_asm("oob_load_scalar", std::string(kLoadOut) + "  s_load_dword s4, s[2:3], 0x400\n  s_waitcnt lgkmcnt(0)\n  s_endpgm\n", plain) +
         kernel_asm("lds_overflow", "  v_lshlrev_b32 v1, 3, v0\n  ds_write_b32 v1, v0\n  s_waitcnt lgkmcnt(0)\n  s_endpgm\n", lds) +
         kernel_asm("gds_overflow", "  s_mov_b32 m0, 0x100\n  v_lshlrev_b32 v1, 3, v0\n  ds_write_b32 v1, v0 gds\n"
                    "  s_waitcnt lgkmcnt(0) expcnt(0)\n  s_endpgm\n", plain) +
         kernel_asm("runaway", ".Lspin:\n  s_add_u32 s4, s4, 1\n  s_branch .Lspin\n  s_endpgm\n", plain) +
         kernel_asm("trap", "  s_nop 0\n  s_trap 2\n  s_endpgm\n", plain) +
         kernel_asm("invalid", "  s_nop 0\n  .long 0xffffffff\n  s_endpgm\n", plain) +
         kernel_asm("unsupported", "  s_cbranch_join s4\n  s_endpgm\n", plain) +
         kernel_asm("write_code", "  s_getpc_b64 s[4:5]\n  v_mov_b32 v1, 0\n  global_store_dword v1, v1, s[4:5]\n  s_endpgm\n", plain) +
         kernel_asm("bad_pc", "  s_mov_b64 s[4:5], 0\n  s_setpc_b64 s[4:5]\n  s_endpgm\n", plain) +
         kernel_asm("fine", std::string(kLoadOut) + "  v_lshlrev_b32 v1, 2, v0\n  global_store_dword v1, v0, s[2:3]\n  s_endpgm\n", plain);
}

class EmuFault : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto co = assemble(fault_kernels_source(), "faults", &why);
    if (!co) K100_ORACLE_MISSING(why);
    prog_ = dev_.load_code_object(*co, "faults.hsaco");
  }
  DispatchResult run(const std::string& kernel, uint64_t arg, uint32_t items = 64, DispatchOptions opt = {}) {
    Args a;
    a.add(arg);
    LaunchConfig l;
    l.grid = {items, 1, 1};
    l.workgroup = {64, 1, 1};
    return dev_.dispatch(*prog_, kernel, l, a.bytes(), opt);
  }
  // The device keeps working after a fault.
  void expect_device_still_works() {
    uint64_t buf = dev_.alloc(256, "after fault");
    DispatchResult r = run("fine", buf);
    ASSERT_TRUE(r.ok()) << r.fault->report();
    std::vector<uint8_t> b(256);
    dev_.read(buf, b);
    auto v = from_bytes<uint32_t>(b);
    for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(v[i], i);
    dev_.free(buf);
  }
  Device dev_;
  std::shared_ptr<const Program> prog_;
};

TEST_F(EmuFault, OutOfBoundsStore) {
  uint64_t buf = dev_.alloc(100, "small output");
  DispatchResult r = run("oob_store", buf);
  ASSERT_FALSE(r.ok());
  const Fault& f = *r.fault;
  std::printf("%s", f.report().c_str());
  EXPECT_EQ(f.kind, FaultKind::OutOfBounds);
  EXPECT_EQ(f.kernel, "oob_store");
  EXPECT_EQ(f.lane, 25);  // the first lane whose dword starts at byte 100
  ASSERT_TRUE(f.address.has_value());
  EXPECT_EQ(*f.address, buf + 100);
  EXPECT_TRUE(f.write);
  EXPECT_EQ(f.access_size, 4u);
  ASSERT_TRUE(f.nearest.has_value());
  EXPECT_EQ(f.nearest->address, buf);
  EXPECT_EQ(f.nearest->size, 100u);
  EXPECT_EQ(f.nearest->label, "small output");
  EXPECT_EQ(f.distance, 0);
  EXPECT_NE(f.instruction.find("global_store_dword v1, v0, s[2:3]"), std::string::npos) << f.instruction;
  EXPECT_EQ(f.pc_address, prog_->base_address() + f.pc);
  std::string rep = f.report();
  for (const char* part : {"oob_store", "lane 25", "small output", "past its end", "global_store_dword"})
    EXPECT_NE(rep.find(part), std::string::npos) << part << " missing in\n" << rep;
  dev_.free(buf);
  expect_device_still_works();
}

TEST_F(EmuFault, OutOfBoundsFarAndBefore) {
  uint64_t buf = dev_.alloc(1024, "data");
  DispatchResult r = run("oob_load_scalar", buf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.fault->kind, FaultKind::OutOfBounds);
  EXPECT_EQ(r.fault->lane, -1);  // scalar access
  EXPECT_EQ(r.fault->distance, 0);
  EXPECT_NE(r.fault->instruction.find("s_load_dword"), std::string::npos);
  dev_.free(buf);
  // A pointer before the start of an allocation.
  uint64_t buf2 = dev_.alloc(256, "later buffer");
  DispatchResult r2 = run("oob_store", buf2 - 64);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.fault->lane, 0);
  ASSERT_TRUE(r2.fault->nearest.has_value());
  EXPECT_EQ(r2.fault->nearest->address, buf2);
  EXPECT_EQ(r2.fault->distance, -64);
  EXPECT_NE(r2.fault->report().find("64 bytes before its start"), std::string::npos) << r2.fault->report();
  dev_.free(buf2);
}

TEST_F(EmuFault, UseAfterFree) {
  uint64_t buf = dev_.alloc(256, "freed buffer");
  dev_.free(buf);
  DispatchResult r = run("oob_store", buf);
  ASSERT_FALSE(r.ok());
  std::printf("%s", r.fault->report().c_str());
  EXPECT_EQ(r.fault->kind, FaultKind::UseAfterFree);
  EXPECT_EQ(r.fault->lane, 0);
  ASSERT_TRUE(r.fault->nearest.has_value());
  EXPECT_FALSE(r.fault->nearest->live);
  EXPECT_EQ(r.fault->nearest->label, "freed buffer");
  EXPECT_NE(r.fault->report().find("freed"), std::string::npos);
  expect_device_still_works();
}

TEST_F(EmuFault, LdsPastItsSize) {
  DispatchResult r = run("lds_overflow", 0);
  ASSERT_FALSE(r.ok());
  std::printf("%s", r.fault->report().c_str());
  EXPECT_EQ(r.fault->kind, FaultKind::LdsOutOfRange);
  EXPECT_EQ(r.fault->lane, 32);  // 32 * 8 = 256, the first byte past the 256-byte LDS
  EXPECT_EQ(r.fault->address.value_or(0), 256u);
  EXPECT_NE(r.fault->instruction.find("ds_write_b32"), std::string::npos);
  expect_device_still_works();
}

TEST_F(EmuFault, GdsPastTheSizeM0Gives) {
  DispatchResult r = run("gds_overflow", 0);
  ASSERT_FALSE(r.ok());
  std::printf("%s", r.fault->report().c_str());
  EXPECT_EQ(r.fault->kind, FaultKind::LdsOutOfRange);
  EXPECT_EQ(r.fault->lane, 32);  // 32 * 8 = 256, the first byte past M0[15:0] = 256
  EXPECT_NE(r.fault->message.find("GDS store"), std::string::npos) << r.fault->message;
  expect_device_still_works();
}

TEST_F(EmuFault, RunawayLoopHitsTheBudget) {
  DispatchOptions opt;
  opt.instruction_budget = 200000;
  DispatchResult r = run("runaway", 0, 64 * 8, opt);
  ASSERT_FALSE(r.ok());
  std::printf("%s", r.fault->report().c_str());
  EXPECT_EQ(r.fault->kind, FaultKind::BudgetExceeded);
  EXPECT_NE(r.fault->report().find("budget"), std::string::npos);
  EXPECT_LE(r.profile.wave_instructions, 200000u);
  expect_device_still_works();
}

TEST_F(EmuFault, TrapInvalidUnsupportedReadOnlyBadPc) {
  DispatchResult t = run("trap", 0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.fault->kind, FaultKind::Trap);
  EXPECT_NE(t.fault->instruction.find("s_trap 2"), std::string::npos);
  EXPECT_EQ(t.fault->pc, prog_->find_kernel("trap")->entry + 4);

  DispatchResult i = run("invalid", 0);
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.fault->kind, FaultKind::InvalidInstruction);
  EXPECT_NE(i.fault->message.find("0xffffffff"), std::string::npos) << i.fault->message;

  DispatchResult u = run("unsupported", 0);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.fault->kind, FaultKind::Unsupported);
  EXPECT_NE(u.fault->message.find("s_cbranch_join"), std::string::npos);
  EXPECT_NE(u.fault->message.find("fork/join"), std::string::npos) << u.fault->message;

  DispatchResult w = run("write_code", 0);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.fault->kind, FaultKind::ReadOnlyWrite);
  EXPECT_NE(w.fault->nearest->label.find("code object"), std::string::npos);

  DispatchResult p = run("bad_pc", 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.fault->kind, FaultKind::BadPc);
  expect_device_still_works();
}

TEST_F(EmuFault, FaultStopsAMultiThreadedDispatch) {
  uint64_t buf = dev_.alloc(64 * 4 * 100 - 4, "almost big enough");
  DispatchOptions opt;
  opt.threads = 4;
  DispatchResult r = run("oob_store", buf, 64 * 100, opt);
  // Every workgroup writes the same 256 bytes (v1 = lane * 4), so it is the
  // workgroups' shared last lane that faults, whichever thread gets there first.
  EXPECT_TRUE(r.ok()) << r.fault->report();
  dev_.free(buf);
  uint64_t small = dev_.alloc(60 * 4, "too small");
  DispatchResult r2 = run("oob_store", small, 64 * 100, opt);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.fault->lane, 60);
  dev_.free(small);
  expect_device_still_works();
}

TEST_F(EmuFault, FaultErrorCarriesTheReport) {
  uint64_t buf = dev_.alloc(16, "tiny");
  DispatchResult r = run("oob_store", buf);
  try {
    r.check();
    FAIL() << "check() must throw";
  } catch (const FaultError& e) {
    EXPECT_EQ(e.fault().kind, FaultKind::OutOfBounds);
    EXPECT_NE(std::string(e.what()).find("tiny"), std::string::npos);
  }
  dev_.free(buf);
  EXPECT_THROW(dev_.dispatch(*prog_, "no_such_kernel", LaunchConfig::groups({1, 1, 1}, {64, 1, 1}), {}), Error);
  EXPECT_THROW(dev_.free(buf), Error);  // double free
}

}  // namespace k100::emu::test
