#include "k100/runtime/emu_backend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>

#include "k100/base/error.h"
#include "k100/runtime/error.h"

namespace k100::runtime {
namespace {

struct MarkerCommand {};
struct Command {
  Ticket ticket = 0;
  std::variant<Dispatch, MarkerCommand> what;
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct EmuBackend::Impl {
  EmuBackendOptions options;
  // Emulator checks (on unless K100_EMU_CHECK turns them off) and the wave
  // schedule (K100_EMU_SCHEDULE), read once when the backend starts.
  emu::DispatchOptions checks;
  emu::Device device;

  std::mutex modules_mutex;
  std::vector<std::shared_ptr<const emu::Program>> modules;

  std::atomic<uint64_t> budget{emu::kDefaultInstructionBudget};

  mutable std::mutex mutex;
  std::condition_variable work_cv, done_cv;
  std::deque<Command> queue;
  Ticket last = 0, completed = 0;
  Ticket cancel_upto = 0;  // commands up to this ticket are cancelled
  bool stopping = false;
  std::map<Ticket, double> marker_times;
  std::vector<Failure> failures;
  std::thread worker;

  std::shared_ptr<const emu::Program> module(int m) {
    std::lock_guard lock(modules_mutex);
    if (m < 0 || size_t(m) >= modules.size()) return nullptr;
    return modules[size_t(m)];
  }

  struct Outcome {
    std::string failure;  // "" on success
    bool cancelled = false;
  };

  // Runs one dispatch.
  Outcome run(const Dispatch& d) {
    auto program = module(d.module);
    if (!program) return {"launch of kernel '" + d.label + "': no such code object module"};
    const emu::KernelSpec* k = program->find_kernel(d.symbol);
    if (!k)
      return {"launch of kernel '" + d.label + "': symbol '" + d.symbol + "' is not a kernel of " +
              program->image().origin};
    Dim3 items = d.geometry.grid_items();
    emu::LaunchConfig cfg;
    cfg.grid = {items.x, items.y, items.z};
    cfg.workgroup = {d.geometry.workgroup.x, d.geometry.workgroup.y, d.geometry.workgroup.z};
    cfg.dims = d.geometry.dims();
    cfg.dynamic_lds = d.group_segment > k->group_segment_fixed_size
                          ? d.group_segment - k->group_segment_fixed_size
                          : 0;
    emu::DispatchOptions opts;
    opts.threads = options.threads;
    opts.instruction_budget = budget.load();
    // Static launches: the emulator fills the hidden arguments from the metadata
    // (the same values, plus queue pointer and apertures); a caller's layout is
    // used exactly as given.
    opts.fill_hidden_args = !d.caller_layout;
    opts.checks = checks.checks;
    opts.schedule = checks.schedule;
    opts.notice_after_seconds = checks.notice_after_seconds;  // K100_EMU_NOTICE
    try {
      emu::DispatchResult r = device.dispatch(*program, d.symbol, cfg, d.kernarg, opts);
      if (r.fault && r.fault->kind == emu::FaultKind::Cancelled)
        return {"kernel '" + d.label + "' was cancelled while it ran", true};
      if (r.fault) return {"kernel '" + d.label + "' faulted on the emulator:\n" + r.fault->report()};
    } catch (const std::exception& e) {
      return {"launch of kernel '" + d.label + "' rejected by the emulator: " + e.what()};
    }
    return {};
  }

  void loop() {
    for (;;) {
      Command c;
      {
        std::unique_lock lock(mutex);
        work_cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;  // stopping and drained
        c = std::move(queue.front());
        queue.pop_front();
      }
      Outcome out;
      double t = 0;
      bool skip;
      {
        std::lock_guard lock(mutex);
        skip = c.ticket <= cancel_upto;
      }
      if (auto* d = std::get_if<Dispatch>(&c.what))
        out = skip ? Outcome{"kernel '" + d->label + "' was cancelled before it started", true} : run(*d);
      else
        t = now_seconds();
      std::lock_guard lock(mutex);
      if (std::holds_alternative<MarkerCommand>(c.what)) marker_times[c.ticket] = t;
      if (!out.failure.empty())
        failures.push_back({std::get<Dispatch>(c.what).origin, c.ticket, std::move(out.failure), out.cancelled});
      completed = c.ticket;
      done_cv.notify_all();
    }
  }

  Ticket push(Command c) {
    std::lock_guard lock(mutex);
    c.ticket = ++last;
    Ticket t = c.ticket;
    queue.push_back(std::move(c));
    work_cv.notify_one();
    return t;
  }
};

EmuBackend::EmuBackend(EmuBackendOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->budget.store(options.instruction_budget);
  emu::apply_environment(impl_->checks);
  impl_->worker = std::thread([this] { impl_->loop(); });
}

EmuBackend::~EmuBackend() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
    impl_->work_cv.notify_all();
  }
  impl_->worker.join();
}

std::string EmuBackend::description() const {
  unsigned t = impl_->options.threads ? impl_->options.threads
                                      : std::max(1u, std::thread::hardware_concurrency());
  return "emulator (gfx926 model, " + std::to_string(t) + " host thread" + (t == 1 ? "" : "s") +
         " per dispatch)";
}

emu::Device& EmuBackend::device() {
  return impl_->device;
}

int EmuBackend::load(std::span<const uint8_t> elf, const std::string& origin) {
  std::shared_ptr<const emu::Program> p;
  try {
    p = impl_->device.load_code_object(elf, origin);
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::Package, std::string("emulator could not load ") + e.what());
  }
  std::lock_guard lock(impl_->modules_mutex);
  impl_->modules.push_back(std::move(p));
  return int(impl_->modules.size() - 1);
}

