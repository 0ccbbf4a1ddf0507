// Internal model of the emulator core: decoded programs, waves, the per-thread
// workgroup context, and the helpers every semantic function uses (scalar
// operand access, fault raising, device memory access with profiling).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "k100/emu/device.h"
#include "k100/emu/observer.h"
#include "k100/emu/semantics.h"
#include "k100/emu/wave.h"
#include "k100/isa/codec.h"
#include "k100/isa/counters.h"
#include "k100/isa/effects.h"
#include "k100/isa/hazards.h"
#include "memory.h"

namespace k100::emu::detail {

// ---------------------------------------------------------------- faults ---

// Thrown inside a dispatch; the dispatcher adds kernel, PC, wave and allocation data.
struct CoreFault {
  CoreFault(FaultKind k, std::string m, int l = -1, std::optional<uint64_t> a = std::nullopt, uint32_t sz = 0,
            bool w = false, bool dev = false)
      : kind(k), message(std::move(m)), lane(l), address(a), size(sz), write(w), device_address(dev) {}
  FaultKind kind;
  std::string message;
  int lane = -1;
  std::optional<uint64_t> address;
  uint32_t size = 0;
  bool write = false;
  bool device_address = false;  // address is a device address: diagnose it against allocations
  // Check reports (see Fault): rule, register, the other instruction, the fix.
  std::string rule, reg, other_text, fix;
  std::optional<uint64_t> other_pc;
  int other_wave = -1;
};

// Thrown when another thread has faulted: unwinds a workgroup quietly.
struct StopSignal {};

[[noreturn]] void raise(FaultKind kind, std::string message, int lane = -1);
// "0x1a4": addresses and pcs in check reports.
inline std::string hex_text(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}
[[noreturn]] void raise_memory(uint64_t addr, uint32_t size, bool write, int lane);
[[noreturn]] void raise_lds(uint64_t offset, uint32_t size, bool write, int lane, uint32_t lds_size);
[[noreturn]] void raise_gds(uint64_t offset, uint32_t size, bool write, int lane, uint32_t base, uint32_t limit);

// --------------------------------------------------------------- program ---

struct Exec;
struct Wave;
struct Op;
// Records an LDS access for race detection; throws CoreFault on a race
// (defined after Exec below).
inline void lds_race_access(Exec& e, uint64_t offset, uint32_t size, bool write, int lane);
// The race report (src/emu/checks/lds_race.cpp).
[[noreturn]] void report_lds_race(Exec& e, uint64_t dword, bool write, bool other_write, unsigned other_wave,
                                  uint32_t other_pc, int lane);

enum class Step : uint8_t { Next, Jump, Barrier, End };
using CoreFn = Step (*)(Exec&, Wave&, const Op&);

constexpr int kFieldCount = int(isa::Field::saddr) + 1;

// One decoded instruction of a program, cached by PC.
struct Op {
  isa::Inst inst;
  ValuFn valu = nullptr;
  CoreFn core = nullptr;
  uint32_t pc = 0;
  uint8_t size = 4;
  InstClass cls = InstClass::Other;
  bool valid = false;
  int8_t field[kFieldCount];
  uint32_t words[3] = {0, 0, 0};
  // Instructions the ISA table lacks but clang emits (s_memtime, s_dcache_*):
  // raw SMEM opcode + 1, and the text to print.
  uint16_t raw_smem = 0;
  std::string raw_text;
  // What the checks need, computed once at decode (isa/effects.h, counters.h, hazards.h).
  isa::Effects effects;
  isa::CounterUse counters;
  isa::HazardProfile hazard;
  bool is_waitcnt = false, is_barrier = false;
  bool reads_lds_direct = false;  // a VALU source is lds_direct (exec.cpp reads it from LDS)

  bool has(isa::Field f) const { return field[int(f)] >= 0; }
  const isa::Operand& opnd(isa::Field f) const { return inst.ops[size_t(field[int(f)])]; }
  std::string text() const;
  std::string encoding_hex() const;
};

}  // namespace k100::emu::detail

namespace k100::emu {

struct Program::Impl {
  ~Impl();
  std::weak_ptr<Device::Impl> device;  // to unmap the image
  CodeImage image;
  uint64_t base = 0;  // device address of the image
  uint64_t code_begin = 0, code_end = 0;
  std::unique_ptr<detail::Op[]> ops;  // one slot per code dword
  std::unique_ptr<std::atomic<uint8_t>[]> ready;
  mutable std::mutex decode_mutex;
  unsigned vgprs_referenced = 0;  // VGPRs the code names (256 when it indexes indirectly)

