// TraceRecorder: emulator events -> per-wave TraceOp streams.
#include <algorithm>

#include "issue_class.h"
#include "k100/timing/trace.h"

namespace k100::timing {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::Valu: return "valu";
    case OpKind::ValuQuarter: return "valu_quarter";
    case OpKind::Salu: return "salu";
    case OpKind::Branch: return "branch";
    case OpKind::Nop: return "nop";
    case OpKind::Sleep: return "sleep";
    case OpKind::Wait: return "wait";
    case OpKind::VmemLoad: return "vmem_load";
    case OpKind::VmemStore: return "vmem_store";
    case OpKind::VmemAtomic: return "vmem_atomic";
    case OpKind::SmemLoad: return "smem_load";
    case OpKind::SmemStore: return "smem_store";
    case OpKind::SmemOther: return "smem_other";
    case OpKind::Lds: return "lds";
    case OpKind::Barrier: return "barrier";
    case OpKind::End: return "end";
  }
  return "?";
}

uint64_t DispatchTrace::instructions() const {
  uint64_t n = 0;
  for (const auto& wg : workgroups)
    for (const auto& w : wg.waves) n += w.instructions;
  return n;
}

namespace {

bool mergeable(OpKind k) {
  return k == OpKind::Valu || k == OpKind::ValuQuarter || k == OpKind::Salu || k == OpKind::Branch;
}

bool in_range(uint64_t a, uint64_t base, uint64_t bytes) { return a >= base && a - base < bytes; }

}  // namespace

// The contiguous segments the loads of one trip (the loads between two
// s_waitcnt of a wave) cover: a load that continues where an earlier load of
// the trip ended extends that segment.
class TripSegments {
 public:
  void add(uint32_t op, uint64_t first, uint32_t n) {
    size_t s = 0;
    while (s < segs_.size() && segs_[s].end != first) ++s;
    if (s == segs_.size()) segs_.push_back({first, 0});
    segs_[s].end = first + n;
    segs_[s].lines += n;
    runs_.push_back({op, uint32_t(s)});
  }
  // Sets each load's aux to the mean length of its segments and starts a new trip.
  void close(std::vector<TraceOp>& ops) {
    for (size_t i = 0; i < runs_.size();) {
      uint32_t op = runs_[i].op;
      uint64_t sum = 0, n = 0;
      for (; i < runs_.size() && runs_[i].op == op; ++i, ++n) sum += segs_[runs_[i].seg].lines;
      ops[op].aux = uint8_t(std::clamp<uint64_t>((sum + n / 2) / n, 1, 255));
    }
    segs_.clear();
    runs_.clear();
  }

 private:
  struct Seg {
    uint64_t end;
    uint64_t lines;
  };
  struct Run {
    uint32_t op, seg;
  };
  std::vector<Seg> segs_;
  std::vector<Run> runs_;
};

class TraceRecorder::Workgroup : public emu::WorkgroupObserver {
 public:
  uint64_t index = 0;
  std::vector<WaveTrace> waves;
  const emu::ObservedDispatch* info = nullptr;

  void start(uint64_t wg, uint32_t nwaves, const emu::ObservedDispatch* d) {
    index = wg;
    info = d;
    waves.clear();
    waves.resize(nwaves);
    trips_.assign(nwaves, TripSegments{});
    host_.assign(nwaves, {});
    last_ = nullptr;
  }
  // Ends the open trips (segments of loads after the last s_waitcnt).
  void finish() {
    for (size_t w = 0; w < waves.size(); ++w) trips_[w].close(waves[w].ops);
  }

  void instruction(uint32_t wave, const isa::Inst& inst, emu::InstClass cls, uint64_t) override {
    WaveTrace& w = waves[wave];
    last_ = &w;
    last_wave_ = wave;
    ++w.instructions;
    OpKind k = detail::issue_kind(inst, cls);
    if (k == OpKind::Wait || k == OpKind::Barrier || k == OpKind::End) {
      trips_[wave].close(w.ops);
      host_[wave].clear();
    }
    if (mergeable(k) && !w.ops.empty()) {
      TraceOp& prev = w.ops.back();
      if (prev.kind == k && prev.count < 0xffff) {
        ++prev.count;
        return;
      }
    }
    TraceOp op{k, 0, 0, 0};
    if (mergeable(k)) op.count = 1;
    if (k == OpKind::Wait || k == OpKind::Nop || k == OpKind::Sleep) {
      const isa::Operand* imm = inst.find(isa::Field::simm16);
      uint32_t v = imm ? imm->value & 0xffff : 0;
      if (k == OpKind::Wait) {
        op.count = uint16_t(detail::waitcnt_vm(v));
        op.arg = detail::waitcnt_lgkm(v);
      } else if (k == OpKind::Nop) {
        op.arg = (v & 0xf) + 1;  // wait states
      } else {
        op.arg = 64 * (v & 0x7f);  // s_sleep: 64 clocks per unit
      }
    }
    if (k == OpKind::VmemLoad || k == OpKind::VmemStore || k == OpKind::VmemAtomic) op.arg = uint32_t(w.lines.size());
    w.ops.push_back(op);
  }

