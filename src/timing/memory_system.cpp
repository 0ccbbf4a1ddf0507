#include "memory_system.h"

#include <algorithm>
#include <cmath>

#include "k100/base/error.h"

namespace k100::timing::detail {

namespace {

// Address bits folded onto themselves: consecutive lines (L2) or interleave
// chunks (HBM) spread over all channels, and power-of-two strides do not pile
// onto one channel or set.
uint64_t fold(uint64_t x, unsigned shift) { return x ^ (x >> shift) ^ (x >> (2 * shift)) ^ (x >> (3 * shift)); }

bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

}  // namespace

MemorySystem::MemorySystem(const MachineParams& m) : m_(m) {
  ways_ = std::max(1u, m.l2_ways);
  sets_ = uint32_t(std::max(1.0, m.l2_bytes / 64 / ways_));
  if (!is_pow2(sets_) || !is_pow2(m.dram_channels) || !is_pow2(m.l2_channels) || m.dram_interleave_bytes < 64 ||
      m.dram_open_bytes <= 0)
    throw Error("timing: machine parameters need power-of-two L2 sets and channels, an HBM interleave of 64 bytes or more "
                "and a positive open-row capacity");
  l2_.assign(size_t(sets_) * ways_, Line{});
  l1_ways_ = std::max(1u, m.l1_ways);
  l1_sets_ = uint32_t(std::max(1.0, m.l1_bytes / 64 / l1_ways_));
  if (!is_pow2(l1_sets_)) throw Error("timing: the L1 needs a power-of-two number of sets");
  l1_tag_.assign(size_t(m.compute_units) * l1_sets_ * l1_ways_, ~uint64_t(0));
  l1_stamp_.assign(l1_tag_.size(), 0);
  l1_latency_ = m.l1_latency_cycles;
  l2_free_.assign(m.l2_channels, 0);
  l2_busy_.assign(m.l2_channels, 0);
  dram_.assign(m.dram_channels, DramChannel{});
  l2_latency_ = m.l2_latency_cycles;
  dram_latency_ = m.cycles(m.dram_latency_s);
  dram_line_ = m.cycles(64.0 / (m.dram_peak_bytes_per_s * m.dram_efficiency / m.dram_channels));
  dram_activate_ = m.cycles(m.dram_activate_s);
  host_latency_ = m.cycles(m.host_latency_s);
}

bool MemorySystem::l1_lookup(uint32_t cu, uint64_t line, bool allocate) {
  size_t base = (size_t(cu) * l1_sets_ + size_t(line & (l1_sets_ - 1))) * l1_ways_;
  size_t victim = base;
  for (size_t w = base; w < base + l1_ways_; ++w) {
    if (l1_tag_[w] == line) {
      l1_stamp_[w] = ++l1_clock_;
      return true;
    }
    if (l1_stamp_[w] < l1_stamp_[victim]) victim = w;
  }
  if (allocate) {
    l1_tag_[victim] = line;
    l1_stamp_[victim] = ++l1_clock_;
  }
  return false;
}

void MemorySystem::begin_dispatch() {
  // A kernel starts with its L1s invalidated (the dispatch's acquire).
  std::fill(l1_tag_.begin(), l1_tag_.end(), ~uint64_t(0));
  // The previous kernel's release wrote every dirty line back (charged when
  // the line became dirty), so all lines start clean and filled.
  for (Line& l : l2_) {
    l.ready = 0;
    l.dirty = false;
  }
  std::fill(l2_free_.begin(), l2_free_.end(), 0);
  for (auto& c : dram_) c.free = 0;
  inflight_ = {};
  live_bytes_ = 0;
  rows_.clear();
  host_free_ = 0;
}

void MemorySystem::reset_stats() {
  stats_ = MemoryStats{};
  for (auto& c : dram_) c.busy = 0;
  std::fill(l2_busy_.begin(), l2_busy_.end(), 0);
}

double MemorySystem::drain_time() const {
  double t = 0;
  for (const auto& c : dram_) t = std::max(t, c.free);
  return t;
}

double MemorySystem::dram_busy() const {
  double b = 0;
  for (const auto& c : dram_) b += c.busy;
  return b;
}

double MemorySystem::l2_channel_busy_max() const { return *std::max_element(l2_busy_.begin(), l2_busy_.end()); }

MemorySystem::Line* MemorySystem::lookup(uint64_t line, bool* hit) {
  size_t set = size_t(fold(line, 13) & (sets_ - 1));
  Line* base = &l2_[set * ways_];
  Line* victim = base;
  for (uint32_t w = 0; w < ways_; ++w) {
    Line* l = base + w;
    if (l->tag == line) {
      *hit = true;
      l->stamp = ++l2_clock_;
      return l;
    }
    if (l->stamp < victim->stamp) victim = l;
  }
  *hit = false;
  victim->tag = line;
  victim->stamp = ++l2_clock_;
  victim->dirty = false;
  victim->ready = 0;
  return victim;
}

// One HBM request for `line` arriving at cycle t; returns when its data is
// at the L2 (reads) or the channel has taken it (writes).
double MemorySystem::dram(uint64_t line, double t, bool write, uint32_t segment_lines) {
  const uint64_t chunk = (line * 64) / m_.dram_interleave_bytes;
  const size_t channel = size_t(fold(chunk, 5) & (m_.dram_channels - 1));
  DramChannel& c = dram_[channel];
  double bus = dram_line_;
  uint64_t row = 0;
  if (write) {
    // Write-backs are buffered and drained in row order: their measured
    // cost per line, no row activations.
    bus *= m_.dram_write_cost;
    ++stats_.dram_lines_written;
  } else {
    // Row locality: while the reads in flight fit in the open rows of all
    // banks, activations overlap data transfers. Beyond that, rows are
    // closed before they are used up and every contiguous segment a wave
    // requests in one trip pays one activation (a growing fraction of them
    // between one and two times the open-row capacity).
    while (!inflight_.empty() && inflight_.top().done <= t) {
      if (m_.dram_row_bytes > 0) {
        auto it = rows_.find(inflight_.top().row);
        if (it != rows_.end() && --it->second == 0) rows_.erase(it);
      }
      inflight_.pop();
      live_bytes_ -= 64;
    }
    if (m_.dram_row_bytes > 0) {
      // The channel-local address: the chunks this channel holds, in order.
      const uint64_t local = (chunk / m_.dram_channels) * m_.dram_interleave_bytes + (line * 64) % m_.dram_interleave_bytes;
      row = (local / uint64_t(m_.dram_row_bytes)) * m_.dram_channels + channel;
      const double open = m_.dram_banks * m_.dram_channels;
      uint32_t& n = rows_[row];
      if (n == 0) {
        double over = std::clamp((double(rows_.size()) - open) / open, 0.0, 1.0);
        double act = over * dram_activate_;
        bus += act;
        stats_.dram_activation_cycles += act;
      }
      ++n;
    } else {
      double over = std::clamp((live_bytes_ - m_.dram_open_bytes) / m_.dram_open_bytes, 0.0, 1.0);
      if (over > 0) {
        double act = over * dram_activate_ / std::max<uint32_t>(segment_lines, 1);
        bus += act;
        stats_.dram_activation_cycles += act;
      }
    }
    ++stats_.dram_lines_read;
  }
  double start = std::max(t, c.free);
  c.free = start + bus;
  c.busy += bus;
  book(stats_.dram_busy_by_interval, timeline_, start, bus);
  if (write) return c.free;
  double done = c.free + dram_latency_;
  inflight_.push({done, row});
  live_bytes_ += 64;
  return done;
}

double MemorySystem::line_access(uint64_t line, double t, emu::MemoryAccess access, uint32_t segment_lines) {
  const size_t ch = size_t(fold(line, 4) & (m_.l2_channels - 1));
  double at = std::max(t, l2_free_[ch]);
  l2_free_[ch] = at + 1;
  l2_busy_[ch] += 1;
  bool hit = false;
  Line* l = lookup(line, &hit);
  const bool reads = access != emu::MemoryAccess::Write;
  const bool writes = access != emu::MemoryAccess::Read;
  if (hit) {
    ++stats_.l2_hits;
  } else {
    ++stats_.l2_misses;
    // A full-line write allocates without reading; anything that reads fetches.
    l->ready = reads ? dram(line, at, false, segment_lines) : at;
  }
  if (writes && !l->dirty) {
    l->dirty = true;
    dram(line, at, true, 1);  // the line's write-back, charged when it first becomes dirty
  }
  return std::max(at, l->ready) + l2_latency_;
}

double MemorySystem::vector_access(uint32_t cu, const uint64_t* runs, uint32_t nruns, double t, double per_line,
                                   emu::MemoryAccess access, uint32_t segment_lines) {
  double done = t + l1_latency_;
  double at = t;
  for (uint32_t r = 0; r < nruns; ++r) {
    uint64_t first = runs[r] >> 20;
    uint32_t n = uint32_t(runs[r] & 0xfffff);
    for (uint32_t i = 0; i < n; ++i, at += per_line) {
      // The L1 is write-through: reads allocate, writes and atomics go to the L2.
      if (access == emu::MemoryAccess::Read && l1_lookup(cu, first + i, true)) {
        ++stats_.l1_hits;
        continue;
      }
      done = std::max(done, line_access(first + i, at, access, segment_lines));
    }
  }
  return done;
}

// Scalar loads have their own cache in hardware; here they go to the L2.
double MemorySystem::scalar_access(uint64_t run, double t, emu::MemoryAccess access) {
  double done = t + l2_latency_;
  uint64_t first = run >> 20;
  for (uint32_t i = 0; i < run_lines(run); ++i) done = std::max(done, line_access(first + i, t + i, access, run_lines(run)));
  return done;
}

double MemorySystem::host_read(double t, uint32_t bytes) {
  double cost = m_.cycles((bytes + m_.host_request_overhead_bytes) / m_.host_link_bytes_per_s);
  double start = std::max(t, host_free_);
  host_free_ = start + cost;
  stats_.host_busy += cost;
  book(stats_.host_busy_by_interval, timeline_, start, cost);
  ++stats_.host_requests;
  return host_free_ + host_latency_;
}

// Service of `cycles` from cycle `start`, split over the intervals it spans.
void MemorySystem::book(std::vector<double>& by_interval, double interval, double start, double cycles) {
  for (double t = start, end = start + cycles; t < end;) {
    const size_t i = size_t(t / interval);
    const double until = std::min(end, double(i + 1) * interval);
    if (by_interval.size() <= i) by_interval.resize(i + 1, 0.0);
    by_interval[i] += until - t;
    t = until;
  }
}

void MemorySystem::warm(const uint64_t* runs, uint32_t nruns) {
  for (uint32_t r = 0; r < nruns; ++r) {
    uint64_t first = runs[r] >> 20;
    uint32_t n = uint32_t(runs[r] & 0xfffff);
    for (uint32_t i = 0; i < n; ++i) {
      bool hit = false;
      lookup(first + i, &hit);
    }
  }
}

}  // namespace k100::timing::detail
