// k100lc isa: the registers an instruction reads and writes.
//
// effects_of() lists, for one decoded instruction, every register range it
// reads and every range it writes, in the operand code space of operand.h
// (SGPRs and special registers below 128, VGPRs at 256 + n), including the
// implicit ones no operand names: EXEC for every vector instruction, VCC of
// VOPC e32 / v_addc / v_subb / v_cndmask e32 / v_div_fmas, SCC of the scalar
// ALU, M0 of LDS DMA / GDS / s_sendmsg / movrel / lds_direct, FLAT_SCRATCH of
// flat and scratch accesses. SCC is listed as the register code::kScc.
//
// Widths follow the modifiers: a load with tfe writes one dword more; a
// returning atomic (glc) writes its data width, a compare-swap half of it; a
// MUBUF load with lds writes LDS, not VGPRs; d16 loads write the whole VGPR
// (the other half is preserved, which is a read-modify-write of the register).
// Memory destinations carry Role::MemDest: they are written when the
// operation returns (see counters.h), not at issue.
//
// This is pure ISA knowledge, independent of any emulator: the emulator's
// checks, the hazard table (hazards.h) and code generators that insert waits
// and NOPs all use it.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "k100/isa/inst.h"

namespace k100::isa {

// A range of consecutive registers in operand code space.
struct RegRange {
  uint16_t first = 0;
  uint8_t count = 0;

  uint16_t end() const { return uint16_t(first + count); }
  bool contains(uint16_t c) const { return c >= first && c < end(); }
  bool overlaps(RegRange o) const { return first < o.end() && o.first < end(); }
  bool is_vgpr() const { return first >= code::kVgprFirst; }
  bool operator==(const RegRange& o) const { return first == o.first && count == o.count; }
};

// Well-known implicit ranges.
constexpr RegRange kExecRange{code::kExecLo, 2};
constexpr RegRange kVccRange{code::kVccLo, 2};
constexpr RegRange kM0Range{code::kM0, 1};
constexpr RegRange kSccRange{code::kScc, 1};
constexpr RegRange kFlatScratchRange{code::kFlatScratchLo, 2};

// llvm-style name of a range: v5, v[4:7], s3, s[0:1], vcc, exec, m0, scc, ...
std::string reg_range_name(RegRange r);

// Why an instruction touches a register.
enum class Role : uint8_t {
  Source,      // ALU source operand
  LaneSelect,  // v_readlane / v_writelane lane select (src1)
  Address,     // memory address, resource, offset or base
  Data,        // memory store / atomic data
  Dest,        // ALU destination (written at issue)
  MemDest,     // memory destination (written when the operation returns)
  Implicit,    // a register no operand names (EXEC, VCC, SCC, M0, flat_scratch)
};
const char* role_name(Role r);

struct RegUse {
  RegRange regs;
  Role role = Role::Source;
};

// Broad unit of an instruction, as the wait-state rules and counters use it.
enum class Unit : uint8_t {
  Salu,     // SOP1/SOP2/SOPK/SOPC and SOPP
  Smem,     // scalar memory
  Valu,     // VOP1/VOP2/VOPC/VOP3/VOP3P in any encoding
  Vmem,     // MUBUF/MTBUF/FLAT/GLOBAL/SCRATCH
  Lds,      // DS (LDS and GDS)
};
Unit unit_of(const Inst& inst);
bool is_valu(const Inst& inst);
bool is_salu(const Inst& inst);  // SOPP included (s_nop, s_waitcnt, branches)
bool is_vmem(const Inst& inst);  // MUBUF, MTBUF and the FLAT families
bool is_store(const Inst& inst);  // writes memory without returning data (stores, non-returning atomics)

constexpr int kMaxReads = 12, kMaxWrites = 5;

struct Effects {
  std::array<RegUse, kMaxReads> reads{};
  std::array<RegUse, kMaxWrites> writes{};
  uint8_t num_reads = 0, num_writes = 0;
  // The registers depend on M0 at run time (s_movrel*, v_movrel*): the listed
  // ranges are the base registers only.
  bool indexed = false;

  std::span<const RegUse> read_list() const { return {reads.data(), num_reads}; }
  std::span<const RegUse> write_list() const { return {writes.data(), num_writes}; }
  bool reads_reg(uint16_t c) const;
  bool writes_reg(uint16_t c) const;
  // First read / write overlapping `r`, or null.
  const RegUse* read_overlapping(RegRange r) const;
  const RegUse* write_overlapping(RegRange r) const;
};

Effects effects_of(const Inst& inst);

}  // namespace k100::isa
