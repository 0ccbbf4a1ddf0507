// Missing-wait and hazard checks, run before every instruction issues when
// DispatchOptions::checks asks for them. The facts come from the isa layer
// (effects, counters, hazard table); this file only applies them to the
// running wave and words the reports.
#include <string>

#include "../core.h"

namespace k100::emu::detail {

namespace {

std::string reg_name(uint16_t c) { return isa::reg_range_name({c, 1}); }

std::string text_at(const Exec& e, uint64_t pc) {
  try {
    return e.d.prog->fetch(pc).text();
  } catch (...) {
    return "?";
  }
}

[[noreturn]] void report_wait(Exec& e, const char* rule, std::string what, uint16_t reg, const isa::InFlight::Op& other,
                              isa::Waitcnt fix) {
  CoreFault f{FaultKind::MissingWait, std::move(what), -1, std::nullopt, 0, false, false};
  f.rule = rule;
  f.reg = reg_name(reg);
  f.other_pc = other.tag;
  f.other_text = text_at(e, other.tag);
  f.fix = isa::waitcnt_text(fix) + " before this instruction";
  throw f;
}

void check_waits(Exec& e, Wave& w, const Op& op) {
  const isa::InFlight& in = w.in_flight;
  for (const isa::RegUse& u : op.effects.read_list())
    for (uint16_t c = u.regs.first; c < u.regs.end(); ++c)
      if (const isa::InFlight::Op* p = in.pending_write(c))
        report_wait(e, "waitcnt.read_in_flight",
                    reg_name(c) + " is read (" + isa::role_name(u.role) + ") while " + text_at(e, p->tag) + " (pc " +
                        hex_text(p->tag) + ") has not returned the value it writes there",
                    c, *p, in.wait_for(*p));
  for (const isa::RegUse& u : op.effects.write_list())
    for (uint16_t c = u.regs.first; c < u.regs.end(); ++c) {
      if (const isa::InFlight::Op* p = in.pending_write(c))
        if (!(op.counters.any() && isa::InFlight::returns_after(*p, op.counters)))
          report_wait(e, "waitcnt.overwrite_in_flight",
                      reg_name(c) + " is written while " + text_at(e, p->tag) + " (pc " + hex_text(p->tag) +
                          ") has yet to return into it, so its late return would overwrite this value",
                      c, *p, in.wait_for(*p));
      if (const isa::InFlight::Op* p = in.pending_hold(c))
        report_wait(e, "waitcnt.data_in_flight",
                    reg_name(c) + " is written while " + text_at(e, p->tag) + " (pc " + hex_text(p->tag) +
                        ") may still be reading it as data",
                    c, *p, in.wait_for_release(*p));
    }
}

// LDS operations that access LDS memory (swizzle and permutes only move lanes).
bool touches_lds_memory(const Op& op) {
  if (op.counters.cls != isa::ReturnClass::Lds || !op.valid) return false;
  const std::string& n = op.inst.desc().name;
  return n != "ds_swizzle_b32" && n != "ds_permute_b32" && n != "ds_bpermute_b32";
}

void check_barrier(Exec& e, Wave& w) {
  for (const isa::InFlight::Op& p : w.in_flight.ops()) {
    const Op& other = e.d.prog->fetch(p.tag);
    if (!touches_lds_memory(other) && !other.counters.writes_lds) continue;
    isa::Waitcnt fix;
    if (other.counters.uses(isa::kLgkmCnt)) fix.lgkmcnt = 0;
    else fix.vmcnt = 0;
    report_wait(e, "waitcnt.lds_at_barrier",
                "s_barrier is reached while " + text_at(e, p.tag) + " (pc " + hex_text(p.tag) +
                    ") is still in flight: other waves may access that LDS before it completes",
                0, p, fix);
  }
}

[[noreturn]] void report_hazard(Exec& e, const isa::HazardHit& h) {
  const isa::HazardRule& r = *h.rule;
  CoreFault f{FaultKind::Hazard,
              std::string(r.summary) + ": " + std::to_string(r.wait_states) + " wait states required, " +
                  std::to_string(h.have) + " provided",
              -1, std::nullopt, 0, false, false};
  f.rule = std::string("hazard.") + r.id + " (" + r.source + ")";
  switch (r.producer) {
    case isa::HazardProducer::SetregWrite: f.reg = "hwreg " + std::to_string(h.reg); break;
    case isa::HazardProducer::SetregVskip:
    case isa::HazardProducer::Setvskip: f.reg = "MODE.vskip"; break;
    default: f.reg = reg_name(h.reg); break;
  }
  f.other_pc = h.producer_tag;
  f.other_text = text_at(e, h.producer_tag);
  f.fix = "s_nop " + std::to_string(h.missing - 1) + " (or " + std::to_string(h.missing) +
          " independent instructions) before this instruction";
  throw f;
}

}  // namespace

void prepare_checks(Op& op) {
  op.effects = isa::effects_of(op.inst);
  op.counters = isa::counter_use(op.inst, op.effects);
  op.hazard = isa::hazard_profile(op.inst, op.effects);
  op.is_waitcnt = op.inst.desc().name == "s_waitcnt";
  op.is_barrier = op.inst.desc().name == "s_barrier";
}

void check_issue_slow(Exec& e, Wave& w, const Op& op) {
  const CheckOptions& c = e.d.checks;
  if (c.waits) {
    if (!w.in_flight.empty()) {
      check_waits(e, w, op);
      if (op.is_barrier) check_barrier(e, w);
    }
    if (op.is_waitcnt) w.in_flight.wait(isa::Waitcnt::decode(uint16_t(op.inst.ops[0].value)));
  }
  if (c.hazards && op.hazard.num_probes) {
    isa::HazardHit h = w.hazards.check(op.hazard);
    if (h) report_hazard(e, h);
  }
}

}  // namespace k100::emu::detail
