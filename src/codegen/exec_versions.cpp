// annotate_exec_changes: how each EXEC write the author placed relates the
// lanes on after it to the lanes on before it, for liveness.
//
// Forward over the wave's control flow, EXEC gets a version per point: the
// launch mask at entry (below the whole wave, s_mov_b64 exec, -1), a child
// version after each narrowing write (s_and_saveexec_b64, s_and_b64 /
// s_andn2_b64 of EXEC, v_cmpx), the saved version again when a copy of EXEC
// (s_mov_b64 S, exec or the saveexec destination) is written back. Versions
// form a tree: a child's lanes are a subset of its parent's. An EXEC write
// gets exec_change = +1 (narrows: the version after is a child of the one
// before), -n (widens to the ancestor n levels up), or kExecUnknown (no known
// relation). Where paths with different versions join, the version is unknown.
#include <vector>

#include "k100/codegen/passes.h"

namespace k100::codegen {

namespace {

constexpr int kUnknown = -1, kWhole = 0, kLaunch = 1;

struct Versions {
  std::vector<int> parent{-1, kWhole};  // version -> parent (-1: root or none)
  std::vector<int> depth{0, 1};
  std::vector<int> made_by;  // instruction key -> version it makes (-1 none)

  int child_of(int p, size_t key) {
    if (made_by[key] >= 0) {
      const int v = made_by[key];
      if (parent[size_t(v)] != p) parent[size_t(v)] = -2;  // seen under two parents: no relation
      return v;
    }
    parent.push_back(p);
    depth.push_back(p >= 0 ? depth[size_t(p)] + 1 : 0);
    made_by[key] = int(parent.size() - 1);
    return made_by[key];
  }
  // Levels from v up to ancestor a, or -1 when a is not an ancestor of v.
  int up(int v, int a) const {
    for (int n = 0; v >= 0; ++n) {
      if (v == a) return n;
      v = parent[size_t(v)];
    }
    return -1;
  }
};

struct State {
  int exec = kLaunch;
  std::vector<int> saved;  // per register: the version a copy of EXEC holds
  bool reached = false;
  bool merge(const State& o) {
    if (!o.reached) return false;
    if (!reached) {
      *this = o;
      return true;
    }
    bool changed = false;
    if (exec != o.exec && exec != kUnknown) exec = kUnknown, changed = true;
    for (size_t r = 0; r < saved.size(); ++r)
      if (saved[r] != o.saved[r] && saved[r] != kUnknown) saved[r] = kUnknown, changed = true;
    return changed;
  }
};

bool exec_operand(const MInst& m, int i) {
  return !m.vref[size_t(i)].valid() && m.inst.ops[size_t(i)].code == isa::code::kExecLo &&
         m.inst.ops[size_t(i)].width == 2;
}

bool writes_exec(const MFunction& f, const MInst& m) {
  const AccessList& acc = accesses(f, m);
  for (const Access& a : acc.list())
    if (a.write && !a.is_virtual() && isa::RegRange{a.code(), a.width}.overlaps(isa::kExecRange)) return true;
  return false;
}

}  // namespace

void annotate_exec_changes(MFunction& f) {
  if (!f.cfg_valid) build_cfg(f);
  std::vector<size_t> first(f.blocks.size() + 1, 0);
  for (size_t b = 0; b < f.blocks.size(); ++b) first[b + 1] = first[b] + f.blocks[b].insts.size();
  Versions v;
  v.made_by.assign(first.back(), -1);
  std::vector<State> in(f.blocks.size());
  for (State& s : in) s.saved.assign(f.regs.size(), kUnknown);
  if (!in.empty()) in[0].reached = true;
  auto step = [&](MInst& m, size_t key, State& s, bool annotate) {
    if (m.is_pseudo() || (m.flags & kLayerMade)) return;
    const std::string& n = m.name();
    const bool exec_dst = writes_exec(f, m);
    int saved_to = -1;
    if (n == "s_mov_b64" && exec_operand(m, 1) && m.vref[0].valid()) saved_to = m.vref[0].id;
    if ((n == "s_and_saveexec_b64" || n == "s_andn1_saveexec_b64") && m.vref[0].valid()) saved_to = m.vref[0].id;
    const int before = s.exec;
    // any other write of a register that held a copy ends the copy
    if (m.vref[0].valid() && saved_to < 0) s.saved[size_t(m.vref[0].id)] = kUnknown;
    if (saved_to >= 0) s.saved[size_t(saved_to)] = before;
    if (!exec_dst) return;
    const bool narrows = n == "s_and_saveexec_b64" || n == "s_andn1_saveexec_b64" || n.starts_with("v_cmpx_") ||
                         ((n == "s_and_b64" || n == "s_andn2_b64") && exec_operand(m, 0) &&
                          (exec_operand(m, 1) || (n == "s_and_b64" && exec_operand(m, 2))));
    int after = kUnknown;
    if (narrows) {
      after = before == kUnknown ? kUnknown : v.child_of(before, key);
    } else if (n == "s_mov_b64" && exec_operand(m, 0)) {
      const isa::Operand& src = m.inst.ops[1];
      if (!m.vref[1].valid() && src.is_inline() && isa::inline_int_value(src.code) == -1) after = kWhole;
      else if (m.vref[1].valid()) after = s.saved[size_t(m.vref[1].id)];
    }
    s.exec = after;
    if (!annotate) return;
    int8_t change = kExecUnknown;
    if (narrows && before != kUnknown && after != kUnknown && v.parent[size_t(after)] == before) change = 1;
    if (!narrows && before != kUnknown && after != kUnknown) {
      const int n_up = v.up(before, after);
      if (n_up >= 0 && n_up < 64) change = int8_t(-n_up);
    }
    m.exec_change = change;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      if (!in[b].reached) continue;
      State s = in[b];
      for (size_t i = 0; i < f.blocks[b].insts.size(); ++i) step(f.blocks[b].insts[i], first[b] + i, s, false);
      for (int t : f.blocks[b].succ) changed |= in[size_t(t)].merge(s);
    }
  }
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    State s = in[b];
    for (size_t i = 0; i < f.blocks[b].insts.size(); ++i) {
      MInst& m = f.blocks[b].insts[i];
      m.exec_change = 0;
      if (!s.reached) {
        if (!m.is_pseudo() && !(m.flags & kLayerMade) && writes_exec(f, m)) m.exec_change = kExecUnknown;
        continue;
      }
      step(m, first[b] + i, s, true);
    }
  }
}

}  // namespace k100::codegen
