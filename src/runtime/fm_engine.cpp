// The C ABI (fm_engine.h) over one process-wide k100::Runtime.
//
// Every entry point catches everything: an error becomes a return code plus
// the calling thread's fm_last_error() text. A shared lock keeps the runtime
// alive during calls; fm_init/fm_load/fm_shutdown take it exclusively.
#include "fm_engine.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "k100/runtime/package_path.h"
#include "k100/runtime/runtime.h"

#define FM_API extern "C" __attribute__((visibility("default")))

namespace {

using k100::runtime::Dim3;
using k100::runtime::ErrorCode;
using k100::runtime::Runtime;
using k100::runtime::RuntimeError;

std::shared_mutex g_lock;
std::unique_ptr<Runtime> g_rt;
std::map<std::string, std::string> g_loaded;  // canonical path -> origin used at load
std::mutex g_events_mutex;
std::map<int, k100::runtime::Event> g_events;
int g_next_event = 0;
thread_local std::string t_error;

void set_error(const std::string& s) {
  t_error = s;
}

int launch_code(const RuntimeError& e) {
  switch (e.code()) {
    case ErrorCode::UnknownKernel:
      return FM_ERR;
    case ErrorCode::WrongArgCount:
      return FM_ERR_ARGC;
    case ErrorCode::KernargTooBig:
      return FM_ERR_KERNARG;
    default:
      return FM_ERR_LAUNCH;
  }
}

// Runs f with the runtime under the shared lock; maps exceptions to `fail`
// (or, for launches, to the launch codes).
template <class F>
int guarded(const char* fn, F&& f, bool launch = false) {
  try {
    std::shared_lock lock(g_lock);
    if (!g_rt) {
      set_error(std::string(fn) + ": the engine is not initialised (call fm_init first)");
      return launch ? FM_ERR_LAUNCH : FM_ERR;
    }
    return f(*g_rt);
  } catch (const RuntimeError& e) {
    set_error(e.what());
    return launch ? launch_code(e) : FM_ERR;
  } catch (const std::exception& e) {
    set_error(std::string(fn) + ": " + e.what());
    return launch ? FM_ERR_LAUNCH : FM_ERR;
  } catch (...) {
    set_error(std::string(fn) + ": unknown error");
    return FM_ERR;
  }
}

std::string canonical(const std::string& p) {
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

// Loads `hsaco` (resolved) unless it is loaded already. Caller holds g_lock exclusively.
int load_locked(const char* hsaco, bool init) {
  // RT_HSACO overrides the package of fm_init (as in the reference), not fm_load's.
  std::string path = k100::runtime::resolve_package_path(hsaco ? hsaco : "", init);
  std::string key = canonical(path);
  if (g_loaded.count(key)) return 0;
  g_rt->load_package(path);
  g_loaded.emplace(key, path);
  return 0;
}

int init_or_load(const char* hsaco, bool init) {
  try {
    std::unique_lock lock(g_lock);
    if (!g_rt) {
      if (!init) {
        set_error("fm_load: the engine is not initialised (call fm_init first)");
        return FM_ERR;
      }
      k100::runtime::RuntimeOptions o;
      o.default_package = false;
      g_rt = std::make_unique<Runtime>(o);
    }
    return load_locked(hsaco, init);
  } catch (const RuntimeError& e) {
    set_error(e.what());  // names the package already
    return FM_ERR;
  } catch (const std::exception& e) {
    set_error(std::string(init ? "fm_init: " : "fm_load: ") + e.what());
    return FM_ERR;
  }
}

std::span<const uint64_t> argv_span(const uint64_t* argv, int nargs) {
  if (nargs < 0)
    throw RuntimeError(ErrorCode::WrongArgCount,
                       "negative argument count " + std::to_string(nargs));
  if (nargs > 0 && !argv)
    throw RuntimeError(ErrorCode::InvalidLaunch,
                       "argv is NULL but nargs is " + std::to_string(nargs));
  return {argv, size_t(nargs)};
}

std::string kernel_name(const char* kernel) {
  if (!kernel) throw RuntimeError(ErrorCode::UnknownKernel, "the kernel name is NULL");
  return kernel;
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

}  // namespace

FM_API int fm_init(const char* hsaco) {
  return init_or_load(hsaco, true);
}

FM_API int fm_load(const char* hsaco) {
  return init_or_load(hsaco, false);
}

FM_API int fm_load_module(const void* elf, size_t size, const char* origin) {
  return guarded("fm_load_module", [&](Runtime& rt) {
    if (!elf || !size)
      throw RuntimeError(ErrorCode::InvalidArgument, "fm_load_module: no code object bytes");
    return rt.load_module({static_cast<const uint8_t*>(elf), size},
                          origin && *origin ? origin : "code object in memory");
  });
}

FM_API int fm_shutdown(void) {
  try {
    std::unique_lock lock(g_lock);
    {
      std::lock_guard l(g_events_mutex);
      g_events.clear();
    }
    if (!g_rt) return 0;
    std::unique_ptr<Runtime> rt = std::move(g_rt);
    g_loaded.clear();
    int rc = 0;
    try {
      rt->sync();
    } catch (const std::exception& e) {
      set_error(std::string("fm_shutdown: ") + e.what());
      rc = FM_ERR;
    }
    rt.reset();
    return rc;
  } catch (const std::exception& e) {
    set_error(std::string("fm_shutdown: ") + e.what());
    return FM_ERR;
  }
}

FM_API const char* fm_last_error(void) {
  return t_error.c_str();
}

FM_API const char* fm_backend(void) {
  std::shared_lock lock(g_lock);
  if (!g_rt) return "";
  static const std::string emu = "emu", hsa = "hsa";
  return g_rt->on_hardware() ? hsa.c_str() : emu.c_str();
}

FM_API void* fm_alloc(size_t n) {
  void* out = nullptr;
  guarded("fm_alloc", [&](Runtime& rt) {
    out = reinterpret_cast<void*>(rt.alloc(n));
    return 0;
  });
  return out;
}

FM_API int fm_release(void* p) {
  return guarded("fm_free", [&](Runtime& rt) {
    rt.free(reinterpret_cast<uint64_t>(p));
    return 0;
  });
}

FM_API void fm_free(void* p) {
  if (p) fm_release(p);
}

FM_API int fm_upload(void* dev, const void* host, size_t n) {
  return guarded("fm_upload", [&](Runtime& rt) {
    rt.upload(reinterpret_cast<uint64_t>(dev), host, n);
    return 0;
  });
}

FM_API int fm_download(void* host, const void* dev, size_t n) {
  return guarded("fm_download", [&](Runtime& rt) {
    rt.download(host, reinterpret_cast<uint64_t>(dev), n);
    return 0;
  });
}

FM_API int fm_copy(void* dst, const void* src, size_t n) {
  return guarded("fm_copy", [&](Runtime& rt) {
    rt.copy(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), n);
    return 0;
  });
}

FM_API int fm_memset(void* dev, int v, size_t n) {
  return guarded("fm_memset", [&](Runtime& rt) {
    rt.memset(reinterpret_cast<uint64_t>(dev), v, n);
    return 0;
  });
}

FM_API int fm_sync(void) {
  return guarded("fm_sync", [&](Runtime& rt) {
    try {
      rt.sync();
    } catch (const RuntimeError& e) {
      if (e.code() != ErrorCode::Cancelled) throw;
      set_error(e.what());
      return FM_ERR_CANCELLED;
    }
    return 0;
  });
}

FM_API int fm_wait(int timeout_ms) {
  return guarded("fm_wait", [&](Runtime& rt) {
    if (timeout_ms < 0) throw RuntimeError(ErrorCode::InvalidArgument, "fm_wait: negative timeout");
    return rt.wait_for(timeout_ms / 1000.0) ? 0 : 1;
  });
}

FM_API int fm_cancel(void) {
  return guarded("fm_cancel", [&](Runtime& rt) { return rt.cancel() ? 0 : 1; });
}

FM_API int fm_set_budget(uint64_t wave_instructions) {
  return guarded("fm_set_budget", [&](Runtime& rt) { return rt.set_instruction_budget(wave_instructions) ? 0 : 1; });
}

FM_API uint64_t fm_budget(void) {
  uint64_t out = 0;
  guarded("fm_budget", [&](Runtime& rt) {
    out = rt.instruction_budget();
    return 0;
  });
  return out;
}

FM_API int fm_launch3d(const char* kernel, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t wx,
                       uint32_t wy, uint32_t wz, const uint64_t* argv, int nargs) {
  return guarded(
      "fm_launch",
      [&](Runtime& rt) {
        std::string name = kernel_name(kernel);
        rt.launch(name, Dim3{gx, gy, gz}, Dim3{wx, wy, wz}, argv_span(argv, nargs));
        return 0;
      },
      true);
}

FM_API int fm_launch2d(const char* kernel, uint32_t gx, uint32_t gy, uint32_t wx, uint32_t wy,
                       const uint64_t* argv, int nargs) {
  return fm_launch3d(kernel, gx, gy, 1, wx, wy, 1, argv, nargs);
}

FM_API int fm_launch(const char* kernel, uint32_t grid, uint32_t workgroup, const uint64_t* argv,
                     int nargs) {
  return fm_launch3d(kernel, grid, 1, 1, workgroup, 1, 1, argv, nargs);
}

FM_API int fm_launch_dyn(const char* kernel, uint32_t gx, uint32_t gy, uint32_t wx, uint32_t wy,
                         const uint32_t* layout, uint32_t nargs, uint32_t group_size,
                         uint32_t private_size, uint32_t kernarg_size, const uint64_t* argv,
                         int nargv) {
  return guarded(
      "fm_launch_dyn",
      [&](Runtime& rt) {
        std::string name = kernel_name(kernel);
        if (nargs && !layout)
          throw RuntimeError(ErrorCode::InvalidLaunch, "fm_launch_dyn: layout is NULL");
        if (nargs > 4096)
          throw RuntimeError(ErrorCode::InvalidLaunch,
                             "fm_launch_dyn: " + std::to_string(nargs) + " layout entries");
        k100::runtime::DynamicLayout d;
        for (uint32_t i = 0; i < nargs; ++i) {
          uint32_t kind = layout[3 * i + 2];
          if (kind > 255)
            throw RuntimeError(ErrorCode::InvalidLaunch,
                               "fm_launch_dyn(" + name + "): layout entry " + std::to_string(i) +
                                   " has kind code " + std::to_string(kind));
          d.layout.push_back({layout[3 * i], layout[3 * i + 1], uint8_t(kind)});
        }
        d.group_segment = group_size;
        d.private_segment = private_size;
        d.kernarg_size = kernarg_size;
        // The reference's order of checks: explicit count, then kernarg size.
        size_t n_explicit = k100::runtime::explicit_count(d.layout, name);
        if (nargv < 0 || size_t(nargv) != n_explicit)
          throw RuntimeError(ErrorCode::WrongArgCount,
                             "kernel '" + name + "' layout has " + std::to_string(n_explicit) +
                                 " explicit arguments, " + std::to_string(nargv) + " given");
        if (kernarg_size > FM_MAX_KERNARG)
          throw RuntimeError(ErrorCode::KernargTooBig,
                             "kernel '" + name + "': kernarg_size " + std::to_string(kernarg_size) +
                                 " exceeds " + std::to_string(FM_MAX_KERNARG));
        rt.launch_dynamic(name, Dim3{gx, gy, 1}, Dim3{wx, wy, 1}, d, argv_span(argv, nargv));
        return 0;
      },
      true);
}

FM_API int fm_has_kernel(const char* kernel) {
  if (!kernel) return 0;
  std::shared_lock lock(g_lock);
  return g_rt && g_rt->has_kernel(kernel) ? 1 : 0;
}

FM_API int fm_kernel_id(const char* kernel) {
  if (!kernel) return -1;
  std::shared_lock lock(g_lock);
  return g_rt ? g_rt->kernel_id(kernel) : -1;
}

FM_API int fm_launch_batch(const uint64_t* plan, int nrec) {
  int done = 0;
  auto start = std::chrono::steady_clock::now();
  guarded("fm_launch_batch", [&](Runtime& rt) {
    if (nrec < 0)
      throw RuntimeError(ErrorCode::InvalidArgument, "fm_launch_batch: negative record count");
    if (nrec > 0 && !plan)
      throw RuntimeError(ErrorCode::InvalidArgument, "fm_launch_batch: plan is NULL");
    const uint64_t* r = plan;
    for (; done < nrec; ++done) {
      std::string where = "fm_launch_batch record " + std::to_string(done) + ": ";
      uint64_t id = r[0], grid = r[1], wg = r[2], nargs = r[3];
      std::optional<k100::runtime::KernelInfo> k =
          id <= uint64_t(INT32_MAX) ? rt.kernel_by_id(int(id)) : std::nullopt;
      if (!k)
        throw RuntimeError(ErrorCode::UnknownKernel,
                           where + "no kernel with id " + std::to_string(id));
      if (nargs > 4096 || nargs != k->explicit_args)
        throw RuntimeError(ErrorCode::WrongArgCount, where + "kernel '" + k->lookup + "' takes " +
                                                         std::to_string(k->explicit_args) +
                                                         " explicit arguments, " +
                                                         std::to_string(int64_t(nargs)) + " given");
      if (grid > UINT32_MAX || wg > UINT32_MAX)
        throw RuntimeError(ErrorCode::InvalidLaunch,
                           where + "grid or workgroup does not fit 32 bits");
      try {
        rt.launch(*k, Dim3{uint32_t(grid), 1, 1}, Dim3{uint32_t(wg), 1, 1}, {r + 4, size_t(nargs)});
      } catch (const RuntimeError& e) {
        throw RuntimeError(e.code(), where + e.what());
      }
      r += 4 + nargs;
    }
    return 0;
  });
  if (env_flag("RT_HSART_PROF")) {
    double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "k100 prof: fm_launch_batch %d/%d records submitted in %.1f us\n", done,
                 nrec, us);
  }
  return done;
}

