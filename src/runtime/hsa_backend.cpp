#include "k100/runtime/hsa_backend.h"

#include <hsa/amd_hsa_queue.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "hsa_api.h"
#include "k100/runtime/error.h"

namespace k100::runtime {
namespace {

constexpr uint32_t kSlots = 64;                    // kernarg slots = packets in flight
constexpr uint32_t kSlotBytes = kMaxKernarg;       // bytes per kernarg slot
constexpr size_t kStagingBytes = size_t(8) << 20;  // host staging buffer, chunk size of copies
constexpr uint32_t kQueuePackets = 64;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool env_flag(const char* name) {
  std::string v = env(name);
  return !v.empty() && v != "0";
}

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct AgentRecord {
  hsa_agent_t agent{};
  hsa_device_type_t type = HSA_DEVICE_TYPE_CPU;
  std::string name;
};

struct AgentScan {
  const HsaApi* api = nullptr;
  std::vector<AgentRecord> agents;
};

// Agent and pool callbacks always return SUCCESS: the K100_LC's runtime does
// not honour HSA_STATUS_INFO_BREAK reliably, so we collect everything and
// choose afterwards.
hsa_status_t collect_agent(hsa_agent_t agent, void* data) {
  auto* scan = static_cast<AgentScan*>(data);
  AgentRecord r;
  r.agent = agent;
  scan->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &r.type);
  char name[64] = {};
  scan->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
  name[63] = 0;
  r.name = name;
  scan->agents.push_back(std::move(r));
  return HSA_STATUS_SUCCESS;
}

struct PoolRecord {
  hsa_amd_memory_pool_t pool{};
  hsa_amd_segment_t segment = HSA_AMD_SEGMENT_GLOBAL;
  uint32_t flags = 0;
  bool alloc_allowed = false;
};

struct PoolScan {
  const HsaApi* api = nullptr;
  std::vector<PoolRecord> pools;
};

hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto* scan = static_cast<PoolScan*>(data);
  PoolRecord r;
  r.pool = pool;
  scan->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &r.segment);
  if (r.segment == HSA_AMD_SEGMENT_GLOBAL)
    scan->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &r.flags);
  scan->api->hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                          &r.alloc_allowed);
  scan->pools.push_back(r);
  return HSA_STATUS_SUCCESS;
}

bool accepted_gpu(const std::string& name) {
  std::string base = name.substr(0, name.find(':'));
  return base == "gfx926" || base == "gfx906";
}

// Marker timestamps, shared with the HSA runtime's signal-handler thread.
struct MarkerTimes {
  std::mutex mutex;
  std::condition_variable cv;
  std::map<Ticket, double> times;
};

struct MarkerContext {
  std::shared_ptr<MarkerTimes> times;
  Ticket ticket = 0;
};

bool marker_reached(hsa_signal_value_t, void* arg) {
  double t = now_seconds();
  auto* ctx = static_cast<MarkerContext*>(arg);
  {
    std::lock_guard lock(ctx->times->mutex);
    ctx->times->times[ctx->ticket] = t;
  }
  ctx->times->cv.notify_all();
  delete ctx;
  return false;  // one-shot
}

}  // namespace

std::vector<std::string> hsa_library_candidates(const std::string& explicit_path) {
  std::vector<std::string> out;
  std::string first = explicit_path.empty() ? env("K100_HSA_LIB") : explicit_path;
  if (!first.empty()) out.push_back(first);
  for (const char* p :
       {"/opt/hyhal/lib/libhsa-runtime64.so", "/opt/hyhal/lib/libhsa-runtime64.so.1",
        "/opt/hyhal/lib64/libhsa-runtime64.so", "/opt/rocm/lib/libhsa-runtime64.so",
        "/opt/rocm/lib/libhsa-runtime64.so.1", "libhsa-runtime64.so.1", "libhsa-runtime64.so"})
    out.push_back(p);
  return out;
}

HsaBackendOptions HsaBackendOptions::from_environment() {
  HsaBackendOptions o;
  o.multi_producer_queue = env_flag("RT_HSART_QMULTI");
  o.scratch_info = env_flag("RT_HSART_SCRATCH_INFO");
  return o;
}

struct HsaBackend::Impl {
  HsaApi api;
  HsaBackendOptions options;
  bool initialized = false;

