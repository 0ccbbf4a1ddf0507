// relax_branches: a branch whose target lies beyond the 16-bit dword offset
// becomes a long jump through an SGPR pair that is free there:
//
//   s_cbranch_<opposite> skip       ; (conditional branches only)
//   s_getpc_b64 s[p:p+1]            ; the address of the next instruction
// from:
//   s_add_u32 s[p], s[p], lo(target - from)     ; literals, so sizes never change
//   s_addc_u32 s[p+1], s[p+1], hi(target - from)
//   s_setpc_b64 s[p:p+1]
// skip:
//
// The pair is one no value lives in after the branch (physical liveness on
// the wave's control flow), within the SGPR budget; the sequence writes SCC,
// so a target that reads SCC first cannot be relaxed (an error says so).
#include <array>
#include <bitset>

#include "inst_factory.h"
#include "k100/base/error.h"
#include "k100/codegen/passes.h"
#include "k100/isa/effects.h"
#include "k100/isa/table.h"

namespace k100::codegen {

std::vector<uint32_t> block_offsets(const MFunction& f);

namespace {

constexpr int kCodes = 256;  // SGPRs, specials and SCC (253) by operand code
using Live = std::bitset<kCodes>;

std::vector<Live> physical_live_in(const MFunction& f) {
  std::vector<Live> in(f.blocks.size());
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t b = f.blocks.size(); b-- > 0;) {
      Live cur;
      for (int s : f.blocks[b].succ) cur |= in[size_t(s)];
      for (size_t i = f.blocks[b].insts.size(); i-- > 0;) {
        const isa::Effects e = isa::effects_of(f.blocks[b].insts[i].inst);
        for (const isa::RegUse& w : e.write_list())
          for (int k = 0; k < w.regs.count; ++k)
            if (w.regs.first + k < kCodes) cur.reset(size_t(w.regs.first + k));
        for (const isa::RegUse& r : e.read_list())
          for (int k = 0; k < r.regs.count; ++k)
            if (r.regs.first + k < kCodes) cur.set(size_t(r.regs.first + k));
      }
      if (cur != in[b]) {
        in[b] = cur;
        changed = true;
      }
    }
  }
  return in;
}

const char* opposite(const std::string& n) {
  static const std::pair<const char*, const char*> kPairs[] = {
      {"s_cbranch_scc0", "s_cbranch_scc1"},   {"s_cbranch_scc1", "s_cbranch_scc0"},
      {"s_cbranch_vccz", "s_cbranch_vccnz"},  {"s_cbranch_vccnz", "s_cbranch_vccz"},
      {"s_cbranch_execz", "s_cbranch_execnz"}, {"s_cbranch_execnz", "s_cbranch_execz"}};
  for (auto [a, b] : kPairs)
    if (n == a) return b;
  return nullptr;
}

}  // namespace

int relax_branches(MFunction& f, const Allocation& a, int sgpr_budget) {
  int relaxed = 0;
  for (;;) {
    build_cfg(f);
    const std::vector<uint32_t> offsets = block_offsets(f);
    // the first branch out of range (with room for what relaxing adds)
    int fb = -1;
    for (size_t b = 0; b < f.blocks.size() && fb < 0; ++b) {
      if (f.blocks[b].insts.empty()) continue;
      const MInst& m = f.blocks[b].insts.back();
      if (m.label < 0 || m.label_operand < 0) continue;
      const int64_t end = int64_t(offsets[b + 1]);
      const int64_t delta = (int64_t(offsets[size_t(f.label_block[size_t(m.label)])]) - end) / 4;
      if (delta < -32768 + 64 || delta > 32767 - 64) fb = int(b);
    }
    if (fb < 0) break;
    MBlock& blk = f.blocks[size_t(fb)];
    const MInst br = blk.insts.back();
    const int target = f.label_block[size_t(br.label)];
    const std::vector<Live> in = physical_live_in(f);
    Live busy = in[size_t(target)];
    if (br.name() != "s_branch" && size_t(fb) + 1 < f.blocks.size()) busy |= in[size_t(fb) + 1];
    if (busy.test(isa::code::kScc))
      throw Error("kernel '" + f.name + "': the branch to '" + f.label_names[size_t(br.label)] +
                  "' is too far for a 16-bit offset and its target reads SCC, which a long jump overwrites");
    int pair = -1;
    const int top = std::min(sgpr_budget, 102);
    for (int p = 0; p + 1 < top && pair < 0; p += 2)
      if (!busy.test(size_t(p)) && !busy.test(size_t(p + 1))) pair = p;
    (void)a;
    if (pair < 0)
      throw Error("kernel '" + f.name + "': the branch to '" + f.label_names[size_t(br.label)] +
                  "' is too far for a 16-bit offset and no SGPR pair is free there for a long jump");
    const PassOperand pc = PassOperand::phys(uint16_t(pair), 2), lo = PassOperand::phys(uint16_t(pair), 1),
                      hi = PassOperand::phys(uint16_t(pair + 1), 1);
    blk.insts.pop_back();
    int skip = -1;
    if (br.name() != "s_branch") {
      const char* opp = opposite(br.name());
      if (!opp) throw Error("kernel '" + f.name + "': " + br.name() + " is too far and has no opposite condition");
      MBlock& next = f.blocks[size_t(fb) + 1];
      if (next.label < 0) {
        next.label = f.add_label("relax_skip");
        f.label_block[size_t(next.label)] = fb + 1;
      }
      skip = next.label;
      blk.insts.push_back(make_inst(f, opp, {PassOperand::label(skip)}, -1));
    }
    // the block with s_getpc, then the glued block from `from` on
    int gb = fb;
    if (skip >= 0) gb = f.add_block(fb);
    f.blocks[size_t(gb)].insts.push_back(make_inst(f, "s_getpc_b64", {pc}, -1));
    const int yb = f.add_block(gb);
    const int from = f.add_label("far_jump");
    f.blocks[size_t(yb)].label = from;
    f.label_block[size_t(from)] = yb;
    MInst add = make_inst(f, "s_add_u32", {lo, lo, PassOperand::imm(0x12345678)}, -1, kLayerMade | kGlued);
    MInst addc = make_inst(f, "s_addc_u32", {hi, hi, PassOperand::imm(0x12345678)}, -1, kLayerMade | kGlued);
    MInst set = make_inst(f, "s_setpc_b64", {pc}, -1, kLayerMade | kGlued);
    f.indirect.push_back({{br.label}});
    set.indirect = int(f.indirect.size() - 1);
    f.blocks[size_t(yb)].insts = {add, addc, set};
    f.far_jumps.push_back({from, br.label});
    ++relaxed;
  }
  return relaxed;
}

}  // namespace k100::codegen
