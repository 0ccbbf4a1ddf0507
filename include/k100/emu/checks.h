// k100lc emu: the execution checks and the wave schedule of a dispatch.
//
// The emulator completes memory operations at once and in order, needs no
// NOPs and would run the waves of a workgroup in one fixed order; a kernel
// that passes only because of that would fail on a device. So every dispatch
// checks, by default, what the hardware leaves to the program:
//   - waits: per wave, the outstanding vmcnt/lgkmcnt/expcnt operations as the
//     GFX9 counters define them (isa/counters.h). Reading a register a load
//     has yet to write, overwriting a register a load will still write (in a
//     different return queue), overwriting data a GDS operation still reads,
//     or reaching s_barrier with LDS operations in flight is a fault naming
//     the in-flight instruction and the s_waitcnt that makes it safe.
//   - hazards: the GFX9 required wait states (isa/hazards.h); an instruction
//     issued with fewer wait states than a rule needs is a fault naming the rule.
//   - LDS races: two waves of a workgroup touching the same LDS dword, at
//     least one writing (atomics against atomics excepted), with no s_barrier
//     between, whatever order the emulator ran them in.
// A violation stops the dispatch with a Fault (FaultKind::MissingWait,
// Hazard, LdsRace). The random schedule runs the waves of a workgroup in a
// seeded random interleaving between barriers instead of one after another.
//
// Environment (read by apply_environment(); the runtime's emulator backend,
// k100-run and the self-test apply it):
//   K100_EMU_CHECK=0|off|none            turn every check off
//   K100_EMU_CHECK=waits,hazards,races   only the listed checks
//   K100_EMU_SCHEDULE=random[:SEED]|in-order
//   K100_EMU_BUDGET=N                    instruction budget per dispatch in wave-instructions
//   K100_EMU_NOTICE=SECONDS             say so after a dispatch has run this long (default 5, 0 never)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace k100::emu {

struct CheckOptions {
  bool waits = true;
  bool hazards = true;
  bool lds_races = true;

  bool any() const { return waits || hazards || lds_races; }
  static CheckOptions none() { return {false, false, false}; }
};

enum class Schedule : uint8_t { InOrder, Random };

struct ScheduleOptions {
  Schedule kind = Schedule::InOrder;
  uint64_t seed = 0;
};

// "random", "random:SEED", "in-order"; nullopt when `text` is none of these.
std::optional<ScheduleOptions> parse_schedule(std::string_view text);
// "0"/"off"/"none"/"1"/"on"/"all" or a comma list of waits, hazards, races;
// nullopt when not understood.
std::optional<CheckOptions> parse_checks(std::string_view text);

struct DispatchOptions;
// Applies K100_EMU_CHECK, K100_EMU_SCHEDULE, K100_EMU_BUDGET and K100_EMU_NOTICE. Throws
// k100::Error naming the variable when a value is not understood.
void apply_environment(DispatchOptions& options);

}  // namespace k100::emu
