// The model's mechanics on small probe runs: Little's law, occupancy, the
// grid tail, the dispatch floor, bandwidth and issue limits. Every assertion
// is about modeled quantities; nothing here measures wall-clock time.
#include <gtest/gtest.h>

#include "k100/timing/simulator.h"
#include "probe_runs.h"

namespace k100::timing {
namespace {

using bench::calibrate::ProbeDevice;
using bench::calibrate::ReadProbe;

using test::only;

// The same loads and bytes, drained after every load or once per trip of 4:
// 4 times the round trips, about half the bytes in flight, about twice the
// time (each trip also has its address arithmetic, and every wave first
// waits for its kernel arguments from host memory).
TEST(TimingModel, DrainingEveryLoadIsSlowerThanKeepingFourInFlight) {
  ProbeDevice dev;
  const MachineParams m = k100_lc();
  auto drain = test::run_read(dev, ReadProbe{4, true, 0}, 8, 64, 32).model(m);
  auto four = test::run_read(dev, ReadProbe{4, false, 0}, 8, 64, 32).model(m);
  const DispatchTiming &a = only(drain), &b = only(four);
  EXPECT_DOUBLE_EQ(a.round_trips_per_wave, 128);
  EXPECT_DOUBLE_EQ(b.round_trips_per_wave, 32);
  EXPECT_GT(a.exec_s, 1.8 * b.exec_s);
  EXPECT_GT(b.bytes_in_flight, 1.8 * a.bytes_in_flight);
  // Little's law: the achieved rate is the bytes in flight over the round trip.
  const double bytes = 8.0 * 64 * 16 * 4 * 32;
  for (const DispatchTiming* d : {&a, &b}) {
    double round_trip = d->bytes_in_flight / (bytes / d->exec_s);
    EXPECT_GT(round_trip, m.seconds(m.l2_latency_cycles)) << "a hit cannot come back faster than the L2 round trip";
    EXPECT_LT(round_trip, 2 * (m.seconds(m.l2_latency_cycles) + 16 / m.clock_hz));
  }
  // Neither is near a bandwidth limit: 8 waves on a 120-CU machine.
  EXPECT_LT(a.dram_utilization, 0.2);
  EXPECT_EQ(a.limiter, Limiter::GridTail);
  EXPECT_EQ(b.limiter, Limiter::GridTail);
}

// A dispatch costs the floor plus its execution; an empty kernel costs the floor.
TEST(TimingModel, DispatchFloorPerBackToBackDispatch) {
  ProbeDevice dev;
  const emu::Program& p = dev.load(bench::calibrate::empty_probe());
  emu::KernargBuilder k(*p.find_kernel("probe_empty"));
  auto rec = dev.run(p, "probe_empty", emu::LaunchConfig::groups({1024}, {256}), k.bytes(), 3);
  MachineParams m = k100_lc();
  m.dispatch_floor_s = 5e-6;
  Timing t = rec.model(m);
  ASSERT_EQ(t.dispatches.size(), 3u);
  EXPECT_NEAR(t.total_s, 15e-6, 0.1e-6);
  for (const auto& d : t.dispatches) {
    EXPECT_LT(d.exec_s, 0.1e-6);
    EXPECT_EQ(d.limiter, Limiter::Launch);
  }
}

// Latency-bound waves on a 2-CU machine that holds 8 of them (256 VGPRs: one
// wave per SIMD): one workgroup more than fits costs a second round, spent
// after the last workgroup was placed.
TEST(TimingModel, GridTail) {
  ProbeDevice dev;
  const MachineParams m = test::small_machine(2);
  auto probe = ReadProbe{1, true, 256};
  Timing fits = test::run_read(dev, probe, 8, 64, 64).model(m);
  Timing more = test::run_read(dev, probe, 9, 64, 64).model(m);
  const DispatchTiming &a = only(fits), &b = only(more);
  EXPECT_DOUBLE_EQ(a.wave_capacity, 8);
  EXPECT_DOUBLE_EQ(a.tail_s, a.exec_s);  // all placed at the start
  EXPECT_GT(b.exec_s, 1.8 * a.exec_s);
  EXPECT_LT(b.exec_s, 2.2 * a.exec_s);
  EXPECT_GT(b.tail_s, 0.45 * b.exec_s);
  EXPECT_LT(b.tail_s, 0.55 * b.exec_s);
  // A quarter of what fits: the machine is underfilled.
  Timing few = test::run_read(dev, probe, 2, 64, 64).model(m);
  EXPECT_EQ(only(few).limiter, Limiter::GridTail);
  EXPECT_GT(only(few).exec_s, only(few).floor_s);
}

// Declaring 256 VGPRs leaves one wave per SIMD: the same latency-bound work
// over many workgroups takes several rounds instead of one.
TEST(TimingModel, OccupancyFromVgprs) {
  ProbeDevice dev;
  const MachineParams m = test::small_machine(2);
  Timing wide = test::run_read(dev, ReadProbe{1, true, 0}, 64, 64, 16).model(m);
  Timing narrow = test::run_read(dev, ReadProbe{1, true, 256}, 64, 64, 16).model(m);
  const DispatchTiming &a = only(wide), &b = only(narrow);
  EXPECT_EQ(a.occupancy.waves_per_simd, 10u);
  EXPECT_EQ(b.occupancy.waves_per_simd, 1u);
  EXPECT_EQ(b.occupancy.limit, OccupancyLimit::Vgprs);
  EXPECT_LE(b.resident_waves, 8.0 + 1e-9);  // 2 CUs x 4 SIMDs x 1 wave
  EXPECT_GT(b.exec_s, 3 * a.exec_s);
  EXPECT_EQ(b.limiter, Limiter::Occupancy);
  EXPECT_EQ(a.limiter, Limiter::Latency);
}

// Two CUs with a narrow HBM (two channels at 1/16 of the peak) and an L2
// too small to hold the data.
MachineParams narrow_hbm() {
  MachineParams m = test::small_machine(2);
  m.dram_channels = 2;
  m.dram_peak_bytes_per_s = 896e9 / 16;
  m.l2_bytes = 64 * 1024;
  return m;
}

// The read probe over 8 workgroups of 128 lanes, 32 trips of 4 streams.
auto run_streams(ProbeDevice& dev) { return test::run_read(dev, ReadProbe{4, false, 0}, 8, 128, 32); }

// Enough bytes in flight on a machine with a narrow HBM: the HBM sets the pace.
TEST(TimingModel, BandwidthBound) {
  ProbeDevice dev;
  const MachineParams m = narrow_hbm();
  auto rec = run_streams(dev);
  const DispatchTiming& d = only(rec.model(m));
  EXPECT_EQ(d.limiter, Limiter::DramBandwidth);
  EXPECT_GT(d.dram_utilization, 0.9);
  const double bytes = 8.0 * 128 * 16 * 4 * 32;
  const double rate = bytes / d.exec_s, peak = m.dram_peak_bytes_per_s * m.dram_efficiency;
  EXPECT_GT(rate, 0.85 * peak);
  EXPECT_LE(rate, 1.001 * peak);
  // The same run with the full HBM is no longer bandwidth-bound.
  MachineParams wide = test::small_machine(2);
  wide.l2_bytes = m.l2_bytes;
  EXPECT_NE(only(rec.model(wide)).limiter, Limiter::DramBandwidth);
}

// The timeline splits the same dispatch into intervals: HBM and host-link
// service add up to the dispatch's busy fractions, every wave starts and ends
// once, and the HBM is idle until the arguments are back over the host link.
TEST(TimingModel, TimelineAddsUpToTheDispatch) {
  ProbeDevice dev;
  const MachineParams m = narrow_hbm();
  auto rec = run_streams(dev);
  const DispatchTiming& d = only(rec.model(m));
  ASSERT_GT(d.timeline_interval_s, 0);
  ASSERT_FALSE(d.timeline.empty());
  double dram = 0, host = 0;
  uint64_t started = 0, ended = 0;
  for (const DispatchTiming::Interval& v : d.timeline) {
    EXPECT_LE(v.dram_busy, 1.0 + 1e-9);
    EXPECT_LE(v.host_busy, 1.0 + 1e-9);
    dram += v.dram_busy * d.timeline_interval_s;
    host += v.host_busy * d.timeline_interval_s;
    started += v.waves_started;
    ended += v.waves_ended;
  }
  EXPECT_NEAR(dram, d.dram_utilization * d.exec_s, 1e-3 * d.exec_s);
  EXPECT_NEAR(host, d.host_utilization * d.exec_s, 1e-3 * d.exec_s);
  EXPECT_EQ(started, d.waves);
  EXPECT_EQ(ended, d.waves);
  EXPECT_GT(d.timeline.size(), size_t(d.exec_s / d.timeline_interval_s) - 1);
  const size_t before_arguments = size_t(m.host_latency_s / d.timeline_interval_s);
  for (size_t i = 0; i < before_arguments && i < d.timeline.size(); ++i) EXPECT_EQ(d.timeline[i].dram_busy, 0.0) << i;
}

// The FMA probe keeps every SIMD's VALU busy: issue-bound, at the calibrated rate.
TEST(TimingModel, IssueBoundAtTheSustainedValuRate) {
  ProbeDevice dev;
  const MachineParams m = test::small_machine(1);
  const emu::Program& p = dev.load(bench::calibrate::alu_probe(bench::calibrate::AluOp::Fma));
  const emu::KernelSpec& spec = *p.find_kernel("probe_fma");
  uint64_t out = dev.device().alloc(8 * 256 * 4);
  auto run = [&](uint32_t trips) {
    emu::KernargBuilder k(spec);
    k.set_value(0, out).set_value(1, trips).set_value(2, 256u);
    return dev.run(p, "probe_fma", emu::LaunchConfig::groups({8}, {256}), k.bytes()).model(m);
  };
  Timing t100 = run(100), t200 = run(200);
  // 8 workgroups x 4 waves on 4 SIMDs: 8 waves per SIMD, 16 FMAs per trip each.
  double per_trip = (t200.total_s - t100.total_s) / 100;
  EXPECT_NEAR(per_trip, m.seconds(8 * 16 * m.valu_cycles), 0.02 * per_trip);
  EXPECT_EQ(only(t200).limiter, Limiter::Issue);
}

}  // namespace
}  // namespace k100::timing

