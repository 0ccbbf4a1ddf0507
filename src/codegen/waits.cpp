// insert_waits: s_waitcnt where a register a memory operation still writes
// (or, for expcnt, still reads) is read or overwritten.
//
// The facts come from isa/counters.h: which counter an instruction increments,
// in which order its class returns, which registers it writes on return. The
// state at a block's entry joins every path into it (a register waits for the
// strictest of them); within the block each instruction asks for the weakest
// wait that makes it safe: the count of later operations of the same in-order
// class, zero for classes that return out of order (scalar memory, FLAT). An
// s_barrier waits for outstanding LDS operations, so other waves see the data.
// A load group's wait (Kernel::wait) gets the counts after which every load
// of the group has returned. Waits the author wrote are followed, never
// dropped; one inserted right before an author wait is folded into it.
//
// Relaxing (when asked): an author's wait protects, per counter it waits on,
// the instructions up to the author's next wait on that counter in its block
// (what comes later gets waits of its own from this pass). Its counts become
// the weakest that the registers those instructions read or overwrite need,
// never stricter than the author's. What the scores cannot see keeps the
// author's counts: a counter not waited on again in the block keeps its count
// (what the next blocks rely on is not seen); an s_barrier (other waves read
// what this one wrote), s_endpgm, cache, message, sleep or jump instruction
// in the stretch keeps the whole wait; a memory write, or a memory read while
// a write of this wave may be in flight, keeps vmcnt and lgkmcnt (the accesses
// may alias). A kept count is no more than were in flight there with the
// author's waits on any path (relaxed waits before may leave more). Relaxing
// one wait leaves more in flight at later ones, so the counts are found again
// until none changes (after the first round they only get stricter, so this
// ends).
#include <algorithm>
#include <array>

#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"
#include "k100/isa/counters.h"
#include "k100/isa/effects.h"
#include "k100/isa/table.h"
#include "inst_factory.h"

namespace k100::codegen {

namespace {

using isa::Counter;
using isa::ReturnClass;

constexpr int kVm = 0, kLgkm = 1, kExp = 2;
constexpr int kMax[3] = {int(isa::kVmcntMax), int(isa::kLgkmcntMax), int(isa::kExpcntMax)};
constexpr Counter kCounterBit[3] = {isa::kVmCnt, isa::kLgkmCnt, isa::kExpCnt};

// Something an operation still owes: `later` operations of the same class
// were issued after it; `zero`: its class returns out of order, so only a
// zero count orders it.
struct Slot {
  int8_t later = -1;  // -1: nothing pending
  uint8_t cls = 0;
  bool zero = false;
};
using Slots = std::array<Slot, 3>;

bool merge_slot(Slot& a, const Slot& b) {
  if (b.later < 0) return false;
  if (a.later < 0 || b.later < a.later || (b.zero && !a.zero)) {
    a.later = a.later < 0 ? b.later : std::min(a.later, b.later);
    a.zero = a.zero || b.zero;
    a.cls = b.cls;
    return true;
  }
  return false;
}

struct State {
  std::array<int, 3> pending{};  // operations that may be outstanding, per counter
  std::array<int, 3> least{};    // the same on the path where the fewest may be
  int lds_pending = 0;
  Slots writes{};  // the latest memory write (store, atomic), per counter
  std::array<bool, 3> unordered{};  // an operation that returns out of order may be outstanding
  std::array<Slots, 512> regs{};
  std::vector<Slots> groups;
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
    for (int c = 0; c < 3; ++c) {
      up(pending[size_t(c)], o.pending[size_t(c)]);
      if (o.least[size_t(c)] < least[size_t(c)]) least[size_t(c)] = o.least[size_t(c)], changed = true;
    }
    up(lds_pending, o.lds_pending);
    for (int c = 0; c < 3; ++c) {
      changed |= merge_slot(writes[size_t(c)], o.writes[size_t(c)]);
      if (o.unordered[size_t(c)] && !unordered[size_t(c)]) unordered[size_t(c)] = true, changed = true;
    }
    for (size_t r = 0; r < regs.size(); ++r)
      for (int c = 0; c < 3; ++c) changed |= merge_slot(regs[r][size_t(c)], o.regs[r][size_t(c)]);
    for (size_t g = 0; g < groups.size(); ++g)
      for (int c = 0; c < 3; ++c) changed |= merge_slot(groups[g][size_t(c)], o.groups[g][size_t(c)]);
    return changed;
  }

