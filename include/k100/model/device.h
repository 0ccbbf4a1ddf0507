// k100lc model: running decoder language models from GGUF files on the
// runtime's device (a K100_LC / gfx906 DCU, or the emulator): the building
// blocks of PYTHON_API.md sections 4 and 7 (Workspace, linear layers,
// RMSNorm, SwiGLU, MLP, MoE, KV cache, attention, RoPE, TransformerLayer,
// run_sequence), the GGUF loader and decoder model, and generation.
//
// This header: the device the model's layers enqueue work on. Layers never
// sync on their own: a forward pass is enqueued launch by launch and the
// caller syncs once (a download of the result does). Two implementations:
// RuntimeDevice over a k100::Runtime (C++ programs), and the one of the C ABI
// library over the engine (libfm_engine.so), so Python's Runtime and the
// layers share one device and its pointers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/kernels/launch_contract.h"

namespace k100 {
namespace runtime {
class Runtime;
struct KernelInfo;
}
}  // namespace k100

namespace k100::model {

// A kernel of the loaded packages, resolved once by lookup name.
struct KernelRef {
  int id = -1;
  std::string name;
  bool valid() const { return id >= 0; }
};

class Device {
 public:
  virtual ~Device() = default;

  virtual std::string backend() const = 0;  // "emu" or "hsa"

  virtual uint64_t alloc(size_t bytes) = 0;
  virtual void free(uint64_t ptr) = 0;
  // Host to device; does not wait for queued launches.
  virtual void upload(uint64_t dst, const void* src, size_t bytes) = 0;
  // These wait for every queued launch first.
  virtual void download(void* dst, uint64_t src, size_t bytes) = 0;
  virtual void copy(uint64_t dst, uint64_t src, size_t bytes) = 0;
  virtual void memset(uint64_t dst, int value, size_t bytes) = 0;

  // -1 when no loaded package has the kernel.
  virtual int kernel_id(std::string_view lookup) const = 0;
  // The kernel's launch contract as its package's catalog carries it
  // (k100/kernels/launch_contract.h, one declaration per line); empty when
  // the package has none (the default).
  virtual std::vector<std::string> launch_contract(int kernel) const;
  // Asynchronous, in order; grid counts workgroups.
  virtual void launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) = 0;
  // A grid of grid_x x grid_y workgroups (1-D workgroups), where launches_2d()
  // says the device has them (the fast GEMVs take MoE experts as grid.y);
  // the default launches only 1-D grids and throws here.
  virtual bool launches_2d() const { return false; }
  virtual void launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                         std::span<const uint64_t> argv);
  // Waits for every queued launch; throws the first failure.
  virtual void sync() = 0;

  // Queue markers, timed when the device reaches them.
  virtual int record_event() = 0;
  // Milliseconds between two markers (waits for both); releases neither.
  virtual double elapsed_ms(int start, int end) = 0;
  virtual void release_event(int event) = 0;

  bool has(std::string_view lookup) const { return kernel_id(lookup) >= 0; }
  // The kernel, or a k100::Error naming it and what needs it.
  KernelRef kernel(std::string_view lookup, std::string_view needed_by = {}) const;
  // Its launch contract as the package carries it, or a k100::Error naming the kernel.
  kernels::LaunchContract contract(const KernelRef& k) const;
  void launch(const KernelRef& k, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) {
    launch(k.id, grid, workgroup, argv);
  }
  void launch_2d(const KernelRef& k, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                 std::span<const uint64_t> argv) {
    launch_2d(k.id, grid_x, grid_y, workgroup, argv);
  }

  template <class T>
  void upload(uint64_t dst, std::span<const T> src) {
    upload(dst, src.data(), src.size_bytes());
  }
  template <class T>
  std::vector<T> download(uint64_t src, size_t count) {
    std::vector<T> out(count);
    download(out.data(), src, count * sizeof(T));
    return out;
  }
};

// A Device over a Runtime the caller keeps alive.
class RuntimeDevice final : public Device {
 public:
  explicit RuntimeDevice(runtime::Runtime& rt);
  ~RuntimeDevice() override;
  std::string backend() const override;
  uint64_t alloc(size_t bytes) override;
  void free(uint64_t ptr) override;
  void upload(uint64_t dst, const void* src, size_t bytes) override;
  void download(void* dst, uint64_t src, size_t bytes) override;
  void copy(uint64_t dst, uint64_t src, size_t bytes) override;
  void memset(uint64_t dst, int value, size_t bytes) override;
  int kernel_id(std::string_view lookup) const override;
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

  runtime::Runtime& runtime() { return rt_; }

 private:
  struct Impl;
  const runtime::KernelInfo& info(int kernel);
  runtime::Runtime& rt_;
  std::unique_ptr<Impl> impl_;
};

// argv slot of an f32 scalar (its bit pattern in the low 32 bits).
uint64_t f32_bits(float v);

}  // namespace k100::model
