// emu::Device: memory API, loading code images, and the dispatch (AQL packet,
// kernarg segment with hidden arguments, queue, scratch, host threads).
#include "k100/emu/device.h"

#include <algorithm>
#include <chrono>
#include <shared_mutex>
#include <thread>

#include "core.h"
#include "k100/base/error.h"
#include "k100/emu/loader.h"

namespace k100::emu {

using detail::DeviceMemory;

struct Device::Impl {
  mutable std::shared_mutex mutex;
  DeviceMemory mem;
  std::atomic<uint64_t> next_dispatch_id{1};
  // Dispatches running now, for cancel(): their stop flag and whether
  // cancel() raised it.
  struct Running {
    detail::DispatchShared* dispatch;
    bool cancelled;
  };
  std::mutex running_mutex;
  std::vector<Running> running;
};

Device::Device() : impl_(std::make_shared<Impl>()) {}

Program::Impl::~Impl() {
  if (auto dev = device.lock()) {
    std::unique_lock lock(dev->mutex);
    if (dev->mem.find(base)) dev->mem.release(base);
  }
}
Device::~Device() = default;

namespace {
std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

detail::Allocation& checked_range(const DeviceMemory& mem, uint64_t address, uint64_t size, const char* what) {
  detail::Allocation* a = mem.find(address);
  if (!a || address + size > a->end() || address + size < address) {
    Fault f;
    mem.diagnose(address, size, false, f);
    throw Error(std::string("emu: ") + what + " of " + std::to_string(size) + " bytes at " + hex(address) +
                ": " + f.message);
  }
  return *a;
}
}  // namespace

uint64_t Device::alloc(uint64_t size, std::string label, uint64_t align) {
  std::unique_lock lock(impl_->mutex);
  return impl_->mem.create(size, std::move(label), align, false).base;
}

void Device::free(uint64_t address) {
  std::unique_lock lock(impl_->mutex);
  impl_->mem.release(address);
}

void Device::write(uint64_t address, std::span<const uint8_t> bytes) {
  std::shared_lock lock(impl_->mutex);
  if (bytes.empty()) return;
  detail::Allocation& a = checked_range(impl_->mem, address, bytes.size(), "write");
  std::memcpy(a.data.get() + (address - a.base), bytes.data(), bytes.size());
}

void Device::read(uint64_t address, std::span<uint8_t> bytes) const {
  std::shared_lock lock(impl_->mutex);
  if (bytes.empty()) return;
  detail::Allocation& a = checked_range(impl_->mem, address, bytes.size(), "read");
  std::memcpy(bytes.data(), a.data.get() + (address - a.base), bytes.size());
}

void Device::fill(uint64_t address, uint8_t value, uint64_t size) {
  std::shared_lock lock(impl_->mutex);
  if (!size) return;
  detail::Allocation& a = checked_range(impl_->mem, address, size, "fill");
  std::memset(a.data.get() + (address - a.base), value, size);
}

std::optional<AllocationInfo> Device::find_allocation(uint64_t address) const {
  std::shared_lock lock(impl_->mutex);
  if (detail::Allocation* a = impl_->mem.find(address)) return a->info();
  return std::nullopt;
}

std::vector<AllocationInfo> Device::allocations() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->mem.list();
}

uint64_t Device::bytes_allocated() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->mem.bytes_live();
}

// ------------------------------------------------------------------- load ---

