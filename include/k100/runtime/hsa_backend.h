// k100lc runtime: the HSA backend (a real K100_LC / gfx926 or gfx906 agent).
//
// The HSA runtime is loaded at run time with dlopen - K100_HSA_LIB, then the
// driver's /opt/hyhal/lib/libhsa-runtime64.so, then ROCm's and the system's -
// so nothing links against it and a machine without it still runs the
// emulator. What the backend does, following what was measured on the real
// K100_LC:
//   * agents: the first GPU agent named gfx926 or gfx906 (iteration callbacks
//     always return SUCCESS), plus every CPU agent;
//   * device buffers from the GPU's coarse-grained global pool, made
//     accessible to the CPU agents; kernarg slots (64 x 1024 bytes) from the
//     kernarg pool; host staging memory (8 MiB) from the CPU agent's pool,
//     made accessible to all agents (hsa_amd_memory_lock is never used);
//   * code objects through code object readers and frozen executables, one
//     per loaded package or module;
//   * one in-order queue (64 packets, single producer; RT_HSART_QMULTI=1 for a
//     multi-producer queue) of AQL kernel dispatch packets with the barrier bit
//     and system-scope fences, grid size = workgroups x workgroup size in every
//     dimension, a completion signal per kernarg slot; timing markers are
//     barrier-AND packets;
//   * transfers through the staging buffer with hsa_amd_memory_async_copy
//     (hsa_memory_copy when that fails), waiting on the copy signal with
//     acquire semantics, so readback invalidates rather than flushes;
//   * scratch left to the runtime (queue created with the default private
//     segment size); RT_HSART_SCRATCH_INFO=1 prints the queue's scratch fields
//     after creation, before dispatches with a private segment and after
//     waits.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "k100/runtime/backend.h"

namespace k100::runtime {

// Every HSA function the backend resolves with dlsym, in one list (the test
// checks each against the installed libhsa-runtime64).
std::span<const char* const> hsa_required_symbols();

// Libraries tried in order: `explicit_path` (or K100_HSA_LIB when empty),
// /opt/hyhal/lib/libhsa-runtime64.so, /opt/hyhal/lib64/..., /opt/rocm/lib/...,
// then libhsa-runtime64.so.1 and libhsa-runtime64.so through the system search.
std::vector<std::string> hsa_library_candidates(const std::string& explicit_path = {});

struct HsaBackendOptions {
  std::string library;                // "" = hsa_library_candidates()
  bool multi_producer_queue = false;  // RT_HSART_QMULTI
  bool scratch_info = false;          // RT_HSART_SCRATCH_INFO
  static HsaBackendOptions from_environment();
};

class HsaBackend final : public Backend {
 public:
  // Throws RuntimeError(Backend) explaining what is missing (library, symbol,
  // hsa_init failure and /dev/kfd, no gfx926/gfx906 agent, pools, queue).
  explicit HsaBackend(const HsaBackendOptions& options);
  ~HsaBackend() override;

  std::string name() const override { return "hsa"; }
  std::string description() const override;
  bool hardware() const override { return true; }
  BackendHidden hidden_values() const override;

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
  double marker_seconds(Ticket t) override;
  void forget_marker(Ticket t) override;
  std::vector<Failure> take_failures() override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace k100::runtime
