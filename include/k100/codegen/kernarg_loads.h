// k100lc codegen: which s_load_dword* a kernel issues at entry to read the
// parts of its kernarg segment it uses.
//
// The kernarg segment lives in host memory: a wave's scalar loads of one
// 64-byte line of it share one read request over the host link (the scalar
// cache asks for the line once), which costs the bytes the loads read plus a
// fixed framing overhead; a load across two lines is a request of its own
// (docs/PERFORMANCE.md, "Kernel arguments come over the host link"). Every
// wave of a grid pays it, and the link is shared by all of them. So the loads
// cover exactly the dwords the kernel reads (an argument it never reads costs
// nothing): the fewest link bytes first, then the fewest loads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace k100::codegen {

// A run of kernarg dwords one operand reads: `dwords` from dword `first`; the
// register view it becomes must start at a multiple of sgpr_alignment(dwords)
// within its load's destination.
struct KernargUse {
  uint32_t first = 0;
  int dwords = 1;
};

// One load: s_load_dword{,x2,x4,x8,x16} of `dwords` from dword `first`.
struct KernargLoad {
  uint32_t first = 0;
  int dwords = 1;
};

struct KernargPlan {
  std::vector<KernargLoad> loads;  // ascending by first dword
  std::vector<int> load_of_use;    // per use: the index of the load it reads from
};

// Host-link bytes one request costs beyond its data (a read completion's
// header, LCRC and framing on PCIe).
constexpr uint32_t kKernargRequestOverhead = 20;
// The link cost of a plan: per 64-byte line that loads inside it read, their
// bytes (at most 64) + overhead; per load across two lines, its bytes + overhead.
uint32_t kernarg_link_bytes(const std::vector<KernargLoad>& loads);

// The cheapest set of loads inside the segment's `segment_dwords` dwords that
// holds every use at an aligned place (ties: fewer loads, then fewer dwords).
// Throws k100::Error (naming `kernel`) for a use outside the segment.
KernargPlan plan_kernarg_loads(const std::vector<KernargUse>& uses, uint32_t segment_dwords,
                               const std::string& kernel = {});

}  // namespace k100::codegen
