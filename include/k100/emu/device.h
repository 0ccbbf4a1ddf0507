// k100lc emu: the emulated device.
//
// emu::Device is a functional model of one gfx906/gfx926 agent: a 64-bit
// device address space with checked allocations, code objects loaded into it
// and kernel dispatches run on the host CPU. A dispatch follows the HSA ABI:
// an AQL kernel dispatch packet in device memory, a kernarg segment with the
// hidden arguments filled per metadata, user and system SGPRs and workitem-id
// VGPRs initialised from the kernel descriptor, per-wave scratch for the
// private segment, LDS per workgroup. Workgroups run across host threads;
// the waves of one workgroup run on one thread, interleaved at s_barrier, so
// the result of a kernel without atomics does not depend on the thread count.
//
// Every global/flat/buffer/scalar access is checked against the live
// allocations; a violation (or any other fault) stops the dispatch and
// DispatchResult::fault holds the report. The host process always survives.
//
// Thread safety: every Device method may be called from any thread. alloc,
// free and load take an exclusive lock and wait for running dispatches;
// dispatches hold a shared lock, so several may run at once (their memory
// effects interleave as on hardware); read/write/fill may run concurrently
// with dispatches (unsynchronised with the kernel's own accesses, as on a
// GPU). Programs (loaded code objects) are immutable and shareable.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/emu/checks.h"
#include "k100/emu/fault.h"
#include "k100/emu/profile.h"
#include "k100/emu/program.h"

namespace k100::emu {

// Flat address apertures (GFX9, as the Linux driver sets them): a flat address
// whose bits 63:32 equal an aperture's selects LDS or the wave's scratch.
constexpr uint64_t kSharedApertureBase = uint64_t(1) << 48;
constexpr uint64_t kPrivateApertureBase = uint64_t(2) << 48;

constexpr uint64_t kDefaultInstructionBudget = uint64_t(4) << 30;  // wave-instructions

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t volume() const { return uint64_t(x) * y * z; }
};

struct LaunchConfig {
  Dim3 grid;       // HSA grid size in work-items per dimension (last group may be partial)
  Dim3 workgroup;  // work-items per workgroup
  uint32_t dims = 0;  // 1..3 for the packet's setup field; 0 = derived from the sizes
  uint32_t dynamic_lds = 0;  // bytes of LDS added to the kernel's fixed group segment
  std::array<uint64_t, 3> global_offset{};  // hidden_global_offset_*
  // grid = groups * workgroup in every dimension (the runtime's convention).
  static LaunchConfig groups(Dim3 groups, Dim3 workgroup);
};

// Which waves and lanes --trace prints. -1 selects all.
struct TraceFilter {
  int64_t workgroup = 0;  // flat workgroup id (x fastest)
  int64_t wave = 0;       // wave index within the workgroup
  uint64_t lanes = 1;     // lanes whose VGPR writes are printed
};
struct TraceOptions {
  std::vector<TraceFilter> filters;
  std::ostream* out = nullptr;  // required
};

// A device address range [begin, end) whose 64-byte lines detailed profiling
// counts separately (Profile::regions, one entry per range, in order).
struct AddressRange {
  uint64_t begin = 0, end = 0;
};

class ExecutionObserver;  // k100/emu/observer.h

struct DispatchOptions {
  unsigned threads = 0;  // host threads; 0 = std::thread::hardware_concurrency()
  uint64_t instruction_budget = kDefaultInstructionBudget;
  bool detailed_profile = false;  // lines per access, distinct lines, LDS bank conflicts
  std::vector<AddressRange> line_regions;  // detailed profiling: lines counted per range
  bool fill_hidden_args = true;   // false: the caller's kernarg bytes are used as they are
  const TraceOptions* trace = nullptr;  // tracing forces one host thread
  CheckOptions checks;        // missing waits, hazards, LDS races (checks.h); all on by default
  ScheduleOptions schedule;   // wave interleaving within a workgroup
  ExecutionObserver* observer = nullptr;  // receives per-wave execution events (observer.h)
  // A dispatch still running after this many seconds says so once on standard error
  // (kernel, wave-instructions so far, how to change the budget); 0: never.
  // K100_EMU_NOTICE=SECONDS sets it (apply_environment).
  double notice_after_seconds = 5.0;
};

