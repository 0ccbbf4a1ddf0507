// A stand-in libhsa-runtime64 backed by the emulator, for testing HsaBackend
// without a DCU.
//
// It exports the HSA functions the backend resolves (hsa_required_symbols)
// with the signatures of Debian's headers and behaves like the runtime where
// the backend depends on it: one CPU and one GPU agent ("gfx926", or
// K100_FAKE_HSA_GPU_NAME), a kernarg and a fine-grained pool on the CPU, a
// coarse-grained pool on the GPU (emulator memory), signals with waits and
// async handlers, code object readers and executables (emulator programs),
// and an AQL queue drained by a thread that runs kernel dispatch packets on
// the emulator exactly as the packet says: grid sizes, workgroup sizes, dims,
// LDS and the kernarg bytes at kernarg_address. The hidden arguments are NOT
// filled (the real runtime does not either), so the backend's packing is
// what the kernels see. A faulting dispatch calls the queue's error callback
// and stops the queue, like the hardware.
//
// It also checks the backend's use of the API and records violations
// (k100_fake_hsa_violations): iteration callbacks that do not return SUCCESS,
// packets with reserved bits, grids that are not whole workgroups, kernarg
// or staging memory not made accessible to the GPU, copies with agents that
// do not own the memory.
#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "k100/emu/device.h"

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint64_t kCpu = 1, kGpu = 2;
constexpr uint64_t kPoolKernarg = 11, kPoolFine = 12, kPoolDevice = 21;

struct Signal {
  std::mutex m;
  std::condition_variable cv;
  int64_t value = 0;
  struct Handler {
    hsa_signal_condition_t cond;
    hsa_signal_value_t compare;
    hsa_amd_signal_handler fn;
    void* arg;
  };
  std::vector<Handler> handlers;
};

bool satisfied(hsa_signal_condition_t c, int64_t v, int64_t cmp) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_EQ:
      return v == cmp;
    case HSA_SIGNAL_CONDITION_NE:
      return v != cmp;
    case HSA_SIGNAL_CONDITION_LT:
      return v < cmp;
    case HSA_SIGNAL_CONDITION_GTE:
      return v >= cmp;
  }
  return false;
}

Signal* sig(hsa_signal_t s) {
  return reinterpret_cast<Signal*>(s.handle);
}

void set_value(Signal* s, int64_t v) {
  std::vector<Signal::Handler> fire;
  {
    std::lock_guard l(s->m);
    s->value = v;
    for (auto it = s->handlers.begin(); it != s->handlers.end();) {
      if (satisfied(it->cond, v, it->compare)) {
        fire.push_back(*it);
        it = s->handlers.erase(it);
      } else {
        ++it;
      }
    }
  }
  s->cv.notify_all();
  for (auto& h : fire) h.fn(v, h.arg);  // one-shot in this fake
}

struct HostBlock {
  size_t size = 0;
  uint64_t pool = 0;
  bool gpu_access = false;
};

struct KernelObject {
  std::shared_ptr<const k100::emu::Program> program;
  std::string name;
  const k100::emu::KernelSpec* spec = nullptr;
};

struct Executable {
  std::vector<std::shared_ptr<const k100::emu::Program>> programs;
  bool frozen = false;
};

struct Queue;

struct State {
  std::mutex mutex;
  int init_count = 0;
  std::unique_ptr<k100::emu::Device> device;
  std::map<uintptr_t, HostBlock> host;  // host allocations from the CPU pools
  std::vector<std::unique_ptr<KernelObject>> kernel_objects;
  std::string violations;
  std::string gpu_name = "gfx926";
  std::vector<Queue*> queues;
};

State& st() {
  static State s;
  return s;
}

void violation(const std::string& what) {
  std::lock_guard l(st().mutex);
  st().violations += what + "\n";
}

// The host block containing p, if any (caller holds the state mutex).
HostBlock* host_block(const void* p, size_t n, uintptr_t* base = nullptr) {
  auto& h = st().host;
  auto it = h.upper_bound(reinterpret_cast<uintptr_t>(p));
  if (it == h.begin()) return nullptr;
  --it;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a + n > it->first + it->second.size) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

