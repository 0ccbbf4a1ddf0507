// The Device of the C ABI library: the process-wide engine of
// libfm_engine.so (fm_engine.h), so Python's Runtime and the model layers
// share one device and its pointers.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "k100/model/device.h"

namespace k100::model {

class EngineDevice final : public Device {
 public:
  std::string backend() const override;
  uint64_t alloc(size_t bytes) override;
  void free(uint64_t ptr) override;
  void upload(uint64_t dst, const void* src, size_t bytes) override;
  void download(void* dst, uint64_t src, size_t bytes) override;
  void copy(uint64_t dst, uint64_t src, size_t bytes) override;
  void memset(uint64_t dst, int value, size_t bytes) override;
  int kernel_id(std::string_view lookup) const override;
  // From the engine's catalog (fm_catalog_json), read once per kernel.
  std::vector<std::string> launch_contract(int kernel) const override;
  void launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) override;
  bool launches_2d() const override { return true; }
  void launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                 std::span<const uint64_t> argv) override;
  void sync() override;
  int record_event() override;
  double elapsed_ms(int start, int end) override;
  void release_event(int event) override;
  using Device::launch;
  using Device::launch_2d;
  using Device::upload;

 private:
  // Lookup names by id (fm_launch2d takes a name; kernel_id records them).
  mutable std::mutex mutex_;
  mutable std::map<int, std::string> names_;
  mutable std::map<std::string, std::vector<std::string>> contracts_;  // lookup -> lines, once read
};

// The one engine device of the process.
EngineDevice& engine_device();

}  // namespace k100::model
