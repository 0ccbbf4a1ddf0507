#include "k100/model/device.h"

#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "k100/base/error.h"
#include "k100/runtime/runtime.h"

namespace k100::model {

uint64_t f32_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

void Device::launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t, std::span<const uint64_t>) {
  throw Error("launch of kernel id " + std::to_string(kernel) + " on a " + std::to_string(grid_x) + " x " +
              std::to_string(grid_y) + " grid: this " + backend() + " device launches 1-D grids only");
}

KernelRef Device::kernel(std::string_view lookup, std::string_view needed_by) const {
  const int id = kernel_id(lookup);
  if (id < 0)
    throw Error("kernel '" + std::string(lookup) + "' is not in the loaded kernel packages" +
                (needed_by.empty() ? std::string() : " (" + std::string(needed_by) + " needs it)") +
                "; rebuild the package (cmake --build build) or load one that has it");
  return KernelRef{id, std::string(lookup)};
}

struct RuntimeDevice::Impl {
  std::mutex mutex;
  std::vector<std::unique_ptr<runtime::KernelInfo>> kernels;  // by id, filled on first use (entries never move)
  std::map<int, runtime::Event> events;
  int next_event = 0;
};

RuntimeDevice::RuntimeDevice(runtime::Runtime& rt) : rt_(rt), impl_(std::make_unique<Impl>()) {}
RuntimeDevice::~RuntimeDevice() = default;

std::string RuntimeDevice::backend() const { return rt_.backend_name(); }
uint64_t RuntimeDevice::alloc(size_t bytes) { return rt_.alloc(bytes); }
void RuntimeDevice::free(uint64_t ptr) { rt_.free(ptr); }
void RuntimeDevice::upload(uint64_t dst, const void* src, size_t bytes) { rt_.upload(dst, src, bytes); }
void RuntimeDevice::download(void* dst, uint64_t src, size_t bytes) { rt_.download(dst, src, bytes); }
void RuntimeDevice::copy(uint64_t dst, uint64_t src, size_t bytes) { rt_.copy(dst, src, bytes); }
void RuntimeDevice::memset(uint64_t dst, int value, size_t bytes) { rt_.memset(dst, value, bytes); }
int RuntimeDevice::kernel_id(std::string_view lookup) const { return rt_.kernel_id(lookup); }

std::vector<std::string> Device::launch_contract(int) const { return {}; }

kernels::LaunchContract Device::contract(const KernelRef& k) const {
  const std::vector<std::string> lines = launch_contract(k.id);
  if (lines.empty())
    throw Error("kernel '" + k.name + "' has no launch contract in the loaded kernel packages; rebuild the package "
                "(cmake --build build) or load one that has it");
  return kernels::LaunchContract::from_lines(lines, k.name);
}

std::vector<std::string> RuntimeDevice::launch_contract(int kernel) const {
  const std::optional<runtime::KernelInfo> k = rt_.kernel_by_id(kernel);
  return k ? k->launch : std::vector<std::string>{};
}

const runtime::KernelInfo& RuntimeDevice::info(int kernel) {
  std::lock_guard lock(impl_->mutex);
  if (kernel < 0) throw Error("launch of an unresolved kernel (id " + std::to_string(kernel) + ")");
  if (size_t(kernel) >= impl_->kernels.size()) impl_->kernels.resize(size_t(kernel) + 1);
  auto& slot = impl_->kernels[size_t(kernel)];
  if (!slot) {
    auto found = rt_.kernel_by_id(kernel);
    if (!found) throw Error("launch: no kernel with id " + std::to_string(kernel));
    slot = std::make_unique<runtime::KernelInfo>(std::move(*found));
  }
  return *slot;
}

void RuntimeDevice::launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) {
  rt_.launch(info(kernel), runtime::Dim3{grid, 1, 1}, runtime::Dim3{workgroup, 1, 1}, argv);
}

void RuntimeDevice::launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                              std::span<const uint64_t> argv) {
  rt_.launch(info(kernel), runtime::Dim3{grid_x, grid_y, 1}, runtime::Dim3{workgroup, 1, 1}, argv);
}

void RuntimeDevice::sync() { rt_.sync(); }

int RuntimeDevice::record_event() {
  runtime::Event e = rt_.record_event();
  std::lock_guard lock(impl_->mutex);
  const int id = impl_->next_event++;
  impl_->events.emplace(id, std::move(e));
  return id;
}

double RuntimeDevice::elapsed_ms(int start, int end) {
  runtime::Event a, b;
  {
    std::lock_guard lock(impl_->mutex);
    auto ia = impl_->events.find(start), ib = impl_->events.find(end);
    if (ia == impl_->events.end() || ib == impl_->events.end())
      throw Error("elapsed_ms: unknown event " + std::to_string(ia == impl_->events.end() ? start : end));
    a = ia->second;
    b = ib->second;
  }
  return rt_.elapsed_ms(a, b);
}

void RuntimeDevice::release_event(int event) {
  std::lock_guard lock(impl_->mutex);
  impl_->events.erase(event);
}

}  // namespace k100::model
