// k100lc isa: GFX9 required wait states (the hazards hardware does not check).
//
// Some dependencies between nearby instructions are not interlocked on GFX9:
// the program must put enough other instructions (or s_nop) between them.
// The rules are one table of data rows (hazard_rules()), each with its
// source: the Vega ISA manual's table "Required Software-inserted Wait
// States" (section 4.5, "Manually Inserted Wait States (NOPs)") and the gfx9
// cases of LLVM's AMDGPU hazard recognizer (GCNHazardRecognizer), which
// encodes the same rules for the compiler.
//
// A row names a producer (which instructions start the window and which of
// their registers count), a consumer predicate, the register relation
// between the two and the wait states required. Wait states count the
// instructions issued in between: each instruction provides one, `s_nop N`
// provides N + 1.
//
// Two ways to ask:
//   - HazardTracker: feed it every issued instruction (issue()), ask before
//     issuing the next one (check()). The emulator's checker keeps one per
//     wave and precomputes HazardProfile per instruction; a code generator
//     calls check() before each instruction and emits `s_nop (missing - 1)`.
//   - check_window(): the same answer from a window of the last instructions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "k100/isa/effects.h"

namespace k100::isa {

// Which instructions open a hazard window, and over which "registers".
enum class HazardProducer : uint8_t {
  ValuWrite,      // registers a VALU instruction writes (SGPRs, VCC, EXEC, VGPRs)
  SaluWrite,      // registers a scalar ALU instruction writes (M0, ...)
  SetregWrite,    // the hardware register (hwreg id) s_setreg / s_setreg_imm32 writes
  SetregVskip,    // s_setreg whose field covers MODE.vskip (bit 28)
  Setvskip,       // s_setvskip
  WideStoreData,  // data VGPRs of a vector memory store of more than 64 bits
};
constexpr int kHazardProducerCount = 6;
// The most wait states any rule requires.
constexpr unsigned kMaxHazardWaitStates = 5;

// Which registers of the consumer are compared with the producer's.
enum class HazardOperands : uint8_t {
  SgprReads,      // every scalar register it reads, implicit ones (EXEC, M0) included
  VgprReads,      // every VGPR it reads
  LaneSelect,     // src1 of v_readlane / v_writelane when it is an SGPR
  Exec,           // EXEC
  Vcc,            // VCC
  M0,             // M0
  VcczExeczData,  // VCC behind a vccz source, EXEC behind an execz source
  HwregOfConsumer,  // the hwreg id s_getreg / s_setreg names
  Trapsts,        // hwreg TRAPSTS
  ModeHwreg,      // hwreg MODE
  Whole,          // the producer's single state (vskip)
  VgprWrites,     // every VGPR it writes
  None,           // nothing the instruction stream shows (documented rule only)
};

struct HazardRule {
  const char* id;       // stable name used in reports: "valu_sgpr_vmem"
  const char* summary;  // "VALU writes SGPR -> VMEM reads that SGPR"
  const char* source;   // where the rule is stated
  HazardProducer producer;
  bool (*consumer)(const Inst& inst);
  HazardOperands relation;
  uint8_t wait_states;
  // false: the rule cannot be seen in gfx9 encodings (kept for completeness).
  bool observable;
};

std::span<const HazardRule> hazard_rules();
const HazardRule* find_hazard_rule(std::string_view id);

// Wait states an issued instruction provides: s_nop N -> N + 1, others 1.
int wait_states_of(const Inst& inst);

// hwreg fields of s_getreg / s_setreg / s_setreg_imm32 (id, bit offset, size).
struct HwregField {
  unsigned id = 0, offset = 0, size = 32;
};
constexpr unsigned kHwregMode = 1, kHwregTrapsts = 3;
bool hwreg_of(const Inst& inst, HwregField* out);

// What one instruction contributes to the hazard state, precomputed.
struct HazardProfile {
  struct Stamp {  // registers this instruction opens a window on
    HazardProducer producer;
    RegRange regs;  // operand codes; hwreg ids for the Setreg producers
  };
  struct Probe {  // registers this instruction must check
    uint8_t rule;  // index in hazard_rules()
    RegRange regs;
  };
  uint8_t wait_states = 1;
  uint8_t num_stamps = 0, num_probes = 0;
  uint8_t probe_producers = 0;  // bit per HazardProducer the probes look at
  std::array<Stamp, 6> stamps{};
  std::array<Probe, 10> probes{};
};
HazardProfile hazard_profile(const Inst& inst);
HazardProfile hazard_profile(const Inst& inst, const Effects& effects);

struct HazardHit {
  const HazardRule* rule = nullptr;  // null: no hazard
  int missing = 0;                   // wait states still needed before the instruction
  int have = 0;                      // wait states since the producer
  uint16_t reg = 0;                  // the register (or hwreg id) of the conflict
  uint64_t producer_tag = 0;         // the tag the producer was issued with
  explicit operator bool() const { return rule != nullptr; }
};

class HazardTracker {
 public:
  HazardTracker();
  // Forgets every earlier instruction (a new wave).
  void reset();
  // The rule with the most wait states still missing before `next`, if any.
  HazardHit check(const HazardProfile& next) const;
  HazardHit check(const Inst& next) const { return check(hazard_profile(next)); }
  // False when check(next) surely finds nothing: none of the producers its
  // probes look at issued within the longest window of any rule.
  bool may_hit(const HazardProfile& next) const {
    for (int i = 0; i < kHazardProducerCount; ++i)
      if ((next.probe_producers >> i & 1) && now_ - latest_[size_t(i)] < kMaxHazardWaitStates) return true;
    return false;
  }
  // Records an issued instruction; `tag` comes back in HazardHit::producer_tag.
  void issue(const HazardProfile& p, uint64_t tag);
  void issue(const Inst& inst, uint64_t tag = 0) { issue(hazard_profile(inst), tag); }

 private:
  struct Stamp {
    uint64_t end = 0;  // wait-state clock right after the producer issued
    uint64_t tag = 0;
  };
  Stamp* space(HazardProducer p);
  const Stamp* space(HazardProducer p) const;
  uint64_t now_;
  std::vector<Stamp> stamps_;
  // Per producer: the clock right after its latest stamp, so check() skips a
  // rule at once when that producer has not issued recently.
  std::array<uint64_t, kHazardProducerCount> latest_{};
};

// The worst missing rule before `next`, given the instructions issued before
// it (oldest first); producer_tag is the index in `window`.
HazardHit check_window(std::span<const Inst> window, const Inst& next);

}  // namespace k100::isa
