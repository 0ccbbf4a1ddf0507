// Device memory of the emulator: a 64-bit address space of checked allocations.
//
// Addresses grow monotonically and are never reused, each allocation is
// followed by an unmapped guard gap, and freed ranges are remembered: so any
// address resolves to "inside live allocation N", "inside freed allocation N"
// or "k bytes outside the nearest allocation", which is what a fault report
// needs. Lookups are read-only and safe from many threads while the set of
// allocations does not change (the Device's lock guarantees that).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "k100/emu/fault.h"

namespace k100::emu::detail {

struct Allocation {
  uint32_t id = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  std::string label;
  bool read_only = false;
  std::unique_ptr<uint8_t[]> data;
  uint64_t end() const { return base + size; }
  AllocationInfo info(bool live = true) const { return {id, base, size, label, live}; }
};

class DeviceMemory {
 public:
  static constexpr uint64_t kFirstAddress = uint64_t(0x10) << 32;
  static constexpr uint64_t kGuardGap = 64 * 1024;

  DeviceMemory();
  Allocation& create(uint64_t size, std::string label, uint64_t align, bool read_only);
  // Throws k100::Error when `base` is not the start of a live allocation.
  void release(uint64_t base);

  // The live allocation containing `addr`, or null.
  Allocation* find(uint64_t addr) const;
  // Fills kind/nearest/distance/message of a fault for a failed access of
  // `size` bytes at `addr`.
  void diagnose(uint64_t addr, uint64_t size, bool write, Fault& f) const;
  std::vector<AllocationInfo> list() const;
  uint64_t bytes_live() const { return bytes_live_; }

  // Serialises device atomics touching the same 8-byte word across host threads.
  std::mutex& atomic_lock(uint64_t addr) { return locks_[(addr >> 3) % locks_.size()]; }

  // The Global Data Share: 64 KiB per device, as gfx9 defines it, zeroed at
  // creation and kept across dispatches. DS instructions with the gds
  // modifier address it through M0 (src/emu/ds.cpp); gds_mutex makes each
  // such instruction one step for all host threads.
  static constexpr uint32_t kGdsBytes = 64 * 1024;
  std::vector<uint8_t> gds = std::vector<uint8_t>(kGdsBytes);
  std::mutex gds_mutex;

 private:
  std::vector<std::unique_ptr<Allocation>> live_;  // sorted by base
  std::vector<AllocationInfo> freed_;              // sorted by address (never reused)
  uint64_t next_ = kFirstAddress;
  uint32_t next_id_ = 1;
  uint64_t bytes_live_ = 0;
  std::array<std::mutex, 128> locks_;
};

// A one-entry translation cache per host thread: most accesses of a kernel
// hit the allocation of the previous access.
struct MemCache {
  Allocation* last = nullptr;
};

// Host pointer for [addr, addr+size) when it lies inside one live allocation
// (and, for writes, a writable one); null otherwise.
inline uint8_t* translate(const DeviceMemory& mem, MemCache& cache, uint64_t addr, uint64_t size,
                          bool write) {
  Allocation* a = cache.last;
  if (!a || addr < a->base || addr + size > a->end() || addr + size < addr) {
    a = mem.find(addr);
    if (!a || addr + size > a->end() || addr + size < addr) return nullptr;
    cache.last = a;
  }
  if (write && a->read_only) return nullptr;
  return a->data.get() + (addr - a->base);
}

}  // namespace k100::emu::detail
