// One workgroup: initial wave state per the HSA ABI (user and system SGPRs,
// workitem-id VGPRs, EXEC, MODE, apertures, scratch), then the waves run in
// turn until each reaches s_barrier or s_endpgm; a barrier is released once
// every live wave has arrived. A fault stops the dispatch with a report.
#include <algorithm>
#include <cstring>

#include "core.h"

namespace k100::emu::detail {

namespace {

// The private segment buffer descriptor as the HSA runtime sets it for gfx9:
// swizzled, element size 4, index stride 64, thread id added to the index.
// num_records is left open: the allocation checks catch overflows.
std::array<uint32_t, 4> scratch_descriptor(uint64_t base) {
  uint32_t d1 = uint32_t(base >> 32) & 0xffff;
  d1 |= 1u << 31;  // swizzle enable, stride 0
  uint32_t d3 = 4u | 5u << 3 | 6u << 6 | 7u << 9;  // dst_sel x y z w
  d3 |= 4u << 12;   // BUF_NUM_FORMAT_UINT
  d3 |= 4u << 15;   // BUF_DATA_FORMAT_32
  d3 |= 1u << 19;   // element size 4
  d3 |= 3u << 21;   // index stride 64
  d3 |= 1u << 23;   // add thread id
  return {uint32_t(base), d1, 0xffffffffu, d3};
}

void init_wave(Exec& e, Wave& w, uint32_t i, uint64_t items) {
  const DispatchShared& d = e.d;
  const KernelSpec& k = *d.kernel;
  WaveState& s = w.s;
  s.sgpr.fill(0);
  for (unsigned r = 0; r < d.vgprs_to_clear; ++r) s.vgpr[r].fill(0);
  s.scc = false;
  s.mode = d.mode;
  s.pc = k.entry;
  s.trap_status = 0;
  s.shared_base = kSharedApertureBase;
  s.shared_limit = kSharedApertureBase + 0xffffffffull;
  s.private_base = kPrivateApertureBase;
  s.private_limit = kPrivateApertureBase + 0xffffffffull;
  w.index = i;
  w.done = false;
  w.retired = 0;
  w.lanes = uint32_t(std::min<uint64_t>(64, items - uint64_t(i) * 64));
  s.set_exec(w.lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << w.lanes) - 1);
  w.scratch_base = i < e.scratch_slots.size() ? e.scratch_slots[i] : 0;
  w.scratch_size = uint64_t(d.private_size) * 64;

  // User SGPRs, in the order of the kernel_code_properties enable bits.
  unsigned u = 0;
  uint16_t p = k.properties;
  auto put64 = [&](uint64_t v) {
    if (u + 1 < 102) s.set_sgpr64(u, v);
    u += 2;
  };
  if (p & 0x01) {
    auto desc = scratch_descriptor(w.scratch_base);
    for (unsigned j = 0; j < 4; ++j) s.sgpr[u + j] = desc[j];
    u += 4;
  }
  if (p & 0x02) put64(d.packet_address);
  if (p & 0x04) put64(d.queue_address);
  if (p & 0x08) put64(d.kernarg_address);
  if (p & 0x10) put64(d.dispatch_id);
  if (p & 0x20) put64(w.scratch_base);  // flat scratch init: this wave's base (wave offset 0)
  if (p & 0x40) s.sgpr[u++] = d.private_size;
  // System SGPRs follow USER_SGPR_COUNT.
  unsigned sys = (k.rsrc2 >> 1) & 31;
  auto put = [&](uint32_t v) {
    if (sys < 102) s.sgpr[sys] = v;
    ++sys;
  };
  if (k.rsrc2 & (1u << 7)) put(e.wg[0]);
  if (k.rsrc2 & (1u << 8)) put(e.wg[1]);
  if (k.rsrc2 & (1u << 9)) put(e.wg[2]);
  if (k.rsrc2 & (1u << 10)) put((i == 0 ? 1u << 31 : 0u) | (e.nwaves & 0x3f));
  if (k.rsrc2 & 1u) put(0);  // private segment wave byte offset
  // Workitem ids (gfx9: one VGPR per dimension).
  unsigned wid = (k.rsrc2 >> 11) & 3;
  uint32_t ax = e.wg_size[0], ay = e.wg_size[1];
  for (uint32_t l = 0; l < w.lanes; ++l) {
    uint64_t flat = uint64_t(i) * 64 + l;
    s.vgpr[0][l] = uint32_t(flat % ax);
    if (wid >= 1) s.vgpr[1][l] = uint32_t((flat / ax) % ay);
    if (wid >= 2) s.vgpr[2][l] = uint32_t(flat / (uint64_t(ax) * ay));
  }
  reset_checks(w);
  w.trace = false;
  w.trace_lanes = 0;
  if (d.trace)
    for (const TraceFilter& f : d.trace->filters)
      if ((f.workgroup < 0 || uint64_t(f.workgroup) == e.wg_flat) && (f.wave < 0 || uint64_t(f.wave) == i)) {
        w.trace = true;
        w.trace_lanes |= f.lanes;
      }
}

void record_fault(Exec& e, const Wave* w, Fault f) {
  DispatchShared& d = e.d;
  f.kernel = d.kernel->name;
  f.code_object = d.prog->image.origin;
  f.workgroup = e.wg;
  if (w) {
    f.wave = w->index;
    f.pc = w->s.pc;
    f.pc_address = d.prog->base + w->s.pc;
    if (f.kind != FaultKind::BadPc) {
      try {
        const Op& op = d.prog->fetch(w->s.pc);
        f.instruction = op.text();
        f.encoding = op.encoding_hex();
      } catch (...) {
      }
    }
  }
  std::lock_guard<std::mutex> lock(d.fault_mutex);
  if (!d.fault) d.fault = std::move(f);
  d.stop.store(true);
}

}  // namespace

