// k100lc timing: the MODELED time of recorded dispatches on a K100_LC.
//
// simulate() schedules the recorded per-wave streams on its own clock:
// workgroups are placed in order on the CUs that have room for them (VGPRs,
// SGPRs, wave slots, LDS, barrier resources), each wave issues its
// operations on its SIMD's ports (VALU, SALU) and its CU's vector memory and
// LDS units, memory operations complete after the latency and queueing of
// the L2, HBM or host link, and a wave that reaches s_waitcnt waits until
// few enough of its operations are outstanding, so the bytes in flight
// follow from the code (Little's law). A dispatch costs the dispatch floor
// plus the time from its first wave's start to its last wave's end;
// dispatches run back to back. Before the measured pass, the L2 is warmed
// with the sequence's lines, as a benchmark's warm-up run would. Addresses
// are first moved to a canonical physical layout of the buffers the
// sequence touches (allocation and offset, from the allocations each trace
// carries), so the result does not depend on where the emulator's
// allocator happened to put them.
//
// This is abstract timing over functional execution, not a cycle-accurate
// GPU: ALU instructions issue in runs, the memory system answers at issue
// time, and hazards, instruction fetch and clock changes are not modeled.
#pragma once

#include <string>
#include <vector>

#include "k100/timing/machine.h"
#include "k100/timing/occupancy.h"
#include "k100/timing/trace.h"

namespace k100::timing {

enum class Limiter : uint8_t { DramBandwidth, L2Bandwidth, Latency, Occupancy, Issue, Lds, Launch, GridTail };
const char* limiter_name(Limiter l);

struct DispatchTiming {
  std::string kernel;
  uint64_t workgroups = 0, waves = 0;
  Occupancy occupancy;
  double floor_s = 0, exec_s = 0, total_s = 0;  // total = floor + exec
  // Busy fractions of the execution time: HBM (mean over channels), host
  // link, the busiest SIMD's issue port, the busiest CU's LDS and vector
  // memory address unit, the busiest L2 channel.
  double dram_utilization = 0, host_utilization = 0, issue_utilization = 0, lds_utilization = 0,
         ta_utilization = 0, l2_utilization = 0;
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0, l1_hits = 0, l2_hits = 0, l2_misses = 0, host_requests = 0;
  double dram_activation_s = 0;   // HBM time (per channel, mean) lost to row activations
  double bytes_in_flight = 0;     // mean bytes of vector memory operations outstanding
  double resident_waves = 0;      // mean waves resident on the machine
  double wave_capacity = 0;       // waves a full machine holds at this occupancy
  double wait_fraction = 0;       // share of the waves' lifetime spent waiting at s_waitcnt
  double tail_s = 0;              // execution after the last workgroup was placed
  double instructions_per_wave = 0;
  // Dependent vector-memory round trips per wave: the longest chain of
  // waits the wave blocked in, each for an operation issued after the
  // previous one (a loop that keeps two trips in flight counts one per two).
  double round_trips_per_wave = 0;
  // The wave that lived longest (the critical one when few waves run): its
  // lifetime, dependent round trips and instructions.
  double longest_wave_s = 0;
  uint32_t longest_wave_round_trips = 0;
  uint64_t longest_wave_instructions = 0;
  Limiter limiter = Limiter::Latency;
  std::string reason;             // the numbers behind the limiter
  // The execution in intervals of SimOptions::timeline_interval_s from its
  // start: where a dispatch loses time to its ramp and its tail.
  struct Interval {
    double dram_busy = 0;    // HBM service that began in the interval, as a fraction of all channels' time
    double host_busy = 0;    // the same for the host link
    uint32_t waves_started = 0, waves_ended = 0;
  };
  double timeline_interval_s = 0;
  std::vector<Interval> timeline;
};

struct Timing {
  std::vector<DispatchTiming> dispatches;
  double total_s = 0;
  // The limiter of the dispatch that took longest.
  Limiter limiter = Limiter::Latency;
  std::string reason;
};

struct SimOptions {
  bool warm_l2 = true;  // replay the sequence's lines into the L2 first
  double timeline_interval_s = 1e-6;  // DispatchTiming::timeline
};

// Throws k100::Error when a dispatch faulted or a workgroup cannot fit on a CU.
Timing simulate(const std::vector<const DispatchTrace*>& sequence, const MachineParams& m, const SimOptions& o = {});

}  // namespace k100::timing
