// k100lc runtime: the emulator backend.
//
// Runs the runtime's queue on an emu::Device: one worker thread takes the
// commands in submission order and runs each dispatch to completion on the
// emulator (which spreads the workgroups over host threads). A dispatch that
// faults is reported as a Failure carrying the emulator's fault report; the
// queue goes on with the next command. cancel() stops the running dispatch
// (emu::Device::cancel) and drops the queued ones. Memory operations run on the caller's
// thread against the device's checked allocations.
#pragma once

#include <memory>

#include "k100/emu/device.h"
#include "k100/runtime/backend.h"

namespace k100::runtime {

struct EmuBackendOptions {
  unsigned threads = 0;  // host threads per dispatch; 0 = all
  uint64_t instruction_budget = emu::kDefaultInstructionBudget;
};

class EmuBackend final : public Backend {
 public:
  explicit EmuBackend(EmuBackendOptions options = {});
  ~EmuBackend() override;  // runs the queued commands, then stops the worker

  std::string name() const override { return "emu"; }
  std::string description() const override;
  bool hardware() const override { return false; }

  int load(std::span<const uint8_t> elf, const std::string& origin) override;

  uint64_t alloc(uint64_t bytes) override;
  void free(uint64_t address) override;
  void write(uint64_t dst, const void* src, size_t n) override;
  void read(void* dst, uint64_t src, size_t n) override;
  void fill(uint64_t dst, uint8_t value, size_t n) override;
  void copy(uint64_t dst, uint64_t src, size_t n) override;

  Ticket submit(Dispatch d) override;
  Ticket marker() override;
  Ticket last_ticket() const override;
  void wait(Ticket t) override;
  bool wait_for(Ticket t, double seconds) override;
  bool cancel() override;
  bool set_instruction_budget(uint64_t wave_instructions) override;
  uint64_t instruction_budget() const override;
  double marker_seconds(Ticket t) override;
  void forget_marker(Ticket t) override;
  std::vector<Failure> take_failures() override;

  emu::Device& device();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace k100::runtime