  hsa_agent_t gpu{};
  std::string gpu_name;
  std::vector<hsa_agent_t> cpus;
  hsa_profile_t profile = HSA_PROFILE_FULL;
  hsa_amd_memory_pool_t device_pool{}, kernarg_pool{}, staging_pool{};
  uint64_t timestamp_frequency = 1000000000;

  hsa_queue_t* queue = nullptr;
  uint8_t* kernargs = nullptr;  // kSlots x kSlotBytes
  uint8_t* staging = nullptr;   // kStagingBytes
  hsa_signal_t copy_signal{};
  bool copy_signal_created = false;

  struct Slot {
    hsa_signal_t signal{};
    bool created = false;
    Ticket ticket = 0;  // the last command that used the slot
  };
  std::array<Slot, kSlots> slots{};
  mutable std::mutex queue_mutex;  // slots, last, packet writes (single producer)
  Ticket last = 0;

  std::mutex transfer_mutex;  // staging buffer and copy signal

  std::mutex failures_mutex;
  std::vector<Failure> failures;
  std::atomic<bool> broken{false};
  std::string broken_reason;  // set once, before `broken`

  struct KernelObject {
    uint64_t object = 0;
    uint32_t kernarg_size = 0, group_segment = 0, private_segment = 0;
  };
  struct Module {
    std::string origin;
    std::vector<uint8_t> bytes;  // the reader reads from here
    hsa_code_object_reader_t reader{};
    hsa_executable_t executable{};
    bool have_reader = false, have_executable = false;
    std::unordered_map<std::string, KernelObject> kernels;
  };
  std::mutex modules_mutex;
  std::vector<std::unique_ptr<Module>> modules;

  std::shared_ptr<MarkerTimes> markers = std::make_shared<MarkerTimes>();

  void check(hsa_status_t s, const std::string& what) const {
    if (s != HSA_STATUS_SUCCESS && s != HSA_STATUS_INFO_BREAK)
      throw RuntimeError(ErrorCode::Backend, "HSA: " + what + " failed: " + api.status_text(s));
  }

  void fail(uint64_t origin, Ticket t, std::string message) {
    std::lock_guard lock(failures_mutex);
    failures.push_back({origin, t, std::move(message)});
  }

  void mark_broken(const std::string& why) {
    {
      std::lock_guard lock(failures_mutex);
      if (broken.load()) return;
      broken_reason = why;
      failures.push_back({0, 0, why});  // origin 0: the whole queue
    }
    broken.store(true);
  }

  static void queue_error(hsa_status_t status, hsa_queue_t*, void* data) {
    auto* self = static_cast<Impl*>(data);
    self->mark_broken("HSA queue error: " + self->api.status_text(status) +
                      "; the queue is unusable (a kernel faulted on the device)");
  }

