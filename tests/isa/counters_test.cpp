#include <gtest/gtest.h>

#include "isa_text.h"
#include "k100/isa/counters.h"

namespace k100::isa {
namespace {

using test::inst_of;

constexpr uint16_t V(unsigned n) { return uint16_t(code::kVgprFirst + n); }

TEST(Counters, WhichCountersEachUnitIncrements) {
  CounterUse g = counter_use(inst_of("global_load_dword v1, v[2:3], off"));
  EXPECT_EQ(g.counters, kVmCnt);
  EXPECT_EQ(g.cls, ReturnClass::Vmem);
  ASSERT_EQ(g.num_returns, 1);
  EXPECT_EQ(g.returns[0], (RegRange{V(1), 1}));
  EXPECT_EQ(counter_use(inst_of("global_store_dword v[2:3], v4, off")).counters, kVmCnt);
  EXPECT_TRUE(counter_use(inst_of("global_store_dword v[2:3], v4, off")).is_store);
  CounterUse f = counter_use(inst_of("flat_load_dword v1, v[2:3]"));
  EXPECT_EQ(f.counters, kVmCnt | kLgkmCnt);
  EXPECT_FALSE(f.in_order(kLgkmCnt));
  CounterUse s = counter_use(inst_of("s_load_dwordx2 s[4:5], s[0:1], 0x0"));
  EXPECT_EQ(s.counters, kLgkmCnt);
  EXPECT_FALSE(s.in_order(kLgkmCnt));
  EXPECT_EQ(s.lgkm_increment, 2);
  EXPECT_EQ(counter_use(inst_of("s_load_dword s4, s[0:1], 0x0")).lgkm_increment, 1);
  CounterUse l = counter_use(inst_of("ds_read_b32 v1, v2"));
  EXPECT_EQ(l.counters, kLgkmCnt);
  EXPECT_TRUE(l.in_order(kLgkmCnt));
  EXPECT_EQ(counter_use(inst_of("s_sendmsg sendmsg(MSG_INTERRUPT)")).cls, ReturnClass::Message);
  CounterUse gds = counter_use(inst_of("ds_add_u32 v1, v2 gds"));
  EXPECT_EQ(gds.counters, kLgkmCnt | kExpCnt);
  ASSERT_EQ(gds.num_held, 1);
  EXPECT_FALSE(counter_use(inst_of("v_add_f32_e32 v0, v1, v2")).any());
  EXPECT_FALSE(counter_use(inst_of("s_add_u32 s0, s1, s2")).any());
  EXPECT_TRUE(counter_use(inst_of("buffer_load_dword v1, off, s[4:7], s1 lds")).writes_lds);
}

Waitcnt W(unsigned vm, unsigned exp, unsigned lgkm) {
  Waitcnt w;
  w.vmcnt = vm;
  w.expcnt = exp;
  w.lgkmcnt = lgkm;
  return w;
}
#define EXPECT_WAIT(a, b) EXPECT_TRUE(same_wait(a, b)) << waitcnt_text(a) << " vs " << waitcnt_text(b)

TEST(Counters, WaitcntTextAndHelpers) {
  EXPECT_EQ(waitcnt_text(W(2, 7, 0)), "s_waitcnt vmcnt(2) lgkmcnt(0)");
  EXPECT_FALSE(waits(W(63, 7, 15)));
  EXPECT_TRUE(waits(W(63, 6, 15)));
  EXPECT_WAIT(stricter(W(3, 7, 0), W(1, 7, 9)), W(1, 7, 0));
  Inst wi = inst_of("s_waitcnt vmcnt(3) lgkmcnt(1)");
  EXPECT_WAIT(Waitcnt::decode(uint16_t(wi.ops[0].value)), W(3, 7, 1));
}

TEST(InFlight, VectorMemoryReturnsInOrder) {
  InFlight f;
  f.issue(counter_use(inst_of("global_load_dword v1, v[8:9], off")), 100);
  f.issue(counter_use(inst_of("global_store_dword v[8:9], v5, off")), 104);
  f.issue(counter_use(inst_of("global_load_dword v2, v[8:9], off")), 108);
  const InFlight::Op* op = f.pending_write(V(1));
  ASSERT_TRUE(op);
  EXPECT_EQ(op->tag, 100u);
  EXPECT_WAIT(f.wait_for(*op), W(2, 7, 15));
  f.wait(W(2, 7, 15));
  EXPECT_FALSE(f.pending_write(V(1)));
  ASSERT_TRUE(f.pending_write(V(2)));
  EXPECT_EQ(f.outstanding(kVmCnt), 2u);
  f.wait(W(0, 7, 15));
  EXPECT_TRUE(f.empty());
}

TEST(InFlight, ScalarLoadsNeedLgkmZero) {
  InFlight f;
  f.issue(counter_use(inst_of("s_load_dword s4, s[0:1], 0x0")), 1);
  f.issue(counter_use(inst_of("s_load_dword s5, s[0:1], 0x4")), 2);
  const InFlight::Op* first = f.pending_write(4);
  ASSERT_TRUE(first);
  EXPECT_WAIT(f.wait_for(*first), W(63, 7, 0));
  f.wait(W(63, 7, 1));  // out of order: lgkmcnt(1) guarantees neither
  EXPECT_TRUE(f.pending_write(4));
  EXPECT_TRUE(f.pending_write(5));
  f.wait(W(63, 7, 0));
  EXPECT_TRUE(f.empty());
}

TEST(InFlight, LdsInOrderEvenWithScalarLoadsPending) {
  InFlight f;
  f.issue(counter_use(inst_of("ds_read_b32 v1, v0")), 1);
  f.issue(counter_use(inst_of("s_load_dword s4, s[0:1], 0x0")), 2);
  f.issue(counter_use(inst_of("ds_read_b32 v2, v0 offset:4")), 3);
  EXPECT_WAIT(f.wait_for(*f.pending_write(V(1))), W(63, 7, 1));
  f.wait(W(63, 7, 1));
  EXPECT_FALSE(f.pending_write(V(1)));  // the later LDS read keeps lgkmcnt at 1 or more
  EXPECT_TRUE(f.pending_write(V(2)));
  EXPECT_TRUE(f.pending_write(4));
}

TEST(InFlight, FlatMayFinishEarlySoLaterCountsExcludeIt) {
  InFlight f;
  f.issue(counter_use(inst_of("global_load_dword v1, v[8:9], off")), 1);
  f.issue(counter_use(inst_of("flat_load_dword v2, v[8:9]")), 2);
  // vmcnt(1) could be met by the FLAT load returning first.
  EXPECT_WAIT(f.wait_for(*f.pending_write(V(1))), W(0, 7, 15));
  f.wait(W(1, 7, 15));
  EXPECT_TRUE(f.pending_write(V(1)));
  f.wait(W(0, 7, 15));
  EXPECT_TRUE(f.empty());
}

TEST(InFlight, WriteAfterWriteOrderedOnlyInOneQueue) {
  InFlight f;
  f.issue(counter_use(inst_of("global_load_dword v1, v[8:9], off")), 1);
  const InFlight::Op& op = *f.pending_write(V(1));
  EXPECT_TRUE(InFlight::returns_after(op, counter_use(inst_of("global_load_dword v1, v[8:9], off offset:4"))));
  EXPECT_FALSE(InFlight::returns_after(op, counter_use(inst_of("ds_read_b32 v1, v0"))));
  EXPECT_FALSE(InFlight::returns_after(op, counter_use(inst_of("flat_load_dword v1, v[8:9]"))));
}

TEST(InFlight, GdsHoldsDataUntilExpcnt) {
  InFlight f;
  f.issue(counter_use(inst_of("ds_add_u32 v1, v2 gds")), 1);
  const InFlight::Op* h = f.pending_hold(V(2));
  ASSERT_TRUE(h);
  EXPECT_WAIT(f.wait_for_release(*h), W(63, 0, 15));
  f.wait(W(63, 0, 15));
  EXPECT_FALSE(f.pending_hold(V(2)));
  EXPECT_FALSE(f.empty());  // still counted on lgkmcnt
}

TEST(InFlight, CounterMaximumStallsIssue) {
  InFlight f;
  CounterUse u = counter_use(inst_of("global_store_dword v[2:3], v4, off"));
  for (int i = 0; i < 70; ++i) f.issue(u, uint64_t(i));
  EXPECT_LE(f.outstanding(kVmCnt), 63u);
}

}  // namespace
}  // namespace k100::isa
