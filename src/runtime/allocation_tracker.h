// k100lc runtime: the buffers a Runtime handed out, for checked transfers.
//
// Every host-side operation on device memory is checked here first, so a
// bad pointer becomes a RuntimeError that says what it hit: a range running
// past the end of its buffer (by how many bytes), a freed buffer (use after
// free), a second free, or an address no buffer contains. Freed ranges are
// remembered (the most recent 65,536) until an allocation reuses them.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace k100::runtime {

class AllocationTracker {
 public:
  struct Range {
    uint64_t base = 0, size = 0;
  };

  void add(uint64_t base, uint64_t size);
  // Removes the live buffer starting at `base`; throws RuntimeError(BadPointer)
  // for a double free, an interior pointer or an unknown address.
  Range remove(uint64_t base, const std::string& what);
  // Throws RuntimeError(BadPointer) unless [ptr, ptr + n) lies in one live buffer.
  void check(uint64_t ptr, uint64_t n, const std::string& what) const;
  // The freed buffer containing ptr when no live one does (for launch arguments).
  std::optional<Range> freed_at(uint64_t ptr) const;
  std::optional<Range> live_at(uint64_t ptr) const;
  size_t size_of(uint64_t base) const;  // 0 unless base starts a live buffer
  std::vector<Range> live() const;

 private:
  std::optional<Range> find_live(uint64_t ptr) const;
  std::optional<Range> find_freed(uint64_t ptr) const;
  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> live_, freed_;
  std::deque<uint64_t> freed_order_;
};

std::string hex_address(uint64_t v);

}  // namespace k100::runtime
