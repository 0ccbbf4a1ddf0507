// Small runs of the calibration probes for the timing tests.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "calibrate/probe_device.h"
#include "calibrate/probe_kernels.h"

namespace k100::timing::test {

// Where the last run_read left its per-lane sums.
inline uint64_t last_out = 0;

// The read probe over `groups` workgroups of `size` lanes, `trips` trips of
// `streams` streams (each stream's block laid out after the previous one).
inline bench::calibrate::Recording run_read(bench::calibrate::ProbeDevice& dev, const bench::calibrate::ReadProbe& p,
                                            uint32_t groups, uint32_t size, uint32_t trips) {
  const emu::Program& prog = dev.load(bench::calibrate::read_probe(p));
  const std::string name = p.wait_each_load ? "probe_read_drain" : p.in_flight > 1 ? "probe_read_pipelined" : "probe_read";
  const uint32_t step = groups * size * 16;
  const uint64_t stride = uint64_t(trips) * step;
  uint64_t src = dev.device().alloc(stride * uint64_t(p.streams)), out = dev.device().alloc(uint64_t(groups) * size * 4);
  // The first dword of 16-byte piece i holds i, so a lane's sum is known (read_sum).
  std::vector<uint32_t> init(stride * uint64_t(p.streams) / 4, 0);
  for (size_t i = 0; i < init.size(); i += 4) init[i] = uint32_t(i / 4);
  dev.device().write(src, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(init.data()), init.size() * 4));
  last_out = out;
  emu::KernargBuilder k(*prog.find_kernel(name));
  k.set_value(0, src).set_value(1, out).set_value(2, stride).set_value(3, trips).set_value(4, size).set_value(5, step);
  return dev.run(prog, name, emu::LaunchConfig::groups({groups}, {size}), k.bytes());
}

// What lane `tid` of run_read(dev, p, groups, size, trips) sums.
inline uint32_t read_sum(const bench::calibrate::ReadProbe& p, uint32_t groups, uint32_t size, uint32_t trips,
                         uint32_t tid) {
  const uint64_t threads = uint64_t(groups) * size, stride_pieces = uint64_t(trips) * threads;
  uint64_t want = 0;
  for (int u = 0; u < p.streams; ++u)
    for (uint32_t i = 0; i < trips; ++i) want += uint64_t(u) * stride_pieces + uint64_t(i) * threads + tid;
  return uint32_t(want);
}

// The one dispatch of a single-dispatch run's timing.
inline const DispatchTiming& only(const Timing& t) {
  EXPECT_EQ(t.dispatches.size(), 1u);
  return t.dispatches.at(0);
}
// A temporary timing's dispatch is returned by value, so that
// `const DispatchTiming& d = only(rec.model(m));` extends its life.
inline DispatchTiming only(Timing&& t) {
  EXPECT_EQ(t.dispatches.size(), 1u);
  return t.dispatches.at(0);
}

// A machine of `cus` CUs with the calibrated K100_LC's per-CU and memory parameters.
inline MachineParams small_machine(unsigned cus) {
  MachineParams m = k100_lc();
  m.compute_units = cus;
  return m;
}

}  // namespace k100::timing::test
