// How a long `k100-bench kernels` run reports itself: a progress line on
// standard error (kernels done of all, the one that just finished, time
// spent and an estimate of the time left) and, at the end, a summary table
// of every kernel on standard output.
//
// The progress line appears once a run has taken `quiet_seconds` (short
// runs stay silent); on a terminal it is rewritten in place, elsewhere (a
// CI log) a line is written at most every `log_interval` seconds and at the
// end. The estimate is the wall time per finished kernel (the workers of -j
// overlap in it) times the kernels left.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace k100::bench {

class RunProgress {
 public:
  RunProgress(size_t total, bool enabled, double quiet_seconds = 10, double log_interval = 30);
  // One more kernel finished (`name`); prints the line when it is due.
  void finished(const std::string& name);
  // Ends the line on a terminal.
  void done();
  // "1h02m", "3m12s", "45s"
  static std::string duration(double seconds);

 private:
  std::string line(const std::string& name) const;
  size_t total_, finished_ = 0;
  bool enabled_, terminal_, shown_ = false;
  double quiet_, interval_, last_print_ = -1e9;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// One kernel's row in the summary table.
struct SummaryRow {
  std::string lookup, family;
  bool finished = false, pass = false;
  double modeled_s = -1;      // < 0: no modeled time
  std::string limiter;        // of the modeled time
  double peak_fraction = -1;  // of 896 GB/s, < 0 when the kernel declares no ideal bytes

  // One line, tab-separated, for a worker process to hand over, and back.
  std::string encode() const;
  static SummaryRow decode(const std::string& line);
};

// The table, with a count of passed, failed and unfinished kernels.
void print_summary(std::FILE* out, const std::vector<SummaryRow>& rows);

}  // namespace k100::bench
