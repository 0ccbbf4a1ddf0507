// Wait counters per instruction and the in-flight model of one wave.
#include "k100/isa/counters.h"

#include <algorithm>
#include <string_view>

namespace k100::isa {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Whether `cls` returns in issue order with the others of its class on lgkmcnt.
bool lgkm_ordered(ReturnClass cls) {
  return cls == ReturnClass::Lds || cls == ReturnClass::Gds || cls == ReturnClass::Message;
}

}  // namespace

const char* return_class_name(ReturnClass c) {
  static const char* names[] = {"none", "vector memory", "flat", "LDS", "GDS", "scalar memory", "message"};
  return names[size_t(c)];
}

bool CounterUse::in_order(Counter c) const {
  if (!uses(c)) return false;
  if (c == kVmCnt) return true;  // a FLAT op is waited for in order; it just may finish early
  if (c == kLgkmCnt) return lgkm_ordered(cls);
  return true;
}

CounterUse counter_use(const Inst& inst) { return counter_use(inst, effects_of(inst)); }

CounterUse counter_use(const Inst& inst, const Effects& effects) {
  CounterUse u;
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  switch (unit_of(inst)) {
    case Unit::Smem: {
      u.counters = kLgkmCnt;
      u.cls = ReturnClass::Smem;
      unsigned dwords = 0;
      for (const RegUse& w : effects.write_list())
        if (w.role == Role::MemDest) dwords += w.regs.count;
      u.lgkm_increment = uint8_t(dwords >= 2 ? 2 : 1);
      break;
    }
    case Unit::Lds:
      if (n == "ds_nop") return u;
      u.counters = kLgkmCnt;
      u.lgkm_increment = 1;
      u.cls = ReturnClass::Lds;
      if (inst.mods.gds || starts_with(n, "ds_gws") || n == "ds_ordered_count") {
        u.cls = ReturnClass::Gds;
        u.counters |= kExpCnt;
        for (const RegUse& r : effects.read_list())
          if (r.role == Role::Data && u.num_held < u.held.size()) u.held[u.num_held++] = r.regs;
      }
      break;
    case Unit::Vmem:
      u.counters = kVmCnt;
      u.cls = ReturnClass::Vmem;
      if (d.family == Family::FLAT) {
        u.counters |= kLgkmCnt;
        u.lgkm_increment = 1;
        u.cls = ReturnClass::Flat;
      }
      u.writes_lds = inst.mods.lds && !d.quirk(kQuirkLdsSyntax);
      break;
    case Unit::Salu:
      if (starts_with(n, "s_sendmsg") || n == "s_ttracedata") {
        u.counters = kLgkmCnt;
        u.lgkm_increment = 1;
        u.cls = ReturnClass::Message;
      }
      return u;
    case Unit::Valu:
      return u;
  }
  u.is_store = is_store(inst);
  for (const RegUse& w : effects.write_list())
    if (w.role == Role::MemDest && u.num_returns < u.returns.size()) u.returns[u.num_returns++] = w.regs;
  return u;
}

bool waits(const Waitcnt& w) { return w.vmcnt < kVmcntMax || w.expcnt < kExpcntMax || w.lgkmcnt < kLgkmcntMax; }

Waitcnt stricter(const Waitcnt& a, const Waitcnt& b) {
  Waitcnt w;
  w.vmcnt = std::min(a.vmcnt, b.vmcnt);
  w.expcnt = std::min(a.expcnt, b.expcnt);
  w.lgkmcnt = std::min(a.lgkmcnt, b.lgkmcnt);
  return w;
}

bool same_wait(const Waitcnt& a, const Waitcnt& b) {
  return a.vmcnt == b.vmcnt && a.expcnt == b.expcnt && a.lgkmcnt == b.lgkmcnt;
}

std::string waitcnt_text(const Waitcnt& w) {
  std::string s = "s_waitcnt";
  if (w.vmcnt < kVmcntMax) s += " vmcnt(" + std::to_string(w.vmcnt) + ")";
  if (w.expcnt < kExpcntMax) s += " expcnt(" + std::to_string(w.expcnt) + ")";
  if (w.lgkmcnt < kLgkmcntMax) s += " lgkmcnt(" + std::to_string(w.lgkmcnt) + ")";
  if (!waits(w)) s += " 0xffff";
  return s;
}

// ------------------------------------------------------------- InFlight ---

const InFlight::Op* InFlight::find(uint32_t seq) const {
  auto it = std::lower_bound(ops_.begin(), ops_.end(), seq, [](const Op& o, uint32_t s) { return o.seq < s; });
  return it != ops_.end() && it->seq == seq ? &*it : nullptr;
}

uint32_t InFlight::outstanding(Counter c) const {
  uint32_t n = 0;
  for (const Op& o : ops_)
    if (o.use.uses(c)) n += c == kLgkmCnt ? std::max<uint32_t>(1, o.use.lgkm_increment) : 1;
  return n;
}

