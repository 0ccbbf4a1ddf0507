// k100lc timing: what a dispatch did, per wave, as the timing model reads it.
//
// TraceRecorder is an emu::ExecutionObserver: attached to dispatches
// (DispatchOptions::observer) it keeps, for every wave of every workgroup,
// the sequence of timing-relevant operations the wave issued: runs of ALU
// instructions by issue class, memory instructions with the 64-byte lines
// they touched (as runs of consecutive lines), s_waitcnt values, barriers and
// the end. The streams are per wave and per workgroup index, so they do not
// depend on the order or the host threads the emulator ran the waves on.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "k100/emu/observer.h"

namespace k100::timing {

enum class OpKind : uint8_t {
  Valu,         // count: full-rate VALU instructions
  ValuQuarter,  // count: quarter-rate VALU instructions
  Salu,         // count: scalar ALU (and other one-slot) instructions
  Branch,       // count: branches
  Nop,          // arg: wait states (s_nop)
  Sleep,        // arg: cycles (s_sleep)
  Wait,         // count: vmcnt, arg: lgkmcnt (s_waitcnt)
  VmemLoad,     // count: line runs at lines[arg ...]
  VmemStore,
  VmemAtomic,
  SmemLoad,     // host memory: arg = bytes, count = 0; device: count = 1 run at lines[arg]
  SmemStore,
  SmemOther,    // scalar memory instruction without memory traffic (s_memtime, s_dcache_*)
  Lds,          // arg: LDS unit cycles
  Barrier,
  End,
};
const char* op_kind_name(OpKind k);

struct TraceOp {
  OpKind kind;
  // SmemLoad/SmemStore: 1 when the address is in host memory (arg: the
  // bytes the request carries), 2 when the wave's previous host request of
  // the same 64-byte line serves it. VmemLoad: the
  // mean length in lines (1..255) of the contiguous segments this load
  // belongs to within its trip (the loads between two s_waitcnt of the wave).
  uint8_t aux = 0;
  uint16_t count = 0;
  uint32_t arg = 0;
};

// A run of consecutive 64-byte lines: first line number and count, packed.
inline uint64_t line_run(uint64_t first_line, uint32_t count) { return first_line << 20 | count; }
inline uint64_t run_first(uint64_t run) { return run >> 20; }
inline uint32_t run_count(uint64_t run) { return uint32_t(run & 0xfffff); }

struct WaveTrace {
  std::vector<TraceOp> ops;
  std::vector<uint64_t> lines;  // line runs of the memory operations
  uint64_t instructions = 0;
};

struct WorkgroupTrace {
  std::vector<WaveTrace> waves;
};

struct DispatchTrace {
  emu::ObservedDispatch info;
  std::vector<WorkgroupTrace> workgroups;  // by flat workgroup id
  bool faulted = false;
  uint64_t instructions() const;
};

class TraceRecorder : public emu::ExecutionObserver {
 public:
  TraceRecorder();
  ~TraceRecorder() override;
  void dispatch_begin(const emu::ObservedDispatch& dispatch) override;
  emu::WorkgroupObserver* workgroup_begin(uint64_t workgroup, uint32_t waves) override;
  void workgroup_end(emu::WorkgroupObserver* workgroup) override;
  void dispatch_end(bool faulted) override;

  // Every dispatch recorded so far, in dispatch order.
  const std::vector<std::unique_ptr<DispatchTrace>>& dispatches() const { return dispatches_; }
  std::vector<std::unique_ptr<DispatchTrace>> take();
  void clear() { dispatches_.clear(); }

 private:
  class Workgroup;
  std::mutex mutex_;
  std::vector<std::unique_ptr<DispatchTrace>> dispatches_;
  DispatchTrace* current_ = nullptr;
  std::vector<std::unique_ptr<Workgroup>> spare_;
};

}  // namespace k100::timing
