// k100lc emu: fault reports.
//
// Anything that would make a real device trap, hang or silently corrupt
// memory stops the dispatch with a Fault instead: an access outside every
// live allocation (with the nearest allocation and the distance to it), an
// access to freed memory, an LDS access past the workgroup's LDS, an invalid
// or unsupported instruction, s_trap, a runaway loop (instruction budget).
// The report names the kernel, the PC, the disassembled instruction, the
// workgroup, wave and lane, so it reads like a debugger stop.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "k100/base/error.h"

namespace k100::emu {

enum class FaultKind : uint8_t {
  OutOfBounds,         // global/flat/buffer/scalar access outside live allocations
  UseAfterFree,        // access inside an allocation that was freed
  ReadOnlyWrite,       // store into the code object image
  LdsOutOfRange,       // LDS access past the workgroup's LDS size
  InvalidInstruction,  // bytes that do not decode
  Unsupported,         // an instruction the emulator does not implement
  Trap,                // s_trap, s_sethalt, a hardware trap condition
  BudgetExceeded,      // instruction budget of the dispatch used up
  BadPc,               // PC outside the code object's code
  MissingWait,         // a register or LDS access needed an s_waitcnt first (checks.h)
  Hazard,              // fewer wait states than a required-wait-state rule needs
  LdsRace,             // two waves touch one LDS dword with no s_barrier between
  Cancelled,           // Device::cancel() stopped the dispatch
};
const char* fault_kind_name(FaultKind k);

// One allocation as reported in faults and by Device::find_allocation.
struct AllocationInfo {
  uint32_t id = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  std::string label;
  bool live = true;
};

struct Fault {
  FaultKind kind = FaultKind::OutOfBounds;
  std::string message;       // one line: what went wrong
  std::string kernel;
  std::string code_object;
  uint64_t pc = 0;           // byte offset in the code object image
  uint64_t pc_address = 0;   // device address of the instruction
  std::string instruction;   // disassembly (llvm syntax)
  std::string encoding;      // instruction dwords in hex
  std::array<uint32_t, 3> workgroup{};
  uint32_t wave = 0;         // wave index within the workgroup
  int lane = -1;             // -1 when the fault is not lane-specific
  std::optional<uint64_t> address;  // faulting address (device or LDS offset)
  uint32_t access_size = 0;
  bool write = false;
  // The allocation nearest to `address` (live, or the freed one it hit) and
  // how far outside it the access was: > 0 bytes past its end, < 0 bytes
  // before its start, 0 inside (use after free).
  std::optional<AllocationInfo> nearest;
  int64_t distance = 0;
  // Check reports (MissingWait, Hazard, LdsRace): the rule broken, the
  // register involved, the other instruction (in flight, producing, or the
  // other wave's access) and what makes the code safe.
  std::string rule;
  std::string reg;
  std::optional<uint64_t> other_pc;
  std::string other_instruction;
  int other_wave = -1;
  std::string fix;

  // Multi-line human-readable report.
  std::string report() const;
};

// Thrown by DispatchResult::check() and by helpers that turn a fault into an error.
class FaultError : public k100::Error {
 public:
  explicit FaultError(Fault f) : k100::Error(f.report()), fault_(std::move(f)) {}
  const Fault& fault() const { return fault_; }

 private:
  Fault fault_;
};

}  // namespace k100::emu