  static void clear_if(Slot& s, int c, int n) {
    if (s.later >= 0 && (s.zero ? n == 0 : s.later >= n)) s = Slot{};
    (void)c;
  }

  void wait(const isa::Waitcnt& w) {
    const int n[3] = {int(w.vmcnt), int(w.lgkmcnt), int(w.expcnt)};
    for (int c = 0; c < 3; ++c) {
      if (n[c] >= kMax[c]) continue;
      pending[size_t(c)] = std::min(pending[size_t(c)], n[c]);
      least[size_t(c)] = std::min(least[size_t(c)], n[c]);
      for (auto& r : regs) clear_if(r[size_t(c)], c, n[c]);
      clear_if(writes[size_t(c)], c, n[c]);
      if (n[c] == 0) unordered[size_t(c)] = false;
      for (auto& g : groups) clear_if(g[size_t(c)], c, n[c]);
    }
    if (int(w.lgkmcnt) < kMax[kLgkm]) lds_pending = std::min(lds_pending, int(w.lgkmcnt));
  }

  static void later(Slot& s, int c, const isa::CounterUse& u) {
    if (s.later < 0 || s.zero || s.cls != uint8_t(u.cls)) return;
    if (++s.later >= kMax[c]) s = Slot{};  // the hardware never has more outstanding
  }