  // The decoded instruction at image offset `pc` (decoded on first use).
  const detail::Op& fetch(uint64_t pc) const {
    uint64_t rel = pc - code_begin;
    if (__builtin_expect(rel < code_end - code_begin && !(pc & 3), 1)) {
      size_t i = size_t(rel >> 2);
      if (__builtin_expect(ready[i].load(std::memory_order_acquire) != 0, 1)) return ops[i];
    }
    return fetch_slow(pc);
  }
  const detail::Op& fetch_slow(uint64_t pc) const;
  void decode_at(uint64_t pc) const;  // requires decode_mutex
};

}  // namespace k100::emu

namespace k100::emu::detail {

// ------------------------------------------------------------------ wave ---

constexpr uint32_t kModeGprIdxEn = 1u << 27;
constexpr uint32_t kModeVskip = 1u << 28;

struct Wave {
  WaveState s;
  uint32_t index = 0;
  uint32_t lanes = 64;
  bool done = false;
  uint64_t scratch_base = 0;  // device address of lane 0 offset 0 of this wave's private memory
  uint64_t scratch_size = 0;
  bool trace = false;
  uint64_t trace_lanes = 0;
  uint64_t retired = 0;  // instructions retired (s_memtime reads it)
  // Checks (checks.h): outstanding counted operations and the hazard window.
  isa::InFlight in_flight;
  isa::HazardTracker hazards;
};

// ------------------------------------------------------------- dispatch ---

struct DispatchShared {
  DeviceMemory* mem = nullptr;
  const Program::Impl* prog = nullptr;
  const KernelSpec* kernel = nullptr;
  LaunchConfig launch;
  Dim3 groups;
  uint32_t lds_size = 0;
  uint64_t kernarg_address = 0, packet_address = 0, queue_address = 0, dispatch_id = 0;
  uint32_t private_size = 0;  // per work-item, dword aligned
  uint32_t max_waves = 1;     // waves of a full workgroup
  uint32_t mode = 0;          // initial MODE
  unsigned vgprs_to_clear = 256;
  bool detailed = false;
  const TraceOptions* trace = nullptr;
  std::atomic<uint64_t> budget{0};
  uint64_t budget_total = 0;
  // The notice of a long dispatch (DispatchOptions::notice_after_seconds), checked
  // whenever a worker takes more budget.
  std::chrono::steady_clock::time_point start;
  double notice_after = 0;
  std::atomic<bool> noticed{false};
  std::atomic<bool> stop{false};
  std::mutex fault_mutex;
  std::optional<Fault> fault;
  std::mutex lines_mutex;
  // Distinct 64-byte lines (detailed profiling): line -> kLineRead | kLineWritten.
  std::unordered_map<uint64_t, uint8_t> lines;
  std::vector<AddressRange> regions;   // DispatchOptions::line_regions
  CheckOptions checks;
  ScheduleOptions schedule;
  ExecutionObserver* observer = nullptr;  // DispatchOptions::observer
};

// Per LDS dword: the last writer and up to two reader waves of the current
// barrier epoch (src/emu/checks/lds_race.cpp).
struct LdsShadow {
  uint32_t write_epoch = 0, write_pc = 0;
  uint32_t read_epoch = 0;
  uint32_t read_pc[2] = {0, 0};
  uint16_t read_mask = 0;
  uint8_t write_wave = 0, write_atomic = 0;
  uint8_t read_wave[2] = {0, 0};
  uint8_t readers = 0;
};

// Per host thread: runs one workgroup at a time.
struct Exec {
  DispatchShared& d;
  DeviceMemory& mem;
  MemCache cache;
  std::vector<uint8_t> lds;
  uint32_t lds_size = 0;
  std::array<uint32_t, 3> wg{};
  uint64_t wg_flat = 0;
  std::array<uint32_t, 3> wg_size{};  // actual (partial) size of this workgroup
  std::vector<std::unique_ptr<Wave>> waves;
  uint32_t nwaves = 0;
  std::vector<uint64_t> scratch_slots;  // per wave slot
  Profile prof;
  std::unordered_map<uint64_t, uint8_t> lines;  // as DispatchShared::lines
  uint64_t budget_local = 0;
  // LDS race detection: the wave running now, the barrier epoch (grows at
  // every workgroup start and barrier release, so old shadow entries never
  // match), whether the current LDS access is an atomic.
  Wave* cur_wave = nullptr;
  uint32_t epoch = 0;
  bool lds_atomic = false;
  std::vector<LdsShadow> lds_shadow;
  // While a DS instruction with the gds modifier runs: lds_ptr addresses the
  // device's GDS at gds_base (M0[31:16]), within gds_limit bytes (M0[15:0]).
  bool gds_access = false;
  uint32_t gds_base = 0, gds_limit = 0;
  WorkgroupObserver* obs = nullptr;  // the current workgroup's event sink, if observed

  Exec(DispatchShared& shared) : d(shared), mem(*shared.mem) {}