namespace k100::timing {
namespace {

// The row model by distinct rows (dram_row_bytes > 0): reads whose rows
// exceed the open ones pay activations; with rows enough for all of them,
// none. The same recording either way.
TEST(TimingModel, DistinctRowsPayActivationsOnlyBeyondTheOpenRows) {
  ProbeDevice dev;
  auto rec = test::run_read(dev, ReadProbe{4, false, 0}, 8, 128, 32);
  MachineParams m = test::small_machine(2);
  m.l2_bytes = 64 * 1024;  // the data streams from HBM
  m.dram_row_bytes = 1024;
  m.dram_banks = 1;  // 32 open rows: 16 waves x 4 streams of 1 KiB pieces exceed them
  const Timing few = rec.model(m);
  m.dram_banks = 1e6;
  const Timing many = rec.model(m);
  EXPECT_GT(only(few).dram_activation_s, 0);
  EXPECT_EQ(only(many).dram_activation_s, 0);
  EXPECT_GT(only(few).exec_s, only(many).exec_s);
  // Off (the default): the byte-capacity model; 16 waves keep far less than 1 MiB in flight.
  MachineParams off = test::small_machine(2);
  off.l2_bytes = m.l2_bytes;
  const Timing plain = rec.model(off);
  EXPECT_EQ(only(plain).dram_activation_s, 0);
}

}  // namespace
}  // namespace k100::timing