bool is_device(const void* p) {
  return st().device && st().device->find_allocation(reinterpret_cast<uint64_t>(p)).has_value();
}

struct Queue {
  amd_queue_t* amd = nullptr;
  void* ring = nullptr;
  Signal* doorbell = nullptr;
  void (*callback)(hsa_status_t, hsa_queue_t*, void*) = nullptr;
  void* data = nullptr;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool broken = false;

  uint64_t read_index() const { return __atomic_load_n(&amd->read_dispatch_id, __ATOMIC_ACQUIRE); }

  void fail(hsa_status_t status, const std::string& why) {
    std::fprintf(stderr, "fake HSA: queue error: %s\n", why.c_str());
    broken = true;
    if (callback) callback(status, &amd->hsa_queue, data);
  }

  void run_dispatch(const hsa_kernel_dispatch_packet_t& p) {
    uint32_t dims = (p.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) & 3;
    if (p.reserved0 || p.reserved2 || (p.setup >> 2))
      violation("dispatch packet with non-zero reserved fields");
    if (dims < 1 || dims > 3)
      return fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "dims " + std::to_string(dims));
    if ((dims < 2 && (p.grid_size_y != 1 || p.workgroup_size_y != 1)) ||
        (dims < 3 && (p.grid_size_z != 1 || p.workgroup_size_z != 1)))
      violation("packet dims " + std::to_string(dims) + " but a higher dimension is not 1");
    if (!p.workgroup_size_x || !p.workgroup_size_y || !p.workgroup_size_z ||
        p.grid_size_x % p.workgroup_size_x || p.grid_size_y % p.workgroup_size_y ||
        p.grid_size_z % p.workgroup_size_z)
      violation("grid is not a whole number of workgroups in every dimension");
    auto* ko = reinterpret_cast<KernelObject*>(p.kernel_object);
    {
      std::lock_guard l(st().mutex);
      bool known = false;
      for (auto& k : st().kernel_objects) known |= k.get() == ko;
      if (!known) return fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "unknown kernel object");
      HostBlock* b = host_block(p.kernarg_address, ko->spec->kernarg_size);
      if (!b || b->pool != kPoolKernarg || !b->gpu_access)
        violation("kernarg_address is not GPU-accessible kernarg-pool memory");
    }
    if (p.group_segment_size < ko->spec->group_segment_fixed_size)
      violation("group_segment_size below the kernel's fixed LDS");
    if (p.private_segment_size < ko->spec->private_segment_fixed_size)
      violation("private_segment_size below the kernel's scratch");
    k100::emu::LaunchConfig cfg;
    cfg.grid = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
    cfg.workgroup = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
    cfg.dims = dims;
    cfg.dynamic_lds = p.group_segment_size - ko->spec->group_segment_fixed_size;
    k100::emu::DispatchOptions opts;
    opts.fill_hidden_args = false;  // the runtime does not fill them; the caller's bytes are used
    std::vector<uint8_t> kernarg(ko->spec->kernarg_size);
    std::memcpy(kernarg.data(), p.kernarg_address, kernarg.size());
    try {
      auto r = st().device->dispatch(*ko->program, ko->name, cfg, kernarg, opts);
      if (r.fault)
        return fail(hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION), r.fault->report());
    } catch (const std::exception& e) {
      return fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, e.what());
    }
    if (p.completion_signal.handle) {
      Signal* s = sig(p.completion_signal);
      int64_t v;
      {
        std::lock_guard l(s->m);
        v = s->value - 1;
      }
      set_value(s, v);
    }
  }

  void loop() {
    while (!stop.load()) {
      if (broken) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      uint64_t r = read_index();
      auto* pkt = static_cast<uint8_t*>(ring) + (r % amd->hsa_queue.size) * 64;
      uint16_t header = __atomic_load_n(reinterpret_cast<uint16_t*>(pkt), __ATOMIC_ACQUIRE);
      uint8_t type = header & 0xff;
      if (type == HSA_PACKET_TYPE_INVALID) {
        std::unique_lock l(doorbell->m);
        doorbell->cv.wait_for(l, std::chrono::milliseconds(1));
        continue;
      }
      if (!(header & (1 << HSA_PACKET_HEADER_BARRIER))) violation("packet without the barrier bit");
      if (((header >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) & 3) != HSA_FENCE_SCOPE_SYSTEM ||
          ((header >> HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) & 3) != HSA_FENCE_SCOPE_SYSTEM)
        violation("packet without system-scope fences");
      if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
        hsa_kernel_dispatch_packet_t p;
        std::memcpy(&p, pkt, sizeof p);
        run_dispatch(p);
      } else if (type == HSA_PACKET_TYPE_BARRIER_AND) {
        hsa_barrier_and_packet_t p;
        std::memcpy(&p, pkt, sizeof p);
        for (auto d : p.dep_signal)
          if (d.handle) violation("barrier with dependencies (not used by the runtime)");
        if (p.completion_signal.handle) {
          Signal* s = sig(p.completion_signal);
          int64_t v;
          {
            std::lock_guard l(s->m);
            v = s->value - 1;
          }
          set_value(s, v);
        }
      } else {
        fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "packet type " + std::to_string(type));
        continue;
      }
      if (broken) continue;
      __atomic_store_n(reinterpret_cast<uint16_t*>(pkt), uint16_t(HSA_PACKET_TYPE_INVALID),
                       __ATOMIC_RELAXED);
      __atomic_store_n(&amd->read_dispatch_id, r + 1, __ATOMIC_RELEASE);
    }
  }
};

