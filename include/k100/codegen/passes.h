// k100lc codegen: the passes over the machine IR, in the order build() runs
// them. Each is one file of src/codegen and testable alone on the text form
// (ir_text.h); K100_CODEGEN_DUMP=1 (or =KERNEL_NAME) prints the IR after each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/codegen/allocation.h"
#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

// cfg.cpp: successors and predecessors of every block from its terminator
// (branches to labels, computed jumps to their declared targets), the
// fall-through and the logical edges the lowering recorded. Throws for a
// branch to a label never bound.
void build_cfg(MFunction& f);

// control_flow_lowering.cpp: if_/else_/end_if, loop_/break_/continue_/
// end_loop and require_whole_wave become branches, EXEC masks and logical
// edges (a divergent region's lanes go from the then-branch to the join);
// throws when require_whole_wave lies inside a divergent region.
void lower_control_flow(MFunction& f);

// exec_state.cpp: where the author's own EXEC writes leave part of the wave
// off, a require_whole_wave there is an error naming both.
void check_whole_wave(MFunction& f);
// Removes the require_whole_wave marks once they are checked.
void strip_whole_wave(MFunction& f);

// exec_versions.cpp: MInst::exec_change of every EXEC write the author
// placed (how the lanes on after it relate to those before), for liveness.
void annotate_exec_changes(MFunction& f);

// special_registers.cpp: SCC and VCC are values too. An instruction a pass or
// a building block made that overwrites one while the author's value in it is
// still to be read is an error naming the three instructions.
void check_special_registers(const MFunction& f);

// register_allocation.cpp (+ spilling.cpp): liveness, interference,
// coalescing, placement; spills when over budget. Rewrites the IR with
// physical registers (no virtual operand is left).
struct AllocationResult {
  Allocation allocation;
  int sgpr_spills = 0, vgpr_spills = 0;  // dwords
  int vgpr_spills_to_lds = 0;            // of vgpr_spills, the dwords in LDS (the rest in scratch)
  uint32_t scratch_bytes = 0;            // per lane
  uint32_t lds_spill_base = 0;           // where the LDS spill area begins (after the kernel's own LDS)
  uint32_t lds_spill_bytes = 0;          // per workgroup
  bool rematerialised = false;
};
AllocationResult allocate_registers(MFunction& f, const AllocationOptions& options);

// waits.cpp: s_waitcnt before every read or overwrite of a register a memory
// operation still writes (the weakest that makes it safe), load-group waits
// filled in, author waits kept. `relax_author_waits`: an author's wait is
// relaxed, per counter, to what the instructions up to the author's next
// wait on that counter in its block need, unless ordering the scores cannot
// see may depend on it (a counter not waited on again in the block keeps its
// count; a barrier, s_endpgm, cache, message or jump instruction in the
// stretch keeps the whole wait; a memory write, or a memory read while a
// write may be in flight, keeps vmcnt and lgkmcnt).
void insert_waits(MFunction& f, bool relax_author_waits = false);

// wait_states.cpp: the GFX9 required wait states (isa/hazards.h): an
// independent later instruction of the block moved into the shadow when one
// exists, s_nop for what is left.
void insert_wait_states(MFunction& f);

// branch_relaxation.cpp: a branch farther than 2^15 dwords becomes a long
// jump (s_getpc/s_add/s_addc/s_setpc through an SGPR pair free there).
// Returns the number of branches relaxed.
int relax_branches(MFunction& f, const Allocation& a, int sgpr_budget);

// encoding.cpp: the bytes, each block's byte offset, and the checks of the
// pc-relative distances the kernel declared.
struct Encoded {
  std::vector<uint8_t> code;
  std::vector<uint32_t> block_offset;  // per block, plus the end
};
Encoded encode(const MFunction& f);
// The kernel in llvm syntax (labels included), once registers are physical.
std::string assembly_text(const MFunction& f);

// K100_CODEGEN_DUMP: prints the IR after `pass` when asked for this kernel.
void dump_after(const MFunction& f, const char* pass);

}  // namespace k100::codegen
