// LDS (DS) semantics: reads and writes of every width (incl. read2/write2,
// st64 and d16 forms), atomics with and without return (integer, float,
// compare-store, mask-or, wrap), exchange pairs, cross-lane swizzle and
// (b)permute, append/consume counters and the add-tid forms. Accesses are
// checked against the workgroup's LDS size; LDS bank conflicts are counted
// under detailed profiling. With the gds modifier, reads, writes and atomics
// address the device's GDS instead (GdsScope below).
#include <mutex>
#include <string>
#include <string_view>

#include "atomics.h"
#include "core.h"

namespace k100::emu::detail {

namespace {

using isa::Field;

enum class DsKind : uint8_t {
  Nop, Read, Read2, Write, Write2, Atomic, Xchg2, Swizzle, Permute, Bpermute, Append, Consume,
  WriteAddtid, ReadAddtid,
};

struct DsDesc {
  DsKind kind = DsKind::Nop;
  uint8_t bytes = 4;  // element size
  bool sign = false;
  uint8_t d16 = 0;    // reads/writes of one half of the VGPR: 1 low, 2 high
  bool st64 = false;
  bool rtn = false;
  AtomicOp aop = AtomicOp::Add;
};

std::vector<DsDesc>& ds_descs() {
  static std::vector<DsDesc> t(isa::instructions().size());
  return t;
}

bool parse_ds(std::string_view n, DsDesc* d) {
  if (!n.starts_with("ds_")) return false;
  n.remove_prefix(3);
  if (n.find("src2") != std::string_view::npos || n.starts_with("condxchg")) return false;
  if (n == "nop") return d->kind = DsKind::Nop, true;
  if (n == "swizzle_b32") return d->kind = DsKind::Swizzle, true;
  if (n == "permute_b32") return d->kind = DsKind::Permute, true;
  if (n == "bpermute_b32") return d->kind = DsKind::Bpermute, true;
  if (n == "append") return d->kind = DsKind::Append, true;
  if (n == "consume") return d->kind = DsKind::Consume, true;
  if (n == "write_addtid_b32") return d->kind = DsKind::WriteAddtid, true;
  if (n == "read_addtid_b32") return d->kind = DsKind::ReadAddtid, true;
  struct Form { std::string_view name; DsKind kind; uint8_t bytes; bool sign; uint8_t d16; bool st64; };
  static const Form forms[] = {
      {"read_b32", DsKind::Read, 4, false, 0, false},     {"read_b64", DsKind::Read, 8, false, 0, false},
      {"read_b96", DsKind::Read, 12, false, 0, false},    {"read_b128", DsKind::Read, 16, false, 0, false},
      {"read_i8", DsKind::Read, 1, true, 0, false},       {"read_u8", DsKind::Read, 1, false, 0, false},
      {"read_i16", DsKind::Read, 2, true, 0, false},      {"read_u16", DsKind::Read, 2, false, 0, false},
      {"read_u8_d16", DsKind::Read, 1, false, 1, false},  {"read_u8_d16_hi", DsKind::Read, 1, false, 2, false},
      {"read_i8_d16", DsKind::Read, 1, true, 1, false},   {"read_i8_d16_hi", DsKind::Read, 1, true, 2, false},
      {"read_u16_d16", DsKind::Read, 2, false, 1, false}, {"read_u16_d16_hi", DsKind::Read, 2, false, 2, false},
      {"read2_b32", DsKind::Read2, 4, false, 0, false},   {"read2st64_b32", DsKind::Read2, 4, false, 0, true},
      {"read2_b64", DsKind::Read2, 8, false, 0, false},   {"read2st64_b64", DsKind::Read2, 8, false, 0, true},
      {"write_b8", DsKind::Write, 1, false, 0, false},    {"write_b16", DsKind::Write, 2, false, 0, false},
      {"write_b32", DsKind::Write, 4, false, 0, false},   {"write_b64", DsKind::Write, 8, false, 0, false},
      {"write_b96", DsKind::Write, 12, false, 0, false},  {"write_b128", DsKind::Write, 16, false, 0, false},
      {"write_b8_d16_hi", DsKind::Write, 1, false, 2, false},
      {"write_b16_d16_hi", DsKind::Write, 2, false, 2, false},
      {"write2_b32", DsKind::Write2, 4, false, 0, false}, {"write2st64_b32", DsKind::Write2, 4, false, 0, true},
      {"write2_b64", DsKind::Write2, 8, false, 0, false}, {"write2st64_b64", DsKind::Write2, 8, false, 0, true},
      {"wrxchg2_rtn_b32", DsKind::Xchg2, 4, false, 0, false},
      {"wrxchg2st64_rtn_b32", DsKind::Xchg2, 4, false, 0, true},
      {"wrxchg2_rtn_b64", DsKind::Xchg2, 8, false, 0, false},
      {"wrxchg2st64_rtn_b64", DsKind::Xchg2, 8, false, 0, true},
  };
  for (const Form& f : forms)
    if (f.name == n) {
      d->kind = f.kind;
      d->bytes = f.bytes;
      d->sign = f.sign;
      d->d16 = f.d16;
      d->st64 = f.st64;
      d->rtn = f.kind == DsKind::Xchg2;
      return true;
    }
  // Atomics: <op>[_rtn]_<type>
  size_t us = n.rfind('_');
  if (us == std::string_view::npos) return false;
  std::string_view type = n.substr(us + 1), op = n.substr(0, us);
  if (op.ends_with("_rtn")) {
    d->rtn = true;
    op.remove_suffix(4);
  }
  char t = type[0];
  d->bytes = type.substr(1) == "64" ? 8 : 4;
  d->kind = DsKind::Atomic;
  if (op == "min") d->aop = t == 'f' ? AtomicOp::Fmin : t == 'i' ? AtomicOp::Smin : AtomicOp::Umin;
  else if (op == "max") d->aop = t == 'f' ? AtomicOp::Fmax : t == 'i' ? AtomicOp::Smax : AtomicOp::Umax;
  else if (op == "add") d->aop = t == 'f' ? AtomicOp::Fadd : AtomicOp::Add;
  else if (op == "cmpst") d->aop = t == 'f' ? AtomicOp::Fcmpswap : AtomicOp::Cmpswap;
  else if (op == "wrxchg") d->aop = AtomicOp::Swap;
  else if (op == "mskor") d->aop = AtomicOp::Mskor;
  else if (op == "wrap") d->aop = AtomicOp::Wrap;
  else if (!parse_atomic_op(op, &d->aop)) return false;
  return true;
}

// Extra cycles from bank conflicts of one access pass (one dword per lane):
// per half-wave, the largest number of distinct dwords mapped to one bank, minus one.
uint64_t bank_conflicts(const uint32_t* dword, uint64_t mask) {
  uint64_t total = 0;
  for (int half = 0; half < 2; ++half) {
    uint8_t count[32] = {};
    int worst = 0;
    for (int l = half * 32; l < half * 32 + 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      bool dup = false;
      for (int k = half * 32; k < l && !dup; ++k)
        if (((mask >> k) & 1) && dword[k] == dword[l]) dup = true;  // broadcast: no conflict
      if (dup) continue;
      int c = ++count[dword[l] & 31];
      if (c > worst) worst = c;
    }
    if (worst > 1) total += uint64_t(worst - 1);
  }
  return total;
}

void profile_lds(Exec& e, const uint64_t* addr, uint64_t mask, unsigned bytes) {
  if (e.obs) e.obs->lds_access(addr, mask, bytes);
  if (!e.d.detailed) return;
  ++e.prof.lds_accesses;
  uint32_t dw[64];
  for (unsigned k = 0; k < (bytes + 3) / 4; ++k) {
    for_lanes(mask, [&](int l) { dw[l] = uint32_t((addr[l] >> 2) + k); });
    e.prof.lds_bank_conflicts += bank_conflicts(dw, mask);
  }
}

unsigned vgpr_of(const Op& op, Field f) { return op.opnd(f).vgpr_index(); }

// Marks the LDS accesses of an atomic for race detection (atomics do not race each other).
struct AtomicScope {
  Exec& e;
  explicit AtomicScope(Exec& x) : e(x) { e.lds_atomic = true; }
  ~AtomicScope() { e.lds_atomic = false; }
};

// A DS instruction with the gds modifier: its addresses are offsets into the
// device's GDS from M0[31:16], within M0[15:0] bytes; the whole instruction
// holds the GDS lock, so it is one step for every host thread.
struct GdsScope {
  Exec& e;
  std::unique_lock<std::mutex> lock;
  GdsScope(Exec& x, bool gds, uint32_t m0) : e(x) {
    if (!gds) return;
    lock = std::unique_lock<std::mutex>(e.mem.gds_mutex);
    e.gds_access = true;
    e.gds_base = m0 >> 16;
    e.gds_limit = m0 & 0xffff;
  }
  ~GdsScope() { e.gds_access = false; }
};

Step ds(Exec& e, Wave& w, const Op& op) {
  const DsDesc& d = ds_descs()[op.inst.id];
  const isa::Modifiers& m = op.inst.mods;
  if (m.gds && d.kind != DsKind::Read && d.kind != DsKind::Write && d.kind != DsKind::Read2 &&
      d.kind != DsKind::Write2 && d.kind != DsKind::Atomic && d.kind != DsKind::Xchg2)
    raise(FaultKind::Unsupported, "GDS is emulated for DS reads, writes and atomics only, not " + op.inst.desc().name);
  GdsScope gds(e, m.gds, w.s.m0());
  uint64_t exec = w.s.exec();
  if (!exec || d.kind == DsKind::Nop) return Step::Next;
  uint64_t addr[64];
  auto base_addr = [&](uint32_t offset) {
    unsigned va = vgpr_of(op, Field::addr);
    for_lanes(exec, [&](int l) { addr[l] = uint64_t(vreg(w, va, l)) + offset; });
  };

  switch (d.kind) {
    case DsKind::Read: {
      base_addr(uint32_t(m.offset) & 0xffff);
      profile_lds(e, addr, exec, d.bytes);
      unsigned vd = vgpr_of(op, Field::vdst);
      for_lanes(exec, [&](int l) {
        const uint8_t* p = e.lds_ptr(addr[l], d.bytes, false, l);
        uint32_t v;
        if (d.bytes == 1) v = d.sign ? uint32_t(int32_t(int8_t(p[0]))) : p[0];
        else if (d.bytes == 2) v = d.sign ? uint32_t(int32_t(int16_t(uint16_t(p[0] | p[1] << 8)))) : uint32_t(p[0] | p[1] << 8);
        else v = 0;
        if (d.d16 == 1) vreg(w, vd, l) = (vreg(w, vd, l) & 0xffff0000u) | (v & 0xffff);
        else if (d.d16 == 2) vreg(w, vd, l) = (vreg(w, vd, l) & 0xffff) | (v << 16);
        else if (d.bytes <= 2) vreg(w, vd, l) = v;
        else
          for (unsigned i = 0; i < d.bytes / 4u; ++i) std::memcpy(&vreg(w, vd + i, l), p + 4 * i, 4);
      });
      break;
    }
    case DsKind::Write: {
      base_addr(uint32_t(m.offset) & 0xffff);
      profile_lds(e, addr, exec, d.bytes);
      unsigned vs = vgpr_of(op, Field::data0);
      for_lanes(exec, [&](int l) {
        uint8_t* p = e.lds_ptr(addr[l], d.bytes, true, l);
        uint32_t v = vreg(w, vs, l);
        if (d.d16 == 2) v >>= 16;
        if (d.bytes <= 4) std::memcpy(p, &v, d.bytes);
        else
          for (unsigned i = 0; i < d.bytes / 4u; ++i) std::memcpy(p + 4 * i, &vreg(w, vs + i, l), 4);
      });
      break;
    }
    case DsKind::Read2:
    case DsKind::Write2:
    case DsKind::Xchg2: {
      uint32_t scale = d.bytes * (d.st64 ? 64u : 1u);
      uint64_t a1[64];
      unsigned va = vgpr_of(op, Field::addr);
      for_lanes(exec, [&](int l) {
        addr[l] = uint64_t(vreg(w, va, l)) + uint64_t(m.offset0) * scale;
        a1[l] = uint64_t(vreg(w, va, l)) + uint64_t(m.offset1) * scale;
      });
      profile_lds(e, addr, exec, d.bytes);
      profile_lds(e, a1, exec, d.bytes);
      unsigned words = d.bytes / 4;
      unsigned vd = d.kind == DsKind::Write2 ? 0 : vgpr_of(op, Field::vdst);
      unsigned v0 = d.kind == DsKind::Read2 ? 0 : vgpr_of(op, Field::data0);
      unsigned v1 = d.kind == DsKind::Read2 ? 0 : vgpr_of(op, Field::data1);
      bool write = d.kind != DsKind::Read2;
      for_lanes(exec, [&](int l) {
        uint8_t* p0 = e.lds_ptr(addr[l], d.bytes, write, l);
        uint8_t* p1 = e.lds_ptr(a1[l], d.bytes, write, l);
        if (d.kind != DsKind::Write2)
          for (unsigned i = 0; i < words; ++i) {
            std::memcpy(&vreg(w, vd + i, l), p0 + 4 * i, 4);
            std::memcpy(&vreg(w, vd + words + i, l), p1 + 4 * i, 4);
          }
        if (write)
          for (unsigned i = 0; i < words; ++i) {
            std::memcpy(p0 + 4 * i, &vreg(w, v0 + i, l), 4);
            std::memcpy(p1 + 4 * i, &vreg(w, v1 + i, l), 4);
          }
      });
      break;
    }
    case DsKind::Atomic: {
      AtomicScope scope(e);
      base_addr(uint32_t(m.offset) & 0xffff);
      profile_lds(e, addr, exec, d.bytes);
      bool wide = d.bytes == 8;
      bool two = d.aop == AtomicOp::Cmpswap || d.aop == AtomicOp::Fcmpswap || d.aop == AtomicOp::Mskor ||
                 d.aop == AtomicOp::Wrap;
      unsigned v0 = vgpr_of(op, Field::data0);
      unsigned v1 = two ? vgpr_of(op, Field::data1) : 0;
      unsigned vd = d.rtn ? vgpr_of(op, Field::vdst) : 0;
      for_lanes(exec, [&](int l) {
        auto rd = [&](unsigned r) {
          uint64_t v = vreg(w, r, l);
          if (wide) v |= uint64_t(vreg(w, r + 1, l)) << 32;
          return v;
        };
        uint64_t a = rd(v0), b = two ? rd(v1) : 0;
        // cmpst: data0 is the compare value, data1 the new one.
        uint64_t data = a, data2 = b;
        if (d.aop == AtomicOp::Cmpswap || d.aop == AtomicOp::Fcmpswap) {
          data = b;
          data2 = a;
        }
        uint8_t* p = e.lds_ptr(addr[l], d.bytes, true, l);
        uint64_t old = 0;
        std::memcpy(&old, p, d.bytes);
        uint64_t nv = atomic_apply(d.aop, old, data, data2, wide);
        std::memcpy(p, &nv, d.bytes);
        if (d.rtn) {
          vreg(w, vd, l) = uint32_t(old);
          if (wide) vreg(w, vd + 1, l) = uint32_t(old >> 32);
        }
      });
      break;
    }
    case DsKind::Swizzle: {
      unsigned vs = vgpr_of(op, Field::addr), vd = vgpr_of(op, Field::vdst);
      uint32_t off = uint32_t(m.offset) & 0xffff;
      uint32_t src[64];
      for (int l = 0; l < 64; ++l) src[l] = vreg(w, vs, l);
      for_lanes(exec, [&](int l) {
        int in;
        if (off & 0x8000) {
          in = (l & 0x3c) + int((off >> (2 * (l & 3))) & 3);
        } else {
          uint32_t and_mask = off & 31, or_mask = (off >> 5) & 31, xor_mask = (off >> 10) & 31;
          in = (l & 32) + int((((uint32_t(l) & 31) & and_mask) | or_mask) ^ xor_mask);
        }
        vreg(w, vd, l) = ((exec >> in) & 1) ? src[in] : 0;
      });
      break;
    }
    case DsKind::Permute:
    case DsKind::Bpermute: {
      unsigned va = vgpr_of(op, Field::addr), vs = vgpr_of(op, Field::data0), vd = vgpr_of(op, Field::vdst);
      uint32_t off = uint32_t(m.offset) & 0xffff;
      uint32_t src[64], out[64] = {};
      for (int l = 0; l < 64; ++l) src[l] = vreg(w, vs, l);
      if (d.kind == DsKind::Bpermute) {
        for_lanes(exec, [&](int l) {
          int in = int(((vreg(w, va, l) + off) >> 2) & 63);
          out[l] = ((exec >> in) & 1) ? src[in] : 0;
        });
      } else {
        for_lanes(exec, [&](int l) { out[((vreg(w, va, l) + off) >> 2) & 63] = src[l]; });
      }
      for_lanes(exec, [&](int l) { vreg(w, vd, l) = out[l]; });
      break;
    }
    case DsKind::Append:
    case DsKind::Consume: {
      AtomicScope scope(e);
      uint64_t at = (w.s.m0() & 0xffff) + (uint32_t(m.offset) & 0xffff);
      uint8_t* p = e.lds_ptr(at, 4, true, -1);
      uint32_t old;
      std::memcpy(&old, p, 4);
      uint32_t n = lane_count(exec);
      uint32_t nv = d.kind == DsKind::Append ? old + n : old - n;
      std::memcpy(p, &nv, 4);
      unsigned vd = vgpr_of(op, Field::vdst);
      for_lanes(exec, [&](int l) { vreg(w, vd, l) = old; });
      break;
    }
    case DsKind::WriteAddtid:
    case DsKind::ReadAddtid: {
      uint64_t base = (w.s.m0() & 0xffff) + (uint32_t(m.offset) & 0xffff);
      for_lanes(exec, [&](int l) { addr[l] = base + uint64_t(l) * 4; });
      profile_lds(e, addr, exec, 4);
      bool write = d.kind == DsKind::WriteAddtid;
      unsigned v = vgpr_of(op, write ? Field::data0 : Field::vdst);
      for_lanes(exec, [&](int l) {
        uint8_t* p = e.lds_ptr(addr[l], 4, write, l);
        if (write) std::memcpy(p, &vreg(w, v, l), 4);
        else std::memcpy(&vreg(w, v, l), p, 4);
      });
      break;
    }
    case DsKind::Nop: break;
  }
  return Step::Next;
}

}  // namespace

void register_ds(std::vector<CoreEntry>& out) {
  auto& descs = ds_descs();
  for (const isa::InstDesc& d : isa::instructions()) {
    if (d.family != isa::Family::DS) continue;
    DsDesc x;
    if (!parse_ds(d.name, &x)) continue;
    descs[d.id] = x;
    out.push_back({d.ident.c_str(), ds});
  }
}

}  // namespace k100::emu::detail
