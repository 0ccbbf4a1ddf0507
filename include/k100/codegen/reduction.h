// k100lc codegen: reductions across lanes (DPP) and across the waves of a
// workgroup (LDS).
//
// The lane reductions are butterflies: quad_perm swaps of neighbours and of
// pairs, the half-row and row mirrors, then row_bcast:15 / row_bcast:31 to
// carry the rows of a wave into lane 63. The order of operations is fixed, so
// results are deterministic. Several values reduced together are interleaved
// step by step, which fills each other's DPP wait states (the layer adds the
// s_nop that is still missing).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "k100/codegen/kernel.h"

namespace k100::codegen {

enum class ReduceOp { Add, Max, Min };

// d = op(a, c), with DPP or other modifiers.
template <class... M>
void reduce_step(Kernel& k, ReduceOp op, Operand d, Operand a, Operand c, M&&... mods) {
  switch (op) {
    case ReduceOp::Add: return k.v_add_f32(d, a, c, std::forward<M>(mods)...);
    case ReduceOp::Max: return k.v_max_f32(d, a, c, std::forward<M>(mods)...);
    case ReduceOp::Min: return k.v_min_f32(d, a, c, std::forward<M>(mods)...);
  }
}

// f32 identity of op (0, -inf, +inf) as a bit pattern.
uint32_t identity_bits(ReduceOp op);

// Reduces each value over groups of `lanes` consecutive lanes (2, 4, 8, 16 or
// 64). For 2..16 every lane of a group receives the group's result; for 64
// lane 63 holds the wave's result (other lanes partial ones). Needs the lanes
// of each group enabled (a whole wave for 64).
void lane_reduce(Kernel& k, const std::vector<std::pair<ReduceOp, VGPR>>& values, int lanes = 64);

// The epilogue of a wave-per-row dot product: each lane's four partial sums
// added as (p0 + p1) + (p2 + p3), the lanes summed (lane_reduce), and lane 0
// stores the total to the f32 y[row] (y a 64-bit address SGPR pair, row an
// element index). With `accumulate`, or when the SGPR `accumulate_flag` is
// non-zero at run time, the total is added to the value already there. Needs
// a whole wave; leaves EXEC = lane 0.
void store_wave_sum(Kernel& k, VGPR parts, SGPR y, Operand row, bool accumulate, SGPR accumulate_flag = {});

// (value, index) pairs over the wave: lane 63 ends with the largest value and,
// among equal values, the lowest index (signed compare, so INT32_MAX marks "no
// element"). Values must not be NaN.
void wave_argmax(Kernel& k, VGPR value, VGPR index);
// (value, index) = the better of itself and (other_value, other_index).
void argmax_merge(Kernel& k, VGPR value, VGPR index, VGPR other_value, VGPR other_index);

// Workgroup-wide reduction of the per-wave results lane_reduce left in lane
// 63: every wave gets the total in the returned SGPR. Uses LDS dwords
// [lds_offset, lds_offset + 4 * waves) and one s_barrier; `wave_index` and
// `waves` are SGPRs, `lane` the lane index 0..63; needs a whole wave.
SGPR workgroup_reduce(Kernel& k, ReduceOp op, VGPR value, SGPR wave_index, SGPR waves, VGPR lane,
                      uint32_t lds_offset = 0);

// The workgroup's best (value, index) pair (largest value, lowest index on
// ties) from every wave's (value, index) registers: wave_argmax, then one
// pair per wave through LDS (8 bytes each at lds_offset) and one s_barrier;
// every wave gets the pair in the returned SGPRs. `lane` is the lane index
// 0..63; needs a whole wave. With `others_leave`, waves other than wave 0
// branch there after the barrier and only wave 0 merges the pairs: its SIMD
// is then not shared with three waves repeating the same merge.
std::pair<SGPR, SGPR> workgroup_argmax(Kernel& k, VGPR value, VGPR index, SGPR wave_index, SGPR waves, VGPR lane,
                                       uint32_t lds_offset = 0, std::optional<Label> others_leave = std::nullopt);

}  // namespace k100::codegen