void run_workgroup(Exec& e, uint64_t index) {
  DispatchShared& d = e.d;
  const Dim3 g = d.groups, ws = d.launch.workgroup, grid = d.launch.grid;
  e.wg = {uint32_t(index % g.x), uint32_t((index / g.x) % g.y), uint32_t(index / (uint64_t(g.x) * g.y))};
  e.wg_flat = index;
  e.wg_size = {std::min(ws.x, grid.x - e.wg[0] * ws.x), std::min(ws.y, grid.y - e.wg[1] * ws.y),
               std::min(ws.z, grid.z - e.wg[2] * ws.z)};
  uint64_t items = uint64_t(e.wg_size[0]) * e.wg_size[1] * e.wg_size[2];
  e.nwaves = uint32_t((items + 63) / 64);
  std::fill(e.lds.begin(), e.lds.end(), uint8_t(0));
  // Fresh zeroed scratch for every workgroup, so results never depend on
  // which thread ran which workgroup before.
  if (d.private_size)
    for (uint32_t i = 0; i < e.nwaves && i < e.scratch_slots.size(); ++i)
      if (uint8_t* p = translate(e.mem, e.cache, e.scratch_slots[i], uint64_t(d.private_size) * 64, true))
        std::memset(p, 0, uint64_t(d.private_size) * 64);
  for (uint32_t i = 0; i < e.nwaves; ++i) init_wave(e, *e.waves[i], i, items);
  if (d.observer) e.obs = d.observer->workgroup_begin(index, e.nwaves);

  Wave* current = nullptr;
  ++e.epoch;  // a fresh LDS race epoch: nothing of an earlier workgroup matches it
  try {
    uint32_t live = e.nwaves;
    if (d.schedule.kind == Schedule::Random) {
      // Between barriers, run a randomly chosen wave for a random slice of
      // instructions at a time. The seed mixes the workgroup index so each
      // workgroup interleaves differently but reproducibly, on any thread.
      uint64_t state = d.schedule.seed ^ (index + 1) * 0x9e3779b97f4a7c15ull;
      auto next = [&state] {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
      };
      std::vector<uint32_t> ready;
      while (live) {
        ready.clear();
        for (uint32_t i = 0; i < e.nwaves; ++i)
          if (!e.waves[i]->done) ready.push_back(i);
        while (!ready.empty()) {
          size_t pick = size_t(next() % ready.size());
          Wave& w = *e.waves[ready[pick]];
          current = &w;
          Step st = run_wave(e, w, 1 + next() % 16);
          if (st == Step::Next) continue;
          if (st == Step::End) {
            w.done = true;
            --live;
          }
          ready[pick] = ready.back();
          ready.pop_back();
        }
        ++e.epoch;  // every live wave is at the barrier: it releases
      }
    } else {
      while (live) {
        for (uint32_t i = 0; i < e.nwaves; ++i) {
          Wave& w = *e.waves[i];
          if (w.done) continue;
          current = &w;
          if (run_wave(e, w) == Step::End) {
            w.done = true;
            --live;
          }
        }
        ++e.epoch;
      }
    }
  } catch (const CoreFault& cf) {
    Fault f;
    f.kind = cf.kind;
    f.message = cf.message;
    f.lane = cf.lane;
    if (cf.address) {
      f.address = cf.address;
      f.access_size = cf.size;
      f.write = cf.write;
    }
    if (cf.device_address) e.mem.diagnose(*cf.address, cf.size, cf.write, f);
    f.rule = cf.rule;
    f.reg = cf.reg;
    f.other_pc = cf.other_pc;
    f.other_instruction = cf.other_text;
    f.other_wave = cf.other_wave;
    f.fix = cf.fix;
    record_fault(e, current, std::move(f));
  } catch (const StopSignal&) {
  } catch (const std::exception& err) {
    Fault f;
    f.kind = FaultKind::Trap;
    f.message = err.what();
    record_fault(e, current, std::move(f));
  }
  if (e.obs) d.observer->workgroup_end(e.obs), e.obs = nullptr;
  ++e.prof.workgroups;
  e.prof.waves += e.nwaves;
}

}  // namespace k100::emu::detail
