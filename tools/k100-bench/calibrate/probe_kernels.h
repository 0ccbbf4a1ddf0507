// The calibration micro-benchmarks of `k100-bench calibrate`, re-created as
// our own kernels (as::KernelBuilder) from their description in
// PERFORMANCE_FACTS sections 2, 3 and 6. The timing tests use them too.
//
// Every probe takes a kernel-argument block built with emu::KernargBuilder by
// argument index; the argument lists are documented per probe. All probes use
// the kernarg pointer in s[0:1] and the workgroup id in s2.
#pragma once

#include <cstdint>

#include "k100/codeobj/code_object.h"

namespace k100::bench::calibrate {

enum class AluOp { Fma, Dot4, Dot8 };
const char* alu_op_name(AluOp op);
// Per lane 16 independent accumulation chains, one target instruction per
// chain per loop trip: v_fmac_f32 (+0.5), v_dot4_i32_i8 (+4), v_dot8_i32_i4
// (+8). Writes the sum of its chains to out[global id] (f32 for FMA, i32
// otherwise). Arguments: (out, iterations, workgroup_size).
codeobj::CodeObject alu_probe(AluOp op);
// out[i] a lane holds after `iterations` trips.
double alu_probe_expected(AluOp op, uint32_t iterations);

// Each work-item reads `streams` independent streams with global_load_dwordx4
// per loop trip: stream u starts at src + u * stream_stride and advances by
// `step` bytes per trip (the grid's threads x 16, so one trip of the grid
// reads `streams` contiguous blocks). The first dword of every load is summed
// into out[global id] (u32). `wait_each_load` drains (vmcnt(0)) after every
// load instead of once per trip; `vgprs` > 0 declares that many VGPRs.
// `in_flight` = 2 software-pipelines the loop: the loads of trip i + 1 are
// issued before the wait for those of trip i (s_waitcnt vmcnt(streams)), so
// every stream keeps two loads in flight; iterations must then be even.
// Arguments: (src, out, stream_stride (u64), iterations, workgroup_size, step).
struct ReadProbe {
  int streams = 4;
  bool wait_each_load = false;
  int vgprs = 0;
  int in_flight = 1;
};
codeobj::CodeObject read_probe(const ReadProbe& p);

// Grid-stride float4 fill: each work-item stores 16 bytes at dst + tid * 16 +
// trip * step for `iterations` trips. Arguments: (dst, value (f32),
// iterations, workgroup_size, step).
codeobj::CodeObject fill_probe();

// y = W x for f32 W[rows][128]: each wave takes 8 rows (lane = row q, column
// slot r; load i of a lane reads w[q][32 i + 4 r .. +3] as dwordx4, so one
// load covers 128 contiguous bytes of each of 8 rows), a workgroup has
// `waves_per_group` waves. Arguments: (w, x, y, waves_per_group).
codeobj::CodeObject gemv_probe();
constexpr uint32_t kGemvProbeColumns = 128;

// s_endpgm only.
codeobj::CodeObject empty_probe();

}  // namespace k100::bench::calibrate
