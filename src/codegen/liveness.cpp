#include "liveness.h"

#include <algorithm>

namespace k100::codegen {

bool DwordSet::merge(const DwordSet& o) {
  bool changed = false;
  for (size_t i = 0; i < w_.size(); ++i) {
    const uint64_t n = w_[i] | o.w_[i];
    changed = changed || n != w_[i];
    w_[i] = n;
  }
  return changed;
}

void DwordSet::merge_masked(const DwordSet& o, const DwordSet& mask) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] |= o.w_[i] & mask.w_[i];
}

void DwordSet::and_with(const DwordSet& o) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] &= o.w_[i];
}

void DwordSet::and_not(const DwordSet& o) {
  for (size_t i = 0; i < w_.size(); ++i) w_[i] &= ~o.w_[i];
}

bool DwordSet::any() const {
  for (uint64_t x : w_)
    if (x) return true;
  return false;
}

size_t DwordSet::count_masked(const DwordSet& mask) const {
  size_t n = 0;
  for (size_t i = 0; i < w_.size(); ++i) n += size_t(__builtin_popcountll(w_[i] & mask.w_[i]));
  return n;
}

Dwords::Dwords(const MFunction& f) {
  base.resize(f.regs.size());
  for (size_t r = 0; r < f.regs.size(); ++r) {
    base[r] = int(total);
    total += f.regs[r].width;
  }
  owner.resize(total);
  vgpr = sgpr = logical = DwordSet(total);
  for (size_t r = 0; r < f.regs.size(); ++r)
    for (int k = 0; k < f.regs[r].width; ++k) {
      const size_t d = size_t(base[r] + k);
      owner[d] = int(r);
      if (f.regs[r].file == RegFile::Vector) {
        vgpr.set(d);
        if (!f.regs[r].linear) logical.set(d);
      } else {
        sgpr.set(d);
      }
    }
}

void LiveState::clear() {
  for (DwordSet& l : level) l.clear();
  cross.clear();
}

void LiveState::all_into(DwordSet& out) const {
  out = cross;
  for (const DwordSet& l : level) out.merge(l);
}

bool LiveState::merge(const LiveState& o, const DwordSet& mask) {
  for (int k = 0; k < kExecLevels; ++k) level[size_t(k)].merge_masked(o.level[size_t(k)], mask);
  cross.merge_masked(o.cross, mask);
  return true;
}

void Liveness::transfer(const MFunction& f, const Dwords& d, const MInst& m, LiveState& s) {
  const AccessList& acc = accesses(f, m);
  for (const Access& a : acc.list()) {
    if (!a.write || !a.is_virtual()) continue;
    for (int k = 0; k < a.width; ++k) {
      const size_t dw = size_t(d.base[size_t(a.reg)] + a.offset + k);
      s.level[0].reset(dw);
      if (a.masked) continue;
      for (int l = 1; l < kExecLevels; ++l) s.level[size_t(l)].reset(dw);
      s.cross.reset(dw);
    }
  }
  if (m.exec_change == kExecUnknown) {
    for (DwordSet& l : s.level) {
      s.cross.merge(l);
      l.clear();
    }
  } else if (m.exec_change > 0) {  // narrows: what EXEC was one narrowing ago is what it is before
    s.level[0].merge(s.level[1]);
    for (int l = 1; l + 1 < kExecLevels; ++l) std::swap(s.level[size_t(l)], s.level[size_t(l + 1)]);
    s.level[kExecLevels - 1].clear();
  } else if (m.exec_change < 0) {  // widens by n: reads after it lie n levels further up
    const int n = -m.exec_change;
    for (int l = kExecLevels - 1; l >= 0; --l) {
      if (l + n >= kExecLevels) s.cross.merge(s.level[size_t(l)]);
      else s.level[size_t(l + n)] = s.level[size_t(l)];
      s.level[size_t(l)].clear();
    }
  }
  for (const Access& a : acc.list()) {
    if (!a.read || !a.is_virtual()) continue;
    for (int k = 0; k < a.width; ++k) s.level[0].set(size_t(d.base[size_t(a.reg)] + a.offset + k));
  }
}

namespace {
void add_writes(const MFunction& f, const Dwords& d, const MInst& m, DwordSet& reached) {
  for (const Access& a : accesses(f, m).list())
    if (a.write && a.is_virtual())
      for (int k = 0; k < a.width; ++k) reached.set(size_t(d.base[size_t(a.reg)] + a.offset + k));
}

void limit(LiveState& s, const DwordSet& reached) {
  for (DwordSet& l : s.level) l.and_with(reached);
  s.cross.and_with(reached);
}
}  // namespace

