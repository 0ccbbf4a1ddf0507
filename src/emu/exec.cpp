// The wave interpreter: fetch a decoded instruction by PC, run its semantic
// function, count it, advance. Also the fault helpers and the tracer.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core.h"

namespace k100::emu::detail {

void raise(FaultKind kind, std::string message, int lane) {
  CoreFault f{kind, std::move(message), lane, std::nullopt, 0, false, false};
  throw f;
}

void raise_memory(uint64_t addr, uint32_t size, bool write, int lane) {
  CoreFault f{FaultKind::OutOfBounds, {}, lane, addr, size, write, true};
  throw f;
}

void raise_lds(uint64_t offset, uint32_t size, bool write, int lane, uint32_t lds_size) {
  CoreFault f{FaultKind::LdsOutOfRange,
              std::string("LDS ") + (write ? "store" : "load") + " of " + std::to_string(size) +
                  " bytes at offset " + std::to_string(offset) + " is past the workgroup's LDS size of " +
                  std::to_string(lds_size) + " bytes",
              lane, offset, size, write, false};
  throw f;
}

void raise_gds(uint64_t offset, uint32_t size, bool write, int lane, uint32_t base, uint32_t limit) {
  CoreFault f{FaultKind::LdsOutOfRange,
              std::string("GDS ") + (write ? "store" : "load") + " of " + std::to_string(size) + " bytes at offset " +
                  std::to_string(offset) + " is past the range M0 gives (base " + std::to_string(base) + ", size " +
                  std::to_string(limit) + " bytes) or the device's 65536 bytes of GDS",
              lane, offset, size, write, false};
  throw f;
}

void record_lines(Exec& e, const uint64_t* addrs, const uint32_t* sizes, int n, uint8_t access) {
  uint64_t lines[512];
  int m = 0;
  for (int i = 0; i < n && m < 510; ++i) {
    uint64_t first = addrs[i] >> 6, last = (addrs[i] + sizes[i] - 1) >> 6;
    lines[m++] = first;
    if (last != first) lines[m++] = last;
  }
  std::sort(lines, lines + m);
  int distinct = int(std::unique(lines, lines + m) - lines);
  ++e.prof.vmem_accesses;
  e.prof.vmem_lines += uint64_t(distinct);
  for (int i = 0; i < distinct; ++i) e.lines[lines[i]] |= access;
  if (!e.d.regions.empty()) {
    if (e.prof.regions.size() < e.d.regions.size()) e.prof.regions.resize(e.d.regions.size());
    for (int i = 0; i < distinct; ++i)
      for (size_t r = 0; r < e.d.regions.size(); ++r)
        if (line_in_range(lines[i], e.d.regions[r])) ++e.prof.regions[r].requested;
  }
}

namespace {

void refill_budget(Exec& e) {
  if (e.d.stop.load(std::memory_order_relaxed)) throw StopSignal{};
  uint64_t cur = e.d.budget.load(std::memory_order_relaxed);
  uint64_t take;
  do {
    if (cur == 0)
      raise(FaultKind::BudgetExceeded, "instruction budget of " + std::to_string(e.d.budget_total) +
                                           " wave-instructions exhausted (runaway loop?); " + budget_hint());
    take = std::min<uint64_t>(cur, 1 << 16);
  } while (!e.d.budget.compare_exchange_weak(cur, cur - take, std::memory_order_relaxed));
  e.budget_local = take;
  if (e.d.notice_after > 0 && !e.d.noticed.load(std::memory_order_relaxed)) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - e.d.start).count();
    if (s >= e.d.notice_after && !e.d.noticed.exchange(true)) {
      // taken from the budget so far, less the chunk this worker has not run yet
      std::string text = long_dispatch_notice(e.d.kernel->name, s, e.d.budget_total - cur, e.d.budget_total);
      std::fputs(text.c_str(), stderr);
      std::fflush(stderr);
    }
  }
}

