#include "allocation_tracker.h"

#include <cstdio>

#include "k100/runtime/error.h"

namespace k100::runtime {
namespace {
constexpr size_t kFreedHistory = 65536;

std::string bytes(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}
}  // namespace

std::string hex_address(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::optional<AllocationTracker::Range> AllocationTracker::find_live(uint64_t ptr) const {
  auto it = live_.upper_bound(ptr);
  if (it == live_.begin()) return std::nullopt;
  --it;
  // A zero-sized range at the very end still belongs to the buffer.
  if (ptr < it->first + it->second) return Range{it->first, it->second};
  return std::nullopt;
}

std::optional<AllocationTracker::Range> AllocationTracker::find_freed(uint64_t ptr) const {
  auto it = freed_.upper_bound(ptr);
  if (it == freed_.begin()) return std::nullopt;
  --it;
  if (ptr < it->first + it->second) return Range{it->first, it->second};
  return std::nullopt;
}

void AllocationTracker::add(uint64_t base, uint64_t size) {
  std::lock_guard lock(mutex_);
  live_[base] = size;
  // A reused address range is no longer "freed".
  auto it = freed_.upper_bound(base);
  if (it != freed_.begin()) --it;
  while (it != freed_.end() && it->first < base + size) {
    if (it->first + it->second > base)
      it = freed_.erase(it);
    else
      ++it;
  }
}

AllocationTracker::Range AllocationTracker::remove(uint64_t base, const std::string& what) {
  std::lock_guard lock(mutex_);
  auto it = live_.find(base);
  if (it == live_.end()) {
    std::string msg = what + ": " + hex_address(base);
    if (auto r = find_live(base))
      msg += " is inside buffer " + hex_address(r->base) + " (offset " +
             std::to_string(base - r->base) + "), not the start of a buffer";
    else if (auto f = find_freed(base); f && f->base == base)
      msg += " was already freed (double free)";
    else if (f)
      msg += " lies in a buffer that was already freed (" + hex_address(f->base) + ")";
    else
      msg += " is not a buffer allocated by this runtime";
    throw RuntimeError(ErrorCode::BadPointer, msg);
  }
  Range r{it->first, it->second};
  live_.erase(it);
  freed_[r.base] = r.size;
  freed_order_.push_back(r.base);
  while (freed_order_.size() > kFreedHistory) {
    freed_.erase(freed_order_.front());
    freed_order_.pop_front();
  }
  return r;
}

void AllocationTracker::check(uint64_t ptr, uint64_t n, const std::string& what) const {
  std::lock_guard lock(mutex_);
  if (auto r = find_live(ptr)) {
    uint64_t end = r->base + r->size;
    if (n <= end - ptr) return;
    throw RuntimeError(ErrorCode::BadPointer, what + ": the range runs " + bytes(ptr + n - end) +
                                                  " past the end of buffer " +
                                                  hex_address(r->base) + " (" + bytes(r->size) +
                                                  ", range starts at offset " +
                                                  std::to_string(ptr - r->base) + ")");
  }
  if (auto f = find_freed(ptr))
    throw RuntimeError(ErrorCode::BadPointer, what + ": use after free: buffer " +
                                                  hex_address(f->base) + " (" + bytes(f->size) +
                                                  ") was freed");
  // One past the end of a buffer with nothing to transfer is harmless.
  if (n == 0) {
    auto it = live_.lower_bound(ptr);
    if (it != live_.begin() && std::prev(it)->first + std::prev(it)->second == ptr) return;
  }
  throw RuntimeError(
      ErrorCode::BadPointer,
      what + ": " + hex_address(ptr) + " is not inside any buffer allocated by this runtime");
}

std::optional<AllocationTracker::Range> AllocationTracker::freed_at(uint64_t ptr) const {
  std::lock_guard lock(mutex_);
  if (find_live(ptr)) return std::nullopt;
  return find_freed(ptr);
}

std::optional<AllocationTracker::Range> AllocationTracker::live_at(uint64_t ptr) const {
  std::lock_guard lock(mutex_);
  return find_live(ptr);
}

size_t AllocationTracker::size_of(uint64_t base) const {
  std::lock_guard lock(mutex_);
  auto it = live_.find(base);
  return it == live_.end() ? 0 : size_t(it->second);
}

std::vector<AllocationTracker::Range> AllocationTracker::live() const {
  std::lock_guard lock(mutex_);
  std::vector<Range> out;
  for (const auto& [b, s] : live_) out.push_back({b, s});
  return out;
}

}  // namespace k100::runtime
