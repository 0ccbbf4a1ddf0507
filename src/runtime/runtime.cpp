#include "k100/runtime/runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "allocation_tracker.h"
#include "k100/base/closest_match.h"
#include "k100/codeobj/catalog.h"
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/reader.h"
#include "k100/runtime/package_path.h"

namespace k100::runtime {
namespace {

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

// A token per host thread: failures of asynchronous launches go back to the
// thread that made them.
uint64_t thread_token() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t token = next.fetch_add(1);
  return token;
}

std::vector<uint8_t> read_file(const std::string& path) {
  try {
    return codeobj::read_input_file(path, "code object");
  } catch (const Error& e) {
    throw RuntimeError(ErrorCode::Package, e.what());
  }
}

std::string dim_text(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

}  // namespace

struct Event::State {
  std::weak_ptr<Runtime::Impl> owner;
  Ticket ticket = 0;
  ~State();
};

struct Runtime::Impl {
  std::unique_ptr<Backend> backend;
  BackendHidden hidden;
  bool debug = false, no_scratch = false;

  // Code objects. Modules are every loaded code object (packages too); the
  // table holds the packages' kernels.
  struct ModuleKernel {
    std::string name, lookup;
    uint32_t group_segment = 0, private_segment = 0;
  };
  struct Module {
    int backend_module = -1;
    std::string origin;
    bool package = false;
    std::vector<ModuleKernel> kernels;
  };
  mutable std::shared_mutex table_mutex;
  KernelTable table;
  std::vector<Module> modules;

  AllocationTracker buffers;

  std::mutex failures_mutex;
  std::unordered_map<uint64_t, std::vector<Failure>> pending;
  std::string fatal;  // the device queue failed; every later call reports it

  void collect_failures() {
    std::vector<Failure> fs = backend->take_failures();
    if (fs.empty()) return;
    std::lock_guard lock(failures_mutex);
    for (auto& f : fs) {
      if (f.origin == 0) {
        if (fatal.empty()) fatal = f.message;
      } else {
        pending[f.origin].push_back(std::move(f));
      }
    }
  }

  void check_fatal() {
    std::lock_guard lock(failures_mutex);
    if (!fatal.empty()) throw RuntimeError(ErrorCode::Backend, "the device queue failed: " + fatal);
  }

  // Throws the first failure of the calling thread's launches, if any.
  void raise_own_failures() {
    collect_failures();
    std::lock_guard lock(failures_mutex);
    auto it = pending.find(thread_token());
    if (it != pending.end() && !it->second.empty()) {
      std::vector<Failure> mine = std::move(it->second);
      pending.erase(it);
      std::string msg = mine.front().message;
      if (mine.size() > 1)
        msg += "\n(" + std::to_string(mine.size() - 1) + " more failed launch" +
               (mine.size() == 2 ? "" : "es") + " of this thread since the last sync)";
      throw RuntimeError(mine.front().cancelled ? ErrorCode::Cancelled : ErrorCode::DeviceFault, msg);
    }
    if (!fatal.empty()) throw RuntimeError(ErrorCode::Backend, "the device queue failed: " + fatal);
  }

  void wait_all() { backend->wait(backend->last_ticket()); }

  int load(std::span<const uint8_t> elf, const std::string& origin, bool package) {
    codeobj::CodeObject co;
    std::vector<KernelInfo> kernels;
    try {
      co = codeobj::read_code_object(elf, origin);
      codeobj::require_toolkit_target(co.target, origin);  // before any backend decodes it
      kernels = kernels_of(co);
    } catch (const RuntimeError&) {
      throw;
    } catch (const std::exception& e) {
      throw RuntimeError(ErrorCode::Package, e.what());
    }
    Module m;
    m.origin = origin;
    m.package = package;
    for (const auto& k : kernels)
      m.kernels.push_back({k.name, k.lookup, k.group_segment, k.private_segment});
    std::unique_lock lock(table_mutex);
    if (package) table.check_package(kernels, origin);  // before the device sees the code
    m.backend_module = backend->load(elf, origin);
    if (package) table.add_package(kernels, m.backend_module, origin);
    modules.push_back(std::move(m));
    if (debug) {
      std::fprintf(stderr, "k100: loaded %s (%s, %zu kernels)\n", origin.c_str(),
                   package ? "package" : "module", kernels.size());
      for (const auto& k : kernels)
        std::fprintf(stderr, "k100:   %s  [%s] kernarg=%u lds=%u priv=%u\n", k.lookup.c_str(),
                     k.name.c_str(), k.kernarg_size, k.group_segment, k.private_segment);
    }
    return package ? int(table.packages().size() - 1) : int(modules.size() - 1);
  }