  void vector_memory(const uint64_t* addresses, const uint32_t* sizes, int count, emu::MemoryAccess) override {
    TraceOp* op = last_op();
    if (!op || (op->kind != OpKind::VmemLoad && op->kind != OpKind::VmemStore && op->kind != OpKind::VmemAtomic))
      return;
    uint64_t lines[512];
    int m = 0;
    for (int i = 0; i < count && m < 510; ++i) {
      uint64_t first = addresses[i] >> 6, last = (addresses[i] + std::max<uint32_t>(sizes[i], 1) - 1) >> 6;
      lines[m++] = first;
      if (last != first) lines[m++] = last;
    }
    std::sort(lines, lines + m);
    m = int(std::unique(lines, lines + m) - lines);
    WaveTrace& w = *last_;
    op->arg = uint32_t(w.lines.size());
    const uint32_t index = uint32_t(w.ops.size() - 1);
    uint16_t runs = 0;
    for (int i = 0; i < m;) {
      int j = i + 1;
      while (j < m && lines[j] == lines[j - 1] + 1) ++j;
      w.lines.push_back(line_run(lines[i], uint32_t(j - i)));
      if (op->kind == OpKind::VmemLoad) trips_[last_wave_].add(index, lines[i], uint32_t(j - i));
      ++runs;
      i = j;
    }
    op->count = runs;
  }

  void scalar_memory(uint64_t address, uint32_t bytes, emu::MemoryAccess) override {
    TraceOp* op = last_op();
    if (!op || (op->kind != OpKind::SmemLoad && op->kind != OpKind::SmemStore)) return;
    if (in_range(address, info->kernarg_address, info->kernarg_bytes) ||
        in_range(address, info->packet_address, info->packet_bytes) ||
        in_range(address, info->queue_address, info->queue_bytes)) {
      // The scalar cache asks for a 64-byte line once: a later load of the
      // wave within a line it already requested (no wait in between) is
      // served by that request, which carries the bytes of both.
      std::vector<HostLine>& pending = host_[last_wave_];
      const uint64_t first = address >> 6, last = (address + std::max<uint32_t>(bytes, 1) - 1) >> 6;
      op->count = 0;
      for (const HostLine& h : pending)
        if (first == h.line && last == h.line) {
          TraceOp& owner = last_->ops[h.op];
          owner.arg = std::min<uint32_t>(owner.arg + bytes, 64);
          op->aux = 2;
          op->arg = 0;
          return;
        }
      op->aux = 1;
      op->arg = bytes;
      if (first == last) pending.push_back({first, uint32_t(last_->ops.size() - 1)});
      return;
    }
    WaveTrace& w = *last_;
    uint64_t first = address >> 6, last = (address + std::max<uint32_t>(bytes, 1) - 1) >> 6;
    op->arg = uint32_t(w.lines.size());
    op->count = 1;
    w.lines.push_back(line_run(first, uint32_t(last - first + 1)));
  }

  void lds_access(const uint64_t* offsets, uint64_t lanes, uint32_t bytes) override {
    TraceOp* op = last_op();
    if (!op || op->kind != OpKind::Lds) return;
    op->arg += detail::lds_pass_cycles(offsets, lanes, bytes);
  }

 private:
  TraceOp* last_op() { return last_ && !last_->ops.empty() ? &last_->ops.back() : nullptr; }
  WaveTrace* last_ = nullptr;
  uint32_t last_wave_ = 0;
  std::vector<TripSegments> trips_;
  // Per wave: the host-memory lines its scalar loads requested since its
  // last wait, and the op whose request brings each.
  struct HostLine {
    uint64_t line = 0;
    uint32_t op = 0;
  };
  std::vector<std::vector<HostLine>> host_;
};

TraceRecorder::TraceRecorder() = default;
TraceRecorder::~TraceRecorder() = default;

void TraceRecorder::dispatch_begin(const emu::ObservedDispatch& dispatch) {
  auto d = std::make_unique<DispatchTrace>();
  d->info = dispatch;
  d->workgroups.resize(dispatch.workgroups);
  current_ = d.get();
  dispatches_.push_back(std::move(d));
}

emu::WorkgroupObserver* TraceRecorder::workgroup_begin(uint64_t workgroup, uint32_t waves) {
  std::unique_ptr<Workgroup> w;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      w = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  if (!w) w = std::make_unique<Workgroup>();
  w->start(workgroup, waves, &current_->info);
  return w.release();
}

void TraceRecorder::workgroup_end(emu::WorkgroupObserver* observer) {
  std::unique_ptr<Workgroup> w(static_cast<Workgroup*>(observer));
  w->finish();
  // Distinct slots per workgroup: no lock needed for the move itself.
  if (w->index < current_->workgroups.size()) current_->workgroups[w->index].waves = std::move(w->waves);
  std::lock_guard<std::mutex> lock(mutex_);
  spare_.push_back(std::move(w));
}

void TraceRecorder::dispatch_end(bool faulted) {
  if (current_) current_->faulted = faulted;
  current_ = nullptr;
  spare_.clear();
}

std::vector<std::unique_ptr<DispatchTrace>> TraceRecorder::take() {
  std::vector<std::unique_ptr<DispatchTrace>> out;
  out.swap(dispatches_);
  return out;
}

}  // namespace k100::timing
