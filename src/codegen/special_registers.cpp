// check_special_registers: SCC and VCC hold values like any register, but the
// allocator cannot move them. Instructions are owned by the author or by the
// building block (or pass) that emitted them (MInst::scope). A value an owner
// writes and has not yet read, overwritten by another owner, and then read by
// the first owner, is a silent clobber: an error naming the three instructions.
#include <algorithm>
#include <vector>

#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"

namespace k100::codegen {

namespace {

struct Pending {
  int owner;
  int written_at;
};
struct Clobbered {
  int owner, written_at, clobbered_at;
  bool operator==(const Clobbered&) const = default;
};

struct SpecialState {
  std::vector<Pending> pending;      // unread values, by owner (one per path)
  std::vector<Clobbered> clobbered;  // owners whose unread value another overwrote
  bool reached = false;

  bool merge(const SpecialState& o) {
    if (!o.reached) return false;
    if (!reached) {
      *this = o;
      return true;
    }
    bool changed = false;
    for (const Pending& p : o.pending)
      if (std::none_of(pending.begin(), pending.end(), [&](const Pending& q) { return q.owner == p.owner; }))
        pending.push_back(p), changed = true;
    for (const Clobbered& c : o.clobbered)
      if (std::find(clobbered.begin(), clobbered.end(), c) == clobbered.end()) clobbered.push_back(c), changed = true;
    return changed;
  }
};

std::string owner_name(const MFunction& f, int owner) {
  return owner < 0 ? std::string("the kernel") : f.scopes[size_t(owner)];
}

class Checker {
 public:
  Checker(const MFunction& f, isa::RegRange reg, const char* name) : f_(f), reg_(reg), name_(name) {}

  void run() {
    const size_t nb = f_.blocks.size();
    first_.assign(nb + 1, 0);
    for (size_t b = 0; b < nb; ++b) first_[b + 1] = first_[b] + int(f_.blocks[b].insts.size());
    std::vector<SpecialState> in(nb);
    if (nb) in[0].reached = true;
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t b = 0; b < nb; ++b) {
        if (!in[b].reached) continue;
        SpecialState s = in[b];
        for (size_t i = 0; i < f_.blocks[b].insts.size(); ++i) step(f_.blocks[b].insts[i], first_[b] + int(i), s, false);
        for (int t : f_.blocks[b].succ) changed |= in[size_t(t)].merge(s);
      }
    }
    for (size_t b = 0; b < nb; ++b) {
      SpecialState s = in[b];
      for (size_t i = 0; i < f_.blocks[b].insts.size(); ++i) step(f_.blocks[b].insts[i], first_[b] + int(i), s, true);
    }
  }

 private:
  const MFunction& f_;
  isa::RegRange reg_;
  const char* name_;
  std::vector<int> first_;

  const MInst& at(int number) const {
    for (const MBlock& b : f_.blocks) {
      if (number < int(b.insts.size())) return b.insts[size_t(number)];
      number -= int(b.insts.size());
    }
    return f_.blocks.back().insts.back();
  }
  std::string describe(int number) const {
    return "instruction " + std::to_string(number) + " (" + print_inst(f_, at(number)) + ")";
  }

  void step(const MInst& m, int number, SpecialState& s, bool report) const {
    const AccessList& acc = accesses(f_, m);
    bool reads = false, writes = false;
    for (const Access& a : acc.list())
      if (!a.is_virtual() && isa::RegRange{a.code(), a.width}.overlaps(reg_)) (a.read ? reads : writes) = true;
    const int owner = m.scope;
    if (reads) {
      for (const Clobbered& c : s.clobbered)
        if (c.owner == owner && report)
          throw Error("kernel '" + f_.name + "': " + name_ + " written by " + owner_name(f_, owner) + " at " +
                      describe(c.written_at) + " is read at " + describe(number) + ", but " +
                      owner_name(f_, at(c.clobbered_at).scope) + " overwrites it at " + describe(c.clobbered_at) +
                      " in between");
      std::erase_if(s.pending, [&](const Pending& p) { return p.owner == owner; });
    }
    if (writes) {
      for (const Pending& p : s.pending)
        if (p.owner != owner) s.clobbered.push_back({p.owner, p.written_at, number});
      s.pending.clear();
      std::erase_if(s.clobbered, [&](const Clobbered& c) { return c.owner == owner; });
      s.pending.push_back({owner, number});
    }
  }
};

}  // namespace

void check_special_registers(const MFunction& f) {
  if (f.scopes.empty()) return;  // one owner: nothing to clobber another's value
  Checker(f, isa::kSccRange, "SCC").run();
  Checker(f, isa::kVccRange, "VCC").run();
}

}  // namespace k100::codegen
