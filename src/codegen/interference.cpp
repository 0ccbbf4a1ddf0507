#include "interference.h"

#include <algorithm>
#include <climits>

#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

// Memory destinations are written when the operation returns, after its
// sources were read, so they never share a register with them; some ALU
// instructions are early-clobber too (the isa quirk).
bool early_clobber(const MInst& m) {
  if (m.is_pseudo()) return false;
  using isa::Family;
  switch (m.inst.family()) {
    case Family::SMEM: case Family::DS: case Family::MUBUF: case Family::MTBUF:
    case Family::FLAT: case Family::GLOBAL: case Family::SCRATCH: return true;
    default: return m.desc().quirk(isa::kQuirkEarlyClobber);
  }
}

// A whole-register move between two virtual registers of one file and width.
bool copy_of(const MFunction& f, const MInst& m, int* dst, int* src) {
  if (m.is_pseudo()) return false;
  const std::string& n = m.name();
  if (n != "v_mov_b32" && n != "s_mov_b32" && n != "s_mov_b64") return false;
  if (m.inst.encoding == isa::Encoding::SDWA || m.inst.encoding == isa::Encoding::DPP) return false;
  const isa::Modifiers none{};
  if (m.inst.mods.neg || m.inst.mods.abs || m.inst.mods.clamp || m.inst.mods.omod || m.inst.mods.op_sel != none.op_sel)
    return false;
  const VRef& d = m.vref[0];
  const VRef& s = m.vref[1];
  if (!d.valid() || !s.valid() || d.id == s.id) return false;
  const VirtualReg& rd = f.regs[size_t(d.id)];
  const VirtualReg& rs = f.regs[size_t(s.id)];
  if (d.offset || s.offset || d.width != rd.width || s.width != rs.width || rd.width != rs.width) return false;
  if (rd.file != rs.file || rd.linear != rs.linear) return false;
  *dst = d.id;
  *src = s.id;
  return true;
}

}  // namespace

Interference build_interference(const MFunction& f, const Dwords& d, const Liveness& live, bool record_live) {
  Interference ig;
  ig.n = f.regs.size();
  ig.bits.assign(ig.n * ig.words(), 0);
  ig.first_point.assign(ig.n, INT_MAX);
  ig.live_points.assign(ig.n, 0);
  ig.uses.assign(ig.n, 0);
  std::vector<int> block_first(f.blocks.size() + 1, 0);
  for (size_t b = 0; b < f.blocks.size(); ++b) block_first[b + 1] = block_first[b] + int(f.blocks[b].insts.size());
  const int npoints = block_first.back();
  ig.pressure_v.assign(size_t(npoints), 0);
  ig.pressure_s.assign(size_t(npoints), 0);
  ig.points.resize(size_t(npoints));
  if (record_live) ig.live_at.resize(size_t(npoints));

  std::vector<char> seen(ig.n, 0);
  std::vector<int> live_regs;
  DwordSet all(d.total);
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    live.walk(int(b), [&](int i, const MInst& m, const LiveState& after) {
      const int point = block_first[b] + i;
      ig.points[size_t(point)] = {int(b), i};
      // registers live after the instruction
      live_regs.clear();
      auto note = [&](size_t dw) {
        const int r = d.owner[dw];
        if (!seen[size_t(r)]) {
          seen[size_t(r)] = 1;
          live_regs.push_back(r);
        }
      };
      after.all_into(all);
      all.for_each(note);
      int pv = int(all.count_masked(d.vgpr)), ps = int(all.count_masked(d.sgpr));
      if (record_live) ig.live_at[size_t(point)] = live_regs;
      for (int r : live_regs) {
        seen[size_t(r)] = 0;
        ig.live_points[size_t(r)]++;
        ig.first_point[size_t(r)] = std::min(ig.first_point[size_t(r)], point);
      }
      const AccessList& acc = accesses(f, m);
      int cdst = -1, csrc = -1;
      const bool copy = copy_of(f, m, &cdst, &csrc);
      const bool clobber = early_clobber(m);
      for (const Access& a : acc.list()) {
        if (!a.is_virtual()) continue;
        ig.uses[size_t(a.reg)]++;
        if (!a.write) continue;
        ig.first_point[size_t(a.reg)] = std::min(ig.first_point[size_t(a.reg)], point);
        // a write nobody reads still occupies its dwords here
        for (int k = 0; k < a.width; ++k)
          if (!all.test(size_t(d.base[size_t(a.reg)] + a.offset + k)))
            (f.regs[size_t(a.reg)].file == RegFile::Vector ? pv : ps)++;
        for (int r : live_regs)
          if (r != a.reg && !(copy && a.reg == cdst && r == csrc)) ig.set(size_t(a.reg), size_t(r));
        for (const Access& o : acc.list()) {
          if (!o.is_virtual() || o.reg == a.reg) continue;
          if (o.write || (clobber && o.read)) ig.set(size_t(a.reg), size_t(o.reg));
        }
      }
      // uses are counted once per access list entry; reads and writes of one register count once
      ig.pressure_v[size_t(point)] = pv;
      ig.pressure_s[size_t(point)] = ps;
      ig.max_v = std::max(ig.max_v, pv);
      ig.max_s = std::max(ig.max_s, ps);
      if (copy) ig.copies.emplace_back(cdst, csrc);
    });
  }
  // Entry values live at entry are all written before the first instruction.
  if (!f.blocks.empty()) {
    std::vector<int> at_entry;
    const DwordSet in = live.live_in(0);
    auto note = [&](size_t dw) {
      const int r = d.owner[dw];
      if (!seen[size_t(r)]) {
        seen[size_t(r)] = 1;
        at_entry.push_back(r);
      }
    };
    in.for_each(note);
    for (int r : at_entry) {
      seen[size_t(r)] = 0;
      ig.first_point[size_t(r)] = std::min(ig.first_point[size_t(r)], -1);
      for (int o : at_entry)
        if (o != r) ig.set(size_t(r), size_t(o));
    }
  }
  return ig;
}

std::vector<int> live_registers_at(const MFunction& f, const Dwords& d, const Liveness& live, int point) {
  std::vector<int> out;
  int base = 0;
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const int n = int(f.blocks[b].insts.size());
    if (point < base + n) {
      live.walk(int(b), [&](int i, const MInst&, const LiveState& after) {
        if (base + i != point) return;
        std::vector<char> seen(f.regs.size(), 0);
        auto note = [&](size_t dw) {
          const int r = d.owner[dw];
          if (!seen[size_t(r)]) {
            seen[size_t(r)] = 1;
            out.push_back(r);
          }
        };
        after.all().for_each(note);
      });
      break;
    }
    base += n;
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace k100::codegen
