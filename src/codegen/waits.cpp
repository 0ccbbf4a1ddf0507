#include "k100/codegen/waits.h"

#include <algorithm>
#include <array>

#include "k100/isa/counters.h"
#include "k100/isa/effects.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

using isa::Counter;
using isa::ReturnClass;

constexpr int kVm = 0, kLgkm = 1, kExp = 2;
constexpr int kMax[3] = {int(isa::kVmcntMax), int(isa::kLgkmcntMax), int(isa::kExpcntMax)};
constexpr Counter kCounterBit[3] = {isa::kVmCnt, isa::kLgkmCnt, isa::kExpCnt};

// A register some operation still writes (or, for expcnt, still reads):
// `later` operations of the same class were issued after it; `zero`: its
// class returns out of order, so only a zero count orders it.
struct Slot {
  int8_t later = -1;  // -1: nothing pending
  uint8_t cls = 0;
  bool zero = false;
};

struct State {
  std::array<int, 3> pending{};  // operations that may be outstanding, per counter
  int lds_pending = 0;
  std::array<std::array<Slot, 3>, 512> regs{};
  bool reached = false;

  // Paths join: a register waits for the strictest of them.
  bool merge(const State& o) {
    if (!o.reached) return false;
    if (!reached) {
      *this = o;
      return true;
    }
    bool changed = false;
    auto up = [&](int& a, int b) {
      if (b > a) a = b, changed = true;
    };
    for (int c = 0; c < 3; ++c) up(pending[size_t(c)], o.pending[size_t(c)]);
    up(lds_pending, o.lds_pending);
    for (size_t r = 0; r < regs.size(); ++r)
      for (int c = 0; c < 3; ++c) {
        Slot& a = regs[r][size_t(c)];
        const Slot& b = o.regs[r][size_t(c)];
        if (b.later < 0) continue;
        if (a.later < 0 || b.later < a.later || (b.zero && !a.zero)) {
          a.later = a.later < 0 ? b.later : std::min(a.later, b.later);
          a.zero = a.zero || b.zero;
          a.cls = b.cls;
          changed = true;
        }
      }
    return changed;
  }

  void wait(const isa::Waitcnt& w) {
    const int n[3] = {int(w.vmcnt), int(w.lgkmcnt), int(w.expcnt)};
    for (int c = 0; c < 3; ++c) {
      if (n[c] >= kMax[c]) continue;
      pending[size_t(c)] = std::min(pending[size_t(c)], n[c]);
      for (auto& r : regs) {
        Slot& s = r[size_t(c)];
        if (s.later >= 0 && (s.zero ? n[c] == 0 : s.later >= n[c])) s = Slot{};
      }
    }
    if (int(w.lgkmcnt) < kMax[kLgkm]) lds_pending = std::min(lds_pending, int(w.lgkmcnt));
  }

  void issue(const isa::CounterUse& u) {
    for (int c = 0; c < 3; ++c) {
      if (!u.uses(kCounterBit[c])) continue;
      const int inc = c == kLgkm ? std::max<int>(1, u.lgkm_increment) : 1;
      pending[size_t(c)] = std::min(kMax[c], pending[size_t(c)] + inc);
      // later operations of the same in-order class
      for (auto& r : regs) {
        Slot& s = r[size_t(c)];
        if (s.later < 0 || s.zero || s.cls != uint8_t(u.cls)) continue;
        if (++s.later >= kMax[c]) s = Slot{};  // the hardware never has more outstanding
      }
      const bool zero = !u.in_order(kCounterBit[c]) || u.cls == ReturnClass::Flat;
      if (c != kExp)
        for (const isa::RegRange& rr : u.return_list())
          for (int k = 0; k < rr.count; ++k) regs[size_t(rr.first + k)][size_t(c)] = Slot{0, uint8_t(u.cls), zero};
      if (c == kExp)
        for (const isa::RegRange& rr : u.held_list())
          for (int k = 0; k < rr.count; ++k) regs[size_t(rr.first + k)][size_t(c)] = Slot{0, uint8_t(u.cls), false};
    }
    if (u.cls == ReturnClass::Lds) lds_pending = std::min(kMax[kLgkm], lds_pending + 1);
  }
};