  // Waits until `signal` drops below 1. With `queue_bound`, gives up when the
  // queue broke (its packets will never complete). Acquire semantics: what the
  // device wrote before the signal is visible afterwards (invalidate, not flush).
  bool wait_signal(hsa_signal_t signal, bool queue_bound) {
    uint64_t hint = timestamp_frequency / 1000;  // ~1 ms
    for (;;) {
      hsa_signal_value_t v = api.hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_LT, 1, hint,
                                                           HSA_WAIT_STATE_BLOCKED);
      if (v < 1) return true;
      if (queue_bound && broken.load()) return false;
    }
  }

  void print_scratch(const char* when) const {
    const auto* q = reinterpret_cast<const amd_queue_t*>(queue);
    std::fprintf(stderr,
                 "k100 hsa: scratch %s: resource descriptor %08x %08x %08x %08x, backing memory %s "
                 "(%llu bytes), wave64 lane bytes %u, tmpring 0x%x\n",
                 when, q->scratch_resource_descriptor[0], q->scratch_resource_descriptor[1],
                 q->scratch_resource_descriptor[2], q->scratch_resource_descriptor[3],
                 hex(q->scratch_backing_memory_location).c_str(),
                 static_cast<unsigned long long>(q->scratch_backing_memory_byte_size),
                 q->scratch_wave64_lane_byte_size, q->compute_tmpring_size);
  }

  // Copies n bytes and waits for the copy; falls back to hsa_memory_copy when
  // the async copy engine refuses.
  void copy_sync(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                 size_t n) {
    api.hsa_signal_store_relaxed(copy_signal, 1);
    hsa_status_t s =
        api.hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, n, 0, nullptr, copy_signal);
    if (s != HSA_STATUS_SUCCESS) {
      check(api.hsa_memory_copy(dst, src, n), "hsa_memory_copy of " + std::to_string(n) + " bytes");
      return;
    }
    wait_signal(copy_signal, false);
    // The runtime reports a failed copy by driving the signal negative.
    if (api.hsa_signal_load_scacquire(copy_signal) < 0)
      throw RuntimeError(ErrorCode::Backend, "HSA: asynchronous copy of " + std::to_string(n) +
                                                 " bytes failed (" +
                                                 hex(reinterpret_cast<uint64_t>(src)) + " -> " +
                                                 hex(reinterpret_cast<uint64_t>(dst)) + ")");
  }

  std::string resolve(int module, const std::string& symbol, KernelObject& out) {
    std::lock_guard lock(modules_mutex);
    if (module < 0 || size_t(module) >= modules.size()) return "no such code object module";
    Module& m = *modules[size_t(module)];
    auto it = m.kernels.find(symbol);
    if (it != m.kernels.end()) {
      out = it->second;
      return {};
    }
    hsa_executable_symbol_t sym{};
    hsa_status_t s = HSA_STATUS_ERROR;
    for (const std::string& name : {symbol + ".kd", symbol}) {
      s = api.hsa_executable_get_symbol_by_name(m.executable, name.c_str(), &gpu, &sym);
      if (s == HSA_STATUS_SUCCESS) break;
    }
    if (s != HSA_STATUS_SUCCESS)
      return "kernel symbol '" + symbol + "' is not in the loaded code object " + m.origin + " (" +
             api.status_text(s) + ")";
    KernelObject k;
    api.hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object);
    api.hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                       &k.kernarg_size);
    api.hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                       &k.group_segment);
    api.hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                       &k.private_segment);
    m.kernels.emplace(symbol, k);
    out = k;
    return {};
  }

  // Claims the slot of ticket t, waiting for the slot's previous command.
  // Called with queue_mutex held.
  Slot* claim_slot(Ticket t) {
    Slot& s = slots[t % kSlots];
    if (s.ticket && !wait_signal(s.signal, true)) return nullptr;
    s.ticket = t;
    api.hsa_signal_store_screlease(s.signal, 1);
    return &s;
  }

  // Reserves a packet index (waiting while the ring is full). Called with queue_mutex held.
  bool reserve_packet(uint64_t& index) {
    index = api.hsa_queue_add_write_index_screlease(queue, 1);
    while (index - api.hsa_queue_load_read_index_scacquire(queue) >= queue->size) {
      if (broken.load()) return false;
      std::this_thread::yield();
    }
    return true;
  }

  void* packet_at(uint64_t index) const {
    return static_cast<uint8_t*>(queue->base_address) + (index & (queue->size - 1)) * 64;
  }

  // Publishes a packet: header and setup in one release store, then the doorbell.
  void publish(void* packet, uint16_t header, uint16_t setup, uint64_t index) {
    __atomic_store_n(static_cast<uint32_t*>(packet), uint32_t(header) | (uint32_t(setup) << 16),
                     __ATOMIC_RELEASE);
    api.hsa_signal_store_screlease(queue->doorbell_signal, hsa_signal_value_t(index));
  }

  static uint16_t header(hsa_packet_type_t type) {
    return uint16_t((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  }

  void teardown();
};

HsaBackend::HsaBackend(const HsaBackendOptions& options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = options;
  m.api = HsaApi::load(options.library);
  try {
    hsa_status_t s = m.api.hsa_init();
    if (s != HSA_STATUS_SUCCESS) {
      // (open_backend puts a missing /dev/kfd in front of this)
      throw RuntimeError(ErrorCode::Backend, "hsa_init failed: " + m.api.status_text(s) + " [" + m.api.path + "]");
    }
    m.initialized = true;
    m.api.hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &m.timestamp_frequency);
    if (!m.timestamp_frequency) m.timestamp_frequency = 1000000000;

    AgentScan scan{&m.api, {}};
    m.check(m.api.hsa_iterate_agents(collect_agent, &scan), "hsa_iterate_agents");
    bool found = false;
    std::string seen;
    for (const auto& a : scan.agents) {
      seen += (seen.empty() ? "" : ", ") + a.name + (a.type == HSA_DEVICE_TYPE_GPU ? " (GPU)" : "");
      if (a.type == HSA_DEVICE_TYPE_CPU) m.cpus.push_back(a.agent);
      if (!found && a.type == HSA_DEVICE_TYPE_GPU && accepted_gpu(a.name)) {
        m.gpu = a.agent;
        m.gpu_name = a.name;
        found = true;
      }
    }
    if (!found)
      throw RuntimeError(ErrorCode::Backend, "no gfx926/gfx906 agent found (agents: " +
                                                 (seen.empty() ? "none" : seen) + ")");
    if (m.cpus.empty()) throw RuntimeError(ErrorCode::Backend, "no CPU agent found");
    m.api.hsa_agent_get_info(m.gpu, HSA_AGENT_INFO_PROFILE, &m.profile);

    // Pools: device memory from the GPU's coarse-grained global pool; kernarg
    // and staging memory from the CPU agent's pools.
    PoolScan gpu_pools{&m.api, {}}, cpu_pools{&m.api, {}};
    m.check(m.api.hsa_amd_agent_iterate_memory_pools(m.gpu, collect_pool, &gpu_pools),
            "iterating the GPU's memory pools");
    m.check(m.api.hsa_amd_agent_iterate_memory_pools(m.cpus[0], collect_pool, &cpu_pools),
            "iterating the CPU agent's memory pools");
    auto pick = [](const std::vector<PoolRecord>& pools, uint32_t want, uint32_t avoid,
                   hsa_amd_memory_pool_t& out) {
      for (const auto& p : pools)
        if (p.segment == HSA_AMD_SEGMENT_GLOBAL && p.alloc_allowed && (p.flags & want) == want &&
            !(p.flags & avoid)) {
          out = p.pool;
          return true;
        }
      return false;
    };
    if (!pick(gpu_pools.pools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, 0, m.device_pool) &&
        !pick(gpu_pools.pools, 0, 0, m.device_pool))
      throw RuntimeError(ErrorCode::Backend,
                         "the " + m.gpu_name + " agent has no global memory pool");
    if (!pick(cpu_pools.pools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, 0, m.kernarg_pool) &&
        !pick(gpu_pools.pools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, 0, m.kernarg_pool))
      throw RuntimeError(ErrorCode::Backend, "no kernarg memory pool found");
    if (!pick(cpu_pools.pools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
              HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT, m.staging_pool) &&
        !pick(cpu_pools.pools, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED, 0, m.staging_pool) &&
        !pick(cpu_pools.pools, 0, 0, m.staging_pool))
      throw RuntimeError(ErrorCode::Backend, "the CPU agent has no global memory pool for staging");

    std::vector<hsa_agent_t> everyone = m.cpus;
    everyone.push_back(m.gpu);

    // Queue: scratch is left to the runtime (default private segment size).
    uint32_t max_size = 0;
    m.api.hsa_agent_get_info(m.gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size);
    uint32_t size = max_size ? std::min(max_size, kQueuePackets) : kQueuePackets;
    m.check(m.api.hsa_queue_create(
                m.gpu, size,
                options.multi_producer_queue ? HSA_QUEUE_TYPE_MULTI : HSA_QUEUE_TYPE_SINGLE,
                &Impl::queue_error, &m, UINT32_MAX, UINT32_MAX, &m.queue),
            "hsa_queue_create");
    if (options.scratch_info) m.print_scratch("after queue creation");

    // Kernarg slots, each with its completion signal.
    void* p = nullptr;
    m.check(m.api.hsa_amd_memory_pool_allocate(m.kernarg_pool, size_t(kSlots) * kSlotBytes, 0, &p),
            "allocating kernarg memory");
    m.kernargs = static_cast<uint8_t*>(p);
    m.check(m.api.hsa_amd_agents_allow_access(1, &m.gpu, nullptr, m.kernargs),
            "making kernarg memory accessible to the GPU");
    for (auto& s : m.slots) {
      m.check(m.api.hsa_signal_create(0, 0, nullptr, &s.signal), "hsa_signal_create");
      s.created = true;
    }

    // Host staging memory from the CPU agent's pool, accessible to every agent
    // (never hsa_amd_memory_lock: it was unreliable on the K100_LC).
    m.check(m.api.hsa_amd_memory_pool_allocate(m.staging_pool, kStagingBytes, 0, &p),
            "allocating host staging memory");
    m.staging = static_cast<uint8_t*>(p);
    m.check(m.api.hsa_amd_agents_allow_access(uint32_t(everyone.size()), everyone.data(), nullptr,
                                              m.staging),
            "making staging memory accessible to all agents");
    m.check(m.api.hsa_signal_create(0, 0, nullptr, &m.copy_signal), "hsa_signal_create");
    m.copy_signal_created = true;
  } catch (...) {
    m.teardown();
    throw;
  }
}

