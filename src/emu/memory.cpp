#include "memory.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "k100/base/error.h"

namespace k100::emu::detail {

namespace {
std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}
}  // namespace

DeviceMemory::DeviceMemory() = default;

Allocation& DeviceMemory::create(uint64_t size, std::string label, uint64_t align, bool read_only) {
  if (align < 256) align = 256;
  if (align & (align - 1)) throw Error("emu: allocation alignment " + std::to_string(align) + " is not a power of two");
  if (size > (uint64_t(1) << 40)) throw Error("emu: allocation of " + std::to_string(size) + " bytes is too large");
  uint64_t base = (next_ + align - 1) & ~(align - 1);
  auto a = std::make_unique<Allocation>();
  a->id = next_id_++;
  a->base = base;
  a->size = size;
  a->label = std::move(label);
  a->read_only = read_only;
  // At least one byte so data() is valid; zero-filled like fresh device memory.
  a->data.reset(new uint8_t[size ? size : 1]());
  // Guard gap: at least kGuardGap, more for big allocations so large strides
  // past the end still land in unmapped space.
  uint64_t gap = std::max<uint64_t>(kGuardGap, std::min<uint64_t>(size, uint64_t(1) << 30));
  next_ = base + size + gap;
  bytes_live_ += size;
  Allocation& ref = *a;
  auto pos = std::upper_bound(live_.begin(), live_.end(), base,
                              [](uint64_t b, const std::unique_ptr<Allocation>& x) { return b < x->base; });
  live_.insert(pos, std::move(a));
  return ref;
}

void DeviceMemory::release(uint64_t base) {
  auto it = std::lower_bound(live_.begin(), live_.end(), base,
                             [](const std::unique_ptr<Allocation>& x, uint64_t b) { return x->base < b; });
  if (it == live_.end() || (*it)->base != base) {
    std::string why = "emu: free of " + hex(base) + ", which is not the start of a live allocation";
    for (const auto& f : freed_)
      if (f.address == base) why += " (allocation #" + std::to_string(f.id) + " was already freed)";
    throw Error(why);
  }
  AllocationInfo info = (*it)->info(false);
  bytes_live_ -= (*it)->size;
  live_.erase(it);
  auto pos = std::upper_bound(freed_.begin(), freed_.end(), info.address,
                              [](uint64_t b, const AllocationInfo& x) { return b < x.address; });
  freed_.insert(pos, std::move(info));
}

Allocation* DeviceMemory::find(uint64_t addr) const {
  auto it = std::upper_bound(live_.begin(), live_.end(), addr,
                             [](uint64_t b, const std::unique_ptr<Allocation>& x) { return b < x->base; });
  if (it == live_.begin()) return nullptr;
  Allocation* a = std::prev(it)->get();
  return addr < a->end() ? a : nullptr;
}

void DeviceMemory::diagnose(uint64_t addr, uint64_t size, bool write, Fault& f) const {
  f.address = addr;
  f.access_size = uint32_t(size);
  f.write = write;
  // Inside a live allocation: either it straddles the end or it is a store to read-only memory.
  if (Allocation* a = find(addr)) {
    f.nearest = a->info();
    if (write && a->read_only && addr + size <= a->end()) {
      f.kind = FaultKind::ReadOnlyWrite;
      f.distance = 0;
      f.message = "store to read-only memory (" + a->label + ")";
      return;
    }
    f.kind = FaultKind::OutOfBounds;
    f.distance = int64_t(addr + size - a->end());
    f.message = std::string(write ? "store" : "load") + " of " + std::to_string(size) +
                " bytes crosses the end of allocation #" + std::to_string(a->id);
    return;
  }
  // Inside a freed allocation?
  auto fit = std::upper_bound(freed_.begin(), freed_.end(), addr,
                              [](uint64_t b, const AllocationInfo& x) { return b < x.address; });
  if (fit != freed_.begin()) {
    const AllocationInfo& fr = *std::prev(fit);
    if (addr < fr.address + fr.size) {
      f.kind = FaultKind::UseAfterFree;
      f.nearest = fr;
      f.distance = 0;
      f.message = std::string(write ? "store to" : "load from") + " freed memory (allocation #" +
                  std::to_string(fr.id) + ")";
      return;
    }
  }
  f.kind = FaultKind::OutOfBounds;
  std::string what = std::string(write ? "store" : "load") + " of " + std::to_string(size) + " bytes at " + hex(addr);
  if (addr < kGuardGap) {  // no allocation is ever that low
    f.message = what + ": a null pointer (an address in the first 64 KiB: a pointer left 0, or an offset "
                       "used without its base)";
    return;
  }
  // Nearest live allocation by distance.
  const Allocation* best = nullptr;
  int64_t best_d = 0;
  auto it = std::upper_bound(live_.begin(), live_.end(), addr,
                             [](uint64_t b, const std::unique_ptr<Allocation>& x) { return b < x->base; });
  if (it != live_.begin()) {
    const Allocation* a = std::prev(it)->get();
    best = a;
    best_d = int64_t(addr - a->end());  // 0 = the first byte after the allocation
  }
  if (it != live_.end()) {
    const Allocation* a = it->get();
    int64_t d = -int64_t(a->base - addr);
    if (!best || uint64_t(-d) < uint64_t(best_d)) {
      best = a;
      best_d = d;
    }
  }
  if (best) {
    f.nearest = best->info();
    f.distance = best_d;
    std::string where = " (offset " + std::to_string(int64_t(addr - best->base)) + " of allocation #" +
                        std::to_string(best->id) + ", size " + std::to_string(best->size) + ")";
    // beyond the guard gap around every allocation nothing is mapped
    bool far = uint64_t(best_d < 0 ? -best_d : best_d) >= kGuardGap;
    std::string side = best_d >= 0 ? std::to_string(best_d) + " bytes past the end"
                                   : std::to_string(-best_d) + " bytes before the start";
    f.message = what + (far ? ": an unmapped address, " + side + " of the nearest allocation" : ", " + side) + where;
  } else {
    f.message = what + ": an unmapped address (there is no allocation)";
  }
}

std::vector<AllocationInfo> DeviceMemory::list() const {
  std::vector<AllocationInfo> out;
  out.reserve(live_.size());
  for (const auto& a : live_) out.push_back(a->info());
  return out;
}

}  // namespace k100::emu::detail
