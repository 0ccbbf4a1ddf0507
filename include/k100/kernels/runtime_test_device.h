// k100lc kernels: a TestDevice over k100::Runtime, so the self-test runs on
// whichever backend the runtime picked (the emulator or a real K100_LC).
// Every launch is followed by sync(), so a device fault is reported by the
// launch that caused it.
#pragma once

#include "k100/base/error.h"
#include "k100/kernels/registry.h"
#include "k100/runtime/runtime.h"

namespace k100::kernels {

class RuntimeTestDevice : public TestDevice {
 public:
  explicit RuntimeTestDevice(runtime::Runtime& rt) : rt_(rt) {}
  uint64_t alloc(size_t bytes) override { return rt_.alloc(bytes); }
  void free(uint64_t address) override { rt_.free(address); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { rt_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { rt_.download(dst, src, bytes); }
  void fill(uint64_t dst, uint8_t value, size_t bytes) override { rt_.memset(dst, value, bytes); }
  void launch(const std::string& lookup, Dim3 grid, Dim3 workgroup, const std::vector<uint64_t>& argv) override {
    rt_.launch(lookup, runtime::Dim3{grid.x, grid.y, grid.z}, runtime::Dim3{workgroup.x, workgroup.y, workgroup.z},
               argv);
    rt_.sync();
  }
  std::string backend() const override { return rt_.backend_name(); }
  // The contract of the loaded package (its catalog's "launch").
  LaunchContract launch_contract(const std::string& lookup) override {
    const runtime::KernelInfo k = rt_.kernel(lookup);
    if (k.launch.empty()) throw Error("kernel '" + lookup + "' has no launch contract in the loaded package");
    return LaunchContract::from_lines(k.launch, k.lookup);
  }

 private:
  runtime::Runtime& rt_;
};

}  // namespace k100::kernels
