// Where the modeled card keeps the buffers a dispatch sequence touches.
//
// The emulator's device addresses come from a bump allocator: every
// allocation and every dispatch (its kernarg segment, packet and queue)
// moves the next address on, so the same kernel on the same buffers gets
// other addresses after other work ran in the process, or with another
// package loaded. The card maps physical addresses to L2 and HBM channels,
// so placement matters there too, but its placement is the VRAM manager's,
// not the process's history. The model therefore translates every address
// to (allocation, offset) and places the allocations the sequence touches
// in a canonical physical layout: in address order, from physical address
// 0, each at the next multiple of the VRAM manager's block (2 MiB for
// allocations of 2 MiB or more, else a 4 KiB page; the amdgpu VRAM manager
// hands out buddy blocks of those sizes). The modeled time is then a
// function of the kernel, its arguments and the sizes and order of its
// buffers, not of what ran before.
#pragma once

#include <cstdint>
#include <vector>

#include "k100/timing/trace.h"

namespace k100::timing::detail {

// How many line runs of its wave's trace an op carries (at lines[op.arg]).
uint32_t line_runs(const TraceOp& op);

class PhysicalLayout {
 public:
  static constexpr uint64_t kPage = 4096, kBlock = 2u << 20;

  explicit PhysicalLayout(const std::vector<const DispatchTrace*>& sequence);
  // The line run (trace.h line_run) with its first line translated. Lines
  // outside every allocation the emulator reported keep their address.
  uint64_t translate(uint64_t run) const;
  // A dispatch's line runs, translated, per workgroup and wave.
  struct Lines {
    std::vector<uint64_t> runs;
    std::vector<std::vector<uint32_t>> offset;  // [workgroup][wave] -> first run in `runs`
    const uint64_t* of(size_t workgroup, size_t wave) const { return runs.data() + offset[workgroup][wave]; }
  };
  Lines translate(const DispatchTrace& d) const;

 private:
  struct Region {
    uint64_t first_line = 0, end_line = 0, physical_line = 0;
  };
  const Region* find(uint64_t line) const;
  std::vector<Region> regions_;  // by first_line
  mutable const Region* last_ = nullptr;
};

}  // namespace k100::timing::detail
