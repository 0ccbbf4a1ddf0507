// k100lc emu: execution events for consumers outside the emulator.
//
// The functional emulator stays exact and fast; tools that want to know *how*
// a kernel executed (the timing model in k100/timing/) attach an
// ExecutionObserver to a dispatch (DispatchOptions::observer) and receive one
// stream of events per wave: every instruction the wave issues, and for memory
// instructions the addresses they touched. Without an observer the emulator
// pays one null check per instruction and per memory access.
//
// Events are keyed by workgroup and wave, never by the order in which the
// emulator happens to run waves: the waves of one workgroup run on one host
// thread, interleaved at barriers in an order that is not part of the
// contract, and different workgroups run on different host threads. A
// consumer that needs a machine-wide schedule builds it itself from the
// per-wave streams.
//
// Threading: dispatch_begin and dispatch_end are called on the dispatching
// thread. workgroup_begin and workgroup_end may be called concurrently from
// several host threads (one call per workgroup); the WorkgroupObserver they
// return is used by one thread at a time, until workgroup_end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/emu/profile.h"
#include "k100/isa/inst.h"

namespace k100::emu {

// How a memory access used its bytes (the values match the emulator's line flags).
enum class MemoryAccess : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };

// What a dispatch looks like to an observer: geometry, the resources one
// wave and one workgroup hold, and the device memory the runtime places in
// host memory (kernarg segment, dispatch packet, queue).
struct ObservedDispatch {
  std::string kernel;
  uint64_t workgroups = 0;          // flat count (x fastest)
  uint32_t workgroup_items = 0;     // work-items of a full workgroup
  uint32_t waves_per_workgroup = 0; // waves of a full workgroup
  uint32_t vgprs = 0;               // granted per lane (COMPUTE_PGM_RSRC1, granules of 4)
  uint32_t sgprs = 0;               // granted per wave (COMPUTE_PGM_RSRC1, granules of 8)
  uint32_t lds_bytes = 0;           // group segment + dynamic LDS of one workgroup
  uint32_t private_bytes = 0;       // scratch per work-item
  uint64_t kernarg_address = 0, kernarg_bytes = 0;
  uint64_t packet_address = 0, packet_bytes = 0;
  uint64_t queue_address = 0, queue_bytes = 0;
  // The device memory allocations live when the dispatch starts, by base
  // address: a consumer that models physical placement maps addresses to
  // (allocation, offset) with them.
  struct Allocation {
    uint64_t base = 0, bytes = 0;
  };
  std::vector<Allocation> allocations;
};

// Receives the events of one workgroup's waves. A memory event belongs to the
// instruction reported just before it (same host thread, same wave).
class WorkgroupObserver {
 public:
  virtual ~WorkgroupObserver() = default;
  // Before the wave executes the instruction at byte offset `pc` of the image.
  virtual void instruction(uint32_t wave, const isa::Inst& inst, InstClass cls, uint64_t pc) = 0;
  // The byte ranges a vector memory instruction accessed in device memory
  // (one entry per lane piece; up to a few hundred).
  virtual void vector_memory(const uint64_t* addresses, const uint32_t* sizes, int count, MemoryAccess access) = 0;
  // A scalar memory access of `bytes` at `address`.
  virtual void scalar_memory(uint64_t address, uint32_t bytes, MemoryAccess access) = 0;
  // One LDS access pass: per-lane byte offsets of the lanes in `lanes`.
  virtual void lds_access(const uint64_t* offsets, uint64_t lanes, uint32_t bytes) = 0;
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  virtual void dispatch_begin(const ObservedDispatch& dispatch) = 0;
  // Returns the sink for workgroup `workgroup`'s waves (never null).
  virtual WorkgroupObserver* workgroup_begin(uint64_t workgroup, uint32_t waves) = 0;
  virtual void workgroup_end(WorkgroupObserver* workgroup) = 0;
  // After every workgroup ended (or the dispatch faulted and stopped).
  virtual void dispatch_end(bool faulted) = 0;
};

}  // namespace k100::emu