Liveness::Liveness(const MFunction& f, const Dwords& d) : f_(f), d_(d) {
  const size_t nb = f.blocks.size();
  in_.assign(nb, LiveState(d.total));
  out_.assign(nb, LiveState(d.total));
  // Block summaries are not worth it at these sizes: iterate the transfer
  // over whole blocks, in reverse order, until nothing changes. Logical dwords
  // take their live-out from logical successors, the others from linear ones.
  DwordSet linear = d.logical;
  {
    DwordSet all(d.total);
    for (size_t i = 0; i < d.total; ++i) all.set(i);
    all.and_not(d.logical);
    linear = all;
  }
  // Forward: which dwords some write reaches (entry values at entry), each
  // file over its own successors.
  reached_in_.assign(nb, DwordSet(d.total));
  {
    std::vector<DwordSet> out(nb, DwordSet(d.total));
    if (nb)
      for (size_t r = 0; r < f.regs.size(); ++r)
        if (f.regs[r].entry_value)
          for (int k = 0; k < f.regs[r].width; ++k) reached_in_[0].set(size_t(d.base[r] + k));
    bool grew = true;
    while (grew) {
      grew = false;
      for (size_t bi = 0; bi < nb; ++bi) {
        DwordSet cur = reached_in_[bi];
        for (const MInst& m : f.blocks[bi].insts) add_writes(f, d, m, cur);
        if (cur == out[bi]) continue;
        out[bi] = cur;
        for (int s : f.blocks[bi].logical_succ) {
          DwordSet add = reached_in_[size_t(s)];
          add.merge_masked(cur, d.logical);
          if (!(add == reached_in_[size_t(s)])) reached_in_[size_t(s)] = std::move(add), grew = true;
        }
        for (int s : f.blocks[bi].succ) {
          DwordSet add = reached_in_[size_t(s)];
          add.merge_masked(cur, linear);
          if (!(add == reached_in_[size_t(s)])) reached_in_[size_t(s)] = std::move(add), grew = true;
        }
      }
    }
  }
  bool changed = true;
  LiveState cur(d.total);
  while (changed) {
    changed = false;
    for (size_t bi = nb; bi-- > 0;) {
      const MBlock& b = f.blocks[bi];
      LiveState& out = out_[bi];
      out.clear();
      for (int s : b.logical_succ) out.merge(in_[size_t(s)], d.logical);
      for (int s : b.succ) out.merge(in_[size_t(s)], linear);
      cur = out;
      for (size_t i = b.insts.size(); i-- > 0;) transfer(f, d, b.insts[i], cur);
      if (!(cur == in_[bi])) {
        std::swap(in_[bi], cur);
        changed = true;
      }
    }
  }
}

DwordSet Liveness::live_in(int block) const {
  DwordSet a = in_[size_t(block)].all();
  a.and_with(reached_in_[size_t(block)]);
  return a;
}

void Liveness::walk(int b, const std::function<void(int, const MInst&, const LiveState&)>& visit) const {
  const MBlock& blk = f_.blocks[size_t(b)];
  // A dword no write reaches at the block's start becomes reached at its
  // first write in the block: going backward, it is unreached again before it.
  std::vector<std::pair<size_t, size_t>> first;  // (instruction, dword) of first writes
  DwordSet seen = reached_in_[size_t(b)];
  for (size_t i = 0; i < blk.insts.size(); ++i)
    for (const Access& a : accesses(f_, blk.insts[i]).list())
      if (a.write && a.is_virtual())
        for (int k = 0; k < a.width; ++k) {
          const size_t dw = size_t(d_.base[size_t(a.reg)] + a.offset + k);
          if (!seen.test(dw)) seen.set(dw), first.emplace_back(i, dw);
        }
  DwordSet reached = seen;  // after the last instruction
  size_t next = first.size();
  LiveState cur = out_[size_t(b)];
  for (size_t i = blk.insts.size(); i-- > 0;) {
    while (next > 0 && first[next - 1].first > i) reached.reset(first[--next].second);
    limit(cur, reached);
    visit(int(i), blk.insts[i], cur);
    transfer(f_, d_, blk.insts[i], cur);
  }
}

Liveness::Undefined Liveness::undefined_read() const {
  AccessList acc;
  for (size_t b = 0; b < f_.blocks.size(); ++b) {
    DwordSet r = reached_in_[b];
    for (size_t i = 0; i < f_.blocks[b].insts.size(); ++i) {
      const MInst& m = f_.blocks[b].insts[i];
      accesses(f_, m, acc);
      for (const Access& a : acc.list())
        if (a.read && a.is_virtual())
          for (int k = 0; k < a.width; ++k)
            if (!r.test(size_t(d_.base[size_t(a.reg)] + a.offset + k))) return {int(b), int(i), a.reg};
      add_writes(f_, d_, m, r);
    }
  }
  return {};
}

}  // namespace k100::codegen
