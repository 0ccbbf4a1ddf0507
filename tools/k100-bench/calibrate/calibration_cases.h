// The calibration cases of `k100-bench calibrate`: the measured K100_LC
// numbers of PERFORMANCE_FACTS sections 2, 3 and 6, each with the probe
// configuration that re-creates it and the emulator recording of that probe.
// A case's modeled value is a function of the machine parameters, so the
// table can be re-evaluated for other parameter values without emulating
// again.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "k100/timing/machine.h"
#include "probe_device.h"

namespace k100::bench::calibrate {

struct CalibrationCase {
  std::string name;     // what ran, at the measured configuration
  std::string section;  // PERFORMANCE_FACTS section
  double measured = 0;  // on the K100_LC, in `unit`
  std::string unit;     // "ms", "us" or "GB/s"
  std::string scaling;  // how the emulated run is smaller than the measured one, and why that is valid
  std::function<double(const timing::MachineParams&)> modeled;
  // The limiter of the modeled run (for the report).
  std::function<std::string(const timing::MachineParams&)> limiter;
  // Utilisations, traffic and residency of the modeled run (--detail).
  std::function<std::string(const timing::MachineParams&)> detail;
};

// Runs every probe once on `dev` (checking its results) and returns the
// cases. `progress` receives each case's name as it is recorded.
std::vector<CalibrationCase> record_calibration_cases(ProbeDevice& dev,
                                                      const std::function<void(const std::string&)>& progress);

}  // namespace k100::bench::calibrate
