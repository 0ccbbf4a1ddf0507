// How the timing model issues each instruction of the ISA table: which
// TraceOp kind it becomes. Built once from the table by name and family.
#pragma once

#include <cstdint>

#include "k100/emu/profile.h"
#include "k100/isa/inst.h"
#include "k100/timing/trace.h"

namespace k100::timing::detail {

// The op kind of an instruction given the emulator's class for it. Vector
// memory instructions map to VmemLoad/VmemStore/VmemAtomic, scalar memory to
// SmemLoad/SmemStore/SmemOther.
OpKind issue_kind(const isa::Inst& inst, emu::InstClass cls);

// s_waitcnt fields (GFX9 simm16: vmcnt 3:0 and 15:14, lgkmcnt 11:8).
inline uint32_t waitcnt_vm(uint32_t imm) { return (imm & 0xf) | ((imm >> 14) & 3) << 4; }
inline uint32_t waitcnt_lgkm(uint32_t imm) { return (imm >> 8) & 0xf; }

// LDS unit cycles of one access pass: per dword of the access and per
// half-wave, the largest number of distinct dwords that fall into one of the
// 32 banks (a broadcast of one dword costs nothing extra).
uint32_t lds_pass_cycles(const uint64_t* offsets, uint64_t lanes, uint32_t bytes);

}  // namespace k100::timing::detail
