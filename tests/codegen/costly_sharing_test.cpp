// The allocator keeps apart two values that could share a register but whose
// sharing costs time, when a free register of the same count allows it: a
// load's register and a value written before the load's result is read
// (sharing would wait for the load); asked for, an SGPR a VALU writes and one
// a VMEM instruction reads right after (sharing would need the hazard's
// s_nop).
#include <gtest/gtest.h>

#include <string>

#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"

namespace {

using namespace k100::codegen;

// Allocated and finished as the build does; the physical text.
std::string finish(const std::string& text, AllocationResult* r = nullptr, bool sgpr_hazards = false) {
  MFunction f = parse_ir(text);
  lower_control_flow(f);
  build_cfg(f);
  AllocationOptions o;
  o.vgpr_budget = 32;
  o.sgpr_budget = 94;
  o.spill = false;
  o.avoid_sgpr_hazard_sharing = sgpr_hazards;
  AllocationResult a = allocate_registers(f, o);
  if (r) *r = a;
  insert_waits(f);
  insert_wait_states(f);
  return print_ir(f);
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// %sel (written by v_readfirstlane) dies right before %addr is written and
// read by the load: the lowest free SGPRs would put both in s0.
const char* kValuSgprThenLoad =
    ".kernel valu_sgpr_then_load\n"
    ".entry vgpr %tid = v0\n"
    ".entry sgpr 2 %base = s[4:5]\n"
    ".vgpr %x, %y\n"
    ".sgpr %sel\n"
    ".sgpr 2 %addr\n"
    "bb0:\n"
    "  v_readfirstlane_b32 %sel, %tid\n"
    "  v_add_u32 %x, %sel, %tid\n"
    "  s_mov_b64 %addr, %base\n"
    "  global_load_dword %y, %x, %addr\n"
    "  global_store_dword %x, %y, %base\n"
    "  s_endpgm\n";

TEST(CostlySharing, AskedForAValuWrittenSgprAndALoadAddressTakeDifferentRegistersAndNeedNoNop) {
  AllocationResult r;
  const std::string t = finish(kValuSgprThenLoad, &r, true);
  EXPECT_EQ(count(t, "s_nop"), 0) << t;
  EXPECT_LE(r.allocation.sgprs, 6) << t;  // no more than the entry pair at s[4:5] needs
}

TEST(CostlySharing, NotAskedForTheyShareAndTheHazardGetsItsNop) {
  const std::string t = finish(kValuSgprThenLoad);
  EXPECT_GE(count(t, "s_nop"), 1) << t;
}

// A prefetch whose value dies at the loop's exit is still in flight there:
// the value written after the loop takes another register than the load's,
// so it waits for nothing.
const char* kPrefetchThenWrite =
    ".kernel prefetch_then_write\n"
    ".entry vgpr %tid = v0\n"
    ".entry sgpr 2 %base = s[4:5]\n"
    ".vgpr %next, %acc, %late, %scale\n"
    ".sgpr %count\n"
    "bb0:\n"
    "  global_load_dword %next, %tid, %base\n"
    "  v_cvt_f32_u32 %scale, %tid\n"
    "  v_mov_b32 %acc, 0\n"
    "  s_mov_b32 %count, 4\n"
    "  loop_\n"
    "  v_fma_f32 %acc, %next, %scale, %acc\n"
    "  global_load_dword %next, %tid, %base offset:4\n"
    "  s_sub_u32 %count, %count, 1\n"
    "  s_cmp_eq_u32 %count, 0\n"
    "  break_ scc1\n"
    "  end_loop\n"
    "  v_mul_f32 %late, %acc, %acc\n"
    "  global_store_dword %tid, %late, %base\n"
    "  global_store_dword %tid, %acc, %base offset:4\n"
    "  s_endpgm\n";

TEST(CostlySharing, AValueWrittenAfterALoopDoesNotReuseTheRegisterOfItsLastPrefetch) {
  AllocationResult r;
  const std::string t = finish(kPrefetchThenWrite, &r);
  // the only vmcnt wait is the one the loop's add needs: none between the
  // loop's exit and the square
  const size_t mul = t.rfind("v_mul_f32"), exit = t.rfind("loop0_exit", mul);
  ASSERT_NE(mul, std::string::npos) << t;
  ASSERT_NE(exit, std::string::npos) << t;
  EXPECT_EQ(t.substr(exit, mul - exit).find("vmcnt"), std::string::npos) << t;
  EXPECT_LE(r.allocation.vgprs, 4) << t;  // %scale's register, free by then
}

}  // namespace