std::shared_ptr<const Program> Device::load(CodeImage image) {
  if (image.code_end > image.bytes.size() || image.code_begin > image.code_end || (image.code_begin & 3))
    throw Error("emu: code image '" + image.origin + "' has an invalid code range");
  for (const KernelSpec& k : image.kernels)
    if (k.entry < image.code_begin || k.entry >= image.code_end || (k.entry & 3))
      throw Error("emu: kernel '" + k.name + "' of '" + image.origin + "' has its entry " + hex(k.entry) +
                  " outside the code");
  auto impl = std::make_unique<Program::Impl>();
  {
    std::unique_lock lock(impl_->mutex);
    detail::Allocation& a = impl_->mem.create(image.bytes.size(), "code object " + image.origin, 4096, false);
    std::memcpy(a.data.get(), image.bytes.data(), image.bytes.size());
    for (const CodeImage::Relocation& r : image.relative_relocations) {
      if (r.offset + 8 > a.size) throw Error("emu: relocation outside the image of '" + image.origin + "'");
      uint64_t v = a.base + uint64_t(r.addend);
      std::memcpy(a.data.get() + r.offset, &v, 8);
    }
    a.read_only = !image.writable;
    impl->base = a.base;
    impl->device = impl_;
  }
  impl->code_begin = image.code_begin;
  impl->code_end = image.code_end;
  size_t n = size_t((image.code_end - image.code_begin + 3) / 4);
  impl->ops.reset(new detail::Op[n ? n : 1]);
  impl->ready.reset(new std::atomic<uint8_t>[n ? n : 1]);
  for (size_t i = 0; i < n; ++i) impl->ready[i].store(0, std::memory_order_relaxed);
  impl->image = std::move(image);
  // Linear sweep; anything reached otherwise is decoded on first execution.
  unsigned vmax = 0;
  bool indirect = false;
  for (uint64_t pc = impl->code_begin; pc + 4 <= impl->code_end;) {
    impl->decode_at(pc);
    const detail::Op& op = impl->ops[size_t((pc - impl->code_begin) >> 2)];
    if (op.valid && !op.raw_smem) {
      for (int k = 0; k < op.inst.num_operands; ++k) {
        const isa::Operand& o = op.inst.ops[size_t(k)];
        if (o.is_vgpr()) vmax = std::max(vmax, o.vgpr_index() + std::max<unsigned>(o.width, 1) + 1);
      }
      if (op.inst.atomic_dst.is_vgpr()) vmax = std::max(vmax, op.inst.atomic_dst.vgpr_index() + 2u);
      const std::string& name = op.inst.desc().name;
      if (name.starts_with("v_movrel") || name == "s_set_gpr_idx_on") indirect = true;
    }
    pc += op.valid ? op.size : 4;
  }
  impl->vgprs_referenced = indirect ? 256 : std::min(vmax, 256u);
  return std::shared_ptr<const Program>(new Program(std::move(impl)));
}

std::shared_ptr<const Program> Device::load_code_object(std::span<const uint8_t> elf, std::string origin) {
  return load(image_from_code_object(elf, std::move(origin)));
}

std::shared_ptr<const Program> Device::load_code_object_file(const std::string& path) {
  return load(image_from_code_object_file(path));
}

// --------------------------------------------------------------- dispatch ---

LaunchConfig LaunchConfig::groups(Dim3 groups, Dim3 workgroup) {
  LaunchConfig c;
  c.workgroup = workgroup;
  c.grid = {groups.x * workgroup.x, groups.y * workgroup.y, groups.z * workgroup.z};
  return c;
}

const DispatchResult& DispatchResult::check() const {
  if (fault) throw FaultError(*fault);
  return *this;
}

namespace {

void put(std::vector<uint8_t>& buf, uint32_t offset, uint32_t size, uint64_t value) {
  if (offset + size > buf.size()) return;
  for (uint32_t i = 0; i < size && i < 8; ++i) buf[offset + i] = uint8_t(value >> (8 * i));
}
void put_at(std::vector<uint8_t>& buf, uint32_t offset, uint64_t value, uint32_t size) { put(buf, offset, size, value); }

}  // namespace

