// A unit is the limiter when it was busy most of the execution time (the
// kernel runs at that unit's rate); otherwise the kernel is latency-bound and
// the question is why not enough work was in flight: the machine was mostly
// empty (the grid ran out: grid tail), registers or LDS capped the resident
// waves (occupancy), or the resident waves each drain too often (latency /
// bytes in flight). The dispatch floor wins when it is longer than the
// execution itself.
#include "limiter.h"

#include <cstdio>

namespace k100::timing::detail {

namespace {

// A unit busy this large a fraction of the execution sets the pace.
constexpr double kBusy = 0.7;
// Fewer resident waves than this fraction of what fits: the machine is underfilled.
constexpr double kUnderfilled = 0.5;

std::string pct(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * f);
  return b;
}

std::string num(double v, const char* fmt = "%.0f") {
  char b[48];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

}  // namespace

void attribute_limiter(DispatchTiming& r) {
  if (r.floor_s >= r.exec_s) {
    r.limiter = Limiter::Launch;
    r.reason = "dispatch floor " + num(r.floor_s * 1e6, "%.1f") + " us >= execution " + num(r.exec_s * 1e6, "%.1f") + " us";
    return;
  }
  struct Unit {
    Limiter limiter;
    double busy;
    const char* what;
  } units[] = {
      {Limiter::DramBandwidth, r.dram_utilization, "HBM channels busy"},
      {Limiter::Launch, r.host_utilization, "host link busy with kernel-argument reads"},
      {Limiter::Issue, r.issue_utilization, "busiest SIMD's issue port busy"},
      {Limiter::Lds, r.lds_utilization, "busiest CU's LDS busy"},
      {Limiter::Issue, r.ta_utilization, "busiest CU's vector memory unit busy"},
      {Limiter::L2Bandwidth, r.l2_utilization, "busiest L2 channel busy"},
  };
  const Unit* top = &units[0];
  for (const Unit& u : units)
    if (u.busy > top->busy) top = &u;
  if (top->busy >= kBusy) {
    r.limiter = top->limiter;
    r.reason = std::string(top->what) + " " + pct(top->busy) + " of the time";
    if (top->limiter == Limiter::DramBandwidth && r.dram_activation_s > 0.05 * r.exec_s)
      r.reason += ", " + pct(r.dram_activation_s / r.exec_s) +
                  " of it opening rows (more reads in flight than the open rows hold, " +
                  num(r.bytes_in_flight / 1024, "%.0f") + " KiB)";
    return;
  }
  const std::string waits = "waves wait at s_waitcnt " + pct(r.wait_fraction) + " of their time, " +
                            num(r.bytes_in_flight / 1024, "%.0f") + " KiB in flight on average";
  const std::string resident = num(r.resident_waves, "%.0f") + " waves resident on average of " +
                               num(r.wave_capacity, "%.0f") + " that fit";
  if (r.resident_waves < kUnderfilled * r.wave_capacity) {
    r.limiter = Limiter::GridTail;
    r.reason = resident + " (" + num(double(r.workgroups)) + " workgroups); " + waits;
    return;
  }
  if (r.occupancy.limit != OccupancyLimit::Waves) {
    r.limiter = Limiter::Occupancy;
    r.reason = std::string(occupancy_limit_name(r.occupancy.limit)) + " use allows " +
               num(r.occupancy.resident_waves_per_simd, "%.2f") + " waves per SIMD; " + waits;
    return;
  }
  r.limiter = Limiter::Latency;
  r.reason = waits;
}

}  // namespace k100::timing::detail