  void submit(Dispatch d) {
    check_fatal();
    if (debug) {
      std::fprintf(stderr, "k100: dispatch %s grid=%s wg=%s kernarg=%zu lds=%u scratch=%u\n",
                   d.label.c_str(), dim_text(d.geometry.groups).c_str(),
                   dim_text(d.geometry.workgroup).c_str(), d.kernarg.size(), d.group_segment,
                   d.private_segment);
    }
    backend->submit(std::move(d));
  }

  void check_scratch(const std::string& kernel, uint32_t private_segment) const {
    if (no_scratch && private_segment > 0)
      throw RuntimeError(ErrorCode::InvalidLaunch,
                         "kernel '" + kernel + "' uses " + std::to_string(private_segment) +
                             " bytes of scratch per work-item and RT_HSART_NO_SCRATCH is set");
  }
};

Event::State::~State() {
  if (auto o = owner.lock()) o->backend->forget_marker(ticket);
}

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_shared<Impl>()) {
  Impl& m = *impl_;
  m.debug = env_flag("RT_HSART_DEBUG");
  m.no_scratch = env_flag("RT_HSART_NO_SCRATCH");
  BackendOptions b;
  b.kind = options.backend_from_environment && options.backend == BackendKind::Auto
               ? backend_kind_from_environment()
               : options.backend;
  b.emu_threads = options.emu_threads;
  b.emu_instruction_budget = options.emu_instruction_budget;
  b.hsa_library = options.hsa_library;
  m.backend = open_backend(b);
  m.hidden = m.backend->hidden_values();
  if (options.packages.empty() && options.default_package)
    load_package(resolve_package_path("", true, options.installed_package));
  for (const auto& p : options.packages) load_package(p);
}

Runtime::~Runtime() {
  if (!impl_) return;
  try {
    impl_->wait_all();
    impl_->collect_failures();
  } catch (...) {
  }
  std::lock_guard lock(impl_->failures_mutex);
  size_t n = 0;
  for (const auto& [origin, fs] : impl_->pending) n += fs.size();
  if (n)
    std::cerr << "k100: " << n << " failed launch" << (n == 1 ? "" : "es")
              << " never reported by a sync(); the first: "
              << impl_->pending.begin()->second.front().message << std::endl;
}

std::string Runtime::backend_name() const {
  return impl_->backend->name();
}
std::string Runtime::backend_description() const {
  return impl_->backend->description();
}
bool Runtime::on_hardware() const {
  return impl_->backend->hardware();
}

// ------------------------------------------------------------ code objects

int Runtime::load_package(const std::string& path) {
  auto bytes = read_file(path);
  return impl_->load(bytes, path, true);
}

int Runtime::load_package(std::span<const uint8_t> elf, const std::string& origin) {
  return impl_->load(elf, origin, true);
}

int Runtime::load_module(const std::string& path) {
  auto bytes = read_file(path);
  return impl_->load(bytes, path, false);
}

int Runtime::load_module(std::span<const uint8_t> elf, const std::string& origin) {
  return impl_->load(elf, origin, false);
}

std::vector<std::string> Runtime::packages() const {
  std::shared_lock lock(impl_->table_mutex);
  return impl_->table.packages();
}

// ----------------------------------------------------------------- catalog

KernelInfo Runtime::kernel(std::string_view lookup) const {
  std::shared_lock lock(impl_->table_mutex);
  return impl_->table.get(lookup);
}

