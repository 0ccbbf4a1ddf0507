#include "k100/model/profiling_device.h"

#include <algorithm>

namespace k100::model {

std::string kernel_family(std::string_view n) {
  auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
  auto starts = [&](std::string_view s) { return n.substr(0, s.size()) == s; };
  if (has("_dot_k") || starts("reduce_blocks")) return "quantized dot";
  if (has("dequant")) return "block decode";
  if (starts("gemv") || has("gemv")) return "gemv";
  if (has("norm")) return "norm";
  if (starts("qkv_rope") || starts("rope") || starts("vt_scatter")) return "rope + kv";
  if (starts("flash_dec") || starts("attn") || starts("fa_")) return "attention";
  if (starts("embed")) return "embedding";
  if (starts("moe_") || starts("topk") || starts("router")) return "moe routing";
  if (has("_mul_k") || starts("add_inplace") || starts("fill") || starts("scale_mul") || starts("concat")) return "elementwise";
  if (starts("argmax")) return "sampling";
  return "other";
}

ProfilingDevice::~ProfilingDevice() {
  for (const auto& p : pending_) inner_.release_event(p.marker);
  if (last_marker_ >= 0) inner_.release_event(last_marker_);
}

int ProfilingDevice::kernel_id(std::string_view lookup) const {
  const int id = inner_.kernel_id(lookup);
  if (id >= 0 && !families_.count(id)) families_[id] = kernel_family(lookup);
  return id;
}

void ProfilingDevice::set_timing(bool on) {
  if (on && !timing_ && last_marker_ < 0) last_marker_ = inner_.record_event();
  timing_ = on;
}

void ProfilingDevice::restart_clock() {
  if (!timing_) return;
  collect();
  if (last_marker_ >= 0) inner_.release_event(last_marker_);
  last_marker_ = inner_.record_event();
}

void ProfilingDevice::launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) {
  inner_.launch(kernel, grid, workgroup, argv);
  ++launches_;
  if (timing_) pending_.push_back({inner_.record_event(), kernel});
}

void ProfilingDevice::launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                                std::span<const uint64_t> argv) {
  inner_.launch_2d(kernel, grid_x, grid_y, workgroup, argv);
  ++launches_;
  if (timing_) pending_.push_back({inner_.record_event(), kernel});
}

void ProfilingDevice::collect() {
  if (pending_.empty()) return;
  int prev = last_marker_;
  for (const auto& p : pending_) {
    const double ms = prev >= 0 ? inner_.elapsed_ms(prev, p.marker) : 0.0;
    auto it = families_.find(p.kernel);
    const std::string fam = it == families_.end() ? "other" : it->second;
    FamilyTime& t = totals_[fam];
    t.family = fam;
    t.ms += ms;
    t.launches += 1;
    if (prev >= 0) inner_.release_event(prev);
    prev = p.marker;
  }
  pending_.clear();
  last_marker_ = prev;
}

std::vector<ProfilingDevice::FamilyTime> ProfilingDevice::family_times() const {
  std::vector<FamilyTime> out;
  for (const auto& [name, t] : totals_) out.push_back(t);
  std::sort(out.begin(), out.end(), [](const FamilyTime& a, const FamilyTime& b) { return a.ms > b.ms; });
  return out;
}

void ProfilingDevice::reset() {
  collect();
  totals_.clear();
  launches_ = 0;
}

}  // namespace k100::model
