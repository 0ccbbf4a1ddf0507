// k100-bench calibrate: the timing model against the measured K100_LC
// numbers it is calibrated on (PERFORMANCE_FACTS sections 2, 3 and 6).
//
// Every case re-creates one measurement with our own probe kernel
// (calibrate/probe_kernels.cpp) at the measured configuration, runs it on the
// emulator (checking its result), and prints the measured value, the
// MODELED value and their ratio. The last line is the summary:
// `N cases, mean |error| X %, max |error| Y %`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "command_table.h"
#include "calibrate/calibration_cases.h"
#include "k100/timing/machine.h"
#include "parameter_override.h"

namespace {

using namespace k100;

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: k100-bench calibrate [--set name=value ...] [--detail] [--quiet]\n"
               "Runs the calibration probes on the emulator and compares the MODELED K100_LC values with the\n"
               "measured ones. --set overrides a model parameter (names: k100/timing/machine.h) to study its\n"
               "effect; --detail adds each modeled run's utilisations and traffic; --quiet prints only the table.\n");
  return code;
}

int run(int argc, char** argv) {
  timing::MachineParams m = timing::k100_lc();
  bool quiet = false, detail = false;
  std::vector<std::string> overrides;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--set" && i + 1 < argc) {
      std::string kv = argv[++i];
      if (!bench::apply_set_option(m, "calibrate", kv)) return 2;
      overrides.push_back(kv);
    } else if (a == "--detail") {
      detail = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--help" || a == "-h") {
      return usage(0);
    } else {
      std::fprintf(stderr, "k100-bench calibrate: %s\n",
                   k100::tools::unknown_option(a, {"--set", "--detail", "--quiet", "--help"}).c_str());
      return usage(2);
    }
  }
  try {
    bench::calibrate::ProbeDevice dev;
    auto cases = bench::calibrate::record_calibration_cases(dev, [&](const std::string& name) {
      if (!quiet) std::fprintf(stderr, "  recorded: %s\n", name.c_str());
    });
    if (!quiet) {
      std::printf("MODELED K100_LC values of the calibration probes (timing model, k100/timing/simulator.h) against\n"
                  "the numbers measured on the card (PERFORMANCE_FACTS). Parameters:\n");
      for (const auto& p : timing::parameters(m)) std::printf("  %-30s %s  [%s]\n", p.name.c_str(), p.value.c_str(), p.source.c_str());
      for (const auto& o : overrides) std::printf("  overridden: %s\n", o.c_str());
      std::printf("Emulated sizes:\n");
      for (const auto& c : cases) std::printf("  %-84s %s\n", c.name.c_str(), c.scaling.c_str());
      std::printf("\n");
    }
    int width = 4;
    for (const auto& c : cases) width = std::max(width, int(c.name.size()));
    std::printf("%-*s %4s %12s %12s %7s  %s\n", width, "case", "sec", "measured", "MODELED", "ratio", "limiter (MODELED)");
    double sum = 0, worst = 0;
    for (const auto& c : cases) {
      double got = c.modeled(m);
      double ratio = got / c.measured;
      double err = std::fabs(ratio - 1);
      sum += err;
      worst = std::max(worst, err);
      char mv[32], gv[32];
      std::snprintf(mv, sizeof mv, "%.4g %s", c.measured, c.unit.c_str());
      std::snprintf(gv, sizeof gv, "%.4g %s", got, c.unit.c_str());
      std::printf("%-*s %4s %12s %12s %7.3f  %s\n", width, c.name.c_str(), c.section.c_str(), mv, gv, ratio, c.limiter(m).c_str());
      if (detail) std::printf("    %s\n", c.detail(m).c_str());
    }
    std::printf("%zu cases, mean |error| %.1f %%, max |error| %.1f %%\n", cases.size(),
                cases.empty() ? 0.0 : 100 * sum / double(cases.size()), 100 * worst);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-bench calibrate: %s\n", e.what());
    return 1;
  }
}

k100::bench::Register reg("calibrate", "the timing model against the measured K100_LC calibration numbers", run);

}  // namespace
