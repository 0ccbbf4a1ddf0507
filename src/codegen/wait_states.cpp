// plan_wait_states: the GFX9 required wait states on every backward path.
#include <algorithm>
#include <functional>

#include "k100/codegen/waits.h"
#include "k100/isa/hazards.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

isa::Inst nop_inst(int wait_states) {
  isa::Inst i;
  i.id = isa::find_instruction("s_nop")->id;
  i.num_operands = 1;
  i.ops[0] = isa::Operand::imm(uint32_t(wait_states - 1));
  return i;
}

}  // namespace

std::vector<std::pair<int, int>> plan_wait_states(std::span<const isa::Inst> insts, std::span<const FlowInst> flow) {
  const size_t n = insts.size();
  int longest = 0;
  for (const isa::HazardRule& r : isa::hazard_rules()) longest = std::max(longest, int(r.wait_states));
  std::vector<std::vector<int>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    if (flow[i].falls_through && i + 1 < n) preds[i + 1].push_back(int(i));
    for (int t : flow[i].targets)
      if (t >= 0 && size_t(t) < n) preds[size_t(t)].push_back(int(i));
  }
  std::vector<int> added(n, 0);  // wait states inserted before each instruction so far
  std::vector<isa::Inst> path;   // newest first while walking back
  std::vector<std::pair<int, int>> out;
  for (size_t i = 0; i < n; ++i) {
    int missing = 0;
    // every backward path of at least `longest` wait states (or to the entry);
    // `path` holds the instructions before i, newest first
    std::function<void(int, int)> walk = [&](int at, int have) {
      if (at < 0 || have >= longest) {
        std::vector<isa::Inst> window(path.rbegin(), path.rend());
        missing = std::max(missing, isa::check_window(window, insts[i]).missing);
        return;
      }
      const size_t depth = path.size();
      path.push_back(insts[size_t(at)]);
      have += isa::wait_states_of(insts[size_t(at)]);
      if (added[size_t(at)]) {
        path.push_back(nop_inst(added[size_t(at)]));
        have += added[size_t(at)];
      }
      if (preds[size_t(at)].empty()) walk(-1, have);
      for (int p : preds[size_t(at)]) walk(p, have);
      path.resize(depth);
    };
    if (added[i]) path.push_back(nop_inst(added[i]));
    if (preds[i].empty()) walk(-1, added[i]);
    for (int p : preds[i]) walk(p, added[i]);
    path.clear();
    if (missing > 0) {
      // before a glued instruction nothing may go: before its sequence instead
      size_t at = i;
      while (at > 0 && flow[at].glued) --at;
      added[at] += missing;
      out.emplace_back(int(at), missing);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace k100::codegen
