// k100lc isa: the GFX9 wait counters (vmcnt, lgkmcnt, expcnt).
//
// What the Vega ISA manual (section "Data Dependency Resolution") defines:
//   vmcnt   vector memory loads and stores (MUBUF, MTBUF, FLAT, GLOBAL,
//           SCRATCH); they return in issue order, reads and writes mixed.
//   lgkmcnt LDS and GDS instructions, scalar memory (SMEM), s_sendmsg, and
//           FLAT (which may access LDS). Instructions of one type return in
//           issue order, different types out of order; scalar memory reads
//           may return out of order among themselves, so only lgkmcnt(0)
//           orders several outstanding scalar loads. FLAT data can come from
//           LDS or memory at different latencies, so a FLAT access returns out
//           of order with respect to other vector memory (only a zero count
//           orders it; GLOBAL and SCRATCH use vmcnt alone and stay in order).
//   expcnt  exports and GDS: counts until the data VGPRs have been read out.
// s_waitcnt N waits until a counter is at or below N; on gfx9 the immediate
// holds vmcnt in bits 3:0 and 15:14 (6 bits), expcnt in 6:4, lgkmcnt in 11:8.
//
// counter_use() says, per instruction, which counters it increments, how it
// is ordered, which registers it writes when it returns and which data
// registers it still reads while in flight. InFlight is the per-wave model
// of outstanding operations built on those facts: a checker asks it which
// in-flight operation still writes a register, a code generator asks it
// which s_waitcnt makes a register safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/isa/effects.h"
#include "k100/isa/symbolic.h"

namespace k100::isa {

enum Counter : uint8_t { kVmCnt = 1, kLgkmCnt = 2, kExpCnt = 4 };

// Operations of one class return in issue order among themselves (except
// Smem and the LDS side of Flat); different classes overtake each other.
enum class ReturnClass : uint8_t { None, Vmem, Flat, Lds, Gds, Smem, Message };
const char* return_class_name(ReturnClass c);

struct CounterUse {
  uint8_t counters = 0;  // Counter bits the instruction increments at issue
  ReturnClass cls = ReturnClass::None;
  // lgkmcnt increment: 1 per LDS/GDS/message instruction; scalar memory reads
  // count their returned dwords (1 for one dword, 2 for two or more).
  uint8_t lgkm_increment = 0;
  std::array<RegRange, 2> returns{};  // registers written when it returns
  uint8_t num_returns = 0;
  std::array<RegRange, 3> held{};  // data registers read while in flight (until expcnt)
  uint8_t num_held = 0;
  bool writes_lds = false;  // LDS DMA: writes LDS when it returns
  bool is_store = false;    // writes memory and returns no data

  bool any() const { return counters != 0; }
  bool uses(Counter c) const { return (counters & c) != 0; }
  std::span<const RegRange> return_list() const { return {returns.data(), num_returns}; }
  std::span<const RegRange> held_list() const { return {held.data(), num_held}; }
  // Whether an op of this class, waited on through counter c, is ordered
  // with the others of its class (false: only a zero count guarantees it).
  bool in_order(Counter c) const;
};

CounterUse counter_use(const Inst& inst);
CounterUse counter_use(const Inst& inst, const Effects& effects);  // with effects_of(inst) already at hand

// s_waitcnt operands are isa::Waitcnt (symbolic.h: fields at their maximum do
// not wait; Waitcnt::encode()/decode() hold the gfx9 immediate layout).
// Whether `w` waits on any counter.
bool waits(const Waitcnt& w);
// The stricter of both, per counter.
Waitcnt stricter(const Waitcnt& a, const Waitcnt& b);
bool same_wait(const Waitcnt& a, const Waitcnt& b);
// "s_waitcnt vmcnt(2) lgkmcnt(0)" (fields that do not wait are left out).
std::string waitcnt_text(const Waitcnt& w);

// Outstanding counted operations of one wave, in issue order.
class InFlight {
 public:
  struct Op {
    uint32_t seq = 0;  // issue number
    CounterUse use;
    uint64_t tag = 0;  // the caller's reference (a pc, an instruction index)
  };

  // Records an issued instruction; instructions without counters are ignored.
  // At a counter's maximum the hardware stalls issue until one returns: the
  // model applies the matching wait first.
  void issue(const CounterUse& use, uint64_t tag);
  // s_waitcnt: retires every operation the wait guarantees has returned
  // (and releases held data of those it guarantees read out).
  void wait(Waitcnt w);
  void clear();

  // The in-flight operation that will still write register c, or null.
  const Op* pending_write(uint16_t c) const;
  // The in-flight operation still reading data register c, or null.
  const Op* pending_hold(uint16_t c) const;
  // The weakest s_waitcnt after which `op` has surely returned.
  Waitcnt wait_for(const Op& op) const;
  // The weakest s_waitcnt after which `op` no longer reads its data registers.
  Waitcnt wait_for_release(const Op& op) const;
  // Whether an instruction with `next` issued now surely returns after `op`
  // (so its writes land last: a write-after-write that needs no wait).
  static bool returns_after(const Op& op, const CounterUse& next);

  bool empty() const { return ops_.empty(); }
  std::span<const Op> ops() const { return ops_; }
  uint32_t outstanding(Counter c) const;

 private:
  const Op* find(uint32_t seq) const;
  std::vector<Op> ops_;
  std::vector<uint8_t> released_;  // per ops_ entry: held data read out
  std::vector<uint8_t> scratch_;   // wait(): ops it retires
  std::array<uint32_t, 512> writer_{};  // register code -> seq of the op that writes it last
  std::array<uint32_t, 512> holder_{};  // register code -> seq of the op holding it
  uint32_t next_seq_ = 1;
};

}  // namespace k100::isa
