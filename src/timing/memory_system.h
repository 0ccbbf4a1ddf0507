// The memory side of the model: the L2 (set-associative, LRU, one server per
// channel), the HBM (per channel a bandwidth server that also loses time
// when a request needs a row that is not open) and the host link that serves
// reads of host memory. Times are in core cycles.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "k100/emu/observer.h"
#include "k100/timing/machine.h"

namespace k100::timing::detail {

struct MemoryStats {
  uint64_t l1_hits = 0, l2_hits = 0, l2_misses = 0;
  uint64_t dram_lines_read = 0, dram_lines_written = 0;
  double dram_activation_cycles = 0;  // channel time lost to row activations
  uint64_t host_requests = 0;
  double host_busy = 0;  // cycles
  double l2_busy_max = 0;
  // Per interval of MachineParams::timeline_cycles (from the dispatch's
  // start): channel-cycles of HBM service and cycles of host-link service
  // that began in it.
  std::vector<double> dram_busy_by_interval, host_busy_by_interval;
};

class MemorySystem {
 public:
  explicit MemorySystem(const MachineParams& m);

  // A new dispatch starts at cycle 0: servers idle, every fill complete. The
  // contents of the L2 and the open rows stay (kernels run back to back).
  void begin_dispatch();
  // A vector memory instruction whose line runs enter the L2 from cycle `t`,
  // one line per `per_line` cycles. Returns the cycle its data is back (loads)
  // or its writes are acknowledged (stores).
  // `segment_lines`: the mean contiguous segment of the load's trip
  // (TraceOp::aux). Reads look in CU `cu`'s vector L1 first.
  double vector_access(uint32_t cu, const uint64_t* runs, uint32_t nruns, double t, double per_line,
                       emu::MemoryAccess access, uint32_t segment_lines);
  // A scalar access of device memory (one run).
  double scalar_access(uint64_t run, double t, emu::MemoryAccess access);
  // A read of `bytes` of host memory over the host link.
  double host_read(double t, uint32_t bytes);
  // Brings lines into the L2 without timing (the warm-up pass of a benchmark).
  void warm(const uint64_t* runs, uint32_t nruns);

  // When the last queued HBM request (a write-back) has been served: a
  // kernel ends only once its writes have reached memory.
  double drain_time() const;
  // Channel-cycles the HBM was busy (per channel the busier of bus and activation), summed.
  double dram_busy() const;

  // The interval of the stats' timelines, in cycles.
  void set_timeline_interval(double cycles) { timeline_ = cycles; }
  const MemoryStats& stats() const { return stats_; }
  void reset_stats();
  double l2_channel_busy_max() const;

 private:
  struct Line {
    uint64_t tag = ~uint64_t(0);
    uint64_t stamp = 0;
    double ready = 0;
    bool dirty = false;
  };
  struct DramChannel {
    double free = 0, busy = 0;
  };
  double line_access(uint64_t line, double t, emu::MemoryAccess access, uint32_t segment_lines);
  Line* lookup(uint64_t line, bool* hit);
  // CU `cu`'s L1 holds `line` (true), or takes it now (false).
  bool l1_lookup(uint32_t cu, uint64_t line, bool allocate);
  double dram(uint64_t line, double t, bool write, uint32_t segment_lines);
  static uint32_t run_lines(uint64_t run) { return uint32_t(run & 0xfffff); }
  static void book(std::vector<double>& by_interval, double interval, double start, double cycles);

  const MachineParams& m_;
  uint32_t sets_ = 0, ways_ = 0;
  std::vector<Line> l2_;
  uint32_t l1_sets_ = 0, l1_ways_ = 0;
  std::vector<uint64_t> l1_tag_, l1_stamp_;  // per CU: sets x ways
  uint64_t l1_clock_ = 0;
  uint64_t l2_clock_ = 0;
  std::vector<double> l2_free_, l2_busy_;
  std::vector<DramChannel> dram_;
  double host_free_ = 0;
  // cycles
  double timeline_ = 1270;  // cycles per timeline interval
  double l1_latency_ = 0, l2_latency_ = 0, dram_latency_ = 0, dram_line_ = 0, dram_activate_ = 0, host_latency_ = 0;
  // HBM reads in flight: their completion cycles, and their bytes.
  struct InFlight {
    double done;
    uint64_t row;
    bool operator>(const InFlight& o) const { return done > o.done; }
  };
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> inflight_;
  double live_bytes_ = 0;
  // Distinct-rows variant: lines in flight per (row, channel).
  std::unordered_map<uint64_t, uint32_t> rows_;
  MemoryStats stats_;
};

}  // namespace k100::timing::detail
