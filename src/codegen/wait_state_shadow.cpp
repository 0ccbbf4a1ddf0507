#include "wait_state_shadow.h"

#include <algorithm>

#include "k100/isa/effects.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

// Instructions never moved, and never moved across: control flow, waits,
// barriers, mode and message instructions, memory operations.
bool fence(const MInst& m) {
  if (m.is_pseudo() || (m.flags & kGlued) || is_terminator(m)) return true;
  const std::string& n = m.name();
  if (n == "s_waitcnt" || n == "s_nop" || n == "s_barrier" || n.starts_with("s_setreg") || n.starts_with("s_getreg") ||
      n.starts_with("s_sendmsg") || n == "s_sleep" || n == "s_setprio" || n.starts_with("s_set_gpr_idx") ||
      n == "s_getpc_b64" || n.starts_with("s_dcache") || n.starts_with("s_icache") || n == "s_trap" || n == "s_ttracedata")
    return true;
  return false;
}

bool movable(const MInst& m) {
  if (fence(m)) return false;
  const isa::Unit u = isa::unit_of(m.inst);
  if (u != isa::Unit::Salu && u != isa::Unit::Valu) return false;
  const isa::Effects e = isa::effects_of(m.inst);
  if (e.indexed) return false;
  for (const isa::RegUse& w : e.write_list())
    if (w.regs.overlaps(isa::kExecRange) || w.regs.overlaps(isa::kM0Range)) return false;
  return true;
}

bool depends(const isa::Effects& a, const isa::Effects& b) {
  for (const isa::RegUse& w : a.write_list()) {
    for (const isa::RegUse& r : b.read_list())
      if (w.regs.overlaps(r.regs)) return true;
    for (const isa::RegUse& r : b.write_list())
      if (w.regs.overlaps(r.regs)) return true;
  }
  for (const isa::RegUse& w : b.write_list())
    for (const isa::RegUse& r : a.read_list())
      if (w.regs.overlaps(r.regs)) return true;
  return false;
}

// The wait states missing in instructions [from, to) of block b (a move
// between them changes nothing outside: the longest rule's window after `to`
// is part of the range the caller gives).
int block_states(const MFunction& f, const MissingStates& ms, int b, size_t from, size_t to) {
  int total = 0;
  to = std::min(to, f.blocks[size_t(b)].insts.size());
  for (size_t i = from; i < to; ++i) total += ms.missing(b, int(i));
  return total;
}

constexpr int kLookAhead = 24;  // instructions searched after a hazard
constexpr int kTries = 6;       // candidates tried per hazard

}  // namespace

void shadow_fill(MFunction& f) {
  const MissingStates ms(f);  // nothing planned: what each instruction lacks as the code stands
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    std::vector<MInst>& insts = f.blocks[b].insts;
    if (insts.size() < 3 || insts.size() > 4000) continue;
    const size_t window = size_t(longest_hazard_window()) + 1;
    if (block_states(f, ms, int(b), 0, insts.size()) == 0) continue;
    for (size_t i = 0; i < insts.size(); ++i) {
      if (ms.missing(int(b), int(i)) == 0) continue;
      int tries = 0;
      const isa::Effects ei = isa::effects_of(insts[i].inst);
      (void)ei;
      for (size_t j = i + 1; j < insts.size() && j <= i + kLookAhead && tries < kTries; ++j) {
        if (fence(insts[j])) break;
        if (!movable(insts[j])) continue;
        const isa::Effects ej = isa::effects_of(insts[j].inst);
        bool independent = true;
        for (size_t k = i; k < j && independent; ++k) independent = !depends(isa::effects_of(insts[k].inst), ej);
        if (!independent) continue;
        ++tries;
        const int current = block_states(f, ms, int(b), i, j + 1 + window);
        MInst moved = std::move(insts[j]);
        insts.erase(insts.begin() + ptrdiff_t(j));
        insts.insert(insts.begin() + ptrdiff_t(i), std::move(moved));
        const int after = block_states(f, ms, int(b), i, j + 1 + window);
        if (after < current) {
          ++i;  // the hazard's instruction moved one down
          if (ms.missing(int(b), int(i)) == 0) break;
          j = i;  // look again after it
          continue;
        }
        moved = std::move(insts[i]);
        insts.erase(insts.begin() + ptrdiff_t(i));
        insts.insert(insts.begin() + ptrdiff_t(j), std::move(moved));
      }
    }
  }
}

}  // namespace k100::codegen