const char* status_name(hsa_status_t s) {
  switch (s) {
    case HSA_STATUS_SUCCESS:
      return "HSA_STATUS_SUCCESS";
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
      return "HSA_STATUS_ERROR_INVALID_ARGUMENT: fake";
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      return "HSA_STATUS_ERROR_OUT_OF_RESOURCES: fake";
    case HSA_STATUS_ERROR_NOT_INITIALIZED:
      return "HSA_STATUS_ERROR_NOT_INITIALIZED: fake";
    case hsa_status_t(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION):
      return "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: fake";
    default:
      return "HSA_STATUS_ERROR: fake";
  }
}

hsa_status_t copy_bytes(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                        size_t n, bool check_agents) {
  bool dd = is_device(dst), sd = is_device(src);
  {
    std::lock_guard l(st().mutex);
    if (!dd && !host_block(dst, n)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (!sd && !host_block(src, n)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (check_agents) {
      if (dd != (dst_agent.handle == kGpu) || sd != (src_agent.handle == kGpu))
        st().violations += "async copy with an agent that does not own the memory\n";
      if (!dd) {
        HostBlock* b = host_block(dst, n);
        if (b && !b->gpu_access)
          st().violations += "copy into host memory not made accessible to the GPU\n";
      }
      if (!sd) {
        HostBlock* b = host_block(src, n);
        if (b && !b->gpu_access)
          st().violations += "copy from host memory not made accessible to the GPU\n";
      }
    }
  }
  auto& dev = *st().device;
  try {
    if (dd && sd) {
      std::vector<uint8_t> tmp(n);
      dev.read(reinterpret_cast<uint64_t>(src), tmp);
      dev.write(reinterpret_cast<uint64_t>(dst), tmp);
    } else if (dd) {
      dev.write(reinterpret_cast<uint64_t>(dst), {static_cast<const uint8_t*>(src), n});
    } else if (sd) {
      dev.read(reinterpret_cast<uint64_t>(src), {static_cast<uint8_t*>(dst), n});
    } else {
      std::memmove(dst, src, n);
    }
  } catch (const std::exception&) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

FAKE_API const char* k100_fake_hsa_violations() {
  static std::string copy;
  std::lock_guard l(st().mutex);
  copy = st().violations;
  return copy.c_str();
}

// ------------------------------------------------------------ init, agents

FAKE_API hsa_status_t hsa_init() {
  std::lock_guard l(st().mutex);
  if (const char* v = std::getenv("K100_FAKE_HSA_FAIL_INIT"); v && *v == '1')
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  if (st().init_count++ == 0) {
    st().device = std::make_unique<k100::emu::Device>();
    const char* n = std::getenv("K100_FAKE_HSA_GPU_NAME");
    st().gpu_name = n ? n : "gfx926";
  }
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_shut_down() {
  std::lock_guard l(st().mutex);
  if (st().init_count == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (--st().init_count == 0) {
    if (!st().queues.empty()) st().violations += "hsa_shut_down with live queues\n";
    st().kernel_objects.clear();
    st().device.reset();
  }
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_status_string(hsa_status_t status, const char** out) {
  if (!out) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *out = status_name(status);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  if (attribute == HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) {
    *static_cast<uint64_t*>(value) = 1000000000;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

FAKE_API hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  for (uint64_t h : {kCpu, kGpu}) {
    hsa_status_t s = callback(hsa_agent_t{h}, data);
    if (s != HSA_STATUS_SUCCESS) {
      violation("agent iteration callback returned " + std::to_string(int(s)));
      return s;
    }
  }
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute,
                                         void* value) {
  bool gpu = agent.handle == kGpu;
  if (agent.handle != kGpu && agent.handle != kCpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  switch (attribute) {
    case HSA_AGENT_INFO_NAME: {
      char* out = static_cast<char*>(value);
      std::memset(out, 0, 64);
      std::snprintf(out, 64, "%s", gpu ? st().gpu_name.c_str() : "Fake Host CPU");
      return HSA_STATUS_SUCCESS;
    }
    case HSA_AGENT_INFO_DEVICE:
      *static_cast<hsa_device_type_t*>(value) = gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_PROFILE:
      *static_cast<hsa_profile_t*>(value) = HSA_PROFILE_BASE;
      return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
      *static_cast<uint32_t*>(value) = gpu ? 128 : 0;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

// ------------------------------------------------------------------- pools

FAKE_API hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_amd_memory_pool_t, void*), void* data) {
  std::vector<uint64_t> pools = agent.handle == kGpu
                                    ? std::vector<uint64_t>{kPoolDevice}
                                    : std::vector<uint64_t>{kPoolKernarg, kPoolFine};
  for (uint64_t p : pools) {
    hsa_status_t s = callback(hsa_amd_memory_pool_t{p}, data);
    if (s != HSA_STATUS_SUCCESS) {
      violation("pool iteration callback returned " + std::to_string(int(s)));
      return s;
    }
  }
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool,
                                                   hsa_amd_memory_pool_info_t attribute,
                                                   void* value) {
  switch (attribute) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
      *static_cast<hsa_amd_segment_t*>(value) = HSA_AMD_SEGMENT_GLOBAL;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
      *static_cast<uint32_t*>(value) =
          pool.handle == kPoolDevice    ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED
          : pool.handle == kPoolKernarg ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                              HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                        : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
      return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
      *static_cast<bool*>(value) = true;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

FAKE_API hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool, size_t size,
                                                   uint32_t flags, void** ptr) {
  if (!ptr || !size) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (pool.handle == kPoolDevice) {
    try {
      *ptr = reinterpret_cast<void*>(st().device->alloc(size, "fake HSA device memory", 4096));
    } catch (const std::exception&) {
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    return HSA_STATUS_SUCCESS;
  }
  if (pool.handle != kPoolKernarg && pool.handle != kPoolFine)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  void* p = std::aligned_alloc(4096, (size + 4095) & ~size_t(4095));
  if (!p) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  std::lock_guard l(st().mutex);
  st().host[reinterpret_cast<uintptr_t>(p)] = HostBlock{size, pool.handle, false};
  *ptr = p;
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_amd_memory_pool_free(void* ptr) {
  if (is_device(ptr)) {
    try {
      st().device->free(reinterpret_cast<uint64_t>(ptr));
    } catch (const std::exception&) {
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
  }
  std::lock_guard l(st().mutex);
  auto it = st().host.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == st().host.end()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  st().host.erase(it);
  std::free(ptr);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                                  const uint32_t* flags, const void* ptr) {
  if (!num_agents || !agents) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (is_device(ptr)) return HSA_STATUS_SUCCESS;
  std::lock_guard l(st().mutex);
  HostBlock* b = host_block(ptr, 1);
  if (!b) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; ++i)
    if (agents[i].handle == kGpu) b->gpu_access = true;
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                                hsa_agent_t src_agent, size_t size,
                                                uint32_t num_dep_signals,
                                                const hsa_signal_t* dep_signals,
                                                hsa_signal_t completion_signal) {
  if (const char* v = std::getenv("K100_FAKE_HSA_NO_ASYNC_COPY"); v && *v == '1')
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  hsa_status_t s = copy_bytes(dst, dst_agent, src, src_agent, size, true);
  if (s != HSA_STATUS_SUCCESS) return s;
  Signal* c = sig(completion_signal);
  int64_t v;
  {
    std::lock_guard l(c->m);
    v = c->value - 1;
  }
  if (const char* e = std::getenv("K100_FAKE_HSA_COPY_FAILS"); e && *e == '1')
    v = -1;  // as the runtime reports errors
  set_value(c, v);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  return copy_bytes(dst, hsa_agent_t{0}, src, hsa_agent_t{0}, size, false);
}

// ----------------------------------------------------------------- signals

FAKE_API hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                        const hsa_agent_t* consumers, hsa_signal_t* signal) {
  auto* s = new Signal;
  s->value = initial_value;
  signal->handle = reinterpret_cast<uint64_t>(s);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  delete sig(signal);
  return HSA_STATUS_SUCCESS;
}

FAKE_API void hsa_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  set_value(sig(signal), value);
}
FAKE_API void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  set_value(sig(signal), value);
}

FAKE_API hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t signal) {
  Signal* s = sig(signal);
  std::lock_guard l(s->m);
  return s->value;
}

FAKE_API hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal,
                                                      hsa_signal_condition_t condition,
                                                      hsa_signal_value_t compare_value,
                                                      uint64_t timeout_hint,
                                                      hsa_wait_state_t wait_state_hint) {
  Signal* s = sig(signal);
  std::unique_lock l(s->m);
  s->cv.wait_for(l, std::chrono::nanoseconds(std::min<uint64_t>(timeout_hint, 100000000)),
                 [&] { return satisfied(condition, s->value, compare_value); });
  return s->value;
}

FAKE_API hsa_status_t hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond,
                                                   hsa_signal_value_t value,
                                                   hsa_amd_signal_handler handler, void* arg) {
  Signal* s = sig(signal);
  bool now;
  {
    std::lock_guard l(s->m);
    now = satisfied(cond, s->value, value);
    if (!now) s->handlers.push_back({cond, value, handler, arg});
  }
  if (now) handler(s->value, arg);
  return HSA_STATUS_SUCCESS;
}

// ------------------------------------------------------------------ queues

FAKE_API hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                       void (*callback)(hsa_status_t, hsa_queue_t*, void*),
                                       void* data, uint32_t private_segment_size,
                                       uint32_t group_segment_size, hsa_queue_t** queue) {
  if (agent.handle != kGpu || !size || (size & (size - 1)) || size > 128)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (private_segment_size != UINT32_MAX)
    violation("queue created with an explicit private segment size");
  auto* q = new Queue;
  q->amd = static_cast<amd_queue_t*>(std::aligned_alloc(64, sizeof(amd_queue_t)));
  std::memset(q->amd, 0, sizeof(amd_queue_t));
  q->ring = std::aligned_alloc(64, size_t(size) * 64);
  for (uint32_t i = 0; i < size; ++i)
    *reinterpret_cast<uint16_t*>(static_cast<uint8_t*>(q->ring) + i * 64) = HSA_PACKET_TYPE_INVALID;
  q->doorbell = new Signal;
  q->callback = callback;
  q->data = data;
  q->amd->hsa_queue.type = type;
  q->amd->hsa_queue.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  q->amd->hsa_queue.base_address = q->ring;
  q->amd->hsa_queue.doorbell_signal.handle = reinterpret_cast<uint64_t>(q->doorbell);
  q->amd->hsa_queue.size = size;
  q->amd->hsa_queue.id = 1;
  q->amd->group_segment_aperture_base_hi = uint32_t(k100::emu::kSharedApertureBase >> 32);
  q->amd->private_segment_aperture_base_hi = uint32_t(k100::emu::kPrivateApertureBase >> 32);
  q->thread = std::thread([q] { q->loop(); });
  {
    std::lock_guard l(st().mutex);
    st().queues.push_back(q);
  }
  *queue = &q->amd->hsa_queue;
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_queue_destroy(hsa_queue_t* queue) {
  Queue* q = nullptr;
  {
    std::lock_guard l(st().mutex);
    for (auto it = st().queues.begin(); it != st().queues.end(); ++it)
      if (&(*it)->amd->hsa_queue == queue) {
        q = *it;
        st().queues.erase(it);
        break;
      }
  }
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  q->stop = true;
  q->thread.join();
  delete q->doorbell;
  std::free(q->ring);
  std::free(q->amd);
  delete q;
  return HSA_STATUS_SUCCESS;
}

FAKE_API uint64_t hsa_queue_add_write_index_screlease(const hsa_queue_t* queue, uint64_t value) {
  auto* amd = reinterpret_cast<amd_queue_t*>(const_cast<hsa_queue_t*>(queue));
  return __atomic_fetch_add(&amd->write_dispatch_id, value, __ATOMIC_RELEASE);
}

FAKE_API uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t* queue) {
  auto* amd = reinterpret_cast<const amd_queue_t*>(queue);
  return __atomic_load_n(&amd->read_dispatch_id, __ATOMIC_ACQUIRE);
}

// ------------------------------------------------------------ code objects

struct Reader {
  std::vector<uint8_t> bytes;
};

FAKE_API hsa_status_t hsa_code_object_reader_create_from_memory(const void* code_object,
                                                                size_t size,
                                                                hsa_code_object_reader_t* reader) {
  if (!code_object || !size) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  auto* r = new Reader;
  r->bytes.assign(static_cast<const uint8_t*>(code_object),
                  static_cast<const uint8_t*>(code_object) + size);
  reader->handle = reinterpret_cast<uint64_t>(r);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader) {
  delete reinterpret_cast<Reader*>(reader.handle);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_executable_create_alt(
    hsa_profile_t profile, hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char* options, hsa_executable_t* executable) {
  executable->handle = reinterpret_cast<uint64_t>(new Executable);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t code_object_reader,
    const char* options, hsa_loaded_code_object_t* loaded_code_object) {
  auto* e = reinterpret_cast<Executable*>(executable.handle);
  auto* r = reinterpret_cast<Reader*>(code_object_reader.handle);
  if (agent.handle != kGpu || e->frozen) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  try {
    e->programs.push_back(st().device->load_code_object(r->bytes, "fake HSA code object"));
  } catch (const std::exception&) {
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  reinterpret_cast<Executable*>(executable.handle)->frozen = true;
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  delete reinterpret_cast<Executable*>(executable.handle);
  return HSA_STATUS_SUCCESS;
}

FAKE_API hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t executable,
                                                        const char* symbol_name,
                                                        const hsa_agent_t* agent,
                                                        hsa_executable_symbol_t* symbol) {
  auto* e = reinterpret_cast<Executable*>(executable.handle);
  if (!e->frozen) violation("symbol lookup in an executable that is not frozen");
  std::string name = symbol_name;
  if (name.size() < 3 || name.compare(name.size() - 3, 3, ".kd") != 0)
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  name.resize(name.size() - 3);
  for (auto& p : e->programs)
    if (const auto* k = p->find_kernel(name)) {
      auto ko = std::make_unique<KernelObject>();
      ko->program = p;
      ko->name = name;
      ko->spec = k;
      std::lock_guard l(st().mutex);
      symbol->handle = reinterpret_cast<uint64_t>(ko.get());
      st().kernel_objects.push_back(std::move(ko));
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
}

FAKE_API hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                     hsa_executable_symbol_info_t attribute,
                                                     void* value) {
  auto* ko = reinterpret_cast<KernelObject*>(executable_symbol.handle);
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      *static_cast<uint64_t*>(value) = executable_symbol.handle;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = ko->spec->kernarg_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = ko->spec->group_segment_fixed_size;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
      *static_cast<uint32_t*>(value) = ko->spec->private_segment_fixed_size;
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}