void need(isa::Waitcnt& w, int c, int n) {
  unsigned* f = c == kVm ? &w.vmcnt : c == kLgkm ? &w.lgkmcnt : &w.expcnt;
  *f = std::min(*f, unsigned(n));
}

// The weakest wait that makes `inst` safe in `s`.
isa::Waitcnt needed(const State& s, const isa::Inst& inst, const isa::Effects& e, const isa::CounterUse& u) {
  isa::Waitcnt w;
  auto check = [&](const isa::RegRange& rr, bool write, bool mem_write) {
    for (int k = 0; k < rr.count; ++k) {
      const auto& slots = s.regs[size_t(rr.first + k)];
      for (int c = 0; c < 3; ++c) {
        const Slot& sl = slots[size_t(c)];
        if (sl.later < 0) continue;
        if (c == kExp) {
          if (write) need(w, c, sl.later);  // held data must be read out before it is overwritten
          continue;
        }
        // a later return of the same in-order class lands last: no wait
        if (mem_write && !sl.zero && sl.cls == uint8_t(u.cls) && u.in_order(kCounterBit[c])) continue;
        need(w, c, sl.zero ? 0 : sl.later);
      }
    }
  };
  for (const isa::RegUse& r : e.read_list()) check(r.regs, false, false);
  for (const isa::RegUse& r : e.write_list()) check(r.regs, true, r.role == isa::Role::MemDest);
  if (inst.desc().name == "s_barrier" && s.lds_pending > 0) need(w, kLgkm, 0);
  return w;
}

std::vector<std::vector<int>> successors(std::span<const FlowInst> flow) {
  std::vector<std::vector<int>> succ(flow.size());
  for (size_t i = 0; i < flow.size(); ++i) {
    if (flow[i].falls_through && i + 1 < flow.size()) succ[i].push_back(int(i + 1));
    for (int t : flow[i].targets)
      if (t >= 0 && size_t(t) < flow.size()) succ[i].push_back(t);
  }
  return succ;
}

bool is_waitcnt(const isa::Inst& i) { return i.desc().name == "s_waitcnt"; }

}  // namespace

std::vector<std::pair<int, isa::Waitcnt>> plan_waits(std::span<const isa::Inst> insts, std::span<const FlowInst> flow) {
  const size_t n = insts.size();
  const auto succ = successors(flow);
  std::vector<isa::Effects> effects(n);
  std::vector<isa::CounterUse> uses(n);
  for (size_t i = 0; i < n; ++i) {
    effects[i] = isa::effects_of(insts[i]);
    uses[i] = isa::counter_use(insts[i], effects[i]);
  }
  // Worklist over instructions: in[i] is the join of every path into i.
  std::vector<State> in(n);
  std::vector<isa::Waitcnt> planned(n);
  if (n) in[0].reached = true;
  std::vector<char> queued(n, 0);
  std::vector<int> work;
  if (n) work.push_back(0), queued[0] = 1;
  State cur;
  while (!work.empty()) {
    // lowest index first keeps straight-line code in one sweep
    std::sort(work.begin(), work.end(), std::greater<int>());
    const int i = work.back();
    work.pop_back();
    queued[size_t(i)] = 0;
    cur = in[size_t(i)];
    isa::Waitcnt w = needed(cur, insts[size_t(i)], effects[size_t(i)], uses[size_t(i)]);
    planned[size_t(i)] = w;
    cur.wait(w);
    if (is_waitcnt(insts[size_t(i)])) cur.wait(isa::Waitcnt::decode(uint16_t(insts[size_t(i)].ops[0].value)));
    cur.issue(uses[size_t(i)]);
    for (int s : succ[size_t(i)])
      if (in[size_t(s)].merge(cur) && !queued[size_t(s)]) work.push_back(s), queued[size_t(s)] = 1;
  }
  std::vector<std::pair<int, isa::Waitcnt>> out;
  for (size_t i = 0; i < n; ++i)
    if (isa::waits(planned[i])) out.emplace_back(int(i), planned[i]);
  return out;
}

}  // namespace k100::codegen
