// Indirect control flow declared to the layer: a routine called from two
// places (s_swappc_b64 / s_setpc_b64 of its return address) and a computed
// jump into a table of equal-sized entries. On the emulator (its wait and
// hazard checks on): values live across the calls keep their registers, a
// load used inside the routine is waited for there, the table entry taken is
// the one asked for. Without the emulator: undeclared jumps and entries of
// another size than declared are named errors.
#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"
#include "test_kernels.h"

namespace {

using namespace k100::codegen;
using namespace k100::kernels;

const Signature kSig("indirect_flow_k", {out("y", "u32"), in("x", "u32"), value("sel", "u32")});
constexpr int kOutputs = 4;

k100::codeobj::CodeObject build(k100::isa::Target target) {
  Kernel k(kSig, target);
  const VGPR lane = lane_of_local_id(k), acc = k.vgpr(1, "acc"), calls = k.vgpr(1, "calls"),
             kept = k.vgpr(1, "kept"), loaded = k.vgpr(1, "loaded"), addr = k.vgpr(1, "address");
  // acc = 2 acc + loaded, calls + 1: reads `loaded`, whose load is in flight at the first call
  const Routine twice = k.routine("twice", [&](const Routine& r) {
    k.v_lshlrev_b32(acc, 1, acc);
    k.v_add_u32(acc, acc, loaded);
    k.v_add_u32(calls, 1, calls);
    k.ret(r);
  });
  k.v_lshlrev_b32(addr, 2, lane);
  k.global_load_dword(loaded, addr, k.arg("x"));
  k.v_add_u32(acc, 1, lane);
  k.v_mov_b32(calls, 0);
  k.v_add_u32(kept, 0x1234, lane);  // live across both calls, never touched by the routine
  k.call(twice);
  k.call(twice);
  // acc += 10 (sel + 1) through a table of 8-byte entries (v_add_u32 with an inline constant, s_branch)
  Label join = k.label("join");
  k.jump_table(k.table_offset(k.arg("sel"), 8), 4, 8, [&](int i) {
    k.v_add_u32(acc, 10 * (i + 1), acc);
    k.s_branch(join);
  });
  k.bind(join);
  const VGPR out = lane_address(k, k.arg("y"), lane, uint32_t(4 * kOutputs));
  k.global_store_dword(out, acc, k100::as::off);
  k.global_store_dword(out, calls, k100::as::off, k100::as::offset(4));
  k.global_store_dword(out, kept, k100::as::off, k100::as::offset(8));
  k.global_store_dword(out, loaded, k100::as::off, k100::as::offset(12));
  k.s_endpgm();
  return k.build();
}

TEST(IndirectFlow, RoutinesAndJumpTablesRunAsDeclared) {
  Registry r;
  r.add(test_kernels::launched_here(kSig, build));
  EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  std::vector<uint32_t> x(64);
  for (uint32_t i = 0; i < 64; ++i) x[i] = 1000 * i + 7;
  for (uint32_t sel = 0; sel < 4; ++sel) {
    DeviceBuffer<uint32_t> dx(dev, x), dy(dev, 64 * kOutputs);
    dev.launch("indirect_flow_k", {1}, {64}, kSig.pack({dy.addr(), dx.addr(), int64_t(sel)}));
    const auto y = dy.download();
    for (uint32_t i = 0; i < 64; ++i) {
      const uint32_t after_calls = 4 * (i + 1) + 3 * x[i];  // 2 (2 (i + 1) + x) + x
      ASSERT_EQ(y[4 * i], after_calls + 10 * (sel + 1)) << "lane " << i << " sel " << sel;
      ASSERT_EQ(y[4 * i + 1], 2u) << i;
      ASSERT_EQ(y[4 * i + 2], 0x1234u + i) << i;
      ASSERT_EQ(y[4 * i + 3], x[i]) << i;
    }
  }
}

TEST(IndirectFlow, TheLoadUsedInTheRoutineIsWaitedForInside) {
  Kernel k(kSig, k100::isa::Target::gfx926);
  const VGPR v = k.vgpr(1, "v"), addr = k.vgpr(1, "address");
  const Routine r = k.routine("use", [&](const Routine& self) {
    k.v_add_u32(v, 1, v);
    k.ret(self);
  });
  k.v_mov_b32(addr, 0);
  k.global_load_dword(v, addr, k.arg("x"));
  k.call(r);
  k.global_store_dword(addr, v, k.arg("y"));
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  // nothing waits before the call; the routine's body, behind the branch over it, does
  const size_t branch = t.find("s_branch"), body = t.find("v_add_u32", branch), ret = t.find("s_setpc_b64"),
               call = t.find("s_swappc_b64");
  ASSERT_TRUE(branch < body && body < ret && ret < call && call != std::string::npos) << t;
  EXPECT_EQ(t.substr(ret, call - ret).find("vmcnt"), std::string::npos) << t;
  EXPECT_NE(t.substr(branch, body - branch).find("s_waitcnt vmcnt(0)"), std::string::npos) << t;
}

TEST(IndirectFlow, AnUndeclaredIndirectJumpIsANamedError) {
  Kernel k(kSig, k100::isa::Target::gfx926);
  const SGPR pc = k.sgpr(2, "pc");
  k.s_getpc_b64(pc);
  k.s_setpc_b64(pc);
  k.s_endpgm();
  try {
    k.build();
    FAIL() << "an undeclared s_setpc_b64 was accepted";
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("indirect_flow_k"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("jump_table"), std::string::npos) << e.what();
  }
}

TEST(IndirectFlow, TableEntriesOfAnotherSizeAreANamedError) {
  Kernel k(kSig, k100::isa::Target::gfx926);
  const VGPR v = k.vgpr(1, "v");
  Label join = k.label("join");
  k.v_mov_b32(v, 0);
  k.jump_table(k.table_offset(k.arg("sel"), 8), 2, 8, [&](int i) {
    if (i == 1) k.v_add_u32(v, 0x12345, v);  // a literal: 12 bytes, not 8
    else k.v_add_u32(v, 1, v);
    k.s_branch(join);
  });
  k.bind(join);
  k.global_store_dword(v, v, k.arg("y"));
  k.s_endpgm();
  try {
    k.build();
    FAIL() << "a 12-byte entry in an 8-byte table was accepted";
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("indirect_flow_k"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("table_end"), std::string::npos) << e.what();
  }
}

}  // namespace
