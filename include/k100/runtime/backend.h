// k100lc runtime: the device interface under k100::Runtime.
//
// A Backend owns one device: code objects loaded into it, device memory, and
// one in-order command queue. The Runtime above it does everything that does
// not depend on the device (kernel table, argument packing, checks, error
// attribution); a backend only loads, allocates, copies and dispatches.
// EmuBackend runs on the emulator (a worker thread drains the queue);
// HsaBackend drives a real gfx926/gfx906 agent through the HSA runtime.
//
// Thread safety: every method may be called from any thread; submit() and
// marker() from several threads interleave, each thread's commands keep their
// order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/runtime/kernarg.h"

namespace k100::runtime {

enum class BackendKind { Auto, Emu, Hsa };

// "auto", "emu" or "hsa" (case-insensitive); nullopt otherwise.
std::optional<BackendKind> parse_backend_kind(std::string_view text);
// K100_BACKEND, Auto when unset or empty; RuntimeError(InvalidArgument) for other values.
BackendKind backend_kind_from_environment();

struct Dispatch {
  int module = -1;
  std::string symbol;  // kernel symbol in that module (mangled name)
  std::string label;   // the name the caller used, for messages
  Geometry geometry;
  uint32_t group_segment = 0;    // LDS bytes for the dispatch (fixed + dynamic)
  uint32_t private_segment = 0;  // scratch bytes per work-item
  std::vector<uint8_t> kernarg;  // the whole segment, hidden arguments filled
  bool caller_layout = false;    // true: layout given by the caller (dynamic launch)
  uint64_t origin = 0;           // token of the submitting host thread
};

using Ticket = uint64_t;  // commands are numbered from 1 in submission order

struct Failure {
  uint64_t origin = 0;
  Ticket ticket = 0;
  std::string message;
  bool cancelled = false;  // stopped or dropped by cancel(), not a fault of the kernel
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;         // "emu" or "hsa"
  virtual std::string description() const = 0;  // one line for logs
  virtual bool hardware() const = 0;
  // Values for the hidden kinds only the device knows (queue pointer, apertures).
  virtual BackendHidden hidden_values() const { return {}; }

  // Loads an ELF code object; returns a module handle. Throws RuntimeError(Package).
  virtual int load(std::span<const uint8_t> elf, const std::string& origin) = 0;

  virtual uint64_t alloc(uint64_t bytes) = 0;  // RuntimeError(OutOfMemory) on failure
  virtual void free(uint64_t address) = 0;
  // Synchronous for the host. They do not wait for queued commands (the Runtime does that).
  virtual void write(uint64_t dst, const void* src, size_t n) = 0;
  virtual void read(void* dst, uint64_t src, size_t n) = 0;
  virtual void fill(uint64_t dst, uint8_t value, size_t n) = 0;
  virtual void copy(uint64_t dst, uint64_t src, size_t n) = 0;

  // Queue. submit() returns at once; commands complete in ticket order.
  virtual Ticket submit(Dispatch d) = 0;
  virtual Ticket marker() = 0;  // a timing event, timed when the queue reaches it
  virtual Ticket last_ticket() const = 0;
  virtual void wait(Ticket t) = 0;  // until every command up to t completed (or failed)
  // wait(t) for at most `seconds`; true when every command up to t completed.
  virtual bool wait_for(Ticket t, double seconds) = 0;
  // Stops every command submitted so far: the running dispatch ends early,
  // the queued ones are dropped, each is reported as a Failure with
  // `cancelled` set; returns when they are done. False (nothing stopped)
  // where the device cannot stop a running kernel (hardware).
  virtual bool cancel() { return false; }
  // Instruction budget (wave-instructions) of later emulated dispatches, so
  // a runaway loop ends in a fault. False where there is none (hardware).
  virtual bool set_instruction_budget(uint64_t wave_instructions) {
    (void)wave_instructions;
    return false;
  }
  virtual uint64_t instruction_budget() const { return 0; }  // 0: none
  // Steady-clock seconds at which marker t was reached; call after wait(t).
  virtual double marker_seconds(Ticket t) = 0;
  virtual void forget_marker(Ticket t) = 0;
  // Failures reported since the last call (faults, rejected dispatches, queue errors).
  virtual std::vector<Failure> take_failures() = 0;
};

struct BackendOptions {
  BackendKind kind = BackendKind::Auto;
  unsigned emu_threads = 0;  // host threads per emulated dispatch; 0 = K100_EMU_THREADS or all
  // Wave-instructions an emulated dispatch may run; 0 = K100_EMU_BUDGET or
  // emu::kDefaultInstructionBudget.
  uint64_t emu_instruction_budget = 0;
  std::string hsa_library;   // "" = K100_HSA_LIB, then the default search list
  // Where "auto" says that it fell back to the emulator (once per process).
  std::function<void(const std::string&)> note;
};

// Opens the device. Hsa: throws RuntimeError(Backend) with the reason when
// the HSA runtime or a gfx926/gfx906 agent is unavailable. Auto: hardware
// when /dev/kfd exists and such an agent is found, else the emulator, with a
// note (once per process) saying why.
std::unique_ptr<Backend> open_backend(const BackendOptions& options);

}  // namespace k100::runtime
