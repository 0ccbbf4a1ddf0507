// Pairs of virtual registers that may share a physical register (they never
// live at once) but whose sharing would cost time: the allocator places them
// apart when a free register of the same count allows it.
#pragma once

#include <utility>
#include <vector>

#include "interference.h"
#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

// (a, b) pairs of register ids, each once:
//  * a load writes a (late, when the memory returns) and b is written before
//    a is next read: sharing would make b's write wait for a load nobody
//    waits for otherwise (a prefetch whose value dies at a loop's exit);
//  * with `sgpr_hazards`: a VALU writes SGPR a and within the hazard's
//    window a VMEM instruction or a v_readlane/v_writelane lane select reads
//    SGPR b: sharing turns the independent pair into the GFX9 hazard (s_nop).
//    Asked for per kernel (KernelOptions::avoid_sgpr_hazard_sharing): over
//    the whole library, MODELED, it made q3k_gemv_k 1.1 % faster but
//    q5k_gemv_swiglu_k 4.5 % slower (without the s_nop pacing its loads,
//    more bytes in flight than the open DRAM rows hold).
std::vector<std::pair<int, int>> costly_sharing(const MFunction& f, const Interference& ig, bool sgpr_hazards);

}  // namespace k100::codegen