void HsaBackend::Impl::teardown() {
  if (!initialized) return;
  for (auto& mod : modules) {
    if (mod->have_executable) api.hsa_executable_destroy(mod->executable);
    if (mod->have_reader) api.hsa_code_object_reader_destroy(mod->reader);
  }
  modules.clear();
  if (queue) api.hsa_queue_destroy(queue);
  queue = nullptr;
  for (auto& s : slots)
    if (s.created) api.hsa_signal_destroy(s.signal), s.created = false;
  if (copy_signal_created) api.hsa_signal_destroy(copy_signal), copy_signal_created = false;
  if (kernargs) api.hsa_amd_memory_pool_free(kernargs), kernargs = nullptr;
  if (staging) api.hsa_amd_memory_pool_free(staging), staging = nullptr;
  api.hsa_shut_down();
  initialized = false;
  // The library stays loaded: runtimes do not survive being unloaded.
}

HsaBackend::~HsaBackend() {
  try {
    wait(last_ticket());
  } catch (...) {
  }
  impl_->teardown();
}

std::string HsaBackend::description() const {
  return "HSA " + impl_->gpu_name + " (" + impl_->api.path + ")";
}

BackendHidden HsaBackend::hidden_values() const {
  BackendHidden h;
  const auto* q = reinterpret_cast<const amd_queue_t*>(impl_->queue);
  h.queue_ptr = reinterpret_cast<uint64_t>(impl_->queue);
  h.private_base = q->private_segment_aperture_base_hi;
  h.shared_base = q->group_segment_aperture_base_hi;
  h.known = true;
  return h;
}

