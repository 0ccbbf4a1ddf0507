// Small runs of the calibration probes for the timing tests.
#pragma once

#include <cstdint>

#include "calibrate/probe_device.h"
#include "calibrate/probe_kernels.h"

namespace k100::timing::test {

// The read probe over `groups` workgroups of `size` lanes, `trips` trips of
// `streams` streams (each stream's block laid out after the previous one).
inline bench::calibrate::Recording run_read(bench::calibrate::ProbeDevice& dev, const bench::calibrate::ReadProbe& p,
                                            uint32_t groups, uint32_t size, uint32_t trips) {
  const emu::Program& prog = dev.load(bench::calibrate::read_probe(p));
  const std::string name = p.wait_each_load ? "probe_read_drain" : "probe_read";
  const uint32_t step = groups * size * 16;
  const uint64_t stride = uint64_t(trips) * step;
  uint64_t src = dev.device().alloc(stride * uint64_t(p.streams)), out = dev.device().alloc(uint64_t(groups) * size * 4);
  emu::KernargBuilder k(*prog.find_kernel(name));
  k.set_value(0, src).set_value(1, out).set_value(2, stride).set_value(3, trips).set_value(4, size).set_value(5, step);
  return dev.run(prog, name, emu::LaunchConfig::groups({groups}, {size}), k.bytes());
}

// A machine of `cus` CUs with the calibrated K100_LC's per-CU and memory parameters.
inline MachineParams small_machine(unsigned cus) {
  MachineParams m = k100_lc();
  m.compute_units = cus;
  return m;
}

}  // namespace k100::timing::test
