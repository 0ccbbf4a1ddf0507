#include "engine_device.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "fm_engine.h"
#include "k100/base/error.h"

namespace k100::model {

namespace {

[[noreturn]] void fail(const char* what) {
  const char* e = fm_last_error();
  throw Error(std::string(what) + ": " + (e && *e ? e : "the engine failed"));
}

void check(int rc, const char* what) {
  if (rc != 0) fail(what);
}

uintptr_t ptr(uint64_t p) { return uintptr_t(p); }

}  // namespace

EngineDevice& engine_device() {
  static EngineDevice d;
  return d;
}

std::string EngineDevice::backend() const {
  const char* b = fm_backend();
  return b ? b : "";
}

uint64_t EngineDevice::alloc(size_t bytes) {
  void* p = fm_alloc(bytes);
  if (!p) fail("fm_alloc");
  return uint64_t(reinterpret_cast<uintptr_t>(p));
}

void EngineDevice::free(uint64_t p) { check(fm_release(reinterpret_cast<void*>(ptr(p))), "fm_release"); }

void EngineDevice::upload(uint64_t dst, const void* src, size_t bytes) {
  check(fm_upload(reinterpret_cast<void*>(ptr(dst)), src, bytes), "fm_upload");
}

void EngineDevice::download(void* dst, uint64_t src, size_t bytes) {
  check(fm_download(dst, reinterpret_cast<const void*>(ptr(src)), bytes), "fm_download");
}

void EngineDevice::copy(uint64_t dst, uint64_t src, size_t bytes) {
  check(fm_copy(reinterpret_cast<void*>(ptr(dst)), reinterpret_cast<const void*>(ptr(src)), bytes), "fm_copy");
}

void EngineDevice::memset(uint64_t dst, int value, size_t bytes) {
  check(fm_memset(reinterpret_cast<void*>(ptr(dst)), value, bytes), "fm_memset");
}

int EngineDevice::kernel_id(std::string_view lookup) const {
  const std::string name(lookup);
  const int id = fm_kernel_id(name.c_str());
  if (id >= 0) {
    std::lock_guard lock(mutex_);
    names_.emplace(id, name);
  }
  return id;
}

std::vector<std::string> EngineDevice::launch_contract(int kernel) const {
  std::lock_guard lock(mutex_);
  auto name = names_.find(kernel);
  if (name == names_.end()) return {};
  if (!contracts_.count(name->second)) {
    // the catalog of every loaded package (read again for a kernel of a package loaded since), its "launch" lines
    const int size = fm_catalog_json(nullptr, nullptr, 0);
    if (size < 0) fail("fm_catalog_json");
    std::string json(size_t(size) + 1, '\0');
    if (fm_catalog_json(nullptr, json.data(), json.size()) < 0) fail("fm_catalog_json");
    json.resize(size_t(size));
    const nlohmann::json doc = nlohmann::json::parse(json);
    for (const auto& k : doc.at("kernels"))
      if (k.contains("launch")) contracts_[k.at("lookup").get<std::string>()] = k.at("launch").get<std::vector<std::string>>();
  }
  auto it = contracts_.find(name->second);
  return it == contracts_.end() ? std::vector<std::string>{} : it->second;
}

void EngineDevice::launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                             std::span<const uint64_t> argv) {
  std::string name;
  {
    std::lock_guard lock(mutex_);
    auto it = names_.find(kernel);
    if (it == names_.end()) throw Error("2-D launch of kernel id " + std::to_string(kernel) + ", which was never looked up");
    name = it->second;
  }
  if (fm_launch2d(name.c_str(), grid_x, grid_y, workgroup, 1, argv.data(), int(argv.size())) != 0)
    fail(("launch of " + name).c_str());
}

void EngineDevice::launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) {
  // one record of fm_launch_batch: [kernel_id, grid, workgroup, nargs, argv...]
  uint64_t rec[4 + 32];
  if (argv.size() > 32) throw Error("launch of kernel " + std::to_string(kernel) + " with " + std::to_string(argv.size()) + " arguments");
  rec[0] = uint64_t(kernel);
  rec[1] = grid;
  rec[2] = workgroup;
  rec[3] = argv.size();
  for (size_t i = 0; i < argv.size(); ++i) rec[4 + i] = argv[i];
  if (fm_launch_batch(rec, 1) != 1) fail(("launch of kernel id " + std::to_string(kernel)).c_str());
}

void EngineDevice::sync() { check(fm_sync(), "fm_sync"); }

int EngineDevice::record_event() {
  const int e = fm_event_record();
  if (e < 0) fail("fm_event_record");
  return e;
}

double EngineDevice::elapsed_ms(int start, int end) {
  double ms = 0;
  check(fm_event_elapsed(start, end, &ms), "fm_event_elapsed");
  return ms;
}

void EngineDevice::release_event(int event) { fm_event_release(event); }

}  // namespace k100::model