FM_API int fm_catalog_json(const char* hsaco, char* buf, size_t cap) {
  return guarded("fm_catalog_json", [&](Runtime& rt) {
    std::string origin;
    if (hsaco && *hsaco) {
      auto it = g_loaded.find(canonical(hsaco));
      if (it == g_loaded.end())
        throw RuntimeError(ErrorCode::Package,
                           std::string("fm_catalog_json: ") + hsaco + " is not loaded");
      origin = it->second;
    }
    std::string json = rt.catalog_json(origin);
    if (buf && cap) {
      size_t n = std::min(cap - 1, json.size());
      std::memcpy(buf, json.data(), n);
      buf[n] = 0;
    }
    if (json.size() > size_t(INT32_MAX))
      throw RuntimeError(ErrorCode::InvalidArgument, "catalog too large");
    return int(json.size());
  });
}

FM_API int fm_event_record(void) {
  return guarded("fm_event_record", [&](Runtime& rt) {
    k100::runtime::Event e = rt.record_event();
    std::lock_guard l(g_events_mutex);
    int id = g_next_event++;
    if (g_next_event < 0) g_next_event = 0;
    g_events[id] = std::move(e);
    return id;
  });
}

FM_API int fm_event_elapsed(int start, int end, double* ms) {
  return guarded("fm_event_elapsed", [&](Runtime& rt) {
    k100::runtime::Event a, b;
    {
      std::lock_guard l(g_events_mutex);
      auto ia = g_events.find(start), ib = g_events.find(end);
      if (ia == g_events.end() || ib == g_events.end())
        throw RuntimeError(
            ErrorCode::InvalidArgument,
            "fm_event_elapsed: no event " + std::to_string(ia == g_events.end() ? start : end));
      a = ia->second;
      b = ib->second;
    }
    double v = rt.elapsed_ms(a, b);
    if (ms) *ms = v;
    return 0;
  });
}

FM_API int fm_event_release(int event) {
  std::lock_guard l(g_events_mutex);
  if (g_events.erase(event)) return 0;
  set_error("fm_event_release: no event " + std::to_string(event));
  return FM_ERR;
}
