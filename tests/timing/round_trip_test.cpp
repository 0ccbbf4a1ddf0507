// A lone wave's dependent memory round trips: what one costs (the L1, L2 and
// HBM latencies of MachineParams), how they are counted, and that keeping a
// second load in flight halves them. Model outputs only, no wall-clock time.
#include <gtest/gtest.h>

#include "k100/timing/simulator.h"
#include "probe_runs.h"

namespace k100::timing {
namespace {

using bench::calibrate::ProbeDevice;
using bench::calibrate::ReadProbe;

using test::only;

// Cycles one more trip of a single-wave probe costs: the difference of two
// runs cancels the kernel-argument read and the start.
double cycles_per_trip(ProbeDevice& dev, const ReadProbe& p, uint32_t trips, const MachineParams& m, bool warm) {
  auto run = [&](uint32_t n) {
    auto rec = test::run_read(dev, p, 1, 64, n);
    return only(simulate(rec.sequence(), m, SimOptions{warm})).exec_s;
  };
  return m.cycles(run(2 * trips) - run(trips)) / trips;
}

// One dwordx4 load per trip, drained: each trip is one load-to-use round
// trip plus the trip's handful of instructions (16 lines through the
// address unit, a few SALU and one VALU, a branch).
TEST(RoundTrip, LoneWaveL2HitCostsTheL2Latency) {
  ProbeDevice dev;
  const MachineParams m = k100_lc();
  double per_trip = cycles_per_trip(dev, ReadProbe{1, true, 0}, 32, m, true);
  EXPECT_GT(per_trip, m.l2_latency_cycles);
  EXPECT_LT(per_trip, m.l2_latency_cycles + 60);
  // The same loads from HBM (nothing warmed): the miss adds the HBM latency.
  double miss = cycles_per_trip(dev, ReadProbe{1, true, 0}, 32, m, false);
  EXPECT_GT(miss, m.l2_latency_cycles + m.cycles(m.dram_latency_s));
  EXPECT_LT(miss, m.l2_latency_cycles + m.cycles(m.dram_latency_s) + 80);
  // Both follow their parameters.
  MachineParams slower = m;
  slower.l2_latency_cycles += 100;
  EXPECT_NEAR(cycles_per_trip(dev, ReadProbe{1, true, 0}, 32, slower, true), per_trip + 100, 1);
}

// The L1 hit latency applies to lines the CU's L1 holds: the read probe
// reads every line once, so a slower L1 (still faster than the L2) changes
// nothing; in a GEMV-shaped read the waves of a CU re-read x, which hits.
TEST(RoundTrip, L1LatencyAppliesOnlyToL1Hits) {
  ProbeDevice dev;
  MachineParams m = k100_lc(), slow_l1 = m;
  slow_l1.l1_latency_cycles = m.l2_latency_cycles - 20;
  EXPECT_NEAR(cycles_per_trip(dev, ReadProbe{1, true, 0}, 32, slow_l1, true),
              cycles_per_trip(dev, ReadProbe{1, true, 0}, 32, m, true), 1);
  // A GEMV-shaped read where every wave reads the same x: x's lines hit in
  // the L1 after the first wave of a CU, so the L1 latency shows.
  const emu::Program& p = dev.load(bench::calibrate::gemv_probe());
  const uint32_t rows = 8 * 4 * 2, k = bench::calibrate::kGemvProbeColumns;
  uint64_t w = dev.device().alloc(uint64_t(rows) * k * 4), x = dev.device().alloc(k * 4), y = dev.device().alloc(rows * 4);
  emu::KernargBuilder a(*p.find_kernel("probe_gemv"));
  a.set_value(0, w).set_value(1, x).set_value(2, y).set_value(3, 4u);
  auto rec = dev.run(p, "probe_gemv", emu::LaunchConfig::groups({rows / 32}, {256}), a.bytes());
  const MachineParams one = test::small_machine(1);
  MachineParams one_slow = one;
  one_slow.l1_latency_cycles = one.l2_latency_cycles - 20;
  const Timing fast_t = rec.model(one), slow_t = rec.model(one_slow);
  EXPECT_GT(only(fast_t).l1_hits, 0u);
  EXPECT_GT(only(slow_t).exec_s, only(fast_t).exec_s);
}

// Round trips are the chain of waits the wave blocked in: one per trip when
// each trip drains, one per two trips when the next trip's load is in
// flight during the wait; the pipelined loop is then about twice as fast
// and sums the same data.
TEST(RoundTrip, PipelinedLoopHalvesTheChain) {
  ProbeDevice dev;
  const MachineParams m = k100_lc();
  const uint32_t trips = 64;
  const ReadProbe drained{1, false, 0}, pipelined{1, false, 0, 2};
  auto a = test::run_read(dev, drained, 1, 64, trips);
  auto b = test::run_read(dev, pipelined, 1, 64, trips);
  for (uint32_t tid : {0u, 17u, 63u}) {
    uint32_t got = 0;
    dev.device().read(test::last_out + tid * 4, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&got), 4));
    EXPECT_EQ(got, test::read_sum(pipelined, 1, 64, trips, tid)) << "lane " << tid;
  }
  const Timing ta = a.model(m), tb = b.model(m);
  const DispatchTiming &da = only(ta), &db = only(tb);
  EXPECT_DOUBLE_EQ(da.round_trips_per_wave, trips);
  EXPECT_GE(db.round_trips_per_wave, trips / 2);
  EXPECT_LE(db.round_trips_per_wave, trips / 2 + 1);
  EXPECT_EQ(da.longest_wave_round_trips, trips);
  EXPECT_LT(db.exec_s, 0.65 * da.exec_s);
  EXPECT_GT(db.bytes_in_flight, 1.6 * da.bytes_in_flight);
}

}  // namespace
}  // namespace k100::timing