  void issue(const isa::CounterUse& u, int group, bool writes_memory) {
    for (int c = 0; c < 3; ++c) {
      if (!u.uses(kCounterBit[c])) continue;
      const int inc = c == kLgkm ? std::max<int>(1, u.lgkm_increment) : 1;
      pending[size_t(c)] = std::min(kMax[c], pending[size_t(c)] + inc);
      least[size_t(c)] = std::min(kMax[c], least[size_t(c)] + inc);
      for (auto& r : regs) later(r[size_t(c)], c, u);
      for (auto& g : groups) later(g[size_t(c)], c, u);
      later(writes[size_t(c)], c, u);
      const bool zero = !u.in_order(kCounterBit[c]) || u.cls == ReturnClass::Flat;
      if (writes_memory && c != kExp) writes[size_t(c)] = Slot{0, uint8_t(u.cls), zero};
      if (zero) unordered[size_t(c)] = true;
      if (c != kExp)
        for (const isa::RegRange& rr : u.return_list())
          for (int k = 0; k < rr.count; ++k) regs[size_t(rr.first + k)][size_t(c)] = Slot{0, uint8_t(u.cls), zero};
      if (c == kExp)
        for (const isa::RegRange& rr : u.held_list())
          for (int k = 0; k < rr.count; ++k) regs[size_t(rr.first + k)][size_t(c)] = Slot{0, uint8_t(u.cls), false};
      if (group >= 0) groups[size_t(group)][size_t(c)] = Slot{0, uint8_t(u.cls), zero};
    }
    if (u.cls == ReturnClass::Lds) lds_pending = std::min(kMax[kLgkm], lds_pending + 1);
  }
};

void need(isa::Waitcnt& w, int c, int n) {
  unsigned* f = c == kVm ? &w.vmcnt : c == kLgkm ? &w.lgkmcnt : &w.expcnt;
  *f = std::min(*f, unsigned(n));
}

// The weakest wait that makes `inst` safe in `s`.
isa::Waitcnt needed(const State& s, const MInst& m, const isa::Effects& e, const isa::CounterUse& u) {
  isa::Waitcnt w;
  if (m.flags & kWaitGroup) {
    for (int c = 0; c < 3; ++c) {
      const Slot& sl = s.groups[size_t(m.group)][size_t(c)];
      if (sl.later >= 0) need(w, c, sl.zero ? 0 : sl.later);
    }
    return w;
  }
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
  if (m.desc().name == "s_barrier" && s.lds_pending > 0) need(w, kLgkm, 0);
  return w;
}

bool is_waitcnt(const MInst& m) { return !m.is_pseudo() && m.desc().name == "s_waitcnt"; }

struct Prepared {
  isa::Effects effects;
  isa::CounterUse use;
  bool writes_memory = false;  // a store or an atomic (global, scratch, LDS, GDS, scalar)
  bool keeps_waits = false;    // an author's wait before it stays whole (ordering the scores cannot see)
};

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

Prepared prepare(const MInst& m) {
  Prepared p;
  p.effects = isa::effects_of(m.inst);
  p.use = isa::counter_use(m.inst, p.effects);
  if (m.is_pseudo()) {
    p.keeps_waits = true;
    return p;
  }
  const std::string& n = m.desc().name;
  const ReturnClass cls = p.use.cls;
  const bool lds_read = starts_with(n, "ds_read") || starts_with(n, "ds_swizzle") || starts_with(n, "ds_permute") ||
                        starts_with(n, "ds_bpermute");
  p.writes_memory = p.use.is_store || p.use.writes_lds || n.find("atomic") != std::string::npos ||
                    ((cls == ReturnClass::Lds || cls == ReturnClass::Gds) && !lds_read);
  p.keeps_waits = cls == ReturnClass::Message || cls == ReturnClass::Gds || n == "s_barrier" ||
                  starts_with(n, "s_endpgm") || starts_with(n, "s_dcache") || starts_with(n, "s_icache") ||
                  starts_with(n, "buffer_wbinvl1") || starts_with(n, "s_sendmsg") || n == "s_sleep" ||
                  n == "s_trap" || n == "s_sethalt" || n == "s_setpc_b64" || n == "s_swappc_b64" ||
                  n == "s_rfe_b64";
  return p;
}

bool is_relaxable(const MInst& m) {
  return is_waitcnt(m) && (m.flags & kAuthorWait) && !(m.flags & (kGlued | kWaitGroup));
}

// The counts the author's wait at insts[i] may relax to in state `s` (the
// state before it); `least` is what may be outstanding after it with every
// wait as the author wrote it, `author_of(j)` the author's counts of a wait
// at insts[j]. See the file's comment.
template <class AuthorOf>
isa::Waitcnt relaxed(const State& s, const MBlock& b, const std::vector<Prepared>& prep, size_t i,
                     const isa::Waitcnt& author, const std::array<int, 3>& least, AuthorOf&& author_of) {
  const unsigned a[3] = {author.vmcnt, author.lgkmcnt, author.expcnt};
  unsigned need[3] = {unsigned(kMax[kVm]), unsigned(kMax[kLgkm]), unsigned(kMax[kExp])};
  bool open[3], keep[3] = {false, false, false};
  for (int c = 0; c < 3; ++c) open[c] = a[c] < unsigned(kMax[c]);
  if (!open[kVm] && !open[kLgkm] && !open[kExp]) return author;
  bool write_in_flight = false;
  for (int c = 0; c < 2; ++c) write_in_flight |= s.writes[size_t(c)].later >= 0;
  for (size_t j = i + 1; j < b.insts.size() && (open[kVm] || open[kLgkm] || open[kExp]); ++j) {
    const MInst& m = b.insts[j];
    if (is_waitcnt(m) && !(m.flags & kWaitGroup)) {
      // a later wait of the author's on a counter takes that counter over
      const isa::Waitcnt o = author_of(j);
      const unsigned n[3] = {o.vmcnt, o.lgkmcnt, o.expcnt};
      for (int c = 0; c < 3; ++c)
        if (n[c] < unsigned(kMax[c])) open[c] = false;
      continue;
    }
    const Prepared& p = prep[j];
    if (p.keeps_waits) return author;
    const isa::Waitcnt w = needed(s, m, p.effects, p.use);
    const unsigned n[3] = {w.vmcnt, w.lgkmcnt, w.expcnt};
    for (int c = 0; c < 3; ++c)
      if (open[c]) need[c] = std::min(need[c], n[c]);
    if ((p.use.uses(isa::kVmCnt) || p.use.uses(isa::kLgkmCnt)) && (p.writes_memory || write_in_flight))
      for (int c : {kVm, kLgkm}) keep[c] = keep[c] || open[c];
  }
  // What follows in other blocks is not seen here: a counter the author waits
  // on and does not wait on again in the block keeps its count.
  for (int c = 0; c < 3; ++c) keep[c] = keep[c] || open[c];
  // A count kept for ordering keeps what it made complete: relaxed waits
  // before it may leave more in flight than the author's did, so it counts
  // no more than were outstanding with the author's waits on any path (zero
  // when some may return out of order).
  unsigned r[3];
  for (int c = 0; c < 3; ++c) {
    if (a[c] >= unsigned(kMax[c])) r[c] = a[c];
    else if (!keep[c]) r[c] = std::max(need[c], a[c]);
    else if (s.unordered[size_t(c)]) r[c] = 0;
    else r[c] = std::min(a[c], unsigned(std::max(0, least[size_t(c)])));
  }
  isa::Waitcnt out;
  out.vmcnt = r[kVm];
  out.lgkmcnt = r[kLgkm];
  out.expcnt = r[kExp];
  return out;
}

// Runs one block from `in`: per instruction, the wait it needs; the state after.
template <class OnNeed>
State run_block(const MBlock& b, const std::vector<Prepared>& prep, State cur, OnNeed&& on_need) {
  for (size_t i = 0; i < b.insts.size(); ++i) {
    const MInst& m = b.insts[i];
    const isa::Waitcnt w = needed(cur, m, prep[i].effects, prep[i].use);
    on_need(i, w);
    cur.wait(w);
    if (is_waitcnt(m) && !(m.flags & kWaitGroup)) cur.wait(isa::Waitcnt::decode(uint16_t(m.inst.ops[0].value)));
    cur.issue(prep[i].use, (m.flags & kWaitGroup) ? -1 : m.group, prep[i].writes_memory);
  }
  return cur;
}

// The state at each block's entry: the join of every path into it.
std::vector<State> block_entry_states(const MFunction& f, const std::vector<std::vector<Prepared>>& prep) {
  const size_t nb = f.blocks.size();
  std::vector<State> in(nb);
  for (State& s : in) s.groups.resize(f.groups.size());
  if (nb) in[0].reached = true;
  // Worklist over blocks, lowest index first (straight-line code in one sweep).
  std::vector<char> queued(nb, 0);
  std::vector<int> work;
  if (nb) work.push_back(0), queued[0] = 1;
  while (!work.empty()) {
    std::sort(work.begin(), work.end(), std::greater<int>());
    const int b = work.back();
    work.pop_back();
    queued[size_t(b)] = 0;
    const State out = run_block(f.blocks[size_t(b)], prep[size_t(b)], in[size_t(b)], [](size_t, const isa::Waitcnt&) {});
    for (int s : f.blocks[size_t(b)].succ)
      if (in[size_t(s)].merge(out) && !queued[size_t(s)]) work.push_back(s), queued[size_t(s)] = 1;
  }
  return in;
}

// Relaxes the author's waits in place; `in` becomes the entry states with
// the relaxed counts.
void relax_author_waits(MFunction& f, const std::vector<std::vector<Prepared>>& prep, std::vector<State>& in) {
  struct Site {
    size_t block, inst;
    isa::Waitcnt author;
    std::array<int, 3> before{};  // outstanding after it with the author's waits
  };
  std::vector<Site> sites;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (size_t i = 0; i < f.blocks[b].insts.size(); ++i)
      if (is_relaxable(f.blocks[b].insts[i]))
        sites.push_back({b, i, isa::Waitcnt::decode(uint16_t(f.blocks[b].insts[i].inst.ops[0].value))});
  if (sites.empty()) return;
  auto encoding = [&](const Site& x) -> uint32_t& { return f.blocks[x.block].insts[x.inst].inst.ops[0].value; };
  for (int round = 0;; ++round) {
    bool changed = false;
    size_t k = 0;
    for (size_t b = 0; b < f.blocks.size() && k < sites.size(); ++b) {
      if (sites[k].block != b) continue;
      if (!in[b].reached) {
        while (k < sites.size() && sites[k].block == b) ++k;
        continue;
      }
      const MBlock& blk = f.blocks[b];
      // the counts of every site of this block from the states of this round
      std::vector<std::pair<size_t, isa::Waitcnt>> found;
      State cur = in[b];
      for (size_t i = 0; i < blk.insts.size(); ++i) {
        const MInst& m = blk.insts[i];
        const isa::Waitcnt w = needed(cur, m, prep[b][i].effects, prep[b][i].use);
        cur.wait(w);
        if (k < sites.size() && sites[k].block == b && sites[k].inst == i) {
          if (round == 0) {
            State after = cur;
            after.wait(sites[k].author);
            sites[k].before = after.least;
          }
          const isa::Waitcnt r =
              relaxed(cur, blk, prep[b], i, sites[k].author, sites[k].before, [&](size_t j) {
                auto at = std::lower_bound(sites.begin(), sites.end(), std::pair{b, j}, [](const Site& x, auto key) {
                  return std::pair{x.block, x.inst} < key;
                });
                if (at != sites.end() && at->block == b && at->inst == j) return at->author;
                return isa::Waitcnt::decode(uint16_t(blk.insts[j].inst.ops[0].value));
              });
          found.emplace_back(k++, r);
        }
        if (is_waitcnt(m) && !(m.flags & kWaitGroup)) cur.wait(isa::Waitcnt::decode(uint16_t(m.inst.ops[0].value)));
        cur.issue(prep[b][i].use, (m.flags & kWaitGroup) ? -1 : m.group, prep[b][i].writes_memory);
      }
      for (auto& [site, r] : found) {
        uint32_t& enc = encoding(sites[site]);
        const isa::Waitcnt now = isa::Waitcnt::decode(uint16_t(enc));
        const uint16_t next = (round == 0 ? r : isa::stricter(now, r)).encode();
        if (next != uint16_t(enc)) enc = next, changed = true;
      }
    }
    if (!changed) return;
    in = block_entry_states(f, prep);
  }
}

}  // namespace

