// k100lc model: a Device that counts the launches passing through it and,
// when timing is on, puts a queue marker after each launch, so the time
// between markers (what the device spent on that launch, plus any wait for
// the host to enqueue it) adds up per kernel family.
//
// Families group kernels by what they do ("gemv", "quantized dot",
// "attention", ...): kernel_family() names them from the lookup name.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "k100/model/device.h"

namespace k100::model {

// "gemv", "quantized dot", "block decode", "norm", "rope + kv", "attention",
// "embedding", "elementwise", "moe routing", or "other".
std::string kernel_family(std::string_view lookup);

class ProfilingDevice final : public Device {
 public:
  explicit ProfilingDevice(Device& inner) : inner_(inner) {}
  ~ProfilingDevice() override;

  // Markers after every launch from now on (off: launches are only counted).
  void set_timing(bool on);
  bool timing() const { return timing_; }
  // A fresh start marker: the next launch's time starts here (call it when
  // the queue is idle and the host is about to enqueue, so host time between
  // batches is not counted).
  void restart_clock();
  // Resolves the markers recorded so far (waits for them) into the totals.
  void collect();
  struct FamilyTime {
    std::string family;
    double ms = 0;
    uint64_t launches = 0;
  };
  // Totals per family since reset(), largest first (collect() first).
  std::vector<FamilyTime> family_times() const;
  uint64_t launches() const { return launches_; }
  void reset();

  std::string backend() const override { return inner_.backend(); }
  uint64_t alloc(size_t bytes) override { return inner_.alloc(bytes); }
  void free(uint64_t ptr) override { inner_.free(ptr); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { inner_.download(dst, src, bytes); }
  void copy(uint64_t dst, uint64_t src, size_t bytes) override { inner_.copy(dst, src, bytes); }
  void memset(uint64_t dst, int value, size_t bytes) override { inner_.memset(dst, value, bytes); }
  int kernel_id(std::string_view lookup) const override;
  std::vector<std::string> launch_contract(int kernel) const override { return inner_.launch_contract(kernel); }
  void launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) override;
  bool launches_2d() const override { return inner_.launches_2d(); }
  void launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                 std::span<const uint64_t> argv) override;
  void sync() override { inner_.sync(); }
  int record_event() override { return inner_.record_event(); }
  double elapsed_ms(int start, int end) override { return inner_.elapsed_ms(start, end); }
  void release_event(int event) override { inner_.release_event(event); }
  using Device::launch;
  using Device::launch_2d;

 private:
  Device& inner_;
  bool timing_ = false;
  uint64_t launches_ = 0;
  mutable std::map<int, std::string> families_;  // kernel id -> family
  struct Pending {
    int marker;
    int kernel;
  };
  int last_marker_ = -1;
  std::vector<Pending> pending_;
  std::map<std::string, FamilyTime> totals_;
};

}  // namespace k100::model
