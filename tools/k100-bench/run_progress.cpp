#include "run_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace k100::bench {

RunProgress::RunProgress(size_t total, bool enabled, double quiet_seconds, double log_interval)
    : total_(total), enabled_(enabled), terminal_(isatty(2) == 1),
      quiet_(quiet_seconds), interval_(log_interval) {}

std::string RunProgress::duration(double seconds) {
  long s = long(seconds + 0.5);
  char b[32];
  if (s >= 3600) std::snprintf(b, sizeof b, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60) std::snprintf(b, sizeof b, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(b, sizeof b, "%lds", s);
  return b;
}

std::string RunProgress::line(const std::string& name) const {
  double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // wall time per finished kernel (with -j N the workers' kernels overlap in it) times those left
  double eta = finished_ ? spent / double(finished_) * double(total_ - finished_) : 0;
  char b[256];
  std::snprintf(b, sizeof b, "k100-bench kernels: [%zu/%zu] %3.0f%% %s done, %s spent, about %s left", finished_,
                total_, 100.0 * double(finished_) / double(std::max<size_t>(total_, 1)), name.c_str(),
                duration(spent).c_str(), duration(std::max(eta, 0.0)).c_str());
  return b;
}

void RunProgress::finished(const std::string& name) {
  ++finished_;
  if (!enabled_) return;
  double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (spent < quiet_) return;
  bool last = finished_ == total_;
  if (terminal_) {
    std::fprintf(stderr, "\r%s\033[K", line(name).c_str());
  } else {
    if (!last && spent - last_print_ < interval_) return;
    std::fprintf(stderr, "%s\n", line(name).c_str());
    last_print_ = spent;
  }
  shown_ = true;
  std::fflush(stderr);
}

void RunProgress::done() {
  if (enabled_ && terminal_ && shown_) std::fputc('\n', stderr);
}

std::string SummaryRow::encode() const {
  std::ostringstream o;
  o.precision(9);
  o << lookup << '\t' << family << '\t' << (pass ? 1 : 0) << '\t' << modeled_s << '\t' << limiter << '\t'
    << peak_fraction;
  return o.str();
}

SummaryRow SummaryRow::decode(const std::string& line) {
  SummaryRow r;
  std::vector<std::string> f;
  std::stringstream in(line);
  std::string x;
  while (std::getline(in, x, '\t')) f.push_back(x);
  if (f.size() != 6) return r;
  r.lookup = f[0];
  r.family = f[1];
  r.pass = f[2] == "1";
  r.modeled_s = std::atof(f[3].c_str());
  r.limiter = f[4];
  r.peak_fraction = std::atof(f[5].c_str());
  r.finished = true;
  return r;
}

void print_summary(std::FILE* out, const std::vector<SummaryRow>& rows) {
  size_t passed = 0, failed = 0, unfinished = 0, width = 6;
  for (const auto& r : rows) {
    (r.finished ? (r.pass ? passed : failed) : unfinished)++;
    width = std::max(width, r.lookup.size());
  }
  std::fprintf(out, "\nsummary of %zu kernels: %zu passed, %zu failed", rows.size(), passed, failed);
  if (unfinished) std::fprintf(out, ", %zu without a report", unfinished);
  std::fprintf(out, " (times MODELED for K100_LC, not measured)\n");
  std::fprintf(out, "%-*s  %-8s %-6s %12s  %-14s %s\n", int(width), "kernel", "group", "check", "MODELED", "limiter",
               "% of 896 GB/s");
  for (const auto& r : rows) {
    char t[32] = "-", p[32] = "-";
    if (r.modeled_s >= 0) std::snprintf(t, sizeof t, "%.2f us", r.modeled_s * 1e6);
    if (r.peak_fraction >= 0) std::snprintf(p, sizeof p, "%.1f", 100 * r.peak_fraction);
    std::fprintf(out, "%-*s  %-8s %-6s %12s  %-14s %s\n", int(width), r.lookup.c_str(), r.family.c_str(),
                 !r.finished ? "none" : r.pass ? "pass" : "FAIL", t, r.limiter.empty() ? "-" : r.limiter.c_str(), p);
  }
}

}  // namespace k100::bench
