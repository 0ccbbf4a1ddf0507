#include <gtest/gtest.h>

#include <string>

#include "k100/codegen/address.h"
#include "k100/codegen/kernel.h"

namespace {

using namespace k100::codegen;
using k100::as::offset;
using k100::isa::Target;

const Signature kSig("waits_k", {in("x", "f32"), out("y", "f32"), value("n", "u32")});

// The kernel's text from `from` to the end, one instruction per line.
std::string lines_after(const std::string& text, const std::string& from) {
  size_t at = text.find(from);
  return at == std::string::npos ? "" : text.substr(at);
}

TEST(Waits, ALoadUsedInTheNextInstructionGetsExactlyTheWaitItNeeds) {
  Kernel k(kSig, Target::gfx926);
  VGPR off = k.vgpr(1, "off"), a = k.vgpr(1, "a"), b = k.vgpr(1, "b"), c = k.vgpr(1, "c");
  k.v_mov_b32(off, 0);
  k.global_load_dword(a, off, k.arg("x"));
  k.global_load_dword(b, off, k.arg("x"), offset(4));
  k.v_add_f32(c, 1.0f, a);  // a is the older of two loads in flight: vmcnt(1)
  k.v_add_f32(c, c, b);     // now b: vmcnt(0)
  k.global_store_dword(off, c, k.arg("y"));
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  // the argument loads: lgkmcnt(0) before the first instruction that reads them
  EXPECT_NE(t.find("s_waitcnt lgkmcnt(0)\n\tglobal_load_dword v"), std::string::npos) << t;
  const std::string tail = lines_after(t, "global_load_dword");
  EXPECT_NE(tail.find("offset:4\n\ts_waitcnt vmcnt(1)\n\tv_add_f32_e32"), std::string::npos) << t;
  EXPECT_NE(tail.find("s_waitcnt vmcnt(0)\n\tv_add_f32_e32"), std::string::npos) << t;
  // exactly two vector-memory waits, no others
  size_t waits = 0;
  for (size_t at = tail.find("s_waitcnt"); at != std::string::npos; at = tail.find("s_waitcnt", at + 1)) ++waits;
  EXPECT_EQ(waits, 2u) << t;
}

TEST(Waits, LdsReadsWaitInOrderAndScalarLoadsWaitForZero) {
  Kernel k(kSig, Target::gfx926, {.lds_bytes = 64});
  VGPR addr = k.vgpr(1, "addr"), a = k.vgpr(1, "a"), b = k.vgpr(1, "b");
  SGPR s = k.sgpr(2, "s"), t = k.sgpr(1, "t");
  k.v_mov_b32(addr, 0);
  k.ds_read_b32(a, addr);
  k.ds_read_b32(b, addr, offset(4));
  k.v_add_f32(a, 1.0f, a);  // LDS returns in order: lgkmcnt(1)
  k.s_load_dwordx2(s, k.kernarg_pointer(), 0);
  k.s_load_dword(t, k.kernarg_pointer(), 8);
  k.s_add_u32(t, t, 1);  // scalar loads return out of order: lgkmcnt(0)
  k.v_add_f32(b, b, a);
  k.s_endpgm();
  k.build();
  const std::string text = k.assembly();
  EXPECT_NE(text.find("offset:4\n\ts_waitcnt lgkmcnt(1)\n\tv_add_f32"), std::string::npos) << text;
  EXPECT_NE(text.find("0x8\n\ts_waitcnt lgkmcnt(0)\n\ts_add_u32"), std::string::npos) << text;
}

TEST(Waits, HandWaitsAreKeptAndNotRepeated) {
  Kernel k(kSig, Target::gfx926);
  VGPR off = k.vgpr(1, "off"), a = k.vgpr(1, "a");
  k.v_mov_b32(off, 0);
  k.s_waitcnt(lgkmcnt(0));
  k.global_load_dword(a, off, k.arg("x"));
  k.s_waitcnt(vmcnt(0));  // placed by hand
  k.global_store_dword(off, a, k.arg("y"));
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  size_t waits = 0;
  for (size_t at = t.find("s_waitcnt"); at != std::string::npos; at = t.find("s_waitcnt", at + 1)) ++waits;
  EXPECT_EQ(waits, 2u) << t;
}

TEST(Waits, ALoadIssuedBeforeABackEdgeIsWaitedForAtTheLoopTop) {
  Kernel k(kSig, Target::gfx926);
  VGPR off = k.vgpr(1, "off"), a = k.vgpr(1, "a"), acc = k.vgpr(1, "acc");
  SGPR count = k.sgpr(1, "count");
  k.v_mov_b32(off, 0);
  k.v_mov_b32(acc, 0);
  k.v_mov_b32(a, 0);
  k.s_mov_b32(count, 4);
  Label top = k.label("top");
  k.bind(top);
  k.v_add_f32(acc, acc, a);  // the load of the previous trip must have arrived
  k.global_load_dword(a, off, k.arg("x"));
  k.s_sub_u32(count, count, 1);
  k.s_cmp_lg_u32(count, 0);
  k.s_cbranch_scc1(top);
  k.global_store_dword(off, acc, k.arg("y"));
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  EXPECT_NE(t.find(".Ltop:\n\ts_waitcnt vmcnt(0)\n\tv_add_f32"), std::string::npos) << t;
}

TEST(WaitStates, ADppReadOfAFreshVgprGetsTwoWaitStates) {
  Kernel k(kSig, Target::gfx926);
  VGPR a = k.vgpr(1, "a"), b = k.vgpr(1, "b");
  k.v_mov_b32(a, 1.0f);
  k.v_add_f32(b, a, a, k100::as::quad_perm(1, 0, 3, 2));
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  EXPECT_NE(t.find("v_mov_b32_e32 v0, 1.0\n\ts_nop 1\n\tv_add_f32_dpp"), std::string::npos) << t;
}

TEST(WaitStates, AVmemReadOfAnSgprWrittenByTheValuGetsFiveWaitStates) {
  Kernel k(kSig, Target::gfx926);
  VGPR off = k.vgpr(1, "off"), a = k.vgpr(1, "a");
  SGPR base = k.sgpr(2, "base");
  k.v_mov_b32(off, 0);
  k.v_readfirstlane_b32(base[0], off);
  k.s_mov_b32(base[1], 0);
  k.global_load_dword(a, off, base);
  k.s_endpgm();
  k.build();
  const std::string t = k.assembly();
  // one instruction (s_mov_b32) already stands between: 4 more wait states
  EXPECT_NE(t.find("s_nop 3\n\tglobal_load_dword"), std::string::npos) << t;
}

}  // namespace