// lds_direct as a VALU source (Vega ISA: LDS direct read, src0 only): one
// value read from LDS at the byte address M0[15:0], which must be dword
// aligned, as the data type M0[18:16] says (0 unsigned byte, 1 unsigned
// short, 2 dword, 4 signed byte, 5 signed short; 3, 6, 7 reserved), extended
// to 32 bits and broadcast to every lane. The VALU gets it as a literal.
void read_lds_direct(Exec& e, Wave& w, isa::Inst& inst) {
  uint32_t m0 = w.s.m0(), addr = m0 & 0xffff, type = (m0 >> 16) & 7;
  static constexpr uint8_t kBytes[8] = {1, 2, 4, 0, 1, 2, 0, 0};
  char where[64];
  std::snprintf(where, sizeof where, "lds_direct with M0 = 0x%08x: ", m0);
  if (!kBytes[type])
    raise(FaultKind::Trap, std::string(where) + "M0[18:16] = " + std::to_string(type) + " is a reserved data type");
  if (addr & 3) raise(FaultKind::Trap, std::string(where) + "the LDS address M0[15:0] is not dword aligned");
  uint32_t v = 0;
  std::memcpy(&v, e.lds_ptr(addr, kBytes[type], false, 0), kBytes[type]);
  if (type == 4) v = uint32_t(int32_t(int8_t(v)));
  if (type == 5) v = uint32_t(int32_t(int16_t(v)));
  for (unsigned k = 0; k < inst.num_operands; ++k)
    if (inst.ops[k].code == isa::code::kLdsDirect) {
      inst.ops[k].code = isa::code::kLiteral;
      inst.ops[k].value = v;
    }
}

// VALU in VGPR-index mode (s_set_gpr_idx_on), with VSKIP set, or reading
// lds_direct.
void valu_slow(Exec& e, Wave& w, const Op& op) {
  if (w.s.mode & kModeVskip) return;
  isa::Inst inst = op.inst;
  uint32_t m0 = w.s.m0();
  uint32_t idx = m0 & 0xff, mode = (w.s.mode & kModeGprIdxEn) ? (m0 >> 12) & 0xf : 0;
  if (op.reads_lds_direct) read_lds_direct(e, w, inst);
  auto bump = [&](isa::Field f, unsigned bit) {
    if (!(mode & bit) || !op.has(f)) return;
    isa::Operand& o = inst.ops[size_t(op.field[int(f)])];
    if (!o.is_vgpr()) return;
    unsigned r = o.vgpr_index() + idx;
    if (r + o.width > 256) raise(FaultKind::Trap, "VGPR index mode selects v" + std::to_string(r) + ", past v255");
    o.code = uint16_t(isa::code::kVgprFirst + r);
  };
  bump(isa::Field::src0, 1);
  bump(isa::Field::src1, 2);
  bump(isa::Field::src2, 4);
  bump(isa::Field::vdst, 8);
  op.valu(w.s, inst);
}

[[noreturn]] void no_semantics(const Op& op) {
  if (!op.valid) raise(FaultKind::InvalidInstruction, "invalid instruction encoding " + op.encoding_hex());
  std::string reason;
  for (const Unsupported& u : unsupported_instructions())
    if (u.id == op.inst.id) reason = ": " + u.reason;
  raise(FaultKind::Unsupported, "instruction " + op.inst.desc().name + " (encoding " + op.encoding_hex() +
                                    ") is not supported by the emulator" + reason);
}

// ------------------------------------------------------------------ trace ---

struct Snapshot {
  std::array<uint32_t, 128> sgpr;
  bool scc;
  uint32_t mode;
  std::vector<uint32_t> v;  // [reg][selected lane]
};

void take(const Wave& w, const std::vector<int>& lanes, Snapshot& s) {
  s.sgpr = w.s.sgpr;
  s.scc = w.s.scc;
  s.mode = w.s.mode;
  s.v.resize(256 * lanes.size());
  for (int r = 0; r < 256; ++r)
    for (size_t k = 0; k < lanes.size(); ++k) s.v[size_t(r) * lanes.size() + k] = w.s.vgpr[size_t(r)][size_t(lanes[k])];
}

std::string sgpr_name(unsigned c) {
  std::string n = isa::scalar_reg_name(uint16_t(c));
  if (!n.empty()) return n;
  char buf[16];
  std::snprintf(buf, sizeof buf, "s%u", c);
  return buf;
}

