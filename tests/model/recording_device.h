// A Device over another that records each launch's kernel, geometry and
// arguments (the contract tests of tests/model).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "k100/model/device.h"

namespace k100::model {

class RecordingDevice final : public Device {
 public:
  explicit RecordingDevice(Device& inner) : inner_(inner) {}
  struct Launched {
    int kernel;
    uint32_t grid, workgroup;
    std::vector<uint64_t> argv;
  };
  std::vector<Launched> launched;
  // The launches of one kernel, in order.
  std::vector<Launched> of(std::string_view lookup) const {
    std::vector<Launched> out;
    for (const Launched& l : launched)
      if (l.kernel == kernel_id(lookup)) out.push_back(l);
    return out;
  }

  std::string backend() const override { return inner_.backend(); }
  uint64_t alloc(size_t bytes) override { return inner_.alloc(bytes); }
  void free(uint64_t p) override { inner_.free(p); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { inner_.download(dst, src, bytes); }
  void copy(uint64_t dst, uint64_t src, size_t bytes) override { inner_.copy(dst, src, bytes); }
  void memset(uint64_t dst, int v, size_t bytes) override { inner_.memset(dst, v, bytes); }
  int kernel_id(std::string_view lookup) const override { return inner_.kernel_id(lookup); }
  std::vector<std::string> launch_contract(int kernel) const override { return inner_.launch_contract(kernel); }
  void launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) override {
    launched.push_back({kernel, grid, workgroup, {argv.begin(), argv.end()}});
    inner_.launch(kernel, grid, workgroup, argv);
  }
  void sync() override { inner_.sync(); }
  int record_event() override { return inner_.record_event(); }
  double elapsed_ms(int a, int b) override { return inner_.elapsed_ms(a, b); }
  void release_event(int e) override { inner_.release_event(e); }
  using Device::download;
  using Device::launch;
  using Device::upload;

 private:
  Device& inner_;
};

}  // namespace k100::model
