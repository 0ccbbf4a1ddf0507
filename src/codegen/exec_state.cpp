// check_whole_wave: where the author's own EXEC writes may leave lanes off, a
// building block that reads every lane (require_whole_wave) is an error.
//
// Forward over the wave's control flow: EXEC at entry is the launch mask
// (every lane of a wave a workgroup of a multiple of 64 fills), `s_mov_b64
// exec, -1` makes it the whole wave, a copy of EXEC saved in an SGPR pair
// (s_mov_b64 or *_saveexec_b64) brings back what it was when it is written
// back, and any other EXEC write narrows it. Where paths join, the narrowest
// wins. The lowering's EXEC writes are not followed: a require_whole_wave
// inside a divergent region is already an error there.
#include <vector>

#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

enum Kind : int8_t { kUnknown = -1, kNarrow = 0, kLaunch = 1, kWhole = 2 };

struct ExecState {
  Kind exec = kLaunch;
  int narrowed_by = -1;          // instruction number that narrowed it
  std::vector<int8_t> copy;      // per register: the EXEC kind it holds a copy of
  bool reached = false;

  bool merge(const ExecState& o) {
    if (!o.reached) return false;
    if (!reached) {
      *this = o;
      return true;
    }
    bool changed = false;
    if (o.exec < exec) exec = o.exec, narrowed_by = o.narrowed_by, changed = true;
    for (size_t r = 0; r < copy.size(); ++r)
      if (o.copy[r] != copy[r] && copy[r] != kUnknown) copy[r] = kUnknown, changed = true;
    return changed;
  }
};

bool writes_exec(const MFunction& f, const MInst& m) {
  const AccessList& acc = accesses(f, m);
  for (const Access& a : acc.list())
    if (a.write && !a.is_virtual() && isa::RegRange{a.code(), a.width}.overlaps(isa::kExecRange)) return true;
  return false;
}

bool is_exec(const MInst& m, int op) {
  return !m.vref[size_t(op)].valid() && m.inst.ops[size_t(op)].code == isa::code::kExecLo &&
         m.inst.ops[size_t(op)].width == 2;
}

void step(const MFunction& f, const MInst& m, int number, ExecState& s) {
  if (m.is_pseudo() || (m.flags & kLayerMade)) return;
  const std::string& n = m.name();
  const bool exec_dst = writes_exec(f, m);
  if (n == "s_mov_b64" && is_exec(m, 1) && m.vref[0].valid()) {
    s.copy[size_t(m.vref[0].id)] = s.exec;
    return;
  }
  if (n.find("saveexec") != std::string::npos && m.vref[0].valid()) s.copy[size_t(m.vref[0].id)] = s.exec;
  else
    for (int i = 0; i < m.inst.num_operands; ++i)
      if (m.vref[size_t(i)].valid() && i == 0) s.copy[size_t(m.vref[0].id)] = kUnknown;
  if (!exec_dst) return;
  if (n == "s_mov_b64" && is_exec(m, 0)) {
    const isa::Operand& src = m.inst.ops[1];
    if (!m.vref[1].valid() && src.is_inline() && isa::inline_int_value(src.code) == -1) {
      s.exec = kWhole;
      return;
    }
    if (m.vref[1].valid() && s.copy[size_t(m.vref[1].id)] != kUnknown) {
      s.exec = Kind(s.copy[size_t(m.vref[1].id)]);
      return;
    }
  }
  s.exec = kNarrow;
  s.narrowed_by = number;
}

const MInst* instruction_number(const MFunction& f, int number) {
  for (const MBlock& b : f.blocks) {
    if (number < int(b.insts.size())) return &b.insts[size_t(number)];
    number -= int(b.insts.size());
  }
  return nullptr;
}

}  // namespace

void check_whole_wave(MFunction& f) {
  bool any = false;
  for (const MBlock& b : f.blocks)
    for (const MInst& m : b.insts) any = any || m.pseudo == Pseudo::WholeWave;
  if (!any) return;
  if (!f.cfg_valid) build_cfg(f);
  const size_t nb = f.blocks.size();
  std::vector<int> first(nb + 1, 0);
  for (size_t b = 0; b < nb; ++b) first[b + 1] = first[b] + int(f.blocks[b].insts.size());
  std::vector<ExecState> in(nb);
  for (ExecState& s : in) s.copy.assign(f.regs.size(), kUnknown);
  if (nb) in[0].reached = true;
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      if (!in[b].reached) continue;
      ExecState cur = in[b];
      for (size_t i = 0; i < f.blocks[b].insts.size(); ++i) step(f, f.blocks[b].insts[i], first[b] + int(i), cur);
      for (int s : f.blocks[b].succ) changed |= in[size_t(s)].merge(cur);
    }
  }
  for (size_t b = 0; b < nb; ++b) {
    ExecState cur = in[b];
    for (size_t i = 0; i < f.blocks[b].insts.size(); ++i) {
      const MInst& m = f.blocks[b].insts[i];
      if (m.pseudo == Pseudo::WholeWave && cur.reached && cur.exec == kNarrow) {
        const MInst* by = instruction_number(f, cur.narrowed_by);
        throw Error("kernel '" + f.name + "': " + f.notes[size_t(m.note)] + " needs the whole wave, but EXEC may be narrowed here by " +
                    (by ? "instruction " + std::to_string(cur.narrowed_by) + " (" + print_inst(f, *by) + ")"
                        : std::string("an earlier instruction")) +
                    "; restore it (or write s_mov_b64 exec, -1) first");
      }
      step(f, m, first[b] + int(i), cur);
    }
  }
}

void strip_whole_wave(MFunction& f) {
  for (MBlock& b : f.blocks) std::erase_if(b.insts, [](const MInst& m) { return m.pseudo == Pseudo::WholeWave; });
}

}  // namespace k100::codegen