void InFlight::issue(const CounterUse& use, uint64_t tag) {
  if (!use.any()) return;
  // Issue stalls while a counter is at its maximum.
  Waitcnt stall;
  if (use.uses(kVmCnt) && outstanding(kVmCnt) >= kVmcntMax) stall.vmcnt = kVmcntMax - 1;
  if (use.uses(kLgkmCnt) && outstanding(kLgkmCnt) >= kLgkmcntMax) stall.lgkmcnt = kLgkmcntMax - 1;
  if (use.uses(kExpCnt) && outstanding(kExpCnt) >= kExpcntMax) stall.expcnt = kExpcntMax - 1;
  if (waits(stall)) wait(stall);
  Op op{next_seq_++, use, tag};
  for (RegRange r : use.return_list())
    for (uint16_t c = r.first; c < r.end() && c < writer_.size(); ++c) writer_[c] = op.seq;
  for (RegRange r : use.held_list())
    for (uint16_t c = r.first; c < r.end() && c < holder_.size(); ++c) holder_[c] = op.seq;
  ops_.push_back(op);
  released_.push_back(0);
}

void InFlight::wait(Waitcnt w) {
  if (ops_.empty() || !waits(w)) return;
  // Walk from the newest op back, counting the later ops each one is surely
  // ordered before: later non-FLAT vector memory ops (vmcnt), later ops of
  // its own ordered lgkm class, later expcnt ops.
  uint32_t later_vm = 0, later_lds = 0, later_gds = 0, later_msg = 0, later_exp = 0;
  std::vector<uint8_t>& done = scratch_;
  done.assign(ops_.size(), 0);
  for (size_t i = ops_.size(); i-- > 0;) {
    const CounterUse& u = ops_[i].use;
    bool returned = false;
    if (u.uses(kVmCnt) && later_vm >= w.vmcnt) returned = true;
    if (u.uses(kLgkmCnt)) {
      uint32_t later = u.cls == ReturnClass::Lds ? later_lds : u.cls == ReturnClass::Gds ? later_gds
                       : u.cls == ReturnClass::Message ? later_msg : 0;
      if (lgkm_ordered(u.cls) ? later >= w.lgkmcnt : w.lgkmcnt == 0) returned = true;
    }
    if (u.uses(kExpCnt) && later_exp >= w.expcnt) released_[i] = 1;
    done[i] = returned;
    if (u.uses(kVmCnt) && u.cls != ReturnClass::Flat) ++later_vm;
    if (u.cls == ReturnClass::Lds) ++later_lds;
    if (u.cls == ReturnClass::Gds) ++later_gds;
    if (u.cls == ReturnClass::Message) ++later_msg;
    if (u.uses(kExpCnt)) ++later_exp;
  }
  size_t k = 0;
  for (size_t i = 0; i < ops_.size(); ++i) {
    if (done[i]) {
      // Forget the registers it was the last writer or holder of, so lookups
      // of them stop at the array.
      const Op& o = ops_[i];
      for (RegRange r : o.use.return_list())
        for (uint16_t c = r.first; c < r.end() && c < writer_.size(); ++c)
          if (writer_[c] == o.seq) writer_[c] = 0;
      for (RegRange r : o.use.held_list())
        for (uint16_t c = r.first; c < r.end() && c < holder_.size(); ++c)
          if (holder_[c] == o.seq) holder_[c] = 0;
      continue;
    }
    ops_[k] = ops_[i];
    released_[k] = released_[i];
    ++k;
  }
  ops_.resize(k);
  released_.resize(k);
}

void InFlight::clear() {
  ops_.clear();
  released_.clear();
  writer_.fill(0);
  holder_.fill(0);
}

const InFlight::Op* InFlight::pending_write(uint16_t c) const {
  if (c >= writer_.size() || !writer_[c]) return nullptr;
  return find(writer_[c]);
}

const InFlight::Op* InFlight::pending_hold(uint16_t c) const {
  if (c >= holder_.size() || !holder_[c]) return nullptr;
  const Op* op = find(holder_[c]);
  if (!op || released_[size_t(op - ops_.data())]) return nullptr;
  return op;
}

Waitcnt InFlight::wait_for(const Op& op) const {
  uint32_t later_vm = 0, later_same = 0;
  for (const Op& o : ops_) {
    if (o.seq <= op.seq) continue;
    if (o.use.uses(kVmCnt) && o.use.cls != ReturnClass::Flat) ++later_vm;
    if (o.use.cls == op.use.cls) ++later_same;
  }
  Waitcnt w;
  if (op.use.uses(kVmCnt)) {
    w.vmcnt = std::min<unsigned>(later_vm, kVmcntMax - 1);
  } else if (op.use.uses(kLgkmCnt)) {
    w.lgkmcnt = lgkm_ordered(op.use.cls) ? std::min<unsigned>(later_same, kLgkmcntMax - 1) : 0;
  }
  return w;
}

Waitcnt InFlight::wait_for_release(const Op& op) const {
  uint32_t later_exp = 0;
  for (const Op& o : ops_)
    if (o.seq > op.seq && o.use.uses(kExpCnt)) ++later_exp;
  Waitcnt w;
  w.expcnt = std::min<unsigned>(later_exp, kExpcntMax - 1);
  return w;
}

bool InFlight::returns_after(const Op& op, const CounterUse& next) {
  if (next.cls == ReturnClass::Vmem) return op.use.uses(kVmCnt);
  return next.cls == op.use.cls && lgkm_ordered(next.cls);
}

}  // namespace k100::isa
