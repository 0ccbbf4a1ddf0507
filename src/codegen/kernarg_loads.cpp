#include "k100/codegen/kernarg_loads.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "k100/base/error.h"
#include "k100/codegen/registers.h"

namespace k100::codegen {

namespace {

constexpr uint32_t kLineDwords = 16;  // a 64-byte line of the segment (which starts line-aligned)

bool crosses_lines(const KernargLoad& l) { return l.first / kLineDwords != (l.first + uint32_t(l.dwords) - 1) / kLineDwords; }

}  // namespace

uint32_t kernarg_link_bytes(const std::vector<KernargLoad>& loads) {
  std::map<uint32_t, uint32_t> line_bytes;
  uint32_t bytes = 0;
  for (const KernargLoad& l : loads) {
    if (crosses_lines(l))
      bytes += 4 * uint32_t(l.dwords) + kKernargRequestOverhead;
    else
      line_bytes[l.first / kLineDwords] += 4 * uint32_t(l.dwords);
  }
  for (auto [line, b] : line_bytes) bytes += std::min<uint32_t>(b, 64) + kKernargRequestOverhead;
  return bytes;
}

namespace {

bool holds(const KernargLoad& l, const KernargUse& u) {
  return l.first <= u.first && u.first + uint32_t(u.dwords) <= l.first + uint32_t(l.dwords) &&
         (u.first - l.first) % uint32_t(sgpr_alignment(u.dwords)) == 0;
}

// Exact search over sets of uses still to cover. The first uncovered use (by
// start) must be held by some load; of loads of one width starting at the same
// residue mod 4 (the largest alignment a view needs), the one starting latest
// holds every later use the others hold, so at most 4 starts per width are
// tried. Memoised on the uncovered set.
struct Search {
  const std::vector<KernargUse>& uses;  // sorted by first
  uint32_t segment;
  using Cost = std::tuple<uint32_t, size_t, uint32_t>;  // link bytes, loads, dwords
  std::map<uint64_t, std::pair<Cost, std::vector<KernargLoad>>> memo;

  std::pair<Cost, std::vector<KernargLoad>> best(uint64_t left) {
    if (!left) return {Cost{0, 0, 0}, {}};
    if (auto it = memo.find(left); it != memo.end()) return it->second;
    const size_t first = size_t(__builtin_ctzll(left));
    const KernargUse& u = uses[first];
    std::pair<Cost, std::vector<KernargLoad>> out{Cost{UINT32_MAX, 0, 0}, {}};
    for (int w : {1, 2, 4, 8, 16}) {
      if (w < u.dwords || uint32_t(w) > segment) continue;
      const uint32_t latest = std::min(u.first, segment - uint32_t(w));
      for (uint32_t back = 0; back < 4 && back <= latest; ++back) {
        const KernargLoad l{latest - back, w};
        if (!holds(l, u)) continue;
        uint64_t rest = left;
        for (size_t i = first; i < uses.size(); ++i)
          if ((rest >> i & 1) && holds(l, uses[i])) rest &= ~(uint64_t(1) << i);
        auto [cost, loads] = best(rest);
        if (std::get<0>(cost) == UINT32_MAX) continue;
        // the overhead of a line's shared request does not depend on how
        // many loads read it (every line a use lies in is requested once)
        cost = Cost{std::get<0>(cost) + 4 * uint32_t(w) + (crosses_lines(l) ? kKernargRequestOverhead : 0),
                    std::get<1>(cost) + 1, std::get<2>(cost) + uint32_t(w)};
        if (cost < out.first) {
          loads.push_back(l);
          out = {cost, std::move(loads)};
        }
      }
    }
    memo[left] = out;
    return out;
  }
};

}  // namespace

KernargPlan plan_kernarg_loads(const std::vector<KernargUse>& uses, uint32_t segment_dwords,
                               const std::string& kernel) {
  for (const KernargUse& u : uses)
    if (u.dwords < 1 || u.dwords > 16 || u.first + uint32_t(u.dwords) > segment_dwords)
      throw Error("kernel '" + kernel + "': kernarg dwords " + std::to_string(u.first) + " (+" +
                  std::to_string(u.dwords) + ") lie outside its " + std::to_string(segment_dwords) +
                  "-dword segment");
  // Distinct uses by start (longer first); a use inside another at an aligned
  // place is held wherever the other is, so only the outer ones are searched.
  std::vector<KernargUse> sorted = uses;
  std::sort(sorted.begin(), sorted.end(), [](const KernargUse& a, const KernargUse& b) {
    return a.first != b.first ? a.first < b.first : a.dwords > b.dwords;
  });
  std::vector<KernargUse> outer;
  for (const KernargUse& u : sorted) {
    bool inside = false;
    for (const KernargUse& o : outer) inside = inside || holds(KernargLoad{o.first, o.dwords}, u);
    if (!inside) outer.push_back(u);
  }
  // Searched exactly in groups of up to 64 uses (one group in every kernel so far).
  KernargPlan plan;
  for (size_t g = 0; g < outer.size(); g += 64) {
    const std::vector<KernargUse> group(outer.begin() + long(g), outer.begin() + long(std::min(outer.size(), g + 64)));
    Search s{group, segment_dwords, {}};
    std::vector<KernargLoad> loads = s.best(~uint64_t(0) >> (64 - group.size())).second;
    plan.loads.insert(plan.loads.end(), loads.begin(), loads.end());
  }
  std::sort(plan.loads.begin(), plan.loads.end(),
            [](const KernargLoad& a, const KernargLoad& b) { return a.first < b.first; });
  for (const KernargUse& u : uses) {
    int at = -1;
    for (size_t l = 0; l < plan.loads.size() && at < 0; ++l)
      if (holds(plan.loads[l], u)) at = int(l);
    if (at < 0) throw Error("kernel '" + kernel + "': no kernarg load holds dword " + std::to_string(u.first));
    plan.load_of_use.push_back(at);
  }
  return plan;
}

}  // namespace k100::codegen
