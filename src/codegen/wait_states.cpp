// insert_wait_states: the GFX9 required wait states on every backward path.
//
// For each instruction, every backward path (through the blocks' linear
// predecessors) of at least the longest rule's wait states is checked against
// the hazard table (isa/hazards.h, the same the emulator's checks read).
// Where wait states are missing, an independent later instruction of the same
// block is moved into the shadow first (shadow_fill); s_nop covers the rest.
#include <algorithm>
#include <functional>

#include "k100/codegen/passes.h"
#include "k100/isa/hazards.h"
#include "k100/isa/table.h"
#include "inst_factory.h"
#include "wait_state_shadow.h"

namespace k100::codegen {

namespace {


}  // namespace

int longest_hazard_window() {
  int longest = 0;
  for (const isa::HazardRule& r : isa::hazard_rules()) longest = std::max(longest, int(r.wait_states));
  return longest;
}

MissingStates::MissingStates(const MFunction& f) : f_(f), longest_(longest_hazard_window()) {
  added_.resize(f.blocks.size());
  for (size_t b = 0; b < f.blocks.size(); ++b) added_[b].assign(f.blocks[b].insts.size(), 0);
}

int MissingStates::missing(int b, int i) const {
  const isa::HazardProfile& target = f_.blocks[size_t(b)].insts[size_t(i)].hazard_profile();
  // most instructions are the consumer of no rule: nothing to look back for
  if (target.num_probes == 0) return 0;
  const auto rules = isa::hazard_rules();
  int missing = 0;
  // Backward over every path: `have` wait states lie between instruction
  // `at` of block `bb` and the target. The nearest producer of a register
  // has the fewest, so the largest shortfall over all producers is the answer.
  std::function<void(int, int, int)> walk = [&](int bb, int at, int have) {
    if (have >= longest_) return;
    if (at < 0) {
      for (int p : f_.blocks[size_t(bb)].pred) walk(p, int(f_.blocks[size_t(p)].insts.size()) - 1, have);
      return;
    }
    const isa::HazardProfile& x = f_.blocks[size_t(bb)].insts[size_t(at)].hazard_profile();
    for (int s = 0; s < x.num_stamps; ++s) {
      const isa::HazardProfile::Stamp& st = x.stamps[size_t(s)];
      for (int q = 0; q < target.num_probes; ++q) {
        const isa::HazardProfile::Probe& pr = target.probes[size_t(q)];
        const isa::HazardRule& rule = rules[pr.rule];
        if (rule.producer == st.producer && pr.regs.overlaps(st.regs))
          missing = std::max(missing, int(rule.wait_states) - have);
      }
    }
    walk(bb, at - 1, have + x.wait_states + added_[size_t(bb)][size_t(at)]);
  };
  walk(b, i - 1, added_[size_t(b)][size_t(i)]);
  return missing;
}

void MissingStates::plan() {
  for (size_t b = 0; b < f_.blocks.size(); ++b)
    for (size_t i = 0; i < f_.blocks[b].insts.size(); ++i) {
      const int m = missing(int(b), int(i));
      if (m <= 0) continue;
      // before a glued instruction nothing may go: before its sequence instead
      size_t bb = b, at = i;
      while (f_.blocks[bb].insts[at].flags & kGlued) {
        if (at > 0) --at;
        else if (bb > 0 && !f_.blocks[bb - 1].insts.empty()) at = f_.blocks[--bb].insts.size() - 1;
        else break;
      }
      added_[bb][at] += m;
    }
}

int MissingStates::total(int b) const {
  int n = 0;
  for (int x : added_[size_t(b)]) n += x;
  return n;
}

void insert_wait_states(MFunction& f) {
  build_cfg(f);
  shadow_fill(f);
  MissingStates states(f);
  states.plan();
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    if (states.total(int(b)) == 0) continue;
    std::vector<MInst>& insts = f.blocks[b].insts;
    std::vector<MInst> out;
    out.reserve(insts.size() + 4);
    for (size_t i = 0; i < insts.size(); ++i) {
      for (int n = states.added(int(b), int(i)); n > 0; n -= 8) {
        MInst nop = make_inst(f, "s_nop", {PassOperand::imm(std::min(n, 8) - 1)}, -1);
        out.push_back(std::move(nop));
      }
      out.push_back(std::move(insts[i]));
    }
    insts = std::move(out);
  }
}

}  // namespace k100::codegen
