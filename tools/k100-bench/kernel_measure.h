// The measurement behind `k100-bench kernels` and `k100-bench validate`: a
// kernel's benchmark case run on the emulator with detailed profiling and the
// timing model's recorder, giving its traffic per argument buffer, its
// instruction mix, the plain roofline bound and the MODELED K100_LC time of
// its own dispatches with the limiter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/emu/profile.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/registry.h"
#include "k100/timing/simulator.h"

namespace k100::bench {

constexpr double kDramBytesPerSecond = 896e9;
extern const char* const kModelHeader;

struct Region {
  std::string name;  // the argument's name
  uint64_t bytes = 0;
  uint64_t requested = 0, distinct = 0;  // lines
};

struct Report {
  std::string lookup, family, dims;
  bool pass = false;
  std::string check;  // "pass" or the failure
  uint64_t dispatches = 0, groups = 0, waves = 0;
  uint64_t requested_bytes = 0, ideal_bytes = 0, dram_bytes = 0, cache_request_bytes = 0;
  emu::Profile profile;
  std::vector<Region> regions;
  uint32_t vgprs = 0, sgprs = 0, lds = 0, scratch = 0;
  double waves_per_simd = 0;
  const char* occupancy_limit = "";
  // Plain roofline (bound) terms.
  double t_dram = 0, t_valu = 0, t_scalar = 0, t_lds = 0, t_tex = 0, t_launch = 0, roofline = 0, bound = 0;
  const char* roofline_term = "";
  // Timing model.
  bool timed = false;
  std::string timing_error;
  timing::Timing timing;
  double modeled = 0, achieved_gbs = 0, peak_fraction = 0;
};

// Runs `c` of `def` on `dev` and measures the kernel's own dispatches on the
// modeled machine `m`.
Report measure(const kernels::KernelDef& def, kernels::EmuTestDevice& dev, const kernels::Case& c,
               const timing::MachineParams& m = timing::k100_lc());

}  // namespace k100::bench
