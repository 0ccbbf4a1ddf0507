// The modeled time of a launch is a function of the kernel, its arguments
// and the sizes and order of its buffers: not of the emulator's host
// threads, and not of where earlier work left the emulator's next address.
#include <gtest/gtest.h>

#include "probe_runs.h"

namespace k100::timing {
namespace {

using bench::calibrate::ProbeDevice;
using bench::calibrate::ReadProbe;

// Allocations and a dispatch that move the emulator's next device address
// on (by an amount that is not a multiple of a page).
void earlier_work(ProbeDevice& dev) {
  dev.device().alloc(1000);
  dev.device().alloc(777777);
  test::run_read(dev, ReadProbe{1, false, 0}, 1, 64, 1);
}

uint64_t first_line(const bench::calibrate::Recording& r) {
  for (const auto& wg : r.dispatches[0]->workgroups)
    for (const auto& w : wg.waves)
      if (!w.lines.empty()) return run_first(w.lines[0]);
  return 0;
}

// The dispatch of `r` as the model saw it before it placed buffers itself:
// at the emulator's addresses.
Timing at_emulator_addresses(const bench::calibrate::Recording& r) {
  DispatchTrace d = *r.dispatches[0];
  d.info.allocations.clear();
  return simulate({&d}, k100_lc());
}

TEST(PhysicalLayout, ModeledTimeDoesNotDependOnHostThreadsOrAllocationHistory) {
  // Memory-bound enough that channel and set placement shows: 240 waves
  // streaming 4 loads in flight each.
  const ReadProbe p{4, false, 0};
  ProbeDevice one(1), two(2);
  earlier_work(two);
  earlier_work(two);
  auto a = test::run_read(one, p, 120, 128, 6);
  auto b = test::run_read(two, p, 120, 128, 6);
  ASSERT_NE(first_line(a), first_line(b)) << "the two runs should see different emulator addresses";
  const Timing ta = a.model(k100_lc()), tb = b.model(k100_lc());
  const DispatchTiming &x = test::only(ta), &y = test::only(tb);
  EXPECT_EQ(ta.total_s, tb.total_s);  // identical, not close: the same schedule
  EXPECT_EQ(x.dram_bytes_read, y.dram_bytes_read);
  EXPECT_EQ(x.l2_hits, y.l2_hits);
  EXPECT_EQ(x.l2_misses, y.l2_misses);
  EXPECT_EQ(x.bytes_in_flight, y.bytes_in_flight);
  // Control: at the emulator's own addresses the two runs disagree, so the
  // equality above is the layout's doing, not an insensitive model.
  EXPECT_NE(at_emulator_addresses(a).total_s, at_emulator_addresses(b).total_s);
}

TEST(PhysicalLayout, BackToBackDispatchesShareTheirBuffersPlacement) {
  // Three dispatches of one kernel over the same buffers: the L2 warm-up
  // and the dispatches must agree on where each line is, whatever the
  // emulator's addresses (each dispatch has its own kernarg segment).
  ProbeDevice one(1), two(2);
  earlier_work(two);
  const ReadProbe p{2, true, 0};
  auto run = [&](ProbeDevice& dev) {
    const emu::Program& prog = dev.load(bench::calibrate::read_probe(p));
    const uint32_t groups = 8, size = 128, trips = 3, step = groups * size * 16;
    const uint64_t stride = uint64_t(trips) * step;
    uint64_t src = dev.device().alloc(2 * stride), out = dev.device().alloc(uint64_t(groups) * size * 4);
    emu::KernargBuilder k(*prog.find_kernel("probe_read_drain"));
    k.set_value(0, src).set_value(1, out).set_value(2, stride).set_value(3, trips).set_value(4, size).set_value(5, step);
    return dev.run(prog, "probe_read_drain", emu::LaunchConfig::groups({groups}, {size}), k.bytes(), 3);
  };
  auto a = run(one), b = run(two);
  ASSERT_EQ(a.dispatches.size(), 3u);
  const Timing ta = a.model(k100_lc()), tb = b.model(k100_lc());
  ASSERT_EQ(ta.dispatches.size(), tb.dispatches.size());
  for (size_t i = 0; i < ta.dispatches.size(); ++i) EXPECT_EQ(ta.dispatches[i].total_s, tb.dispatches[i].total_s) << i;
  // The 48 KiB the kernel reads fit in the L2: after the warm-up every
  // dispatch hits, which holds only if the warm-up used the same placement.
  for (const DispatchTiming& d : ta.dispatches) EXPECT_EQ(d.l2_misses, 0u);
}

}  // namespace
}  // namespace k100::timing
