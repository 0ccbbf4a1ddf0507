// The scheduler: workgroups onto CUs, waves issuing on their SIMD's ports,
// memory operations through MemorySystem, all on one simulated clock (core
// cycles). Events are processed in time order (ties by wave slot), so the
// result depends only on the traces, never on the emulator's thread count
// or wave order.
#include "k100/timing/simulator.h"

#include <algorithm>
#include <queue>

#include "k100/base/error.h"
#include "limiter.h"
#include "memory_system.h"
#include "physical_layout.h"

namespace k100::timing {

namespace {

using detail::MemorySystem;

constexpr uint32_t kVmMax = 63;    // GFX9 vmcnt is 6 bits
constexpr uint32_t kLgkmMax = 15;  // lgkmcnt is 4 bits

struct Wave {
  const WaveTrace* tr = nullptr;
  const uint64_t* lines = nullptr;  // the trace's line runs at their physical addresses
  uint32_t op = 0;
  uint32_t group = 0;
  uint32_t cu = 0, simd = 0;
  bool at_barrier = false;
  double t = 0, born = 0;
  double vm[64];          // completion cycle of each outstanding vector memory operation
  uint32_t vm_depth[64];  // and its place in the wave's chain of dependent round trips
  uint32_t vm_head = 0, vm_n = 0;
  double vm_last = 0;
  // Dependent round trips the wave has waited for: an operation issued after
  // the wave waited for one of depth d has depth d + 1.
  uint32_t chain = 0;
  double lgkm[16];
  uint32_t lgkm_n = 0;
  double host_done = 0;  // when the wave's last host-memory request returns
};

struct Group {
  uint32_t live = 0, at_barrier = 0, nwaves = 0, cu = 0;
  uint32_t slots[16];
};

struct Simd {
  double valu_free = 0, salu_free = 0, valu_busy = 0, salu_busy = 0;
  uint32_t waves = 0, vgprs = 0, sgprs = 0;
};

struct Cu {
  double ta_free = 0, lds_free = 0, ta_busy = 0, lds_busy = 0;
  uint32_t lds = 0, groups = 0;
};

struct Event {
  double t;
  uint32_t wave;
  bool end;
  bool operator>(const Event& o) const { return t > o.t || (t == o.t && wave > o.wave); }
};

class Engine {
 public:
  Engine(const MachineParams& m, MemorySystem& mem, double interval_s)
      : m_(m), mem_(mem), interval_(m.cycles(interval_s)) {
    mem_.set_timeline_interval(interval_);
  }
  DispatchTiming run(const DispatchTrace& d, const detail::PhysicalLayout::Lines& lines);

 private:
  bool fits(uint32_t cu, uint32_t nwaves, uint32_t* simds);
  void place(uint32_t cu, double t);
  void place_on(uint32_t cu, double t);
  void step(uint32_t slot);
  void finish(uint32_t slot, double t);
  void release_barrier(Group& g);
  void push(uint32_t slot, double t, bool end = false) { events_.push(Event{t, slot, end}); }
  // Retires all but `allowed` outstanding vector memory operations: the cycle
  // the last of them completes, and (`depth`) the deepest of their chain depths.
  double wait_vm(Wave& w, uint32_t allowed, uint32_t* depth = nullptr);
  double wait_lgkm(Wave& w, uint32_t allowed);

