// Shared code generation for the elementwise transformer operators (streams,
// embeddings, RoPE, MoE combine, concat), written against as::KernelBuilder.
//
// Every kernel generated here sees s[0:3] private segment buffer, s[4:5]
// kernarg pointer, s6 workgroup id x and v0 local id x; its own SGPRs start at
// s8. The GFX9 wait states the hardware does not enforce are kept: s_waitcnt
// before loaded data is used (VMEM operations complete in issue order, so
// progressive vmcnt waits are used, and no load whose completion is waited for
// runs under an empty EXEC); five wait states between a VALU write of an SGPR
// and a VMEM read of it (SGPRs written by the VALU here -- readfirstlane
// results, vcc, v_mad_u64_u32 carries -- never reach a memory instruction
// directly: addresses are SALU results); one wait state before a VALU
// overwrites the data VGPRs of a store wider than two dwords (such stores are
// followed by other instructions); no DPP.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "k100/asm/builder.h"
#include "k100/codeobj/arg_layout.h"

namespace k100::kernels::elem {

using as::KernelBuilder;
using as::Label;
using as::SGPR;
using as::VGPR;

// Entry registers.
inline SGPR kernarg_ptr() { return as::s(4, 2); }
inline SGPR group_id() { return as::s(6); }
inline VGPR local_id() { return as::v(0); }

// Bump allocator for the registers of one kernel: SGPRs from s8 (ranges of 2
// even-aligned, of 4 or more 4-aligned, as SMEM and 64-bit SALU need), VGPRs
// from v1.
class Regs {
 public:
  SGPR s(int count = 1);
  VGPR v(int count = 1);

 private:
  int next_s_ = 8, next_v_ = 1;
};

// `.amdhsa_*` settings and layout shared by the family: the three entry items,
// IEEE f32 denormals (no flushing, so copies and products are bit-exact), the
// hidden-argument layout, the kernarg size the catalog declares (0: what the
// layout gives) and the largest workgroup accepted.
void kernel_interface(KernelBuilder& b, codeobj::HiddenArgLayout hidden, uint32_t kernarg_size,
                      uint32_t max_workgroup);

void wait_vm(KernelBuilder& b, int n);    // s_waitcnt vmcnt(n)
void wait_lgkm(KernelBuilder& b, int n);  // s_waitcnt lgkmcnt(n)

// 64-bit SGPR pair arithmetic.
void add64(KernelBuilder& b, SGPR pair, SGPR lo, int hi_imm);  // pair += {lo, hi_imm}
void add64(KernelBuilder& b, SGPR pair, SGPR value64);        // pair += value64
// dst = base + a * b_ << shift (a, b_ unsigned 32-bit SGPRs; dst distinct from the inputs).
void scaled_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, SGPR b_, int shift);
// dst = base + a << shift.
void shifted_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, int shift);

// Unsigned 32-bit division by a wave-uniform divisor d >= 1, the expansion
// LLVM uses (f32 reciprocal estimate scaled by 2^32 - 512, one Newton-Raphson
// step in integers, two remainder corrections): exact for every u32 numerator.
// `divider_init` computes the refined reciprocal z into an SGPR (VALU work with
// readfirstlane; at least one lane must be active); `divide` then gives
// q = x / d and r = x % d per lane. q, r, x distinct; uses vcc and `tmp`.
void divider_init(KernelBuilder& b, SGPR d, SGPR z, SGPR neg_scratch, VGPR tmp2);
void divide(KernelBuilder& b, VGPR q, VGPR r, VGPR x, SGPR d, SGPR z, VGPR tmp);
// The same for a scalar numerator: q = n / d (SGPRs), through the VALU.
void divide_scalar(KernelBuilder& b, SGPR q, SGPR n, SGPR d, SGPR z, VGPR tmp4);

// Grid geometry from the hidden block (full or compact layouts agree on the
// first 24 bytes: block_count_x @H, group_size_x @H+12, remainder_x @H+18).
// `hidden8` receives the 8 dwords at H (4-aligned SGPRs). Afterwards:
//   total  = work-items in the grid (block_count * group_size + remainder),
//   wgsize = group_size_x,
//   first  = global index of this wave's lane 0 (workgroup * group_size + the
//            local id of lane 0: the first active lane of a wave is its lane 0),
//   lane   = local id & 63.
// Emits the s_load; the caller waits (lgkmcnt) before `grid_geometry`.
void load_hidden(KernelBuilder& b, SGPR hidden8, uint32_t hidden_offset);
void grid_geometry(KernelBuilder& b, SGPR hidden8, SGPR total, SGPR wgsize, SGPR first, VGPR lane);

// A scalar-driven grid-stride loop over `count` units (u32): in iteration k the
// lanes of this wave handle units I + lane with I = first + k * total; lanes with
// I + lane >= count are switched off in the last, partial iteration (EXEC is
// restored afterwards). `index` (an SGPR) holds I inside the body; `advance`
// moves the caller's running pointers by one stride. Ends when I >= count or I
// would pass 2^32.
struct StrideLoop {
  SGPR count, first, total, index, rem, save_exec;
  VGPR lane;
};
void stride_loop(KernelBuilder& b, const StrideLoop& l, const std::function<void()>& body,
                 const std::function<void()>& advance);

// One-workgroup-per-row walk: thread t (local id) handles the units t, t + W,
// t + 2W, ... below `count` (u32 SGPR; W = `stride` threads, an SGPR or a
// constant). `unit` is a VGPR holding the unit index; EXEC shrinks as threads
// run out (so the caller must not need the original EXEC afterwards, or save it).
void row_walk(KernelBuilder& b, VGPR unit, SGPR count, const as::Arg& stride, const std::function<void()>& body);

// The same walk with `batch` units per thread in flight: while a whole batch
// fits (base + batch*W <= count, a scalar test), thread t handles the units
// base + t + j*W, j < batch: every unit's loads are issued first (`load(j, u)`,
// `loads` VMEM loads each), then each unit is finished (`finish(j, u)`, `stores`
// VMEM stores each) as soon as its loads have arrived. The remaining units run
// one per trip with EXEC shrinking as in row_walk. `units` holds `batch` VGPRs
// (the unit index of each j); `base` and `tmp` are SGPRs; W an SGPR.
struct BatchedWalk {
  SGPR count, threads, base, tmp;
  VGPR units;
  int batch = 4, loads = 1, stores = 1;
  std::function<void(int j, VGPR unit)> load, finish;
};
void batched_walk(KernelBuilder& b, const BatchedWalk& w);

}  // namespace k100::kernels::elem
