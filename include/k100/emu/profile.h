// k100lc emu: per-dispatch profile counters.
//
// Counted for every dispatch: wave-instructions by class, VALU lane
// utilisation and the bytes moved in device memory. With detailed profiling
// (DispatchOptions::detailed_profile) also: distinct 64-byte lines touched by
// each vector memory instruction (a coalescing measure: a fully coalesced
// 64-lane dword access touches 4 lines), distinct lines per dispatch, and LDS
// bank conflicts (32 banks of 4 bytes, a half-wave per cycle; a conflict is
// each extra cycle needed because two lanes hit different dwords of one bank).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace k100::emu {

enum class InstClass : uint8_t { SALU, VALU, SMEM, VMEM, LDS, Branch, Waitcnt, Other };
constexpr int kInstClassCount = 8;
const char* inst_class_name(InstClass c);

struct Profile {
  uint64_t wave_instructions = 0;
  std::array<uint64_t, kInstClassCount> by_class{};
  uint64_t valu_active_lanes = 0;  // sum over VALU instructions of active lanes
  uint64_t bytes_read = 0;         // device memory (global, flat, buffer, scratch, scalar)
  uint64_t bytes_written = 0;
  uint64_t workgroups = 0;
  uint64_t waves = 0;
  // Detailed profiling only.
  bool detailed = false;
  uint64_t vmem_accesses = 0;      // vector memory instructions with at least one lane
  uint64_t vmem_lines = 0;         // sum of distinct 64-byte lines per such instruction
  uint64_t distinct_lines = 0;     // distinct 64-byte lines touched in the dispatch
  uint64_t distinct_lines_read = 0;     // ... of which some instruction read (atomics included)
  uint64_t distinct_lines_written = 0;  // ... of which some instruction wrote (atomics included)
  uint64_t lds_accesses = 0;       // DS instructions that touched LDS memory
  uint64_t lds_bank_conflicts = 0; // extra cycles from bank conflicts
  // Per DispatchOptions::line_regions entry: lines of that range requested by
  // vector memory instructions (summed per instruction) and distinct lines.
  struct RegionLines {
    uint64_t requested = 0;
    uint64_t distinct = 0;
  };
  std::vector<RegionLines> regions;

  uint64_t count(InstClass c) const { return by_class[size_t(c)]; }
  // Active lanes / (64 * VALU instructions), 0 when there were none.
  double valu_utilization() const;
  // Average distinct lines per vector memory instruction.
  double lines_per_vmem_access() const;
  void merge(const Profile& other);  // sums (distinct_lines excepted)

  std::string format_text() const;
  std::string format_json() const;
};

}  // namespace k100::emu
