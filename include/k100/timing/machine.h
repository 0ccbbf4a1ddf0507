// k100lc timing: the modeled K100_LC, as a handful of physical quantities.
//
// The timing module turns the emulator's per-wave execution events into a
// MODELED time on a K100_LC: workgroups placed on 120 CUs x 4 SIMDs under the
// occupancy limits, per-SIMD issue, memory operations whose completion a wave
// waits for at its s_waitcnt, an L2 and an HBM behind it as bandwidth-limited
// servers with latencies, the host link that serves kernel-argument reads,
// and the per-dispatch floor. Every number the model uses is one field of
// MachineParams; k100_lc() sets them from the hardware facts and the
// calibration micro-benchmarks (docs/PERFORMANCE.md lists each with its
// source), parameters() describes them for reports.
#pragma once

#include <string>
#include <vector>

namespace k100::timing {

struct MachineParams {
  // --- organisation (hardware facts)
  unsigned compute_units = 120;
  unsigned simds_per_cu = 4;
  double clock_hz = 1.27e9;
  // GFX9 occupancy limits.
  unsigned max_waves_per_simd = 10;
  unsigned vgprs_per_simd_lane = 256;  // VGPRs per lane of one SIMD
  unsigned sgprs_per_simd = 800;
  unsigned sgpr_granule = 16;          // the descriptor's SGPR count already includes VCC and friends
  unsigned lds_bytes_per_cu = 65536;
  unsigned lds_granule = 512;          // LDS allocation granule (128 dwords)
  unsigned max_workgroups_per_cu = 16; // barrier resources; one-wave workgroups need none

  // --- instruction issue (cycles one SIMD port is busy per wave-instruction)
  double issue_cycles = 4;             // a wave issues at most one instruction per 4 cycles
  double valu_cycles = 4.368;          // full rate at the sustained 8.93 T-inst/s (PERFORMANCE_FACTS 2)
  double valu_quarter_cycles = 16.6;   // transcendentals, 32-bit integer multiplies (2.35 T-inst/s, FACTS 1)
  // LDS: one dword per lane of a half-wave per cycle (128 B) and per bank
  // conflict one more (from the lane offsets); then this round trip.
  double lds_latency_cycles = 64;
  double ta_cycles_per_line = 1;       // vector memory: 64-byte lines a CU's address unit handles per cycle

  // --- vector L1 (per CU, write-through)
  double l1_bytes = 16 * 1024;
  unsigned l1_ways = 4;
  // Load-to-use round trips of a lone wave, in core cycles: the caches run
  // in the core clock domain. A single wave's pointer chase on a GFX9-family
  // part (MI210, gfx90a: 16 KiB L1 per CU, 8 MiB L2 in 32 channels, like the
  // K100_LC) measured 73.6 ns for an L1 hit and ~140 ns for an L2 hit at
  // 1.7 GHz (docs/PERFORMANCE.md, "Parameters").
  double l1_latency_cycles = 125;      // a vector load that hits in L1

  // --- L2
  double l2_bytes = 8 * 1024 * 1024;
  unsigned l2_ways = 16;
  unsigned l2_channels = 32;           // each serves one 64-byte line per cycle
  double l2_latency_cycles = 238;      // a vector load that misses L1 and hits in L2

  // --- HBM
  double dram_peak_bytes_per_s = 896e9;
  double dram_efficiency = 0.9786;     // 876.8 of 896 GB/s, 50 back-to-back reads (FACTS 3)
  unsigned dram_channels = 32;
  unsigned dram_interleave_bytes = 256;
  double dram_open_bytes = 32 * 16 * 2048;  // open-row capacity: channels x banks x row bytes
  double dram_activate_s = 37.6e-9;    // channel time of one row activation that cannot overlap (FACTS 3 sweep)
  // Row model by distinct rows (0: by bytes in flight, the model above): a
  // channel's rows of this many bytes, `dram_banks` open per channel; a read
  // line whose row no other read in flight holds pays one activation, scaled
  // by how far the distinct rows in flight exceed the open ones.
  double dram_row_bytes = 0;
  double dram_banks = 16;
  // What an L2 miss adds to the L2 round trip, in seconds (the memory side has
  // its own clocks): the same pointer chase, 337 ns from HBM against 140 ns from L2.
  double dram_latency_s = 197e-9;
  double dram_write_cost = 1.419;      // written line vs read line: 876.8 / 618 GB/s (FACTS 3 fill)

  // --- host link (kernel arguments, dispatch packet and queue live in host memory)
  double host_link_bytes_per_s = 7.877e9;
  double host_request_overhead_bytes = 20;  // per read completion: TLP header 12 B, LCRC 4 B, framing 4 B
  double host_latency_s = 2.5e-6;      // round trip (FACTS 3 grid points)

  // --- dispatch
  double dispatch_floor_s = 7.2e-6;    // per dispatch, back to back (FACTS 6)

  double cycles(double seconds) const { return seconds * clock_hz; }
  double seconds(double cycles) const { return cycles / clock_hz; }
};

// The K100_LC as calibrated (docs/PERFORMANCE.md, "Parameters").
MachineParams k100_lc();

// Sets the field called `name` (as spelled in MachineParams) to `value`;
// false when there is no such field. For sensitivity studies (k100-bench
// calibrate --set name=value).
bool set_parameter(MachineParams& m, const std::string& name, double value);
std::vector<std::string> parameter_names();

// One parameter for reports: name, value with unit, and where it comes from.
struct ParameterInfo {
  std::string name, value, source;
};
std::vector<ParameterInfo> parameters(const MachineParams& m);

}  // namespace k100::timing
