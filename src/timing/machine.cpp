#include "k100/timing/machine.h"

#include <cstdio>

namespace k100::timing {

MachineParams k100_lc() { return MachineParams{}; }

namespace {

// Every numeric field by name.
#define K100_TIMING_FIELDS(X)                                                                                   \
  X(compute_units) X(simds_per_cu) X(clock_hz) X(max_waves_per_simd) X(vgprs_per_simd_lane) X(sgprs_per_simd)   \
  X(sgpr_granule) X(lds_bytes_per_cu) X(lds_granule) X(max_workgroups_per_cu) X(issue_cycles)                \
  X(valu_cycles) X(valu_quarter_cycles) X(lds_latency_cycles) X(ta_cycles_per_line)   \
  X(l1_bytes) X(l1_ways) X(l1_latency_cycles) X(l2_bytes) X(l2_ways) X(l2_channels) X(l2_latency_cycles) X(dram_peak_bytes_per_s) X(dram_efficiency)         \
  X(dram_channels) X(dram_interleave_bytes) X(dram_open_bytes) X(dram_activate_s) X(dram_row_bytes) X(dram_banks)           \
  X(dram_latency_s) X(dram_write_cost) X(host_link_bytes_per_s) X(host_request_overhead_bytes)               \
  X(host_latency_s) X(dispatch_floor_s)

template <class T>
void assign(T& field, double v) {
  field = static_cast<T>(v);
}

}  // namespace

bool set_parameter(MachineParams& m, const std::string& name, double value) {
#define K100_SET(f)       \
  if (name == #f) {       \
    assign(m.f, value);   \
    return true;          \
  }
  K100_TIMING_FIELDS(K100_SET)
#undef K100_SET
  return false;
}

std::vector<std::string> parameter_names() {
  std::vector<std::string> n;
#define K100_NAME(f) n.push_back(#f);
  K100_TIMING_FIELDS(K100_NAME)
#undef K100_NAME
  return n;
}

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::vector<ParameterInfo> parameters(const MachineParams& m) {
  return {
      {"compute units x SIMDs, clock", fmt("%.0f", m.compute_units) + " x " + fmt("%.0f", m.simds_per_cu) + ", " +
                                           fmt("%.2f GHz", m.clock_hz / 1e9),
       "PERFORMANCE_FACTS 1 (HSA runtime)"},
      {"occupancy limits", "10 waves/SIMD, 256 VGPRs/lane, 800 SGPRs, 64 KiB LDS/CU, 16 multi-wave workgroups/CU",
       "GFX9 hardware limits"},
      {"VALU issue, full rate", fmt("%.3f cycles per wave-instruction", m.valu_cycles),
       "PERFORMANCE_FACTS 2: 8.93 T-inst/s sustained of 9.75 peak (FMA/dot4/dot8 probes)"},
      {"VALU issue, quarter rate", fmt("%.1f cycles per wave-instruction", m.valu_quarter_cycles),
       "PERFORMANCE_FACTS 1: v_rcp_f32/v_sqrt_f32 at 2.35 T-inst/s"},
      {"other issue", fmt("%.0f cycles per instruction per wave", m.issue_cycles), "GCN: a SIMD issues to a wave every 4th cycle"},
      {"vector L1", fmt("%.0f KiB per CU", m.l1_bytes / 1024) + fmt(", %.0f-way", m.l1_ways) +
                        fmt(", hit round trip %.0f cycles", m.l1_latency_cycles),
       "PERFORMANCE_FACTS 1 (size); hit: a lone wave's pointer chase on a GFX9-family part (MI210, 125 cycles); ways assumed"},
      {"L2", fmt("%.0f MiB", m.l2_bytes / 1048576) + fmt(", %.0f channels x 64 B/cycle", m.l2_channels) +
                 fmt(", hit round trip %.0f cycles", m.l2_latency_cycles),
       "PERFORMANCE_FACTS 1 (size); 32 channels (as on MI100/MI200, ROCm profiler docs); hit: the MI210 pointer chase (238 cycles)"},
      {"HBM", fmt("%.0f GB/s", m.dram_peak_bytes_per_s / 1e9) + fmt(" x %.4f", m.dram_efficiency) +
                  fmt(", %.0f channels", m.dram_channels) + fmt(", miss adds %.0f ns", m.dram_latency_s * 1e9),
       "PERFORMANCE_FACTS 1 (peak, 4096-bit bus); 3 (50 back-to-back reads: 876.8 GB/s); miss: the MI210 pointer chase "
       "(337 ns from HBM, 140 ns from L2)"},
      {"HBM rows", fmt("open-row capacity %.0f KiB", m.dram_open_bytes / 1024) +
                       fmt(", activation %.1f ns", m.dram_activate_s * 1e9) + fmt(", %.0f B channel interleave", m.dram_interleave_bytes),
       "HBM2 organisation (32 channels x 16 banks x 2 KiB rows); activation time from the PERFORMANCE_FACTS 3 workgroups-per-CU sweep"},
      {"HBM writes", fmt("%.3f x the channel time of a read", m.dram_write_cost), "PERFORMANCE_FACTS 3: float4 fill 618 GB/s"},
      {"host link", fmt("%.3f GB/s", m.host_link_bytes_per_s / 1e9) + fmt(", %.0f B per request", m.host_request_overhead_bytes) +
                        fmt(", %.2f us round trip", m.host_latency_s * 1e6) +
                        ", one request per 64-byte line a wave asks for",
       "PCIe Gen4 x4 (PERFORMANCE_FACTS 1): 16 GT/s x 4 x 128/130; per read completion a 12 B header, 4 B LCRC, 4 B "
       "framing; round trip from the PERFORMANCE_FACTS 3 grid points; lines: the scalar data cache's"},
      {"dispatch floor", fmt("%.2f us per dispatch", m.dispatch_floor_s * 1e6), "PERFORMANCE_FACTS 6: empty kernel 7.1-7.4 us, 16 dispatches 112 us"},
  };
}

}  // namespace k100::timing