  // Device memory access for lane `lane` (for fault reports); throws CoreFault.
  uint8_t* dev(uint64_t addr, uint32_t size, bool write, int lane) {
    uint8_t* p = translate(mem, cache, addr, size, write);
    if (!p) raise_memory(addr, size, write, lane);
    if (write) prof.bytes_written += size;
    else prof.bytes_read += size;
    return p;
  }
  uint8_t* lds_ptr(uint64_t offset, uint32_t size, bool write, int lane) {
    if (__builtin_expect(gds_access, 0)) {
      if (offset + size > gds_limit || gds_base + offset + size > DeviceMemory::kGdsBytes)
        raise_gds(offset, size, write, lane, gds_base, gds_limit);
      return mem.gds.data() + gds_base + offset;
    }
    if (offset + size > lds_size) raise_lds(offset, size, write, lane, lds_size);
    if (!lds_shadow.empty()) lds_race_access(*this, offset, size, write, lane);
    return lds.data() + offset;
  }
};

// LDS race detection: every LDS access of a workgroup records, per dword,
// the last writer and the readers of the current barrier epoch (the stretch
// between two s_barrier releases). Two different waves in the same epoch,
// one of them writing, is a race whatever order they ran in: the record of
// the first access is there when the second comes, whichever came first.
// Atomics against atomics are not races.
inline void lds_race_access(Exec& e, uint64_t offset, uint32_t size, bool write, int lane) {
  if (!e.cur_wave) return;
  const unsigned wave = e.cur_wave->index;
  const uint32_t epoch = e.epoch;
  const uint8_t atomic = e.lds_atomic ? 1 : 0;
  for (uint64_t d = offset >> 2, last = (offset + size - 1) >> 2; d <= last && d < e.lds_shadow.size(); ++d) {
    LdsShadow& s = e.lds_shadow[size_t(d)];
    if (s.write_epoch == epoch && s.write_wave != wave && !(atomic && s.write_atomic))
      report_lds_race(e, d, write, true, s.write_wave, s.write_pc, lane);
    if (write) {
      if (s.read_epoch == epoch && (s.read_mask & ~(1u << wave))) {
        int k = s.read_wave[0] != wave ? 0 : 1;
        report_lds_race(e, d, true, false, s.read_wave[k], s.read_pc[k], lane);
      }
      s.write_epoch = epoch;
      s.write_wave = uint8_t(wave);
      s.write_pc = uint32_t(e.cur_wave->s.pc);
      s.write_atomic = atomic;
    } else {
      if (s.read_epoch != epoch) {
        s.read_epoch = epoch;
        s.read_mask = 0;
        s.readers = 0;
      }
      if (!(s.read_mask & (1u << wave))) {
        s.read_mask = uint16_t(s.read_mask | (1u << wave));
        // Two different reader waves are kept, so a writer always finds one that is not itself.
        if (s.readers < 2) {
          s.read_wave[s.readers] = uint8_t(wave);
          s.read_pc[s.readers] = uint32_t(e.cur_wave->s.pc);
          ++s.readers;
        }
      }
    }
  }
}

// -------------------------------------------------------- operand access ---

inline uint32_t special_source(const Wave& w, uint16_t c) {
  switch (c) {
    case isa::code::kSharedBase: return uint32_t(w.s.shared_base);
    case isa::code::kSharedLimit: return uint32_t(w.s.shared_limit);
    case isa::code::kPrivateBase: return uint32_t(w.s.private_base);
    case isa::code::kPrivateLimit: return uint32_t(w.s.private_limit);
    case isa::code::kPopsExitingWaveId: return 0;
    case isa::code::kVccz: return w.s.vcc() == 0;
    case isa::code::kExecz: return w.s.exec() == 0;
    case isa::code::kScc: return w.s.scc;
    default: return 0;
  }
}

// A 32-bit scalar source (SGPR, special register, inline constant, literal).
inline uint32_t sread(const Wave& w, const isa::Operand& o) {
  uint16_t c = o.code;
  if (c < 128) return w.s.sgpr[c];
  if (c <= isa::code::kIntPosLast) return uint32_t(c - isa::code::kZero);
  if (c <= isa::code::kIntNegLast) return uint32_t(-int32_t(c - isa::code::kIntPosLast));
  if (c == isa::code::kLiteral) return o.value;
  if (c >= isa::code::kFloatFirst && c <= isa::code::kInvTwoPi) return isa::inline_float_bits32(c);
  return special_source(w, c);
}

// A 64-bit scalar source. A 32-bit literal is zero-extended, or sign-extended
// for signed operands (s_ashr_i64, s_bfe_i64, s_flbit_i32_i64).
inline uint64_t sread64(const Wave& w, const isa::Operand& o, bool signed_literal = false) {
  uint16_t c = o.code;
  if (c < 127) return uint64_t(w.s.sgpr[c]) | uint64_t(w.s.sgpr[c + 1]) << 32;
  if (c <= isa::code::kIntNegLast && c >= isa::code::kZero)
    return uint64_t(int64_t(isa::inline_int_value(c)));
  if (c == isa::code::kLiteral) return signed_literal ? uint64_t(int64_t(int32_t(o.value))) : uint64_t(o.value);
  if (c >= isa::code::kFloatFirst && c <= isa::code::kInvTwoPi) return isa::inline_float_bits64(c);
  switch (c) {
    case isa::code::kSharedBase: return w.s.shared_base;
    case isa::code::kSharedLimit: return w.s.shared_limit;
    case isa::code::kPrivateBase: return w.s.private_base;
    case isa::code::kPrivateLimit: return w.s.private_limit;
    default: return special_source(w, c);
  }
}

inline void swrite(Wave& w, uint16_t code, uint32_t v) {
  if (code < 128) w.s.sgpr[code] = v;
}
inline void swrite64(Wave& w, uint16_t code, uint64_t v) {
  if (code < 127) {
    w.s.sgpr[code] = uint32_t(v);
    w.s.sgpr[code + 1] = uint32_t(v >> 32);
  }
}

inline uint32_t& vreg(Wave& w, unsigned index, int lane) { return w.s.vgpr[index & 255][size_t(lane)]; }

// Population count without relying on the host having POPCNT.
inline unsigned lane_count(uint64_t m) {
  m = m - ((m >> 1) & 0x5555555555555555ull);
  m = (m & 0x3333333333333333ull) + ((m >> 2) & 0x3333333333333333ull);
  m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return unsigned((m * 0x0101010101010101ull) >> 56);
}

// Calls fn(lane) for every lane set in mask, lowest first.
template <class F>
inline void for_lanes(uint64_t mask, F&& fn) {
  while (mask) {
    int lane = __builtin_ctzll(mask);
    mask &= mask - 1;
    fn(lane);
  }
}

// Records the 64-byte lines a vector memory instruction touched (detailed
// profiling); `access` says whether it read them, wrote them or both (atomics).
constexpr uint8_t kLineRead = 1, kLineWritten = 2;
void record_lines(Exec& e, const uint64_t* addrs, const uint32_t* sizes, int n, uint8_t access);
// Whether 64-byte line number `line` overlaps the range.
inline bool line_in_range(uint64_t line, const AddressRange& r) {
  return (line << 6) < r.end && (line << 6) + 64 > r.begin;
}

// ------------------------------------------------------------ semantics ---

// Core semantic function of a row, by id (null: not a core row or unsupported).
const std::vector<CoreFn>& core_semantics();
// Handler for raw SMEM opcodes missing from the table (0 if none).
CoreFn raw_smem_semantics(uint16_t opcode);
const char* raw_smem_name(uint16_t opcode);
InstClass class_of(const isa::InstDesc& d);

// Registration by family (each file defines one).
struct CoreEntry {
  const char* name;
  CoreFn fn;
};
void register_salu(std::vector<CoreEntry>& out);
void register_smem(std::vector<CoreEntry>& out);
void register_vmem(std::vector<CoreEntry>& out);
void register_ds(std::vector<CoreEntry>& out);

// Runs one wave until it reaches a barrier or ends (or faults: throws); with
// `slice` > 0, at most that many instructions (then Step::Next).
Step run_wave(Exec& e, Wave& w, uint64_t slice = 0);

// ---------------------------------------------------------------- checks ---

// Fills Op::effects/counters/hazard after decoding.
void prepare_checks(Op& op);
// Before an instruction issues: missing waits and hazards (throw CoreFault),
// then s_waitcnt / s_barrier bookkeeping. The inline part skips the common
// case: nothing in flight, no recent producer of a hazard.
void check_issue_slow(Exec& e, Wave& w, const Op& op);
inline void check_issue(Exec& e, Wave& w, const Op& op) {
  if (!w.in_flight.empty() || op.is_waitcnt || w.hazards.may_hit(op.hazard)) check_issue_slow(e, w, op);
}
// After it executed: the operation is in flight, the hazard window moves on.
inline void check_retire(Exec& e, Wave& w, const Op& op) {
  if (e.d.checks.waits && op.counters.any()) w.in_flight.issue(op.counters, op.pc);
  if (e.d.checks.hazards) w.hazards.issue(op.hazard, op.pc);
}
// A new wave: nothing in flight, no hazard window.
inline void reset_checks(Wave& w) {
  w.in_flight.clear();
  w.hazards.reset();
}
// Runs workgroup `index` (x fastest) to completion; a fault is recorded in the
// dispatch and stops it.
void run_workgroup(Exec& e, uint64_t index);
// What an observer learns about the dispatch (observer.cpp).
ObservedDispatch observed_dispatch(const DispatchShared& d);

}  // namespace k100::emu::detail
