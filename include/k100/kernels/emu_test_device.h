// k100lc kernels: a TestDevice on the emulator, for unit tests and benchmarks.
//
// It builds the kernel package from the registry in-process (no file needed)
// or loads a package file, and runs launches on an emu::Device, keeping the
// profile of the last dispatch.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "k100/emu/device.h"
#include "k100/kernels/registry.h"

namespace k100::kernels {

class EmuTestDevice : public TestDevice {
 public:
  // Builds the package from `registry` (sources under `kernels_dir`); kernels
  // that fail to build are listed in broken() and fail when launched.
  EmuTestDevice(const Registry& registry, const std::string& kernels_dir,
                isa::Target target = isa::Target::gfx926);
  // Builds no kernel up front: each kernel of `registry` is built and loaded
  // at its first launch (a build error is thrown there, naming the kernel).
  // For tests that run a few kernels of the library in one process.
  struct OnFirstLaunch {};
  EmuTestDevice(const Registry& registry, const std::string& kernels_dir, OnFirstLaunch,
                isa::Target target = isa::Target::gfx926);
  const std::vector<std::pair<std::string, std::string>>& broken() const { return broken_; }
  // Loads a built package.
  explicit EmuTestDevice(const std::string& package_path);

  uint64_t alloc(size_t bytes) override;
  void free(uint64_t address) override;
  void upload(uint64_t dst, const void* src, size_t bytes) override;
  void download(void* dst, uint64_t src, size_t bytes) override;
  void fill(uint64_t dst, uint8_t value, size_t bytes) override;
  void launch(const std::string& lookup, Dim3 grid, Dim3 workgroup, const std::vector<uint64_t>& argv) override;
  std::string backend() const override { return "emu"; }
  // The contract the package carries (its catalog's "launch").
  LaunchContract launch_contract(const std::string& lookup) override;

  // Every constructor starts the options from the environment
  // (K100_EMU_CHECK, K100_EMU_SCHEDULE), as the runtime's emulator backend does.
  emu::DispatchOptions& options() { return options_; }
  const emu::Profile& last_profile() const { return last_profile_; }
  emu::Device& device() { return device_; }
  // The whole package's program (not on an on-first-launch device, which
  // holds one per kernel: program_for).
  const emu::Program& program() const;
  const emu::Program& program_for(const std::string& lookup);
  // The kernel's symbol for a lookup name (template kernels are mangled).
  std::string symbol_for(const std::string& lookup) const;

 private:
  struct Loaded {
    std::shared_ptr<const emu::Program> program;
    std::string symbol;
  };
  const Loaded& loaded(const std::string& lookup);

  emu::Device device_;
  std::shared_ptr<const emu::Program> program_;
  // On-first-launch builds: the registry they come from, and each kernel's
  // own loaded program.
  const Registry* lazy_registry_ = nullptr;
  std::string kernels_dir_;
  isa::Target target_ = isa::Target::gfx926;
  std::map<std::string, Loaded> lazy_;
  std::vector<std::pair<std::string, std::string>> lookup_to_symbol_;
  std::map<std::string, std::vector<std::string>> launch_lines_;  // lookup -> launch contract lines
  std::vector<std::pair<std::string, std::string>> broken_;
  emu::DispatchOptions options_;
  emu::Profile last_profile_;
};

}  // namespace k100::kernels
