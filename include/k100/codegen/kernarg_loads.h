// k100lc codegen: which s_load_dword* a kernel issues at entry to read the
// parts of its kernarg segment it uses.
//
// The kernarg segment lives in host memory: every scalar load of it is one
// read request over the host link, which costs its bytes plus a fixed framing
// overhead (docs/PERFORMANCE.md, "Kernel arguments come over the host link"),
// and every wave of a grid pays it. So the loads cover exactly the dwords the
// kernel reads, an argument it never reads costs nothing, and several
// separate pieces share one wider load where the framing saved pays for the
// dwords read in between (loads may overlap when that is cheaper).
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
// The link cost of a plan: sum over loads of data bytes + overhead.
uint32_t kernarg_link_bytes(const std::vector<KernargLoad>& loads);

// The cheapest set of loads inside the segment's `segment_dwords` dwords that
// holds every use at an aligned place (ties: fewer loads, then fewer dwords).
// Throws k100::Error (naming `kernel`) for a use outside the segment.
KernargPlan plan_kernarg_loads(const std::vector<KernargUse>& uses, uint32_t segment_dwords,
                               const std::string& kernel = {});

}  // namespace k100::codegen
