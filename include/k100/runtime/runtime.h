// k100lc runtime: k100::Runtime, the resident runtime of the toolkit.
//
// A Runtime opens one device (the emulator or a real gfx926/gfx906 agent,
// chosen by K100_BACKEND=auto|emu|hsa), loads kernel packages (by default the
// built k100lc_kernels.hsaco; several packages may be loaded, a kernel name
// defined twice is an error), and runs kernels by their catalog lookup name:
//
//   k100::Runtime rt;
//   uint64_t w = rt.alloc(n * k * 4), x = rt.alloc(k * 4), y = rt.alloc(n * 4);
//   rt.upload(w, W.data(), n * k * 4);  rt.upload(x, X.data(), k * 4);
//   rt.launch("gemv_f32_warp_k", n, 64, k100::runtime::args(w, x, y, n, k, 64));
//   rt.sync();                          // grid = n WORKGROUPS of 64 work-items
//   rt.download(Y.data(), y, n * 4);
//
// Launch semantics: `grid` counts workgroups per dimension (the dispatch's
// grid size is grid x workgroup); argv holds the explicit arguments only, one
// uint64 slot each (the low `size` bytes are used; f32 scalars as their bit
// pattern, see f32_arg/args); hidden arguments are filled by the runtime.
// Launches are asynchronous and run in order on one queue; upload() does not
// wait for queued launches, download()/copy()/memset()/free() wait for all of
// them, sync() waits for all of them.
//
// Errors are RuntimeError (a k100::Error) naming the kernel, argument index
// or buffer. A launch that fails on the device (an emulator fault, a queue
// error) is reported, with the fault report, by the next sync() - or
// download()/copy()/memset() - of the thread that submitted it.
//
// Thread safety: one Runtime may be used from any number of threads. Launches
// of one thread run in the order that thread made them; launches of different
// threads interleave in submission order. sync() waits for every launch
// submitted before it (by any thread) and reports the failures of the calling
// thread's launches. Loading packages may run concurrently with launches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "k100/runtime/backend.h"
#include "k100/runtime/error.h"
#include "k100/runtime/kernarg.h"
#include "k100/runtime/kernel_table.h"

namespace k100::runtime {

// An installed kernel package the including program is built against: the
// CMake package (find_package(k100lc)) defines it for k100lc::runtime users.
#ifndef K100LC_INSTALLED_PACKAGE
#define K100LC_INSTALLED_PACKAGE ""
#endif

struct RuntimeOptions {
  // Backend; Auto reads K100_BACKEND (auto when unset).
  BackendKind backend = BackendKind::Auto;
  bool backend_from_environment = true;  // false: `backend` as given, K100_BACKEND ignored
  // Packages to load, in order. Empty and default_package: the built kernel
  // package (see package_path.h); empty and !default_package: no kernels yet.
  std::vector<std::string> packages;
  bool default_package = true;
  // Where the default package is looked for after K100_BUILD_DIR (see package_path.h).
  std::string installed_package = K100LC_INSTALLED_PACKAGE;
  unsigned emu_threads = 0;  // host threads per emulated dispatch (0: K100_EMU_THREADS or all)
  // Wave-instructions an emulated dispatch may run before it faults (a
  // runaway loop); 0: K100_EMU_BUDGET or emu::kDefaultInstructionBudget.
  uint64_t emu_instruction_budget = 0;
  std::string hsa_library;   // "" = K100_HSA_LIB or the default search
};

// The argument layout of a dynamic launch (fm_launch_dyn): every entry,
// hidden ones included, and the segment sizes.
struct DynamicLayout {
  std::vector<LayoutEntry> layout;
  uint32_t group_segment = 0;    // LDS bytes (at least the kernel's own)
  uint32_t private_segment = 0;  // scratch bytes per work-item
  uint32_t kernarg_size = 0;
};

class Runtime;

// A point in the launch queue, timed when the device reaches it.
class Event {
 public:
  Event() = default;
  bool valid() const { return state_ != nullptr; }
  struct State;

 private:
  friend class Runtime;
  std::shared_ptr<State> state_;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();  // waits for queued launches
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  std::string backend_name() const;         // "emu" or "hsa"
  std::string backend_description() const;  // one line
  bool on_hardware() const;