int HsaBackend::load(std::span<const uint8_t> elf, const std::string& origin) {
  Impl& m = *impl_;
  auto mod = std::make_unique<Impl::Module>();
  mod->origin = origin;
  mod->bytes.assign(elf.begin(), elf.end());
  auto fail = [&](hsa_status_t s, const char* what) {
    if (mod->have_executable) m.api.hsa_executable_destroy(mod->executable);
    if (mod->have_reader) m.api.hsa_code_object_reader_destroy(mod->reader);
    throw RuntimeError(ErrorCode::Package, origin + ": HSA could not load the code object (" +
                                               what + ": " + m.api.status_text(s) + ")");
  };
  hsa_status_t s = m.api.hsa_code_object_reader_create_from_memory(mod->bytes.data(),
                                                                   mod->bytes.size(), &mod->reader);
  if (s != HSA_STATUS_SUCCESS) fail(s, "hsa_code_object_reader_create_from_memory");
  mod->have_reader = true;
  s = m.api.hsa_executable_create_alt(m.profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                                      &mod->executable);
  if (s != HSA_STATUS_SUCCESS) fail(s, "hsa_executable_create_alt");
  mod->have_executable = true;
  s = m.api.hsa_executable_load_agent_code_object(mod->executable, m.gpu, mod->reader, nullptr,
                                                  nullptr);
  if (s != HSA_STATUS_SUCCESS) fail(s, "hsa_executable_load_agent_code_object");
  s = m.api.hsa_executable_freeze(mod->executable, nullptr);
  if (s != HSA_STATUS_SUCCESS) fail(s, "hsa_executable_freeze");
  std::lock_guard lock(m.modules_mutex);
  m.modules.push_back(std::move(mod));
  return int(m.modules.size() - 1);
}

uint64_t HsaBackend::alloc(uint64_t bytes) {
  Impl& m = *impl_;
  void* p = nullptr;
  hsa_status_t s = m.api.hsa_amd_memory_pool_allocate(m.device_pool, bytes, 0, &p);
  if (s != HSA_STATUS_SUCCESS || !p)
    throw RuntimeError(ErrorCode::OutOfMemory, "device allocation of " + std::to_string(bytes) +
                                                   " bytes failed: " + m.api.status_text(s));
  // Accessible to the CPU agents as well (the copies do not need it; host
  // mappings do). A refusal is not fatal.
  m.api.hsa_amd_agents_allow_access(uint32_t(m.cpus.size()), m.cpus.data(), nullptr, p);
  return reinterpret_cast<uint64_t>(p);
}