// How to raise or lower the instruction budget from every interface (C, C++,
// Python, the environment, k100-run), for the budget fault and the notice of a
// long dispatch.
std::string budget_hint();
// The notice of a dispatch of `kernel` still running after `seconds`, having
// executed about `wave_instructions` of its `budget`.
std::string long_dispatch_notice(const std::string& kernel, double seconds, uint64_t wave_instructions,
                                 uint64_t budget);

struct DispatchResult {
  std::optional<Fault> fault;
  Profile profile;
  double seconds = 0;

  bool ok() const { return !fault.has_value(); }
  // Throws FaultError when the dispatch faulted.
  const DispatchResult& check() const;
};

class Device;

// A code object loaded into a Device (immutable once loaded). Destroying it
// unmaps its image; it must not be dispatched after its Device is gone.
class Program {
 public:
  ~Program();
  const CodeImage& image() const;
  uint64_t base_address() const;  // device address of image byte 0
  const KernelSpec* find_kernel(std::string_view name) const;
  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  friend class Device;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Device {
 public:
  Device();
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Device memory. Allocations are zero-filled, aligned to `align` (at least
  // 256) and separated by unmapped guard gaps; addresses are never reused, so
  // an access through a dangling pointer is reported as use after free.
  uint64_t alloc(uint64_t size, std::string label = {}, uint64_t align = 256);
  void free(uint64_t address);  // address must be an allocation's start
  void write(uint64_t address, std::span<const uint8_t> bytes);
  void read(uint64_t address, std::span<uint8_t> bytes) const;
  void fill(uint64_t address, uint8_t value, uint64_t size);
  // The live allocation containing `address`, if any.
  std::optional<AllocationInfo> find_allocation(uint64_t address) const;
  std::vector<AllocationInfo> allocations() const;  // live ones, by address
  uint64_t bytes_allocated() const;

  // Maps a code image into device memory (read-only) and decodes its code.
  std::shared_ptr<const Program> load(CodeImage image);
  // Loads an ELF code object through the codeobj reader (see loader.h).
  std::shared_ptr<const Program> load_code_object(std::span<const uint8_t> elf,
                                                  std::string origin);
  std::shared_ptr<const Program> load_code_object_file(const std::string& path);

  // Runs one kernel to completion. `kernarg` holds the explicit arguments at
  // their metadata offsets (shorter spans are zero-padded); hidden arguments
  // are filled as the HSA runtime does. Throws k100::Error for invalid
  // requests (unknown kernel, zero-sized grid, workgroup over 1024 items);
  // faults during execution are returned in DispatchResult::fault.
  DispatchResult dispatch(const Program& program, std::string_view kernel,
                          const LaunchConfig& launch, std::span<const uint8_t> kernarg,
                          const DispatchOptions& options = {});
  // Stops every dispatch running now (from any thread): each ends as soon as
  // its host threads notice, within 65,536 wave-instructions or at the next
  // workgroup, and returns a FaultKind::Cancelled fault. Dispatches started
  // later are not affected.
  void cancel();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;  // programs keep a weak reference to unmap their image
};

// Helper to build a kernarg buffer by explicit argument index.
class KernargBuilder {
 public:
  explicit KernargBuilder(const KernelSpec& kernel);
  // Sets explicit argument `index` (0-based among explicit args); the value's
  // size must equal the argument's size. Throws k100::Error naming the kernel.
  KernargBuilder& set(size_t index, std::span<const uint8_t> bytes);
  template <class T>
  KernargBuilder& set_value(size_t index, const T& v) {
    return set(index, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&v), sizeof(T)));
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  const KernelSpec& kernel_;
  std::vector<uint8_t> bytes_;
};

}  // namespace k100::emu