bool Runtime::has_kernel(std::string_view lookup) const {
  std::shared_lock lock(impl_->table_mutex);
  return impl_->table.find_lookup(lookup) != nullptr;
}

int Runtime::kernel_id(std::string_view lookup) const {
  std::shared_lock lock(impl_->table_mutex);
  const KernelInfo* k = impl_->table.find_lookup(lookup);
  return k ? k->id : -1;
}

std::optional<KernelInfo> Runtime::kernel_by_id(int id) const {
  std::shared_lock lock(impl_->table_mutex);
  const KernelInfo* k = impl_->table.at(id);
  if (!k) return std::nullopt;
  return *k;
}

std::vector<KernelInfo> Runtime::kernels(std::string_view pattern) const {
  std::shared_lock lock(impl_->table_mutex);
  std::vector<KernelInfo> out;
  for (const auto& k : impl_->table.all())
    if (pattern.empty() || k.lookup.find(pattern) != std::string::npos) out.push_back(k);
  return out;
}

std::string Runtime::catalog_json(const std::string& origin) const {
  // the same document the package build writes next to the code object
  std::shared_lock lock(impl_->table_mutex);
  const auto& origins = impl_->table.packages();
  std::vector<codeobj::CatalogEntry> entries;
  for (const auto& k : impl_->table.all()) {
    if (!origin.empty() && origins[size_t(k.package)] != origin) continue;
    codeobj::CatalogEntry e;
    e.name = k.name;
    e.lookup = k.lookup;
    e.kernarg_size = k.kernarg_size;
    e.group_segment = k.group_segment;
    e.private_segment = k.private_segment;
    e.sgpr_count = k.sgpr_count;
    e.vgpr_count = k.vgpr_count;
    e.launch = k.launch;
    for (const auto& a : k.args) {
      codeobj::CatalogArg c;
      if (!a.name.empty()) c.name = a.name;
      c.offset = a.offset;
      c.size = a.size;
      c.kind = a.value_kind;
      if (!a.type.empty()) c.type = a.type;
      e.args.push_back(std::move(c));
    }
    entries.push_back(std::move(e));
  }
  return codeobj::catalog_json(entries);
}

// ------------------------------------------------------------------ memory

uint64_t Runtime::alloc(size_t bytes) {
  uint64_t size = bytes ? bytes : 1;
  uint64_t p = impl_->backend->alloc(size);
  impl_->buffers.add(p, size);
  return p;
}

void Runtime::free(uint64_t ptr) {
  std::string what = "free(" + hex_address(ptr) + ")";
  // Refuse bad frees before waiting; a launched kernel may still use a good one.
  if (!impl_->buffers.size_of(ptr)) impl_->buffers.remove(ptr, what);  // throws the reason
  impl_->wait_all();
  impl_->buffers.remove(ptr, what);
  impl_->backend->free(ptr);
}

size_t Runtime::buffer_size(uint64_t ptr) const {
  return impl_->buffers.size_of(ptr);
}

void Runtime::upload(uint64_t dst, const void* src, size_t bytes) {
  impl_->buffers.check(dst, bytes,
                       "upload of " + std::to_string(bytes) + " bytes to " + hex_address(dst));
  if (!bytes) return;
  if (!src) throw RuntimeError(ErrorCode::InvalidArgument, "upload: the host pointer is null");
  impl_->backend->write(dst, src, bytes);
}

void Runtime::download(void* dst, uint64_t src, size_t bytes) {
  impl_->buffers.check(src, bytes,
                       "download of " + std::to_string(bytes) + " bytes from " + hex_address(src));
  if (bytes && !dst)
    throw RuntimeError(ErrorCode::InvalidArgument, "download: the host pointer is null");
  impl_->wait_all();
  impl_->raise_own_failures();
  if (bytes) impl_->backend->read(dst, src, bytes);
}

void Runtime::copy(uint64_t dst, uint64_t src, size_t bytes) {
  std::string what = "copy of " + std::to_string(bytes) + " bytes from " + hex_address(src) +
                     " to " + hex_address(dst);
  impl_->buffers.check(src, bytes, what + " (source)");
  impl_->buffers.check(dst, bytes, what + " (destination)");
  impl_->wait_all();
  impl_->raise_own_failures();
  if (bytes) impl_->backend->copy(dst, src, bytes);
}

