#include "physical_layout.h"

#include <algorithm>

namespace k100::timing::detail {

uint32_t line_runs(const TraceOp& op) {
  switch (op.kind) {
    case OpKind::VmemLoad:
    case OpKind::VmemStore:
    case OpKind::VmemAtomic: return op.count;
    case OpKind::SmemLoad:
    case OpKind::SmemStore: return op.count && !op.aux ? 1 : 0;  // aux: host memory, no lines
    default: return 0;
  }
}

namespace {

uint64_t round_up64(uint64_t v, uint64_t granule) { return (v + granule - 1) / granule * granule; }

}  // namespace

PhysicalLayout::PhysicalLayout(const std::vector<const DispatchTrace*>& sequence) {
  // Every allocation any dispatch saw, once.
  std::vector<Region> all;
  for (const DispatchTrace* d : sequence)
    for (const auto& a : d->info.allocations)
      all.push_back({a.base >> 6, (a.base + std::max<uint64_t>(a.bytes, 1) + 63) >> 6, 0});
  std::sort(all.begin(), all.end(), [](const Region& x, const Region& y) { return x.first_line < y.first_line; });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Region& x, const Region& y) { return x.first_line == y.first_line; }),
            all.end());
  // The ones the sequence touches.
  std::vector<char> touched(all.size(), 0);
  regions_ = all;
  for (const DispatchTrace* d : sequence)
    for (const auto& wg : d->workgroups)
      for (const auto& w : wg.waves)
        for (const TraceOp& op : w.ops) {
          for (uint32_t r = 0, n = line_runs(op); r < n; ++r)
            if (const Region* g = find(run_first(w.lines[op.arg + r]))) touched[size_t(g - regions_.data())] = 1;
        }
  regions_.clear();
  last_ = nullptr;
  uint64_t cursor = 0;  // bytes
  for (size_t i = 0; i < all.size(); ++i) {
    if (!touched[i]) continue;
    const uint64_t bytes = (all[i].end_line - all[i].first_line) * 64;
    const uint64_t base = round_up64(cursor, bytes >= kBlock ? kBlock : kPage);
    regions_.push_back({all[i].first_line, all[i].end_line, base >> 6});
    cursor = base + bytes;
  }
}

const PhysicalLayout::Region* PhysicalLayout::find(uint64_t line) const {
  if (last_ && line >= last_->first_line && line < last_->end_line) return last_;
  auto it = std::upper_bound(regions_.begin(), regions_.end(), line,
                             [](uint64_t l, const Region& r) { return l < r.first_line; });
  if (it == regions_.begin()) return nullptr;
  const Region* r = &*std::prev(it);
  if (line >= r->end_line) return nullptr;
  last_ = r;
  return r;
}

uint64_t PhysicalLayout::translate(uint64_t run) const {
  const uint64_t first = run_first(run);
  const Region* r = find(first);
  return r ? line_run(r->physical_line + (first - r->first_line), run_count(run)) : run;
}

PhysicalLayout::Lines PhysicalLayout::translate(const DispatchTrace& d) const {
  Lines out;
  size_t total = 0;
  for (const auto& wg : d.workgroups)
    for (const auto& w : wg.waves) total += w.lines.size();
  out.runs.reserve(total);
  out.offset.resize(d.workgroups.size());
  for (size_t g = 0; g < d.workgroups.size(); ++g) {
    const auto& waves = d.workgroups[g].waves;
    out.offset[g].resize(waves.size());
    for (size_t k = 0; k < waves.size(); ++k) {
      out.offset[g][k] = uint32_t(out.runs.size());
      for (uint64_t run : waves[k].lines) out.runs.push_back(translate(run));
    }
  }
  return out;
}

}  // namespace k100::timing::detail