void HsaBackend::free(uint64_t address) {
  Impl& m = *impl_;
  m.check(m.api.hsa_amd_memory_pool_free(reinterpret_cast<void*>(address)),
          "freeing device memory at " + hex(address));
}

void HsaBackend::write(uint64_t dst, const void* src, size_t n) {
  Impl& m = *impl_;
  std::lock_guard lock(m.transfer_mutex);
  for (size_t off = 0; off < n; off += kStagingBytes) {
    size_t c = std::min(kStagingBytes, n - off);
    std::memcpy(m.staging, static_cast<const uint8_t*>(src) + off, c);
    m.copy_sync(reinterpret_cast<void*>(dst + off), m.gpu, m.staging, m.cpus[0], c);
  }
}

void HsaBackend::read(void* dst, uint64_t src, size_t n) {
  Impl& m = *impl_;
  std::lock_guard lock(m.transfer_mutex);
  for (size_t off = 0; off < n; off += kStagingBytes) {
    size_t c = std::min(kStagingBytes, n - off);
    // The copy engine reads device memory; waiting on its signal with acquire
    // semantics makes the staging bytes visible to this thread.
    m.copy_sync(m.staging, m.cpus[0], reinterpret_cast<const void*>(src + off), m.gpu, c);
    std::memcpy(static_cast<uint8_t*>(dst) + off, m.staging, c);
  }
}

void HsaBackend::fill(uint64_t dst, uint8_t value, size_t n) {
  Impl& m = *impl_;
  std::lock_guard lock(m.transfer_mutex);
  std::memset(m.staging, value, std::min(n, kStagingBytes));
  for (size_t off = 0; off < n; off += kStagingBytes) {
    size_t c = std::min(kStagingBytes, n - off);
    m.copy_sync(reinterpret_cast<void*>(dst + off), m.gpu, m.staging, m.cpus[0], c);
  }
}

void HsaBackend::copy(uint64_t dst, uint64_t src, size_t n) {
  Impl& m = *impl_;
  std::lock_guard lock(m.transfer_mutex);
  m.copy_sync(reinterpret_cast<void*>(dst), m.gpu, reinterpret_cast<const void*>(src), m.gpu, n);
}