  // ---- code objects
  // A package: its kernels join the lookup table (duplicates are errors). Returns its index.
  int load_package(const std::string& path);
  int load_package(std::span<const uint8_t> elf, const std::string& origin);
  // A module: loaded for launch_dynamic only (its names may repeat earlier ones;
  // the newest module wins). Returns its module index.
  int load_module(const std::string& path);
  int load_module(std::span<const uint8_t> elf, const std::string& origin);
  std::vector<std::string> packages() const;

  // ---- catalog
  KernelInfo kernel(
      std::string_view lookup) const;              // RuntimeError(UnknownKernel), with a suggestion
  bool has_kernel(std::string_view lookup) const;  // by lookup name only
  int kernel_id(std::string_view lookup) const;    // index in the table, -1 when unknown
  std::optional<KernelInfo> kernel_by_id(int id) const;
  std::vector<KernelInfo> kernels(std::string_view pattern = {}) const;  // lookup contains pattern
  // The catalog JSON (PYTHON_API.md §2.1, args with "type") of every loaded
  // package, or only of the package loaded from `origin`.
  std::string catalog_json(const std::string& origin = {}) const;

  // ---- memory
  uint64_t alloc(size_t bytes);  // zero bytes allocate one; RuntimeError(OutOfMemory)
  void free(uint64_t ptr);       // waits for queued launches; double free is an error
  void upload(uint64_t dst, const void* src, size_t bytes);
  void download(void* dst, uint64_t src, size_t bytes);
  void copy(uint64_t dst, uint64_t src, size_t bytes);
  void memset(uint64_t dst, int value, size_t bytes);
  // Size of the live buffer starting at ptr, 0 if there is none.
  size_t buffer_size(uint64_t ptr) const;

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

  // ---- launches (asynchronous, in order; grid counts workgroups)
  void launch(std::string_view lookup, uint32_t grid, uint32_t workgroup,
              std::span<const uint64_t> argv);
  void launch(std::string_view lookup, Dim3 grid, Dim3 workgroup, std::span<const uint64_t> argv,
              uint32_t dynamic_lds = 0);
  void launch(const KernelInfo& kernel, Dim3 grid, Dim3 workgroup, std::span<const uint64_t> argv,
              uint32_t dynamic_lds = 0);
  // By symbol, with the caller's layout (code objects compiled at run time).
  // `module` -1 searches every loaded code object, newest first; the symbol
  // may be given as "name", "name.kd" or "&name", or as a lookup name.
  void launch_dynamic(std::string_view symbol, Dim3 grid, Dim3 workgroup,
                      const DynamicLayout& layout, std::span<const uint64_t> argv, int module = -1);
  // Waits for every queued launch; throws the first failure of this thread's launches.
  void sync();
  // Waits at most `seconds` for every queued launch; true when none is left
  // (sync() then returns at once). Lets a caller stay responsive (Ctrl-C).
  bool wait_for(double seconds);
  // Stops every launch queued so far, of every thread: the running kernel
  // ends early, the others are dropped; the next sync() of each launching
  // thread throws RuntimeError(Cancelled). Returns when they are done. False
  // on hardware, where a running kernel cannot be stopped (nothing happens).
  bool cancel();
  // The emulator's instruction budget for later launches (wave-instructions
  // per dispatch; 0 restores the default). False on hardware, which has none.
  bool set_instruction_budget(uint64_t wave_instructions);
  uint64_t instruction_budget() const;  // 0 on hardware

  // ---- timing
  Event record_event();
  void wait(const Event& e);
  double elapsed_ms(const Event& start, const Event& end);

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

// ---- argv helpers: args(ptr, n, 1.5f) -> {ptr, n, f32 bits of 1.5}
inline uint64_t arg_slot(float v) {
  return f32_arg(v);
}
template <class T>
requires std::is_integral_v<T> || std::is_enum_v<T> uint64_t arg_slot(T v) {
  if constexpr (std::is_signed_v<T>)
    return uint64_t(int64_t(v));
  else
    return uint64_t(v);
}
template <class T>
uint64_t arg_slot(T* p) {
  return uint64_t(reinterpret_cast<uintptr_t>(p));
}
uint64_t arg_slot(double) = delete;  // say f32_arg(float(x)) or pass the f64 bits explicitly

template <class... A>
std::vector<uint64_t> args(A... a) {
  return {arg_slot(a)...};
}

}  // namespace k100::runtime

namespace k100 {
using Runtime = runtime::Runtime;
}
