// k100lc codegen: how the lanes of a kernel cover its work: the first wave of
// a workgroup, lane ids, grid geometry from the hidden arguments, grid-stride
// loops with a masked last trip, one-workgroup-per-row walks (plain, batched,
// and in 16-byte chunks, with their element tails) and the EXEC masks of tails.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "k100/codegen/kernel.h"

namespace k100::codegen {

// Waves other than the workgroup's first go to `exit` (the first active lane
// of wave w has local id 64 w).
void exit_unless_first_wave(Kernel& k, Label exit);
// The wave's index in its workgroup (local id / 64).
SGPR wave_index(Kernel& k);
// Enables all 64 lanes (lanes a partial wave did not launch exist in
// hardware, so the wave covers its full pattern) and returns the lane index.
VGPR whole_wave_lane_id(Kernel& k);
// lane = local id & 63.
VGPR lane_of_local_id(Kernel& k);

// The threads of a multi-wave workgroup: W = the hidden group size x rounded
// down to a multiple of 64 (64 when the hidden block says 0), this wave's
// index, the wave count W / 64, and the lane (local id & 63); waves past W
// (a workgroup that is not a multiple of 64) go to `exit`. Needs a signature
// with hidden arguments.
struct WorkgroupWaves {
  SGPR threads, wave, waves;
  VGPR lane;
};
WorkgroupWaves workgroup_waves(Kernel& k, Label exit);

// body() in a divergent if_ of the lanes whose index is below limit (skipped
// when none is); EXEC is as before it afterwards.
void if_lanes_below(Kernel& k, Operand limit, VGPR index, const std::function<void()>& body);

// Grid geometry from the hidden block (full or compact layouts agree on its
// first 24 bytes: block_count_x @H, group_size_x @H+12, remainder_x @H+18),
// loaded at entry; the caller waits (lgkmcnt) before calling.
struct Grid {
  SGPR total;   // work-items in the grid (block_count * group_size + remainder)
  SGPR wgsize;  // group_size_x
  SGPR first;   // global index of this wave's lane 0
  VGPR lane;    // local id & 63
};
SGPR hidden_block(Kernel& k);  // the 8 dwords at H (loaded at entry)
Grid grid_geometry(Kernel& k, SGPR hidden8);

// Scalar-driven grid-stride loop over `count` units: in trip t the wave's
// lanes handle units I + lane with I = first + t * total; body(I) runs inside
// a divergent if_ of the lanes below `count` (all of them but in the last
// trip); advance() moves the caller's pointers by one stride. Ends when
// I >= count or I would pass 2^32. EXEC is as before it afterwards.
void stride_loop(Kernel& k, SGPR count, const Grid& g, const std::function<void(SGPR index)>& body,
                 const std::function<void()>& advance);

// body() for unit, unit + stride, ... below `count` (unit holds each lane's
// first): a divergent loop_ its lanes leave as they pass `count`; EXEC is as
// before it afterwards.
void lane_walk(Kernel& k, VGPR unit, Operand count, Operand stride, const std::function<void()>& body);

// Thread t (local id) handles units t, t + W, t + 2W, ... below `count`
// (W = `stride`): a divergent loop_ its threads leave as they run out; EXEC
// is as before it afterwards.
void row_walk(Kernel& k, SGPR count, Operand stride, const std::function<void(VGPR unit)>& body);

// The same walk with `batch` units per thread in flight: while a whole batch
// fits, every unit's loads are issued first (`load(j, unit)`, `loads` VMEM
// loads each), then each unit is finished (`finish(j, unit)`, `stores` VMEM
// stores each) as soon as its loads have arrived; the rest one per trip (a
// divergent loop_). EXEC is as before it afterwards.
struct BatchedWalk {
  SGPR count, threads;
  int batch = 4, loads = 1, stores = 1;
  std::function<void(int j, VGPR unit)> load, finish;
};
void batched_walk(Kernel& k, const BatchedWalk& w);

// The chunked walk over one row of n floats (n = 4 nq + rem) by W threads:
// thread t handles the chunks q = t + W r (rounds r = 0, 1, ...) of `dwords`
// floats (4: dwordx4 pieces; 1: single wave only), in increasing order.
// Rounds go in batches (e.g. {16, 4, 1}); the last, partial round runs in a
// divergent if_ of the threads t < chunks left. Per batch every load is issued first, then each
// chunk is processed as its loads arrive, then each is stored (at the
// address it was loaded from), then finish(n). The `streams` (cursor, base)
// pairs start at their bases and advance with every round.
struct ChunkWalk {
  bool single_wave = true;  // W = 64 at generation time; else W from w_threads
  int dwords = 4;
  SGPR w_threads{};         // multi-wave: W
  VGPR thread{};            // t
  SGPR left{};              // chunks left (the caller sets nq)
  int max_batch = 1;
  std::vector<std::pair<SGPR, SGPR>> streams{};
  std::function<void(int i, VGPR voff, int imm)> load{}, store{};
  std::function<void(int i)> compute{};
  std::function<void(int n)> finish{};
  std::function<void(Operand bytes)> advance{};
  int round_bytes() const { return 64 * 4 * dwords; }
};
// Emits the walk for the batch sizes given (descending, ending with 1).
void chunk_walk(Kernel& k, const ChunkWalk& w, const std::vector<int>& batches);

// One element per lane, 64 per workgroup: body(first) with first = 64 *
// workgroup id runs in a divergent if_ of the lanes whose element first +
// lane is below n; a workgroup with none (or whose first element would pass
// 2^32) goes to exit. The wave ends after body (the rest of the kernel).
void workgroup_elements64(Kernel& k, Operand n, Label exit, const std::function<void(SGPR first)>& body);

// Counts `count` down in groups: for each size n of `sizes` (descending,
// ending with 1), while count >= n, group(n) handles the next n units and
// count -= n. E.g. {16, 1}: sixteen rows per trip with their loads in
// flight, then the rest one at a time.
void countdown_groups(Kernel& k, SGPR count, const std::vector<int>& sizes, const std::function<void(int n)>& group);

// The elements after the whole 4-float chunks of a row (n = 4 nq + rem,
// rem < 4): thread t < rem takes element 4 nq + t. Each (stream, base) pair
// is first set to base + 16 nq; body(offset) runs in a divergent if_ of the
// threads t < rem with offset = 4 t. Nothing runs when rem = 0.
void element_tail(Kernel& k, SGPR nq, SGPR rem, VGPR thread, const std::vector<std::pair<SGPR, SGPR>>& streams,
                  const std::function<void(VGPR offset)>& body);

}  // namespace k100::codegen