Ticket HsaBackend::submit(Dispatch d) {
  Impl& m = *impl_;
  Impl::KernelObject ko;
  std::string err = m.resolve(d.module, d.symbol, ko);
  std::lock_guard lock(m.queue_mutex);
  Ticket t = ++m.last;
  if (!err.empty()) {
    m.fail(d.origin, t, "launch of kernel '" + d.label + "': " + err);
    return t;
  }
  if (d.kernarg.size() > kSlotBytes) {
    m.fail(d.origin, t, "launch of kernel '" + d.label + "': kernarg segment too big");
    return t;
  }
  if (m.broken.load()) {
    m.fail(d.origin, t, "kernel '" + d.label + "' not dispatched: " + m.broken_reason);
    return t;
  }
  Impl::Slot* slot = m.claim_slot(t);
  uint64_t index = 0;
  if (!slot || !m.reserve_packet(index)) {
    if (slot) m.api.hsa_signal_store_screlease(slot->signal, 0);
    m.fail(d.origin, t, "kernel '" + d.label + "' not dispatched: " + m.broken_reason);
    return t;
  }
  uint8_t* ka = m.kernargs + size_t(t % kSlots) * kSlotBytes;
  std::memcpy(ka, d.kernarg.data(), d.kernarg.size());
  std::memset(ka + d.kernarg.size(), 0, kSlotBytes - d.kernarg.size());
  if (d.private_segment > 0 && m.options.scratch_info)
    m.print_scratch(("before " + d.label).c_str());

  auto* pkt = static_cast<hsa_kernel_dispatch_packet_t*>(m.packet_at(index));
  const Geometry& g = d.geometry;
  Dim3 items = g.grid_items();
  pkt->workgroup_size_x = uint16_t(g.workgroup.x);
  pkt->workgroup_size_y = uint16_t(g.workgroup.y);
  pkt->workgroup_size_z = uint16_t(g.workgroup.z);
  pkt->reserved0 = 0;
  // Grid size in work-items in EVERY dimension: workgroups x workgroup size.
  pkt->grid_size_x = items.x;
  pkt->grid_size_y = items.y;
  pkt->grid_size_z = items.z;
  pkt->private_segment_size = std::max(d.private_segment, ko.private_segment);
  pkt->group_segment_size = std::max(d.group_segment, ko.group_segment);
  pkt->kernel_object = ko.object;
  pkt->kernarg_address = ka;
  pkt->reserved2 = 0;
  pkt->completion_signal = slot->signal;
  uint16_t setup = uint16_t(g.dims() << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  m.publish(pkt, Impl::header(HSA_PACKET_TYPE_KERNEL_DISPATCH), setup, index);
  return t;
}

Ticket HsaBackend::marker() {
  Impl& m = *impl_;
  std::lock_guard lock(m.queue_mutex);
  Ticket t = ++m.last;
  Impl::Slot* slot = m.broken.load() ? nullptr : m.claim_slot(t);
  uint64_t index = 0;
  if (!slot || !m.reserve_packet(index)) {
    if (slot) m.api.hsa_signal_store_screlease(slot->signal, 0);
    {
      std::lock_guard l(m.markers->mutex);
      m.markers->times[t] = now_seconds();
    }
    return t;
  }
  // The time is taken on the runtime's signal thread when the barrier completes.
  auto* ctx = new MarkerContext{m.markers, t};
  if (m.api.hsa_amd_signal_async_handler(slot->signal, HSA_SIGNAL_CONDITION_EQ, 0, marker_reached,
                                         ctx) != HSA_STATUS_SUCCESS)
    delete ctx;  // marker_seconds falls back to the host time after waiting
  auto* pkt = static_cast<hsa_barrier_and_packet_t*>(m.packet_at(index));
  pkt->reserved0 = 0;
  pkt->reserved1 = 0;
  for (auto& dep : pkt->dep_signal) dep.handle = 0;
  pkt->reserved2 = 0;
  pkt->completion_signal = slot->signal;
  m.publish(pkt, Impl::header(HSA_PACKET_TYPE_BARRIER_AND), 0, index);
  return t;
}

Ticket HsaBackend::last_ticket() const {
  std::lock_guard lock(impl_->queue_mutex);
  return impl_->last;
}

void HsaBackend::wait(Ticket t) {
  Impl& m = *impl_;
  std::vector<hsa_signal_t> pending;
  {
    std::lock_guard lock(m.queue_mutex);
    for (const auto& s : m.slots)
      if (s.ticket && s.ticket <= t) pending.push_back(s.signal);
  }
  for (hsa_signal_t s : pending)
    if (!m.wait_signal(s, true)) break;
  if (m.options.scratch_info && !pending.empty()) m.print_scratch("after wait");
}

bool HsaBackend::wait_for(Ticket t, double seconds) {
  Impl& m = *impl_;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<hsa_signal_t> pending;
  {
    std::lock_guard lock(m.queue_mutex);
    for (const auto& s : m.slots)
      if (s.ticket && s.ticket <= t) pending.push_back(s.signal);
  }
  uint64_t hint = m.timestamp_frequency / 1000;  // ~1 ms
  for (hsa_signal_t s : pending) {
    for (;;) {
      if (m.api.hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, hint, HSA_WAIT_STATE_BLOCKED) < 1) break;
      if (m.broken.load()) return true;  // wait() reports it
      if (std::chrono::steady_clock::now() >= deadline) return false;
    }
  }
  return true;
}

double HsaBackend::marker_seconds(Ticket t) {
  wait(t);
  Impl& m = *impl_;
  std::unique_lock lock(m.markers->mutex);
  // The handler runs shortly after the signal drops; give it a moment.
  m.markers->cv.wait_for(lock, std::chrono::seconds(2),
                         [&] { return m.markers->times.count(t) > 0; });
  auto it = m.markers->times.find(t);
  if (it == m.markers->times.end()) {
    double now = now_seconds();
    m.markers->times[t] = now;
    return now;
  }
  return it->second;
}

void HsaBackend::forget_marker(Ticket t) {
  std::lock_guard lock(impl_->markers->mutex);
  impl_->markers->times.erase(t);
}

std::vector<Failure> HsaBackend::take_failures() {
  std::lock_guard lock(impl_->failures_mutex);
  return std::exchange(impl_->failures, {});
}

}  // namespace k100::runtime