void Runtime::memset(uint64_t dst, int value, size_t bytes) {
  impl_->buffers.check(dst, bytes,
                       "memset of " + std::to_string(bytes) + " bytes at " + hex_address(dst));
  impl_->wait_all();
  impl_->raise_own_failures();
  if (bytes) impl_->backend->fill(dst, uint8_t(value), bytes);
}

// ---------------------------------------------------------------- launches

void Runtime::launch(std::string_view lookup, uint32_t grid, uint32_t workgroup,
                     std::span<const uint64_t> argv) {
  launch(lookup, Dim3{grid, 1, 1}, Dim3{workgroup, 1, 1}, argv);
}

void Runtime::launch(std::string_view lookup, Dim3 grid, Dim3 workgroup,
                     std::span<const uint64_t> argv, uint32_t dynamic_lds) {
  const KernelInfo* k;
  {
    std::shared_lock lock(impl_->table_mutex);
    k = &impl_->table.get(lookup);  // entries are never moved or removed
  }
  launch(*k, grid, workgroup, argv, dynamic_lds);
}

void Runtime::launch(const KernelInfo& k, Dim3 grid, Dim3 workgroup, std::span<const uint64_t> argv,
                     uint32_t dynamic_lds) {
  Impl& m = *impl_;
  Geometry g{grid, workgroup, dynamic_lds};
  check_geometry(g, k.lookup);
  // Code built for smaller workgroups may take the lane for the local id or
  // size its LDS for fewer waves: a larger workgroup would compute garbage.
  if (k.max_workgroup && workgroup.volume() > k.max_workgroup)
    throw RuntimeError(ErrorCode::InvalidLaunch,
                       "launch of kernel '" + k.lookup + "': workgroup of " + std::to_string(workgroup.volume()) +
                           " work-items exceeds the " + std::to_string(k.max_workgroup) +
                           " its code was built for (metadata .max_flat_workgroup_size)");
  uint64_t lds = uint64_t(k.group_segment) + dynamic_lds;
  if (lds > 65536)
    throw RuntimeError(ErrorCode::InvalidLaunch, "kernel '" + k.lookup + "' needs " +
                                                     std::to_string(lds) +
                                                     " bytes of LDS; a workgroup has 65536");
  m.check_scratch(k.lookup, k.private_segment);
  auto layout = k.layout();
  std::vector<uint8_t> kernarg = pack_kernarg(layout, k.kernarg_size, argv, g, k.lookup, m.hidden);
  // A buffer argument into freed memory is a use after free, whatever the device would do.
  for (size_t i = 0; i < k.explicit_args; ++i) {
    if (k.args[i].value_kind != "global_buffer" || argv[i] == 0) continue;
    if (auto f = m.buffers.freed_at(argv[i])) {
      const std::string& name = k.args[i].name;
      throw RuntimeError(ErrorCode::InvalidLaunch,
                         "kernel '" + k.lookup + "' argument " + std::to_string(i) +
                             (name.empty() ? "" : " (" + name + ")") + ": " + hex_address(argv[i]) +
                             " points into buffer " + hex_address(f->base) +
                             ", which was freed (use after free)");
    }
  }
  Dispatch d;
  d.module = k.module;
  d.symbol = k.name;
  d.label = k.lookup;
  d.geometry = g;
  d.group_segment = uint32_t(lds);
  d.private_segment = k.private_segment;
  d.kernarg = std::move(kernarg);
  d.origin = thread_token();
  m.submit(std::move(d));
}