uint64_t EmuBackend::alloc(uint64_t bytes) {
  try {
    return impl_->device.alloc(bytes, "runtime buffer");
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::OutOfMemory, e.what());
  }
}

void EmuBackend::free(uint64_t address) {
  try {
    impl_->device.free(address);
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::BadPointer, e.what());
  }
}

void EmuBackend::write(uint64_t dst, const void* src, size_t n) {
  try {
    impl_->device.write(dst, {static_cast<const uint8_t*>(src), n});
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::BadPointer, e.what());
  }
}

void EmuBackend::read(void* dst, uint64_t src, size_t n) {
  try {
    impl_->device.read(src, {static_cast<uint8_t*>(dst), n});
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::BadPointer, e.what());
  }
}

void EmuBackend::fill(uint64_t dst, uint8_t value, size_t n) {
  try {
    impl_->device.fill(dst, value, n);
  } catch (const std::exception& e) {
    throw RuntimeError(ErrorCode::BadPointer, e.what());
  }
}

void EmuBackend::copy(uint64_t dst, uint64_t src, size_t n) {
  constexpr size_t kChunk = size_t(8) << 20;
  std::vector<uint8_t> tmp(std::min(n, kChunk));
  for (size_t off = 0; off < n; off += kChunk) {
    size_t c = std::min(kChunk, n - off);
    read(tmp.data(), src + off, c);
    write(dst + off, tmp.data(), c);
  }
}

Ticket EmuBackend::submit(Dispatch d) {
  return impl_->push({0, std::move(d)});
}

Ticket EmuBackend::marker() {
  return impl_->push({0, MarkerCommand{}});
}

Ticket EmuBackend::last_ticket() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->last;
}

void EmuBackend::wait(Ticket t) {
  std::unique_lock lock(impl_->mutex);
  impl_->done_cv.wait(lock, [&] { return impl_->completed >= t; });
}

bool EmuBackend::wait_for(Ticket t, double seconds) {
  std::unique_lock lock(impl_->mutex);
  return impl_->done_cv.wait_for(lock, std::chrono::duration<double>(seconds),
                                 [&] { return impl_->completed >= t; });
}

bool EmuBackend::cancel() {
  Impl& m = *impl_;
  std::unique_lock lock(m.mutex);
  Ticket upto = m.last;
  m.cancel_upto = std::max(m.cancel_upto, upto);
  // The worker may be between taking a command and starting its dispatch,
  // so the running dispatch is stopped again until the queue got past `upto`.
  while (m.completed < upto) {
    lock.unlock();
    m.device.cancel();
    lock.lock();
    m.done_cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return m.completed >= upto; });
  }
  return true;
}

bool EmuBackend::set_instruction_budget(uint64_t wave_instructions) {
  impl_->budget.store(wave_instructions ? wave_instructions : emu::kDefaultInstructionBudget);
  return true;
}

uint64_t EmuBackend::instruction_budget() const {
  return impl_->budget.load();
}

double EmuBackend::marker_seconds(Ticket t) {
  wait(t);
  std::lock_guard lock(impl_->mutex);
  auto it = impl_->marker_times.find(t);
  if (it == impl_->marker_times.end())
    throw RuntimeError(ErrorCode::InvalidArgument,
                       "event " + std::to_string(t) + " is not a recorded event");
  return it->second;
}

void EmuBackend::forget_marker(Ticket t) {
  std::lock_guard lock(impl_->mutex);
  impl_->marker_times.erase(t);
}

std::vector<Failure> EmuBackend::take_failures() {
  std::lock_guard lock(impl_->mutex);
  return std::exchange(impl_->failures, {});
}

}  // namespace k100::runtime
