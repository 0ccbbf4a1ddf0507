// Pairs of virtual registers that may share a physical register (they never
// live at once) but whose sharing would cost time: the allocator places them
// apart when a free register of the same count allows it.
#pragma once

#include <utility>
#include <vector>

#include "interference.h"
#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

// (a, b) pairs of register ids, each once: a load writes a (late, when the
// memory returns) and b is written before a is next read. Sharing would make
// b's write wait for a load nobody waits for otherwise (a prefetch whose
// value dies at a loop's exit).
//
// Tried and not kept: keeping an SGPR a VALU writes apart from one a VMEM
// instruction reads within the hazard's window (sharing costs the hazard's
// s_nop). MODELED over the library it made q3k_gemv_k 1.1 % faster and
// q5k_gemv_swiglu_k 4.5 % slower (without the s_nop pacing its loads, more
// bytes in flight than the open DRAM rows hold), the geometric mean of all
// kernels 0.03 % slower.
std::vector<std::pair<int, int>> costly_sharing(const MFunction& f, const Interference& ig);

}  // namespace k100::codegen
