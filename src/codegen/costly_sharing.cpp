// costly_sharing: see costly_sharing.h. Points are the interference's (the
// instructions of all blocks in order), so "within a window" follows the
// program's layout; the pairs are preferences, never constraints.
#include "costly_sharing.h"

#include <algorithm>
#include <string_view>

#include "k100/isa/effects.h"

namespace k100::codegen {

namespace {

// How far after a load a write of its register is looked for: a wait it
// would force that far away costs little (the load is long back).
constexpr int kLoadWindow = 256;
// isa hazards: VALU writes SGPR -> VMEM reads it (5), -> lane select (4).
constexpr int kSgprHazardWindow = 5;

bool reads_sgpr_late_for_valu(const MInst& m) {
  if (isa::is_vmem(m.inst)) return true;
  const std::string_view n = m.inst.desc().name;
  return n == "v_readlane_b32" || n == "v_writelane_b32";
}

}  // namespace

std::vector<std::pair<int, int>> costly_sharing(const MFunction& f, const Interference& ig, bool sgpr_hazards) {
  const int npoints = int(ig.points.size());
  // per point: registers written, read, and written late; SGPRs a VALU
  // writes, SGPRs read where a VALU write would be a hazard
  const size_t n = ig.points.size();
  std::vector<std::vector<int>> writes(n), reads(n), late(n), valu_sgpr(n), hazard_reads(n);
  for (int p = 0; p < npoints; ++p) {
    const PointRef at = ig.points[size_t(p)];
    const MInst& m = f.blocks[size_t(at.block)].insts[size_t(at.index)];
    if (m.is_pseudo()) continue;
    const bool valu = sgpr_hazards && isa::is_valu(m.inst), hazard_reader = sgpr_hazards && reads_sgpr_late_for_valu(m);
    for (const Access& a : accesses(f, m).list()) {
      if (!a.is_virtual()) continue;
      const bool scalar = f.regs[size_t(a.reg)].file == RegFile::Scalar;
      if (a.write) (a.late ? late : writes)[size_t(p)].push_back(a.reg);
      if (a.read) reads[size_t(p)].push_back(a.reg);
      if (a.write && valu && scalar) valu_sgpr[size_t(p)].push_back(a.reg);
      if (a.read && hazard_reader && scalar) hazard_reads[size_t(p)].push_back(a.reg);
    }
  }
  std::vector<std::pair<int, int>> out;
  auto add = [&](int a, int b) {
    if (a == b || ig.test(size_t(a), size_t(b))) return;
    out.emplace_back(std::min(a, b), std::max(a, b));
  };
  for (int p = 0; p < npoints; ++p) {
    for (int a : valu_sgpr[size_t(p)])
      for (int q = p + 1; q <= std::min(npoints - 1, p + kSgprHazardWindow); ++q)
        for (int b : hazard_reads[size_t(q)]) add(a, b);
    for (int a : late[size_t(p)])
      for (int q = p + 1; q <= std::min(npoints - 1, p + kLoadWindow); ++q) {
        if (std::find(reads[size_t(q)].begin(), reads[size_t(q)].end(), a) != reads[size_t(q)].end()) break;
        for (int b : writes[size_t(q)]) add(a, b);
        for (int b : late[size_t(q)]) add(a, b);
      }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace k100::codegen
