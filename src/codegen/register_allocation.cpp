#include <algorithm>
#include <bit>
#include <climits>
#include <numeric>

#include "costly_sharing.h"
#include "interference.h"
#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"
#include "liveness.h"
#include "spilling.h"

namespace k100::codegen {

int vgpr_budget(int waves) {
  if (waves < 1 || waves > 10) throw Error("waves per SIMD must be 1 to 10, not " + std::to_string(waves));
  return (256 / waves) / 4 * 4;
}

int sgpr_budget(int waves) {
  if (waves < 1 || waves > 10) throw Error("waves per SIMD must be 1 to 10, not " + std::to_string(waves));
  return std::min(102, (800 / waves) / 16 * 16 - 6);
}

namespace {

std::string describe(const VirtualReg& r) {
  return "'" + r.name + "' (" + (r.file == RegFile::Vector ? "VGPR" : "SGPR") +
         (r.width > 1 ? " x" + std::to_string(r.width) : "") + ")";
}

std::string inst_text(const MFunction& f, PointRef p) {
  return print_inst(f, f.blocks[size_t(p.block)].insts[size_t(p.index)]);
}

// Coalesced groups of registers (union-find) with their interference.
class Groups {
 public:
  Groups(const MFunction& f, const Interference& ig) : f_(f), ig_(ig), parent_(ig.n), members_(ig.n) {
    std::iota(parent_.begin(), parent_.end(), 0);
    for (size_t r = 0; r < ig.n; ++r) members_[r] = {int(r)};
    rows_.resize(ig.n);
    for (size_t r = 0; r < ig.n; ++r) rows_[r].assign(ig.bits.begin() + ptrdiff_t(r * ig.words()),
                                                       ig.bits.begin() + ptrdiff_t((r + 1) * ig.words()));
  }

  int find(int r) {
    while (parent_[size_t(r)] != r) r = parent_[size_t(r)] = parent_[size_t(parent_[size_t(r)])];
    return r;
  }

  // Merges the groups of a copy's two registers when nothing forbids it.
  void coalesce(int a, int b) {
    a = find(a), b = find(b);
    if (a == b) return;
    const VirtualReg& ra = f_.regs[size_t(a)];
    const VirtualReg& rb = f_.regs[size_t(b)];
    if (ra.fixed >= 0 || rb.fixed >= 0 || ra.entry_value || rb.entry_value) return;
    for (int m : members_[size_t(b)])
      if (test_row(a, m)) return;
    parent_[size_t(b)] = a;
    for (size_t w = 0; w < rows_[size_t(a)].size(); ++w) rows_[size_t(a)][w] |= rows_[size_t(b)][w];
    members_[size_t(a)].insert(members_[size_t(a)].end(), members_[size_t(b)].begin(), members_[size_t(b)].end());
    members_[size_t(b)].clear();
  }

  const std::vector<int>& members(int root) const { return members_[size_t(root)]; }
  // Calls f(m) for every register m that interferes with a member of `root`.
  template <class F>
  void for_each_interfering(int root, F f) const {
    const std::vector<uint64_t>& row = rows_[size_t(root)];
    for (size_t w = 0; w < row.size(); ++w)
      for (uint64_t bits = row[w]; bits; bits &= bits - 1) f(int(w * 64 + size_t(std::countr_zero(bits))));
  }