void trace_line(Exec& e, const Wave& w, const Op& op, const std::vector<int>& lanes, const Snapshot& before,
                uint64_t pc) {
  std::ostringstream o;
  char head[64];
  std::snprintf(head, sizeof head, "[wg %llu wave %u] %06llx: ", (unsigned long long)e.wg_flat, w.index,
                (unsigned long long)pc);
  o << head << op.text();
  bool any = false;
  auto sep = [&] {
    o << (any ? " " : "   |");
    if (!any) o << " ";
    any = true;
  };
  char buf[64];
  for (unsigned c = 0; c < 128; ++c)
    if (w.s.sgpr[c] != before.sgpr[c]) {
      sep();
      std::snprintf(buf, sizeof buf, "%s=0x%08x", sgpr_name(c).c_str(), w.s.sgpr[c]);
      o << buf;
    }
  if (w.s.scc != before.scc) {
    sep();
    o << "scc=" << int(w.s.scc);
  }
  if (w.s.mode != before.mode) {
    sep();
    std::snprintf(buf, sizeof buf, "mode=0x%08x", w.s.mode);
    o << buf;
  }
  for (int r = 0; r < 256; ++r)
    for (size_t k = 0; k < lanes.size(); ++k) {
      uint32_t now = w.s.vgpr[size_t(r)][size_t(lanes[k])];
      if (now != before.v[size_t(r) * lanes.size() + k]) {
        sep();
        std::snprintf(buf, sizeof buf, "v%d[%d]=0x%08x", r, lanes[k], now);
        o << buf;
      }
    }
  o << "\n";
  *e.d.trace->out << o.str();
}

template <bool Trace, bool Check>
Step run(Exec& e, Wave& w, uint64_t slice) {
  const Program::Impl& prog = *e.d.prog;
  std::vector<int> lanes;
  Snapshot snap;
  if (Trace)
    for (int l = 0; l < 64; ++l)
      if ((w.trace_lanes >> l) & 1) lanes.push_back(l);
  e.cur_wave = &w;
  for (;;) {
    // A random schedule gives each wave a slice of instructions at a time.
    if (slice && --slice == 0) return Step::Next;
    if (__builtin_expect(e.budget_local == 0, 0)) refill_budget(e);
    --e.budget_local;
    const Op& op = prog.fetch(w.s.pc);
    if (__builtin_expect(e.obs != nullptr, 0)) e.obs->instruction(w.index, op.inst, op.cls, op.pc);
    ++w.retired;
    ++e.prof.by_class[size_t(op.cls)];
    if (Trace) take(w, lanes, snap);
    if (Check) check_issue(e, w, op);
    uint64_t pc = op.pc;
    if (op.valu) {
      if (__builtin_expect((w.s.mode & (kModeGprIdxEn | kModeVskip)) != 0 || op.reads_lds_direct, 0))
        valu_slow(e, w, op);
      else op.valu(w.s, op.inst);
      e.prof.valu_active_lanes += lane_count(w.s.exec());
      if (Check) check_retire(e, w, op);
      w.s.pc = op.pc + op.size;
      if (Trace) trace_line(e, w, op, lanes, snap, pc);
      continue;
    }
    if (__builtin_expect(!op.core, 0)) no_semantics(op);
    if (__builtin_expect((w.s.mode & kModeVskip) != 0, 0) && (op.cls == InstClass::VMEM || op.cls == InstClass::LDS)) {
      if (Check) check_retire(e, w, op);
      w.s.pc = op.pc + op.size;
      continue;
    }
    Step st = op.core(e, w, op);
    if (Check) check_retire(e, w, op);
    if (Trace) trace_line(e, w, op, lanes, snap, pc);
    switch (st) {
      case Step::Next: w.s.pc = op.pc + op.size; break;
      case Step::Jump: break;
      case Step::Barrier: w.s.pc = op.pc + op.size; return Step::Barrier;
      case Step::End: return Step::End;
    }
  }
}

}  // namespace

Step run_wave(Exec& e, Wave& w, uint64_t slice) {
  // slice + 1: the counter is checked before each instruction.
  uint64_t s = slice ? slice + 1 : 0;
  if (e.d.checks.waits || e.d.checks.hazards)
    return w.trace ? run<true, true>(e, w, s) : run<false, true>(e, w, s);
  return w.trace ? run<true, false>(e, w, s) : run<false, false>(e, w, s);
}

}  // namespace k100::emu::detail