  const MachineParams& m_;
  MemorySystem& mem_;
  const DispatchTrace* d_ = nullptr;
  const detail::PhysicalLayout::Lines* lines_ = nullptr;
  Occupancy occ_;
  uint32_t group_limit_ = 0;
  std::vector<Wave> waves_;
  std::vector<uint32_t> free_waves_;
  std::vector<Group> groups_;
  std::vector<uint32_t> free_groups_;
  std::vector<Simd> simds_;
  std::vector<Cu> cus_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t next_group_ = 0;
  double last_placed_ = 0, end_ = 0;
  // statistics (cycles)
  double wave_time_ = 0, wait_time_ = 0, inflight_ = 0;
  uint64_t round_trips_ = 0;
  struct {
    double cycles = 0;
    uint32_t round_trips = 0;
    uint64_t instructions = 0;
  } longest_;  // the wave that lived longest
  double issue_, valu_, quarter_, l2_latency_;
  const double interval_;  // cycles per timeline interval
  std::vector<uint32_t> started_, ended_;  // waves per interval
  void count(std::vector<uint32_t>& v, double t) {
    const size_t i = size_t(t / interval_);
    if (v.size() <= i) v.resize(i + 1, 0);
    ++v[i];
  }
};

bool Engine::fits(uint32_t cu, uint32_t nwaves, uint32_t* simds) {
  const Cu& c = cus_[cu];
  if (c.groups >= group_limit_ || c.lds + occ_.lds_alloc > m_.lds_bytes_per_cu) return false;
  uint32_t add[8] = {};
  const uint32_t n = m_.simds_per_cu;
  for (uint32_t k = 0; k < nwaves; ++k) {
    // The SIMD with the fewest waves that still has a slot and registers.
    int best = -1;
    for (uint32_t s = 0; s < n; ++s) {
      const Simd& x = simds_[cu * n + s];
      uint32_t w = x.waves + add[s];
      if (w >= occ_.waves_per_simd || x.vgprs + (add[s] + 1) * occ_.vgpr_alloc > m_.vgprs_per_simd_lane ||
          x.sgprs + (add[s] + 1) * occ_.sgpr_alloc > m_.sgprs_per_simd)
        continue;
      if (best < 0 || w < simds_[cu * n + uint32_t(best)].waves + add[best]) best = int(s);
    }
    if (best < 0) return false;
    ++add[best];
    simds[k] = uint32_t(best);
  }
  return true;
}

void Engine::place(uint32_t cu, double t) {
  const WorkgroupTrace& wg = d_->workgroups[next_group_];
  uint32_t g = free_groups_.back();
  free_groups_.pop_back();
  Group& G = groups_[g];
  G.nwaves = G.live = uint32_t(wg.waves.size());
  G.at_barrier = 0;
  G.cu = cu;
  uint32_t simds[16];
  fits(cu, G.nwaves, simds);
  Cu& c = cus_[cu];
  ++c.groups;
  c.lds += occ_.lds_alloc;
  for (uint32_t k = 0; k < G.nwaves; ++k) {
    uint32_t slot = free_waves_.back();
    free_waves_.pop_back();
    Wave& w = waves_[slot];
    w.tr = &wg.waves[k];
    w.lines = lines_->of(next_group_, k);
    w.op = 0;
    w.group = g;
    w.cu = cu;
    w.simd = simds[k];
    w.at_barrier = false;
    w.t = w.born = t;
    w.vm_head = w.vm_n = 0;
    w.vm_last = t;
    w.chain = 0;
    w.lgkm_n = 0;
    Simd& s = simds_[cu * m_.simds_per_cu + simds[k]];
    ++s.waves;
    s.vgprs += occ_.vgpr_alloc;
    s.sgprs += occ_.sgpr_alloc;
    G.slots[k] = slot;
    push(slot, t);
  }
  ++next_group_;
  last_placed_ = t;
}

// Workgroups in order onto `cu` while they fit (the CU that just freed resources).
void Engine::place_on(uint32_t cu, double t) {
  uint32_t simds[16];
  while (next_group_ < d_->workgroups.size() &&
         fits(cu, uint32_t(d_->workgroups[next_group_].waves.size()), simds))
    place(cu, t);
}

double Engine::wait_vm(Wave& w, uint32_t allowed, uint32_t* depth) {
  double t = 0;
  while (w.vm_n > allowed) {
    t = std::max(t, w.vm[w.vm_head]);
    if (depth) *depth = std::max(*depth, w.vm_depth[w.vm_head]);
    w.vm_head = (w.vm_head + 1) & 63;
    --w.vm_n;
  }
  return t;
}

// LDS and scalar memory may return out of order: waiting for at most
// `allowed` outstanding means waiting for all but the latest `allowed`.
double Engine::wait_lgkm(Wave& w, uint32_t allowed) {
  if (w.lgkm_n <= allowed) return 0;
  std::sort(w.lgkm, w.lgkm + w.lgkm_n);
  uint32_t drop = w.lgkm_n - allowed;
  double t = w.lgkm[drop - 1];
  std::copy(w.lgkm + drop, w.lgkm + w.lgkm_n, w.lgkm);
  w.lgkm_n = allowed;
  return t;
}

void Engine::release_barrier(Group& g) {
  if (!g.at_barrier || g.at_barrier != g.live) return;
  double t = 0;
  for (uint32_t k = 0; k < g.nwaves; ++k) {
    const Wave& w = waves_[g.slots[k]];
    if (w.at_barrier) t = std::max(t, w.t);
  }
  for (uint32_t k = 0; k < g.nwaves; ++k) {
    Wave& w = waves_[g.slots[k]];
    if (!w.at_barrier) continue;
    w.at_barrier = false;
    w.t = t;
    push(g.slots[k], t);
  }
  g.at_barrier = 0;
}

// Runs the wave's operations until it has to yield to an earlier event.
void Engine::step(uint32_t slot) {
  Wave& w = waves_[slot];
  Simd& S = simds_[w.cu * m_.simds_per_cu + w.simd];
  Cu& C = cus_[w.cu];
  const std::vector<TraceOp>& ops = w.tr->ops;
  const uint64_t* lines = w.lines;
  for (;;) {
    if (w.op >= ops.size()) {  // a trace without s_endpgm (stopped dispatch): ends here
      double done = std::max({w.t, w.vm_last, w.lgkm_n ? *std::max_element(w.lgkm, w.lgkm + w.lgkm_n) : 0.0});
      push(slot, done, true);
      return;
    }
    const TraceOp& op = ops[w.op];
    switch (op.kind) {
      case OpKind::Valu:
      case OpKind::ValuQuarter: {
        double c = op.count * (op.kind == OpKind::Valu ? valu_ : quarter_);
        double s = std::max(w.t, S.valu_free);
        S.valu_free = s + c;
        S.valu_busy += c;
        w.t = s + c;
        break;
      }
      case OpKind::Salu: {
        double c = op.count * issue_;
        double s = std::max(w.t, S.salu_free);
        S.salu_free = s + c;
        S.salu_busy += c;
        w.t = s + c;
        break;
      }
      case OpKind::Branch: w.t += op.count * issue_; break;
      case OpKind::Nop:
      case OpKind::Sleep: w.t += std::max(issue_, double(op.arg)); break;
      case OpKind::Wait: {
        double ready = w.t + issue_;
        uint32_t depth = 0;
        double vm = wait_vm(w, op.count, &depth);
        if (vm > ready) w.chain = std::max(w.chain, depth);  // the wave waited: its chain grows
        double until = std::max({ready, vm, wait_lgkm(w, op.arg)});
        wait_time_ += until - ready;
        w.t = until;
        break;
      }
      case OpKind::VmemLoad:
      case OpKind::VmemStore:
      case OpKind::VmemAtomic: {
        if (w.vm_n >= kVmMax) w.t = std::max(w.t, wait_vm(w, kVmMax - 1));
        uint32_t nlines = 0;
        for (uint32_t r = 0; r < op.count; ++r) nlines += run_count(lines[op.arg + r]);
        double s = std::max(w.t, C.ta_free);
        double busy = std::max(issue_, nlines * m_.ta_cycles_per_line);
        C.ta_free = s + busy;
        C.ta_busy += busy;
        emu::MemoryAccess a = op.kind == OpKind::VmemLoad    ? emu::MemoryAccess::Read
                              : op.kind == OpKind::VmemStore ? emu::MemoryAccess::Write
                                                             : emu::MemoryAccess::ReadWrite;
        double done = op.count ? mem_.vector_access(w.cu, lines + op.arg, op.count, s, m_.ta_cycles_per_line, a, op.aux)
                               : s + issue_;
        done = std::max(done, w.vm_last);  // vector memory returns in order
        w.vm_last = done;
        w.vm[(w.vm_head + w.vm_n) & 63] = done;
        w.vm_depth[(w.vm_head + w.vm_n) & 63] = w.chain + 1;
        ++w.vm_n;
        inflight_ += double(nlines) * 64 * (done - s);
        w.t = s + issue_;
        break;
      }
      case OpKind::SmemLoad:
      case OpKind::SmemStore:
      case OpKind::SmemOther:
      case OpKind::Lds: {
        if (w.lgkm_n >= kLgkmMax) w.t = std::max(w.t, wait_lgkm(w, kLgkmMax - 1));
        double done;
        if (op.kind == OpKind::Lds) {
          double cycles = op.arg ? double(op.arg) : 2.0;  // no lanes reported: one dword pass
          double s = std::max(w.t, C.lds_free);
          C.lds_free = s + cycles;
          C.lds_busy += cycles;
          done = s + cycles + m_.lds_latency_cycles;
          w.t = s;
        } else if (op.kind == OpKind::SmemOther) {
          done = w.t + issue_;
        } else if (op.aux == 2) {
          done = w.host_done;  // merged into the line's pending request
        } else if (op.aux) {
          done = w.host_done = mem_.host_read(w.t, op.arg);
        } else if (op.count) {
          done = mem_.scalar_access(lines[op.arg], w.t,
                                    op.kind == OpKind::SmemLoad ? emu::MemoryAccess::Read : emu::MemoryAccess::Write);
        } else {
          done = w.t + l2_latency_;
        }
        w.lgkm[w.lgkm_n++] = done;
        w.t += issue_;
        break;
      }
      case OpKind::Barrier: {
        w.t += issue_;
        w.at_barrier = true;
        ++w.op;
        Group& g = groups_[w.group];
        ++g.at_barrier;
        release_barrier(g);
        return;
      }
      case OpKind::End: {
        double done = std::max({w.t + issue_, w.vm_last,
                                w.lgkm_n ? *std::max_element(w.lgkm, w.lgkm + w.lgkm_n) : 0.0});
        ++w.op;
        push(slot, done, true);
        return;
      }
    }
    ++w.op;
    if (!events_.empty() && events_.top().t < w.t) {
      push(slot, w.t);
      return;
    }
  }
}

void Engine::finish(uint32_t slot, double t) {
  Wave& w = waves_[slot];
  Simd& s = simds_[w.cu * m_.simds_per_cu + w.simd];
  --s.waves;
  s.vgprs -= occ_.vgpr_alloc;
  s.sgprs -= occ_.sgpr_alloc;
  wave_time_ += t - w.born;
  round_trips_ += w.chain;
  if (t - w.born > longest_.cycles) longest_ = {t - w.born, w.chain, w.tr->instructions};
  end_ = std::max(end_, t);
  count(started_, w.born);
  count(ended_, t);
  Group& g = groups_[w.group];
  --g.live;
  uint32_t cu = w.cu;
  free_waves_.push_back(slot);
  if (!g.live) {
    Cu& c = cus_[cu];
    --c.groups;
    c.lds -= occ_.lds_alloc;
    free_groups_.push_back(w.group);
  } else {
    release_barrier(g);
  }
  place_on(cu, t);
}

DispatchTiming Engine::run(const DispatchTrace& d, const detail::PhysicalLayout::Lines& lines) {
  d_ = &d;
  lines_ = &lines;
  const emu::ObservedDispatch& info = d.info;
  occ_ = occupancy(info, m_);
  if (!occ_.workgroups_per_cu)
    throw Error("timing: kernel '" + info.kernel + "': a workgroup of " + std::to_string(info.waves_per_workgroup) +
                " waves with " + std::to_string(info.vgprs) + " VGPRs, " + std::to_string(info.sgprs) + " SGPRs and " +
                std::to_string(info.lds_bytes) + " bytes of LDS does not fit on one CU");
  group_limit_ = info.waves_per_workgroup > 1 ? m_.max_workgroups_per_cu : m_.simds_per_cu * m_.max_waves_per_simd;
  issue_ = m_.issue_cycles;
  valu_ = std::max(m_.valu_cycles, issue_);
  quarter_ = std::max(m_.valu_quarter_cycles, issue_);
  l2_latency_ = m_.l2_latency_cycles;
  const uint32_t ncu = m_.compute_units, nsimd = ncu * m_.simds_per_cu;
  const uint32_t max_waves = nsimd * m_.max_waves_per_simd;
  waves_.assign(max_waves, Wave{});
  free_waves_.clear();
  for (uint32_t i = max_waves; i-- > 0;) free_waves_.push_back(i);
  const uint32_t max_groups = ncu * std::max(group_limit_, 1u);
  groups_.assign(max_groups, Group{});
  free_groups_.clear();
  for (uint32_t i = max_groups; i-- > 0;) free_groups_.push_back(i);
  simds_.assign(nsimd, Simd{});
  cus_.assign(ncu, Cu{});
  events_ = {};
  next_group_ = 0;
  last_placed_ = end_ = 0;
  wave_time_ = wait_time_ = inflight_ = 0;
  round_trips_ = 0;
  longest_ = {};
  started_.clear();
  ended_.clear();
  mem_.begin_dispatch();
  mem_.reset_stats();

  // The dispatcher deals workgroups to the CUs round robin while they fit.
  for (uint32_t cursor = 0; next_group_ < d.workgroups.size();) {
    bool placed = false;
    uint32_t simds[16];
    for (uint32_t i = 0; i < ncu && !placed; ++i) {
      uint32_t cu = (cursor + i) % ncu;
      if (!fits(cu, uint32_t(d.workgroups[next_group_].waves.size()), simds)) continue;
      place(cu, 0);
      cursor = cu + 1;
      placed = true;
    }
    if (!placed) break;
  }
  while (!events_.empty()) {
    Event e = events_.top();
    events_.pop();
    if (e.end) finish(e.wave, e.t);
    else step(e.wave);
  }

  DispatchTiming r;
  r.kernel = info.kernel;
  r.workgroups = d.workgroups.size();
  uint64_t instructions = 0;
  for (const auto& wg : d.workgroups) {
    r.waves += wg.waves.size();
    for (const auto& w : wg.waves) instructions += w.instructions;
  }
  if (r.waves) {
    r.instructions_per_wave = double(instructions) / double(r.waves);
    r.round_trips_per_wave = double(round_trips_) / double(r.waves);
    r.longest_wave_s = m_.seconds(longest_.cycles);
    r.longest_wave_round_trips = longest_.round_trips;
    r.longest_wave_instructions = longest_.instructions;
  }
  r.occupancy = occ_;
  const double exec = std::max(end_, mem_.drain_time());
  r.exec_s = m_.seconds(exec);
  r.floor_s = m_.dispatch_floor_s;
  r.total_s = r.floor_s + r.exec_s;
  const detail::MemoryStats& ms = mem_.stats();
  if (exec > 0) {
    r.dram_utilization = mem_.dram_busy() / (double(m_.dram_channels) * exec);
    r.host_utilization = ms.host_busy / exec;
    double issue = 0, lds = 0, ta = 0;
    for (const Simd& s : simds_) issue = std::max(issue, std::max(s.valu_busy, s.salu_busy));
    for (const Cu& c : cus_) {
      lds = std::max(lds, c.lds_busy);
      ta = std::max(ta, c.ta_busy);
    }
    r.issue_utilization = issue / exec;
    r.lds_utilization = lds / exec;
    r.ta_utilization = ta / exec;
    r.l2_utilization = mem_.l2_channel_busy_max() / exec;
    r.bytes_in_flight = inflight_ / exec;
    r.resident_waves = wave_time_ / exec;
  }
  r.dram_bytes_read = ms.dram_lines_read * 64;
  r.dram_bytes_written = ms.dram_lines_written * 64;
  r.dram_activation_s = m_.seconds(ms.dram_activation_cycles) / m_.dram_channels;
  r.l1_hits = ms.l1_hits;
  r.l2_hits = ms.l2_hits;
  r.l2_misses = ms.l2_misses;
  r.host_requests = ms.host_requests;
  r.wave_capacity = double(ncu) * occ_.workgroups_per_cu * std::max<uint32_t>(info.waves_per_workgroup, 1);
  r.wait_fraction = wave_time_ > 0 ? wait_time_ / wave_time_ : 0;
  r.tail_s = m_.seconds(std::max(0.0, exec - last_placed_));
  detail::attribute_limiter(r);
  r.timeline_interval_s = m_.seconds(interval_);
  const size_t n = std::max({ms.dram_busy_by_interval.size(), ms.host_busy_by_interval.size(), started_.size(), ended_.size()});
  r.timeline.resize(n);
  for (size_t i = 0; i < n; ++i) {
    DispatchTiming::Interval& v = r.timeline[i];
    if (i < ms.dram_busy_by_interval.size()) v.dram_busy = ms.dram_busy_by_interval[i] / (interval_ * m_.dram_channels);
    if (i < ms.host_busy_by_interval.size()) v.host_busy = ms.host_busy_by_interval[i] / interval_;
    if (i < started_.size()) v.waves_started = started_[i];
    if (i < ended_.size()) v.waves_ended = ended_[i];
  }
  return r;
}

}  // namespace

const char* limiter_name(Limiter l) {
  switch (l) {
    case Limiter::DramBandwidth: return "DRAM bandwidth";
    case Limiter::L2Bandwidth: return "L2 bandwidth";
    case Limiter::Latency: return "latency / bytes in flight";
    case Limiter::Occupancy: return "occupancy";
    case Limiter::Issue: return "issue";
    case Limiter::Lds: return "LDS";
    case Limiter::Launch: return "launch";
    case Limiter::GridTail: return "grid tail";
  }
  return "?";
}

Timing simulate(const std::vector<const DispatchTrace*>& sequence, const MachineParams& m, const SimOptions& o) {
  for (const DispatchTrace* d : sequence)
    if (d->faulted) throw Error("timing: kernel '" + d->info.kernel + "' faulted; its trace is incomplete");
  const detail::PhysicalLayout layout(sequence);
  std::vector<detail::PhysicalLayout::Lines> lines;
  lines.reserve(sequence.size());
  for (const DispatchTrace* d : sequence) lines.push_back(layout.translate(*d));
  MemorySystem mem(m);
  if (o.warm_l2)
    for (size_t i = 0; i < sequence.size(); ++i)
      for (size_t g = 0; g < sequence[i]->workgroups.size(); ++g)
        for (size_t k = 0; k < sequence[i]->workgroups[g].waves.size(); ++k) {
          const uint64_t* runs = lines[i].of(g, k);
          for (const TraceOp& op : sequence[i]->workgroups[g].waves[k].ops)
            if (uint32_t n = detail::line_runs(op)) mem.warm(runs + op.arg, n);
        }
  if (!(o.timeline_interval_s > 0)) throw Error("timing: the timeline interval must be positive");
  Timing t;
  Engine engine(m, mem, o.timeline_interval_s);
  for (size_t i = 0; i < sequence.size(); ++i) {
    t.dispatches.push_back(engine.run(*sequence[i], lines[i]));
    t.total_s += t.dispatches.back().total_s;
  }
  const DispatchTiming* longest = nullptr;
  for (const auto& d : t.dispatches)
    if (!longest || d.total_s > longest->total_s) longest = &d;
  if (longest) {
    t.limiter = longest->limiter;
    t.reason = longest->reason;
  }
  return t;
}

}  // namespace k100::timing