 private:
  bool test_row(int root, int m) const { return (rows_[size_t(root)][size_t(m) / 64] >> (size_t(m) % 64)) & 1; }
  const MFunction& f_;
  const Interference& ig_;
  std::vector<int> parent_;
  std::vector<std::vector<int>> members_;
  std::vector<std::vector<uint64_t>> rows_;
};

struct Placement {
  std::vector<int> base;  // per register
  int vgprs = 0, sgprs = 0;
  int failed = -1;        // a register that did not fit
};

enum class Order { FirstPoint, Crowded };

// `costly[r]`: registers r should not share a physical register with when a
// free one of the same count allows (costly_sharing.h).
Placement place(const MFunction& f, const Interference& ig, Groups& g, int vbudget, int sbudget, Order order,
                const std::vector<std::vector<int>>& costly) {
  Placement p;
  p.base.assign(ig.n, -1);
  std::vector<int> roots;
  for (size_t r = 0; r < ig.n; ++r) {
    if (g.find(int(r)) != int(r)) continue;
    bool used = false;
    for (int m : g.members(int(r))) used = used || ig.first_point[size_t(m)] != INT_MAX || f.regs[size_t(m)].fixed >= 0;
    if (used) roots.push_back(int(r));
  }
  auto first = [&](int r) {
    int fp = INT_MAX;
    for (int m : g.members(r)) fp = std::min(fp, ig.first_point[size_t(m)]);
    return fp;
  };
  auto crowd = [&](int r) {
    int c = 0;
    for (int m : g.members(r)) c += ig.live_points[size_t(m)];
    return c;
  };
  std::stable_sort(roots.begin(), roots.end(), [&](int a, int b) {
    const VirtualReg& ra = f.regs[size_t(a)];
    const VirtualReg& rb = f.regs[size_t(b)];
    const bool fa = ra.fixed >= 0, fb = rb.fixed >= 0;
    if (fa != fb) return fa;
    if (order == Order::Crowded && ra.width != rb.width) return ra.width > rb.width;
    if (order == Order::Crowded && crowd(a) != crowd(b)) return crowd(a) > crowd(b);
    if (first(a) != first(b)) return first(a) < first(b);
    return ra.width > rb.width;
  });
  std::vector<char> busy;
  for (int r : roots) {
    const VirtualReg& vr = f.regs[size_t(r)];
    const bool vec = vr.file == RegFile::Vector;
    const int budget = vec ? vbudget : sbudget;
    int at = -1;
    if (vr.fixed >= 0) {
      at = vr.fixed;
    } else {
      busy.assign(size_t(std::max(budget, 0)) + 17, 0);
      // the placed groups with a member interfering with r (a member has a
      // base once its group is placed)
      g.for_each_interfering(r, [&](int m) {
        if (p.base[size_t(m)] < 0) return;
        const int o = g.find(m);
        if (f.regs[size_t(o)].file != vr.file) return;
        for (int k = 0; k < f.regs[size_t(o)].width; ++k)
          if (size_t(p.base[size_t(o)] + k) < busy.size()) busy[size_t(p.base[size_t(o)] + k)] = 1;
      });
      // The first free base, unless a later one below the file's count so far
      // avoids a costly sharing.
      const int top = vec ? p.vgprs : p.sgprs;
      auto costly_at = [&](int b) {
        for (int m : g.members(r))
          for (int o : costly[size_t(m)]) {
            const int ob = p.base[size_t(o)];
            if (ob >= 0 && f.regs[size_t(o)].file == vr.file && ob < b + vr.width && b < ob + f.regs[size_t(o)].width)
              return true;
          }
        return false;
      };
      int first_free = -1;
      for (int b = 0; b + vr.width <= budget; b += vr.align) {
        if (first_free >= 0 && b + vr.width > std::max(top, first_free + vr.width)) break;
        bool free = true;
        for (int k = 0; k < vr.width && free; ++k) free = !busy[size_t(b + k)];
        if (!free) continue;
        if (first_free < 0) first_free = b;
        if (!costly_at(b)) {
          at = b;
          break;
        }
      }
      if (at < 0) at = first_free;
      if (at < 0) {
        p.failed = r;
        return p;
      }
    }
    for (int m : g.members(r)) p.base[size_t(m)] = at;
    int& top = vec ? p.vgprs : p.sgprs;
    top = std::max(top, at + vr.width);
  }
  return p;
}

// The error of a register that does not fit (when spilling is off or cannot help).
[[noreturn]] void does_not_fit(const MFunction& f, const Dwords& d, const Liveness& live, const Interference& ig,
                               int r, int budget) {
  const VirtualReg& vr = f.regs[size_t(r)];
  const bool vec = vr.file == RegFile::Vector;
  const std::vector<int>& pressure = vec ? ig.pressure_v : ig.pressure_s;
  // the point where this register is live with the most of its file live
  int worst = -1;
  for (size_t pt = 0; pt < pressure.size(); ++pt) {
    if (worst >= 0 && pressure[pt] <= pressure[size_t(worst)]) continue;
    const std::vector<int> here = live_registers_at(f, d, live, int(pt));
    if (std::find(here.begin(), here.end(), r) != here.end() || pt == size_t(std::max(ig.first_point[size_t(r)], 0)))
      worst = int(pt);
  }
  if (worst < 0) worst = std::max(ig.first_point[size_t(r)], 0);
  std::string what;
  for (int o : live_registers_at(f, d, live, worst))
    if (f.regs[size_t(o)].file == vr.file) what += (what.empty() ? "" : ", ") + describe(f.regs[size_t(o)]);
  throw Error("kernel '" + f.name + "': " + describe(vr) + " does not fit in " + std::to_string(budget) + " " +
              (vec ? "VGPRs" : "SGPRs") + "; after instruction " + std::to_string(worst) + " (" +
              inst_text(f, ig.points[size_t(worst)]) + ") " + std::to_string(pressure[size_t(worst)]) +
              " dwords are live: " + what);
}

void check_defined(const MFunction& f, const Liveness& live) {
  const Liveness::Undefined u = live.undefined_read();
  if (u.block < 0) return;
  int n = 0;
  for (int b = 0; b < u.block; ++b) n += int(f.blocks[size_t(b)].insts.size());
  const MInst& m = f.blocks[size_t(u.block)].insts[size_t(u.index)];
  throw Error("kernel '" + f.name + "': instruction " + std::to_string(n + u.index) + " (" + print_inst(f, m) +
              ") reads " + describe(f.regs[size_t(u.reg)]) + ", which no earlier instruction writes");
}

// Physical operands in place of the virtual ones; moves of a register to
// itself (coalesced copies) disappear.
void rewrite(MFunction& f, const std::vector<int>& base) {
  auto phys = [&](const VRef& v, isa::Operand& op) {
    const VirtualReg& r = f.regs[size_t(v.id)];
    const int at = base[size_t(v.id)] + v.offset;
    op.code = uint16_t(r.file == RegFile::Vector ? isa::code::kVgprFirst + at : at);
  };
  for (MBlock& b : f.blocks) {
    std::vector<MInst> kept;
    kept.reserve(b.insts.size());
    for (MInst& m : b.insts) {
      for (int i = 0; i < m.inst.num_operands; ++i)
        if (m.vref[size_t(i)].valid()) {
          phys(m.vref[size_t(i)], m.inst.ops[size_t(i)]);
          m.vref[size_t(i)] = {};
        }
      if (m.atomic_dst.valid()) {
        phys(m.atomic_dst, m.inst.atomic_dst);
        m.atomic_dst = {};
      }
      m.changed();
      const std::string& n = m.name();
      const bool move = !m.is_pseudo() && (n == "v_mov_b32" || n == "s_mov_b32" || n == "s_mov_b64") &&
                        m.inst.encoding != isa::Encoding::SDWA && m.inst.encoding != isa::Encoding::DPP &&
                        !m.inst.mods.clamp && !m.inst.mods.neg && !m.inst.mods.abs && !m.inst.mods.omod;
      if (move && m.inst.ops[0] == m.inst.ops[1]) continue;
      kept.push_back(std::move(m));
    }
    b.insts = std::move(kept);
  }
}

}  // namespace

AllocationResult allocate_registers(MFunction& f, const AllocationOptions& o) {
  AllocationResult res;
  SpillState spill;
  spill.scratch_offset_code = o.scratch_offset_sgpr;
  plan_lds_spills(o, spill);
  build_cfg(f);
  annotate_exec_changes(f);  // spill code never writes EXEC: once is enough
  for (int round = 0;; ++round) {
    build_cfg(f);
    const Dwords d(f);
    const Liveness live(f, d);
    if (round == 0) check_defined(f, live);
    const Interference ig = build_interference(f, d, live);
    Groups groups(f, ig);
    for (auto [dst, src] : ig.copies) groups.coalesce(dst, src);
    // Two orders; when one fits, the same two again avoiding costly sharings
    // (costly_sharing.h), taken when they need no more registers.
    std::vector<std::vector<int>> none(ig.n);
    Placement best = place(f, ig, groups, o.vgpr_budget, o.sgpr_budget, Order::FirstPoint, none);
    Placement other = place(f, ig, groups, o.vgpr_budget, o.sgpr_budget, Order::Crowded, none);
    auto fewer = [](const Placement& x, const Placement& y) {
      return x.vgprs < y.vgprs || (x.vgprs == y.vgprs && x.sgprs < y.sgprs);
    };
    if (best.failed >= 0 || (other.failed < 0 && fewer(other, best))) std::swap(best, other);
    if (best.failed < 0) {
      std::vector<std::vector<int>> costly(ig.n);
      for (auto [x, y] : costly_sharing(f, ig, o.avoid_sgpr_hazard_sharing)) {
        costly[size_t(x)].push_back(y);
        costly[size_t(y)].push_back(x);
      }
      for (Order order : {Order::FirstPoint, Order::Crowded}) {
        Placement c = place(f, ig, groups, o.vgpr_budget, o.sgpr_budget, order, costly);
        if (c.failed < 0 && !fewer(best, c)) {
          best = std::move(c);
          break;
        }
      }
    }
    if (best.failed < 0) {
      res.allocation.base = best.base;
      res.allocation.vgprs = best.vgprs;
      res.allocation.sgprs = best.sgprs;
      res.allocation.max_live_vgprs = ig.max_v;
      res.allocation.max_live_sgprs = ig.max_s;
      rewrite(f, best.base);
      res.sgpr_spills = spill.sgpr_spills;
      res.vgpr_spills = spill.vgpr_spills;
      res.scratch_bytes = spill.scratch_dwords * 4;
      res.vgpr_spills_to_lds = spill.vgpr_spills_to_lds;
      res.lds_spill_base = spill.lds_base;
      res.lds_spill_bytes = spill.lds_slots * spill.lds_stride;
      res.rematerialised = spill.remats > 0;
      return res;
    }
    const int failed = best.failed;
    const VirtualReg& fr = f.regs[size_t(failed)];
    const int budget = fr.file == RegFile::Vector ? o.vgpr_budget : o.sgpr_budget;
    if (!o.spill) does_not_fit(f, d, live, ig, failed, budget);
    const Interference detailed = build_interference(f, d, live, true);
    if (!spill_registers(f, detailed, fr.file, budget, failed, spill)) does_not_fit(f, d, live, ig, failed, budget);
    dump_after(f, "spill");
  }
}

}  // namespace k100::codegen