void Runtime::launch_dynamic(std::string_view symbol, Dim3 grid, Dim3 workgroup,
                             const DynamicLayout& layout, std::span<const uint64_t> argv,
                             int module) {
  Impl& m = *impl_;
  std::string name(symbol);
  if (!name.empty() && name[0] == '&') name.erase(0, 1);
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) name.resize(name.size() - 3);
  int backend_module = -1;
  uint32_t fixed_lds = 0, fixed_priv = 0;
  std::string found;
  {
    std::shared_lock lock(m.table_mutex);
    if (module >= int(m.modules.size()))
      throw RuntimeError(ErrorCode::UnknownKernel,
                         "launch of '" + name + "': no module " + std::to_string(module));
    std::string want = normalize_lookup(name);
    // Newest module first: a recompiled kernel replaces the older one.
    for (int pass = 0; pass < 2 && found.empty(); ++pass)
      for (int i = int(m.modules.size()) - 1; i >= 0 && found.empty(); --i) {
        if (module >= 0 && i != module) continue;
        for (const auto& k : m.modules[size_t(i)].kernels)
          if (pass == 0 ? k.name == name : k.lookup == want) {
            found = k.name;
            backend_module = m.modules[size_t(i)].backend_module;
            fixed_lds = k.group_segment;
            fixed_priv = k.private_segment;
            break;
          }
      }
    if (found.empty()) {
      std::vector<std::string> names;
      for (const auto& mod : m.modules)
        for (const auto& k : mod.kernels) names.push_back(k.name);
      std::string best = closest_match(name, names);
      throw RuntimeError(ErrorCode::UnknownKernel,
                         "unknown kernel symbol '" + name + "' in the loaded code objects" +
                             (best.empty() ? "" : " (did you mean '" + best + "'?)"));
    }
  }
  uint32_t lds = std::max(layout.group_segment, fixed_lds);
  Geometry g{grid, workgroup, lds - fixed_lds};
  check_geometry(g, name);
  if (lds > 65536)
    throw RuntimeError(ErrorCode::InvalidLaunch, "kernel '" + name + "' needs " +
                                                     std::to_string(lds) +
                                                     " bytes of LDS; a workgroup has 65536");
  uint32_t priv = std::max(layout.private_segment, fixed_priv);
  m.check_scratch(name, priv);
  std::vector<uint8_t> kernarg =
      pack_kernarg(layout.layout, layout.kernarg_size, argv, g, name, m.hidden);
  Dispatch d;
  d.module = backend_module;
  d.symbol = found;
  d.label = name;
  d.geometry = g;
  d.group_segment = lds;
  d.private_segment = priv;
  d.kernarg = std::move(kernarg);
  d.caller_layout = true;
  d.origin = thread_token();
  m.submit(std::move(d));
}

void Runtime::sync() {
  impl_->wait_all();
  impl_->raise_own_failures();
}

bool Runtime::wait_for(double seconds) {
  Backend& b = *impl_->backend;
  return b.wait_for(b.last_ticket(), seconds);
}

bool Runtime::cancel() {
  return impl_->backend->cancel();
}

bool Runtime::set_instruction_budget(uint64_t wave_instructions) {
  return impl_->backend->set_instruction_budget(wave_instructions);
}

uint64_t Runtime::instruction_budget() const {
  return impl_->backend->instruction_budget();
}

// ------------------------------------------------------------------ timing

Event Runtime::record_event() {
  impl_->check_fatal();
  Event e;
  e.state_ = std::make_shared<Event::State>();
  e.state_->owner = impl_;
  e.state_->ticket = impl_->backend->marker();
  return e;
}

void Runtime::wait(const Event& e) {
  if (!e.valid())
    throw RuntimeError(ErrorCode::InvalidArgument, "wait: the event was never recorded");
  impl_->backend->wait(e.state_->ticket);
}

double Runtime::elapsed_ms(const Event& start, const Event& end) {
  if (!start.valid() || !end.valid())
    throw RuntimeError(ErrorCode::InvalidArgument, "elapsed_ms: an event was never recorded");
  if (start.state_->owner.lock() != impl_ || end.state_->owner.lock() != impl_)
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "elapsed_ms: the events belong to another runtime");
  double a = impl_->backend->marker_seconds(start.state_->ticket);
  double b = impl_->backend->marker_seconds(end.state_->ticket);
  return (b - a) * 1e3;
}

}  // namespace k100::runtime
