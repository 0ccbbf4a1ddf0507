// k100lc codegen: the machine IR as text, and back.
//
// LLVM AMDGPU syntax in which registers may be virtual (`%acc`, `%acc[2]`,
// `%acc[2:3]`), blocks are labels, and the structured pseudo-instructions
// appear as words of their own:
//
//   .kernel scale_k                       ; name
//   .vgpr %i, %v                          ; virtual registers: .vgpr/.sgpr [N] names
//   .sgpr 2 %base
//   .entry %wg = s6                       ; an entry value at its hardware place
//   .entry %tid = v0
//   bb0:
//     v_cmp_gt_u32 vcc, %n, %i
//     if_ vcc                             ; if_ vcc|%mask|scc0|scc1|vccz|vccnz
//     global_load_dword %v, %off, %base
//     else_
//     ...
//     end_if
//     loop_ / break_ COND / continue_ COND / end_loop
//     require_whole_wave "lane_reduce"
//     s_cbranch_scc1 bb3
//   bb1:                                  ; .logical bb4, bb7 (after lowering)
//
// It is what K100_CODEGEN_DUMP prints after each pass, the form allocation
// and lowering tests are written in, and an interface a compiler may emit.
// Physical registers (s5, v[2:3]) may appear once allocation has run.
#pragma once

#include <string>
#include <string_view>

#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

std::string print_ir(const MFunction& f);
// One instruction as the text form writes it.
std::string print_inst(const MFunction& f, const MInst& m);

// Throws k100::Error naming the line and column of a problem.
MFunction parse_ir(std::string_view text, isa::Target target = isa::Target::gfx926);

}  // namespace k100::codegen