void insert_waits(MFunction& f, bool relax) {
  if (!f.cfg_valid) build_cfg(f);
  const size_t nb = f.blocks.size();
  std::vector<std::vector<Prepared>> prep(nb);
  for (size_t b = 0; b < nb; ++b) {
    prep[b].reserve(f.blocks[b].insts.size());
    for (const MInst& m : f.blocks[b].insts) prep[b].push_back(prepare(m));
  }
  std::vector<State> in = block_entry_states(f, prep);
  if (relax) relax_author_waits(f, prep, in);
  // Insert: per block, before each instruction that needs one. A wait for a
  // glued instruction goes before its sequence (in this block, or at the end
  // of the block before when the sequence starts at the block's top).
  std::vector<std::vector<std::pair<size_t, isa::Waitcnt>>> add(nb);
  // A group's wait with nothing to wait for, an author's relaxed to nothing.
  auto gone = [relax](const MInst& m) {
    return ((m.flags & kWaitGroup) || (relax && is_relaxable(m))) &&
           !isa::waits(isa::Waitcnt::decode(uint16_t(m.inst.ops[0].value)));
  };
  for (size_t b = 0; b < nb; ++b) {
    if (!in[b].reached) continue;
    MBlock& blk = f.blocks[b];
    run_block(blk, prep[b], in[b], [&](size_t i, const isa::Waitcnt& w) {
      MInst& m = blk.insts[i];
      if (m.flags & kWaitGroup) {
        // the group's wait: its own counts (nothing pending: no wait at all)
        m.inst.ops[0].value = w.encode();
        return;
      }
      if (!isa::waits(w)) return;
      size_t bb = b, at = i;
      while (f.blocks[bb].insts[at].flags & kGlued) {
        if (at > 0) {
          --at;
        } else if (bb > 0 && !f.blocks[bb - 1].insts.empty()) {
          --bb;
          at = f.blocks[bb].insts.size() - 1;
        } else {
          break;
        }
      }
      auto& list = add[bb];
      if (!list.empty() && list.back().first == at) list.back().second = isa::stricter(list.back().second, w);
      else list.emplace_back(at, w);
    });
  }
  for (size_t b = 0; b < nb; ++b) {
    auto& list = add[b];
    std::vector<MInst>& insts = f.blocks[b].insts;
    if (list.empty()) {
      std::erase_if(insts, [&](const MInst& m) { return gone(m); });
      continue;
    }
    std::stable_sort(list.begin(), list.end(), [](auto& x, auto& y) { return x.first < y.first; });
    std::vector<MInst> out;
    out.reserve(insts.size() + list.size());
    size_t k = 0;
    for (size_t i = 0; i < insts.size(); ++i) {
      isa::Waitcnt w;
      bool have = false;
      for (; k < list.size() && list[k].first == i; ++k) {
        w = have ? isa::stricter(w, list[k].second) : list[k].second;
        have = true;
      }
      MInst& m = insts[i];
      if (have && is_waitcnt(m) && !(m.flags & kGlued)) {
        // folded into the wait written here
        m.inst.ops[0].value = isa::stricter(isa::Waitcnt::decode(uint16_t(m.inst.ops[0].value)), w).encode();
        have = false;
      }
      if (have) {
        MInst wait = make_inst(f, "s_waitcnt", {PassOperand::imm(w.encode())}, -1);
        wait.inst.ops[0] = isa::Operand::imm(w.encode());
        out.push_back(std::move(wait));
      }
      if (gone(m)) continue;
      out.push_back(std::move(m));
    }
    insts = std::move(out);
  }
}

}  // namespace k100::codegen