DispatchResult Device::dispatch(const Program& program, std::string_view kernel_name, const LaunchConfig& launch,
                                std::span<const uint8_t> kernarg, const DispatchOptions& options) {
  const Program::Impl& prog = program.impl();
  const KernelSpec* k = prog.image.find_kernel(kernel_name);
  if (!k) {
    std::string names;
    for (const KernelSpec& x : prog.image.kernels) names += (names.empty() ? "" : ", ") + x.name;
    throw Error("emu: code object '" + prog.image.origin + "' has no kernel '" + std::string(kernel_name) +
                "' (kernels: " + names + ")");
  }
  const Dim3 grid = launch.grid, ws = launch.workgroup;
  if (!grid.x || !grid.y || !grid.z) throw Error("emu: kernel '" + k->name + "': the grid size has a zero dimension");
  if (!ws.x || !ws.y || !ws.z) throw Error("emu: kernel '" + k->name + "': the workgroup size has a zero dimension");
  if (ws.volume() > 1024)
    throw Error("emu: kernel '" + k->name + "': workgroup of " + std::to_string(ws.volume()) +
                " work-items exceeds 1024");
  if (k->max_flat_workgroup_size && ws.volume() > k->max_flat_workgroup_size)
    throw Error("emu: kernel '" + k->name + "': workgroup of " + std::to_string(ws.volume()) +
                " work-items exceeds the " + std::to_string(k->max_flat_workgroup_size) +
                " its code was built for (metadata .max_flat_workgroup_size)");
  if (ws.x > 0xffff || ws.y > 0xffff || ws.z > 0xffff) throw Error("emu: kernel '" + k->name + "': workgroup dimension over 65535");
  uint64_t lds = uint64_t(k->group_segment_fixed_size) + launch.dynamic_lds;
  if (lds > 65536)
    throw Error("emu: kernel '" + k->name + "' needs " + std::to_string(lds) + " bytes of LDS; the device has 65536");

  auto shared = std::make_unique<detail::DispatchShared>();
  detail::DispatchShared& d = *shared;
  d.mem = &impl_->mem;
  d.prog = &prog;
  d.kernel = k;
  d.launch = launch;
  d.groups = {(grid.x + ws.x - 1) / ws.x, (grid.y + ws.y - 1) / ws.y, (grid.z + ws.z - 1) / ws.z};
  d.lds_size = uint32_t(lds);
  d.private_size = (k->private_segment_fixed_size + 3) & ~3u;
  d.max_waves = uint32_t((ws.volume() + 63) / 64);
  d.detailed = options.detailed_profile;
  if (d.detailed) d.regions = options.line_regions;
  d.trace = options.trace && options.trace->out ? options.trace : nullptr;
  d.checks = options.checks;
  d.schedule = options.schedule;
  d.observer = options.observer;
  d.budget.store(options.instruction_budget);
  d.budget_total = options.instruction_budget;
  d.notice_after = options.notice_after_seconds;
  d.dispatch_id = impl_->next_dispatch_id.fetch_add(1);
  // MODE from COMPUTE_PGM_RSRC1: rounding, denormals, DX10 clamp, IEEE.
  uint32_t r1 = k->rsrc1;
  d.mode = ((r1 >> 12) & 3) | ((r1 >> 14) & 3) << 2 | ((r1 >> 16) & 3) << 4 | ((r1 >> 18) & 3) << 6 |
           ((r1 >> 21) & 1) << 8 | ((r1 >> 23) & 1) << 9;
  unsigned granted = ((r1 & 0x3f) + 1) * 4;
  d.vgprs_to_clear = std::min(256u, std::max(granted, prog.vgprs_referenced));
  uint32_t dims = launch.dims ? launch.dims : grid.z > 1 ? 3 : grid.y > 1 ? 2 : 1;
  uint64_t total = uint64_t(d.groups.x) * d.groups.y * d.groups.z;

  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (d.trace) threads = 1;
  threads = unsigned(std::min<uint64_t>(threads, total));

  // Segments in device memory.
  // Rounded up like the runtime's kernarg pool slots: compilers may widen
  // scalar loads of the last arguments past the segment's exact end.
  uint32_t karg_size = (std::max<uint32_t>({k->kernarg_size, uint32_t(kernarg.size()), 8u}) + 255) & ~255u;
  std::vector<uint64_t> scratch_slots;
  {
    std::unique_lock lock(impl_->mutex);
    d.kernarg_address = impl_->mem.create(karg_size, "kernarg segment of " + k->name, 256, false).base;
    d.packet_address = impl_->mem.create(64, "dispatch packet", 64, false).base;
    d.queue_address = impl_->mem.create(256, "queue", 256, false).base;
    if (d.private_size)
      for (unsigned t = 0; t < threads; ++t)
        for (unsigned w = 0; w < d.max_waves; ++w)
          scratch_slots.push_back(impl_->mem
                                      .create(uint64_t(d.private_size) * 64,
                                              "scratch (host thread " + std::to_string(t) + ", wave slot " +
                                                  std::to_string(w) + ")",
                                              256, false)
                                      .base);
  }
  auto release = [&] {
    std::unique_lock lock(impl_->mutex);
    impl_->mem.release(d.kernarg_address);
    impl_->mem.release(d.packet_address);
    impl_->mem.release(d.queue_address);
    for (uint64_t s : scratch_slots) impl_->mem.release(s);
  };

  {
    std::lock_guard lk(impl_->running_mutex);
    impl_->running.push_back({&d, false});
  }
  // Leaves the running list; true when cancel() stopped the dispatch.
  auto finish = [&] {
    std::lock_guard lk(impl_->running_mutex);
    auto& r = impl_->running;
    auto it = std::find_if(r.begin(), r.end(), [&](const Impl::Running& x) { return x.dispatch == &d; });
    bool cancelled = it != r.end() && it->cancelled;
    if (it != r.end()) r.erase(it);
    return cancelled;
  };

  DispatchResult result;
  try {
    // Kernarg segment: explicit bytes, then hidden arguments as the runtime fills them.
    std::vector<uint8_t> ka(karg_size, 0);
    std::copy(kernarg.begin(), kernarg.end(), ka.begin());
    if (options.fill_hidden_args)
      for (const KernelArg& a : k->args) {
        uint64_t v = 0;
        switch (a.kind) {
          case ArgKind::HiddenGlobalOffsetX: v = launch.global_offset[0]; break;
          case ArgKind::HiddenGlobalOffsetY: v = launch.global_offset[1]; break;
          case ArgKind::HiddenGlobalOffsetZ: v = launch.global_offset[2]; break;
          // Full workgroups only: the device libraries add one when the remainder is non-zero.
          case ArgKind::HiddenBlockCountX: v = grid.x / ws.x; break;
          case ArgKind::HiddenBlockCountY: v = grid.y / ws.y; break;
          case ArgKind::HiddenBlockCountZ: v = grid.z / ws.z; break;
          case ArgKind::HiddenGroupSizeX: v = ws.x; break;
          case ArgKind::HiddenGroupSizeY: v = ws.y; break;
          case ArgKind::HiddenGroupSizeZ: v = ws.z; break;
          case ArgKind::HiddenRemainderX: v = grid.x % ws.x; break;
          case ArgKind::HiddenRemainderY: v = grid.y % ws.y; break;
          case ArgKind::HiddenRemainderZ: v = grid.z % ws.z; break;
          case ArgKind::HiddenGridDims: v = dims; break;
          case ArgKind::HiddenQueuePtr: v = d.queue_address; break;
          case ArgKind::HiddenPrivateBase: v = kPrivateApertureBase >> 32; break;
          case ArgKind::HiddenSharedBase: v = kSharedApertureBase >> 32; break;
          case ArgKind::HiddenDynamicLdsSize: v = launch.dynamic_lds; break;
          default:
            if (!is_hidden(a.kind)) continue;
            v = 0;  // hidden_none, hostcall, printf, heap, multigrid, queues: not provided
        }
        put(ka, a.offset, a.size, v);
      }
    // hsa_kernel_dispatch_packet_t
    std::vector<uint8_t> pkt(64, 0);
    put_at(pkt, 0, 2 | 1u << 8 | 2u << 9 | 2u << 11, 2);  // KERNEL_DISPATCH, barrier, system scopes
    put_at(pkt, 2, dims, 2);
    put_at(pkt, 4, ws.x, 2);
    put_at(pkt, 6, ws.y, 2);
    put_at(pkt, 8, ws.z, 2);
    put_at(pkt, 12, grid.x, 4);
    put_at(pkt, 16, grid.y, 4);
    put_at(pkt, 20, grid.z, 4);
    put_at(pkt, 24, d.private_size, 4);
    put_at(pkt, 28, d.lds_size, 4);
    put_at(pkt, 32, prog.base + k->entry, 8);
    put_at(pkt, 40, d.kernarg_address, 8);
    // amd_queue_t (the fields code may read)
    std::vector<uint8_t> q(256, 0);
    put_at(q, 4, 1, 4);     // features: kernel dispatch
    put_at(q, 24, 64, 4);   // size in packets
    put_at(q, 32, 1, 8);    // id
    put_at(q, 64, kSharedApertureBase >> 32, 4);
    put_at(q, 68, kPrivateApertureBase >> 32, 4);
    put_at(q, 72, 119, 4);  // max_cu_id (120 CUs)
    put_at(q, 76, 39, 4);   // max_wave_id
    put_at(q, 176, d.private_size, 4);
    write(d.kernarg_address, ka);
    write(d.packet_address, pkt);
    write(d.queue_address, q);

    std::atomic<uint64_t> next{0};
    std::vector<Profile> profiles(threads);
    if (d.observer) {
      ObservedDispatch observed = detail::observed_dispatch(d);
      {
        std::shared_lock lock(impl_->mutex);
        for (const AllocationInfo& a : impl_->mem.list()) observed.allocations.push_back({a.address, a.size});
      }
      d.observer->dispatch_begin(observed);
    }
    auto start = std::chrono::steady_clock::now();
    d.start = start;
    {
      std::shared_lock lock(impl_->mutex);
      auto worker = [&](unsigned t) {
        detail::Exec e(d);
        e.lds.assign(d.lds_size, 0);
        e.lds_size = d.lds_size;
        if (d.checks.lds_races) e.lds_shadow.assign((d.lds_size + 3) / 4, detail::LdsShadow{});
        e.waves.reserve(d.max_waves);
        for (unsigned w = 0; w < d.max_waves; ++w) e.waves.push_back(std::make_unique<detail::Wave>());
        if (!scratch_slots.empty())
          e.scratch_slots.assign(scratch_slots.begin() + std::ptrdiff_t(t * d.max_waves),
                                 scratch_slots.begin() + std::ptrdiff_t((t + 1) * d.max_waves));
        try {
          for (;;) {
            if (d.stop.load(std::memory_order_relaxed)) break;
            uint64_t idx = next.fetch_add(1);
            if (idx >= total) break;
            detail::run_workgroup(e, idx);
          }
        } catch (const std::exception& ex) {  // host-side failure (out of memory, ...)
          std::lock_guard<std::mutex> lk(d.fault_mutex);
          if (!d.fault) {
            Fault f;
            f.kind = FaultKind::Trap;
            f.kernel = k->name;
            f.code_object = prog.image.origin;
            f.message = std::string("emulator failure: ") + ex.what();
            d.fault = f;
          }
          d.stop.store(true);
        }
        profiles[t] = e.prof;
        if (d.detailed) {
          std::lock_guard<std::mutex> lk(d.lines_mutex);
          for (const auto& [line, access] : e.lines) d.lines[line] |= access;
        }
      };
      if (threads == 1) {
        worker(0);
      } else {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
        for (auto& th : pool) th.join();
      }
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (d.observer) d.observer->dispatch_end(d.fault.has_value());
    for (const Profile& p : profiles) result.profile.merge(p);
    result.profile.detailed = d.detailed;
    result.profile.distinct_lines = d.lines.size();
    for (const auto& [line, access] : d.lines) {
      result.profile.distinct_lines_read += (access & detail::kLineRead) != 0;
      result.profile.distinct_lines_written += (access & detail::kLineWritten) != 0;
    }
    if (!d.regions.empty()) {
      result.profile.regions.resize(d.regions.size());
      for (const auto& [line, access] : d.lines)
        for (size_t r = 0; r < d.regions.size(); ++r)
          if (detail::line_in_range(line, d.regions[r])) ++result.profile.regions[r].distinct;
    }
    result.fault = d.fault;
  } catch (...) {
    finish();
    release();
    throw;
  }
  if (finish() && !result.fault) {
    Fault f;
    f.kind = FaultKind::Cancelled;
    f.kernel = k->name;
    f.code_object = prog.image.origin;
    f.message = "the dispatch was cancelled before it completed (Device::cancel)";
    result.fault = f;
  }
  release();
  return result;
}

void Device::cancel() {
  std::lock_guard lk(impl_->running_mutex);
  for (auto& r : impl_->running) {
    r.cancelled = true;
    r.dispatch->stop.store(true);
  }
}

// -------------------------------------------------------------- kernargs ---

KernargBuilder::KernargBuilder(const KernelSpec& kernel)
    : kernel_(kernel), bytes_(std::max(kernel.kernarg_size, kernel.explicit_size()), 0) {}

KernargBuilder& KernargBuilder::set(size_t index, std::span<const uint8_t> bytes) {
  auto args = kernel_.explicit_args();
  if (index >= args.size())
    throw Error("emu: kernel '" + kernel_.name + "' has " + std::to_string(args.size()) +
                " explicit arguments; argument " + std::to_string(index) + " does not exist");
  const KernelArg& a = *args[index];
  if (bytes.size() != a.size)
    throw Error("emu: kernel '" + kernel_.name + "' argument " + std::to_string(index) +
                (a.name.empty() ? "" : " ('" + a.name + "')") + " is " + std::to_string(a.size) +
                " bytes, got " + std::to_string(bytes.size()));
  std::copy(bytes.begin(), bytes.end(), bytes_.begin() + a.offset);
  return *this;
}

}  // namespace k100::emu
