// k100lc codegen: automatic s_waitcnt and hazard wait states over a
// finished (register-allocated) instruction list with its control flow.
//
// plan_waits() follows the outstanding vector memory, LDS and scalar memory
// operations (isa/counters.h: which counter an instruction increments, in
// which order they return, which registers they write on return) along every
// path of the control flow, and before each instruction that reads or
// overwrites a register an operation still writes asks for the weakest
// s_waitcnt that makes it safe: the count of later operations of the same
// in-order class (vector memory, LDS), zero for out-of-order returns (scalar
// memory, FLAT). Where paths join, a register waits for the strictest of its
// paths. An s_barrier waits for outstanding LDS operations, so other waves see
// the data. Waits already in the list are followed, never dropped.
//
// plan_wait_states() asks the GFX9 required-wait-state table (isa/hazards.h)
// about every backward path into each instruction and returns the wait
// states (s_nop) still missing before it.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "k100/codegen/allocation.h"
#include "k100/isa/inst.h"
#include "k100/isa/symbolic.h"

namespace k100::codegen {

// Instruction index -> the wait to insert before it. `flow` gives each
// instruction's branch targets and fall-through (FlowInst::access unused).
std::vector<std::pair<int, isa::Waitcnt>> plan_waits(std::span<const isa::Inst> insts,
                                                     std::span<const FlowInst> flow);

// Instruction index -> wait states (s_nop) to insert before it.
std::vector<std::pair<int, int>> plan_wait_states(std::span<const isa::Inst> insts, std::span<const FlowInst> flow);

}  // namespace k100::codegen
