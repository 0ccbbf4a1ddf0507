#include <algorithm>
#include <cstdint>

#include "k100/base/error.h"
#include "k100/codegen/allocation.h"

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

struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n = 0) : w((n + 63) / 64, 0) {}
  void set(size_t i) { w[i / 64] |= uint64_t(1) << (i % 64); }
  bool test(size_t i) const { return (w[i / 64] >> (i % 64)) & 1; }
  void merge(const Bits& o) {
    for (size_t i = 0; i < w.size(); ++i) w[i] |= o.w[i];
  }
};

std::string describe(const VirtualReg& r) {
  return (r.name.empty() ? std::string("(unnamed)") : "'" + r.name + "'") + " (" +
         (r.file == RegFile::Vector ? "VGPR" : "SGPR") + (r.width > 1 ? " x" + std::to_string(r.width) : "") + ")";
}

}  // namespace

Allocation allocate(const AllocationProblem& p) {
  const size_t n = p.insts.size(), nregs = p.regs.size();
  // Predecessors of every instruction (index n is the end).
  std::vector<std::vector<int>> preds(n), succs(n);
  for (size_t i = 0; i < n; ++i) {
    const FlowInst& f = p.insts[i];
    if (f.falls_through && i + 1 < n) succs[i].push_back(int(i + 1));
    for (int t : f.targets)
      if (t >= 0 && size_t(t) < n) succs[i].push_back(t);
    for (int s : succs[i]) preds[size_t(s)].push_back(int(i));
  }
  // Per register: the instructions that read / write it.
  std::vector<std::vector<int>> reads(nregs), writes(nregs);
  for (size_t i = 0; i < n; ++i)
    for (const RegAccess& a : p.insts[i].access) {
      if (a.read) reads[size_t(a.reg)].push_back(int(i));
      if (a.write) writes[size_t(a.reg)].push_back(int(i));
    }
  // Live points: 2i = before instruction i, 2i + 1 = after it.
  std::vector<Bits> live(2 * n + 1, Bits(nregs));
  std::vector<char> reached_in(n), reached_out(n), usable_in(n), usable_out(n);
  std::vector<int> work;
  for (size_t r = 0; r < nregs; ++r) {
    std::fill(reached_in.begin(), reached_in.end(), 0);
    std::fill(reached_out.begin(), reached_out.end(), 0);
    std::fill(usable_in.begin(), usable_in.end(), 0);
    std::fill(usable_out.begin(), usable_out.end(), 0);
    // forward: a write reaches every point after it
    work.clear();
    if (p.regs[r].entry_value && n) {
      reached_in[0] = 1;
      work.push_back(0);
    }
    for (int i : writes[r]) work.push_back(i);
    for (int i : writes[r]) reached_out[size_t(i)] = 1;
    while (!work.empty()) {
      int i = work.back();
      work.pop_back();
      reached_out[size_t(i)] = 1;
      for (int s : succs[size_t(i)])
        if (!reached_in[size_t(s)]) {
          reached_in[size_t(s)] = 1;
          if (!reached_out[size_t(s)]) work.push_back(s);
        }
    }
    // backward: a read is reachable from every point before it
    work.clear();
    for (int i : reads[r]) {
      usable_in[size_t(i)] = 1;
      work.push_back(i);
    }
    while (!work.empty()) {
      int i = work.back();
      work.pop_back();
      for (int q : preds[size_t(i)])
        if (!usable_out[size_t(q)]) {
          usable_out[size_t(q)] = 1;
          if (!usable_in[size_t(q)]) {
            usable_in[size_t(q)] = 1;
            work.push_back(q);
          }
        }
    }
    for (int i : reads[r])
      if (!reached_in[size_t(i)])
        throw Error("kernel '" + p.kernel + "': instruction " + std::to_string(i) + " (" + p.insts[size_t(i)].text +
                    ") reads " + describe(p.regs[r]) + ", which no earlier instruction writes");
    for (size_t i = 0; i < n; ++i) {
      if (reached_in[i] && usable_in[i]) live[2 * i].set(r);
      if (reached_out[i] && usable_out[i]) live[2 * i + 1].set(r);
    }
    // A write nobody reads still occupies its register at that instruction.
    for (int i : writes[r]) {
      live[2 * size_t(i) + 1].set(r);
      if (p.insts[size_t(i)].early_clobber) live[2 * size_t(i)].set(r);
    }
  }
  // Interference and pressure.
  std::vector<Bits> conflicts(nregs, Bits(nregs));
  std::vector<int> first_point(nregs, INT32_MAX);
  Allocation out;
  std::vector<int> pressure_v(2 * n + 1, 0), pressure_s(2 * n + 1, 0);
  for (size_t pt = 0; pt < 2 * n; ++pt) {
    for (size_t r = 0; r < nregs; ++r)
      if (live[pt].test(r)) {
        conflicts[r].merge(live[pt]);
        first_point[r] = std::min(first_point[r], int(pt));
        (p.regs[r].file == RegFile::Vector ? pressure_v : pressure_s)[pt] += p.regs[r].width;
      }
    out.max_live_vgprs = std::max(out.max_live_vgprs, pressure_v[pt]);
    out.max_live_sgprs = std::max(out.max_live_sgprs, pressure_s[pt]);
  }
  // Placement: fixed registers first, then by first live point (wider first on ties).
  std::vector<size_t> order(nregs);
  for (size_t r = 0; r < nregs; ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    bool fa = p.regs[a].fixed >= 0, fb = p.regs[b].fixed >= 0;
    if (fa != fb) return fa;
    if (first_point[a] != first_point[b]) return first_point[a] < first_point[b];
    return p.regs[a].width > p.regs[b].width;
  });
  out.base.assign(nregs, -1);
  for (size_t r : order) {
    const VirtualReg& vr = p.regs[r];
    const bool vec = vr.file == RegFile::Vector;
    const int budget = vec ? p.vgpr_budget : p.sgpr_budget;
    if (vr.fixed >= 0) {
      out.base[r] = vr.fixed;
    } else if (first_point[r] != INT32_MAX) {
      std::vector<char> busy(size_t(std::max(budget, 0)) + 16, 0);
      for (size_t o = 0; o < nregs; ++o)
        if (out.base[o] >= 0 && p.regs[o].file == vr.file && conflicts[r].test(o))
          for (int k = 0; k < p.regs[o].width; ++k)
            if (size_t(out.base[o] + k) < busy.size()) busy[size_t(out.base[o] + k)] = 1;
      for (int b = 0; b + vr.width <= budget; b += vr.align) {
        bool free = true;
        for (int k = 0; k < vr.width && free; ++k) free = !busy[size_t(b + k)];
        if (free) {
          out.base[r] = b;
          break;
        }
      }
      if (out.base[r] < 0) {
        // the point where this register is live with the most of its file live
        std::vector<int>& pressure = vec ? pressure_v : pressure_s;
        size_t worst = size_t(first_point[r]);
        for (size_t pt = 0; pt < 2 * n; ++pt)
          if (live[pt].test(r) && pressure[pt] > pressure[worst]) worst = pt;
        std::string what;
        for (size_t o = 0; o < nregs; ++o)
          if (live[worst].test(o) && p.regs[o].file == vr.file) what += (what.empty() ? "" : ", ") + describe(p.regs[o]);
        throw Error("kernel '" + p.kernel + "': " + describe(vr) + " does not fit in " + std::to_string(budget) + " " +
                    (vec ? "VGPRs" : "SGPRs") + "; " + (worst % 2 ? "after" : "before") + " instruction " +
                    std::to_string(worst / 2) + " (" + p.insts[worst / 2].text + ") " +
                    std::to_string(pressure[worst]) + " dwords are live: " + what);
      }
    } else {
      continue;  // never live (declared but unused)
    }
    int& top = vec ? out.vgprs : out.sgprs;
    top = std::max(top, out.base[r] + vr.width);
  }
  return out;
}

}  // namespace k100::codegen
