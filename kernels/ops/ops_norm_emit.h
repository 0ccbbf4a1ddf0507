// Shared code generation for the row-reduction operators (norms, softmax,
// top-k, argmax): kernel interface, row pointers, the chunked row loop, and
// wave / workgroup reductions, all written against as::KernelBuilder.
//
// Conventions of every kernel generated here: s[0:3] private segment buffer,
// s[4:5] kernarg pointer, s6 workgroup id x, v0 local id x; kernel SGPRs start
// at s8. The GFX9 wait states the hardware does not enforce are emitted where
// they apply: two after a VALU write of a VGPR that a DPP instruction reads,
// five after a VALU write of an SGPR that a VMEM instruction reads, one after a
// store of more than two dwords before a VALU overwrites its data, and
// s_waitcnt before any use of loaded data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "k100/asm/builder.h"
#include "k100/codeobj/arg_layout.h"

namespace k100::kernels::norm {

using as::KernelBuilder;
using as::Label;
using as::SGPR;
using as::VGPR;

// f32 constants as bit patterns (literals)
constexpr uint32_t kNegInfBits = 0xff800000u;  // -inf
constexpr uint32_t kNegMaxBits = 0xff7fffffu;  // -FLT_MAX

// Kernel interface common to the family: the three user/system SGPR items,
// IEEE f32 denormals, LDS bytes, the largest workgroup the kernel accepts, and
// the kernarg size of the catalog (KERNELS.md: hidden-less kernels round their
// explicit arguments up to 8 bytes).
void kernel_interface(KernelBuilder& b, codeobj::HiddenArgLayout hidden, uint32_t lds_bytes, uint32_t max_workgroup,
                      uint32_t kernarg_size);

// s_nop for n wait states (n <= 0: nothing).
void wait_states(KernelBuilder& b, int n);
// s_waitcnt vmcnt(n) / lgkmcnt(n).
void wait_vm(KernelBuilder& b, int n);
void wait_lgkm(KernelBuilder& b, int n);

enum class Red { Add, Max };
// One step of `op`, with DPP or other modifiers: d = op(a, c).
template <class... M>
void red_step(KernelBuilder& b, Red op, VGPR d, VGPR a, VGPR c, M&&... mods) {
  if (op == Red::Add)
    b.v_add_f32(d, a, c, mods...);
  else
    b.v_max_f32(d, a, c, mods...);
}

// Butterfly reduction over the 64 lanes (quad_perm, half-row and row mirrors,
// then row_bcast:15 / row_bcast:31): afterwards lane 63 holds op over all
// lanes (other lanes hold partial results). Requires a full EXEC. Several
// values are reduced interleaved, which hides the DPP read-after-write wait
// states. The order of operations is fixed, so results are deterministic.
void wave_reduce(KernelBuilder& b, const std::vector<std::pair<Red, VGPR>>& values);

// (value, index) pairs: after it, lane 63 holds the pair with the largest value
// and, among equal values, the lowest index (indices compared as signed i32, so
// callers use INT32_MAX for "no element"). Values must not be NaN. Uses vcc and
// the SGPR pair `mask`, and the VGPRs tv, ti as scratch.
void wave_argmax(KernelBuilder& b, VGPR val, VGPR idx, VGPR tv, VGPR ti, SGPR mask);
// One pairwise step outside DPP: (val, idx) = better of (val, idx) and (ov, oi).
void argmax_merge(KernelBuilder& b, VGPR val, VGPR idx, VGPR ov, VGPR oi, SGPR mask);

// 64-bit address: dst = base + index * scale_bytes (index an SGPR, u32).
void row_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR index, SGPR count, int shift, SGPR tmp2);

// The chunked walk over one row of n floats (n = 4 * nq + rem) by W threads:
// thread t handles the 16-byte chunks q = t + W*r for rounds r = 0, 1, ...
// (consecutive lanes read consecutive 16-byte pieces), in increasing order.
// Rounds are issued in batches (e.g. {16, 4, 1}: as many 16-round batches as
// fit, then 4-round, then single rounds); the last, partial round runs with
// EXEC = (t < chunks left). The element tail (rem < 4 floats after the last
// whole chunk) is handled by the caller. Per batch: every load first, then
// each chunk is processed as soon as its loads have arrived (progressive
// vmcnt), then `finish` (stores).
struct ChunkWalk {
  // Thread layout. Single-wave kernels have W = 64 known at generation time;
  // multi-wave kernels read W from the hidden group size (w_bytes16 = W*16).
  bool single_wave = true;
  int dwords = 4;       // chunk width: 4 (dwordx4 pieces) or 1 (single wave only: one dword per lane)
  SGPR w_bytes16;       // multi-wave: W * 16
  SGPR w_threads;       // multi-wave: W
  VGPR thread;          // t
  // Per-batch VGPR offsets: single wave: off[g] = 4 dwords t + 4 round_bytes g for g < ceil(maxbatch/4);
  // multi wave: off[i] = 16 t + 16 W i for i < maxbatch (maxbatch <= 4).
  VGPR offsets;
  int max_batch = 1;
  SGPR left;            // chunks left (initialised by the caller to nq)
  SGPR scratch;         // one SGPR
  SGPR save_exec;       // SGPR pair
  // Emitters. `load(i, voff, imm)` loads chunk i of the batch; `compute(i)`
  // processes it; `finish(n)` ends a batch of n chunks; `advance(bytes_sgpr or
  // imm)` moves every stream base forward.
  int loads_per_chunk = 1;
  std::function<void(int i, VGPR voff, int imm)> load;
  std::function<void(int i)> compute;
  std::function<void(int n)> finish;
  std::function<void(const as::Arg& bytes)> advance;

  // Bytes one round covers (single wave).
  int round_bytes() const { return 64 * 4 * dwords; }
  // (VGPR offset, immediate offset) of chunk i of a batch.
  std::pair<VGPR, int> address(int i) const {
    if (!single_wave) return {offsets[i], 0};
    return {offsets[i / 4], (i % 4) * round_bytes()};
  }
};
// Computes the offsets VGPRs (call once before the walks).
void chunk_offsets(KernelBuilder& b, const ChunkWalk& w);
// Emits the walk for the batch sizes given (descending, ending with 1).
void chunk_walk(KernelBuilder& b, const ChunkWalk& w, const std::vector<int>& batches);

// 64-bit SGPR pair += value (an SGPR or a constant).
void add64(KernelBuilder& b, SGPR pair, const as::Arg& value);

// Workgroup-wide combination of a per-wave value that lane 63 holds after
// wave_reduce: every wave ends with the same total in `out` (an SGPR).
// Multi-wave only; wave_index and waves are SGPRs, lds_slot the LDS byte
// offset of this kernel's slots (one dword per wave).
void workgroup_reduce(KernelBuilder& b, Red op, VGPR value, VGPR tmp, SGPR out, SGPR wave_index, SGPR waves,
                      SGPR save_exec, VGPR lane);

// Unsigned 32-bit division of SGPRs (n / d, d > 0) through the VALU: quotient to q.
// Uses the VGPRs t[0..8] and vcc; n and d below 2^31.
void udiv32(KernelBuilder& b, SGPR q, SGPR n, SGPR d, VGPR t);

}  // namespace k100::kernels::norm
