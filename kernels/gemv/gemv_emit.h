// Pieces the GEMV generators share: the kernel interface (descriptor settings),
// the whole-wave prologue of one-wave-per-workgroup kernels, and the DPP
// reductions (a full wave into lane 63, or groups of 8 lanes).
//
// Hardware rules these emitters keep (GFX9, the emulator does not model them):
// a DPP read of a VGPR needs 2 wait states after the instruction that wrote
// it; a VMEM instruction reading an SGPR written by a VALU instruction needs 5.
// Neither code path here writes EXEC with a VALU instruction (v_cmpx), so the
// 5-wait-state EXEC-to-DPP rule never applies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/asm/builder.h"

namespace k100::kernels::gemv {

using as::KernelBuilder;
using as::Label;
using as::SGPR;
using as::VGPR;

// Scalar registers every kernel receives. Kernels that read the dispatch
// packet (for the real workgroup size) get it in s[4:5]; their kernarg
// pointer and workgroup id move up by two.
struct EntryRegs {
  SGPR dispatch;  // s[4:5] or unused
  SGPR kernarg;   // s[4:5] or s[6:7]
  SGPR group;     // s6 or s8
};
EntryRegs entry_regs(bool dispatch_ptr);

// `.amdhsa_*` settings of a GEMV kernel: private segment buffer, (dispatch
// pointer,) kernarg pointer, workgroup id x, f32 denormals kept, and the
// kernarg size the catalog declares (explicit arguments rounded up to 8, no
// hidden arguments).
void kernel_interface(KernelBuilder& b, bool dispatch_ptr, uint32_t kernarg_size);

// One-wave kernels: waves other than the workgroup's first end (a workgroup
// larger than 64 only repeats the work), then all 64 lanes are enabled (a
// workgroup smaller than 64 still computes the whole row) and `lane` gets the
// lane index 0..63 from v_mbcnt. `local_id` is v0 as the hardware set it.
void first_wave_whole(KernelBuilder& b, VGPR local_id, SGPR scratch, VGPR lane, Label exit);

// Enables all 64 lanes and sets `lane` = 0..63 (also for partial waves).
void whole_wave_lane_id(KernelBuilder& b, VGPR lane);

// Sums each register of `accs` over the 64 lanes into lane 63 (other lanes
// hold partial sums). `copies` are scratch VGPRs, one per accumulator. The
// reductions of several accumulators are interleaved so they fill each
// other's DPP wait states; s_nop fills what is missing (a single accumulator
// costs 5 of them).
void wave_sum_to_lane63(KernelBuilder& b, const std::vector<VGPR>& accs, const std::vector<VGPR>& copies);

// Sums `acc` over each group of 8 consecutive lanes; every lane of the group
// receives the group's sum. The caller must have left 2 wait states since the
// last write of `acc` (an s_nop 1 is emitted first to be safe).
void octet_sum(KernelBuilder& b, VGPR acc);

// Scalar 64-bit address: dst = base + ((a * b) << shift), a and b unsigned 32-bit.
// dst must not overlap base, a or b.
void scalar_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR a, SGPR bval, int shift);

}  // namespace k100::kernels::gemv
