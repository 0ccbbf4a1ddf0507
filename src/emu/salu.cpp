// Scalar ALU semantics: SOP1, SOP2, SOPK, SOPC and SOPP (incl. branches,
// exec-mask manipulation, hardware registers, M0-relative SGPR moves and
// VGPR index mode).
#include <bit>

#include "core.h"
#include "k100/isa/symbolic.h"

namespace k100::emu::detail {

namespace {

using isa::Field;

inline const isa::Operand& D(const Op& op) { return op.opnd(Field::sdst); }
inline const isa::Operand& S0(const Op& op) { return op.opnd(Field::ssrc0); }
inline const isa::Operand& S1(const Op& op) { return op.opnd(Field::ssrc1); }
inline int32_t simm(const Op& op) { return int32_t(int16_t(uint16_t(op.opnd(Field::simm16).value))); }
inline uint32_t uimm(const Op& op) { return op.opnd(Field::simm16).value & 0xffff; }

// ----------------------------------------------------------------- SOP2 ---

using Bin32 = uint32_t (*)(uint32_t, uint32_t, bool& scc);
using Bin64 = uint64_t (*)(uint64_t, uint64_t, bool& scc);

template <class F>
Step sop2_32(Exec&, Wave& w, const Op& op) {
  bool scc = w.s.scc;
  uint32_t r = F{}(sread(w, S0(op)), sread(w, S1(op)), scc);
  swrite(w, D(op).code, r);
  w.s.scc = scc;
  return Step::Next;
}

// 64-bit result; Src1Wide: ssrc1 is 64-bit; Signed0: ssrc0 is a signed operand.
template <class F, bool Src0Wide, bool Src1Wide, bool Signed0 = false>
Step sop2_64(Exec&, Wave& w, const Op& op) {
  bool scc = w.s.scc;
  uint64_t a = Src0Wide ? sread64(w, S0(op), Signed0) : sread(w, S0(op));
  uint64_t b = Src1Wide ? sread64(w, S1(op)) : sread(w, S1(op));
  uint64_t r = F{}(a, b, scc);
  swrite64(w, D(op).code, r);
  w.s.scc = scc;
  return Step::Next;
}

inline bool nz(uint32_t v) { return v != 0; }

uint32_t bfe_u32(uint32_t s0, uint32_t s1) {
  uint32_t off = s1 & 31, wid = (s1 >> 16) & 0x7f;
  uint32_t v = s0 >> off;
  if (wid < 32) v &= (1u << wid) - 1;
  return v;
}
uint32_t bfe_i32(uint32_t s0, uint32_t s1) {
  uint32_t off = s1 & 31, wid = (s1 >> 16) & 0x7f;
  if (wid == 0) return 0;
  int32_t v = int32_t(s0 >> off);
  if (wid < 32) v = int32_t(uint32_t(v) << (32 - wid)) >> (32 - wid);
  return uint32_t(v);
}
uint64_t bfe_u64(uint64_t s0, uint32_t s1) {
  uint32_t off = s1 & 63, wid = (s1 >> 16) & 0x7f;
  uint64_t v = s0 >> off;
  if (wid < 64) v &= (uint64_t(1) << wid) - 1;
  return v;
}
uint64_t bfe_i64(uint64_t s0, uint32_t s1) {
  uint32_t off = s1 & 63, wid = (s1 >> 16) & 0x7f;
  if (wid == 0) return 0;
  int64_t v = int64_t(s0 >> off);
  if (wid < 64) v = int64_t(uint64_t(v) << (64 - wid)) >> (64 - wid);
  return uint64_t(v);
}

template <unsigned N>
struct LshlAdd {
  uint32_t operator()(uint32_t a, uint32_t b, bool& scc) const {
    uint64_t t = (uint64_t(a) << N) + b;
    scc = (t >> 32) != 0;
    return uint32_t(t);
  }
};

// ----------------------------------------------------------------- SOP1 ---

using Un32 = uint32_t (*)(uint32_t, bool& scc);
using Un64 = uint64_t (*)(uint64_t, bool& scc);
using Red64 = uint32_t (*)(uint64_t, bool& scc);  // 64-bit source, 32-bit result

template <class F>
Step sop1_32(Exec&, Wave& w, const Op& op) {
  bool scc = w.s.scc;
  uint32_t r = F{}(sread(w, S0(op)), scc);
  swrite(w, D(op).code, r);
  w.s.scc = scc;
  return Step::Next;
}
template <class F>
Step sop1_64(Exec&, Wave& w, const Op& op) {
  bool scc = w.s.scc;
  uint64_t r = F{}(sread64(w, S0(op)), scc);
  swrite64(w, D(op).code, r);
  w.s.scc = scc;
  return Step::Next;
}
template <class F, bool Signed = false>
Step sop1_r64(Exec&, Wave& w, const Op& op) {
  bool scc = w.s.scc;
  uint32_t r = F{}(sread64(w, S0(op), Signed), scc);
  swrite(w, D(op).code, r);
  w.s.scc = scc;
  return Step::Next;
}

uint64_t wqm64(uint64_t v) {
  uint64_t r = 0;
  for (int q = 0; q < 16; ++q)
    if ((v >> (4 * q)) & 0xf) r |= uint64_t(0xf) << (4 * q);
  return r;
}
uint64_t quadmask64(uint64_t v) {
  uint64_t r = 0;
  for (int q = 0; q < 16; ++q)
    if ((v >> (4 * q)) & 0xf) r |= uint64_t(1) << q;
  return r;
}
int32_t flbit_signed(int64_t v, int bits) {
  // Leading bits equal to the sign bit, counted from the MSB; -1 for 0 and -1.
  uint64_t u = uint64_t(v);
  bool neg = v < 0;
  for (int i = bits - 1; i >= 0; --i) {
    bool b = (u >> i) & 1;
    if (b != neg) return bits - 1 - i;
  }
  return -1;
}

using ExecFn = uint64_t (*)(uint64_t s0, uint64_t exec);

// D = EXEC; EXEC = F{}(S0, EXEC); SCC = EXEC != 0.
template <class F>
Step saveexec(Exec&, Wave& w, const Op& op) {
  uint64_t s0 = sread64(w, S0(op));
  uint64_t old = w.s.exec();
  uint64_t ne = F{}(s0, old);
  swrite64(w, D(op).code, old);
  w.s.set_exec(ne);
  w.s.scc = ne != 0;
  return Step::Next;
}
// EXEC = F{}(S0, EXEC); D = EXEC; SCC = EXEC != 0.
template <class F>
Step wrexec(Exec&, Wave& w, const Op& op) {
  uint64_t s0 = sread64(w, S0(op));
  uint64_t ne = F{}(s0, w.s.exec());
  w.s.set_exec(ne);
  swrite64(w, D(op).code, ne);
  w.s.scc = ne != 0;
  return Step::Next;
}

Step s_getpc_b64(Exec& e, Wave& w, const Op& op) {
  swrite64(w, D(op).code, e.d.prog->base + op.pc + op.size);
  return Step::Next;
}
Step set_pc_from(Exec& e, Wave& w, uint64_t target) {
  // Out-of-range targets fault at the next fetch, with the PC shown.
  w.s.pc = target - e.d.prog->base;
  return Step::Jump;
}
Step s_setpc_b64(Exec& e, Wave& w, const Op& op) { return set_pc_from(e, w, sread64(w, S0(op))); }
// Return from exception: PRIV = 0, PC = S0 (Vega ISA, SOP1). The emulator has
// no privileged state, so what remains is the jump.
Step s_rfe_b64(Exec& e, Wave& w, const Op& op) { return set_pc_from(e, w, sread64(w, S0(op))); }
Step s_swappc_b64(Exec& e, Wave& w, const Op& op) {
  uint64_t target = sread64(w, S0(op));
  swrite64(w, D(op).code, e.d.prog->base + op.pc + op.size);
  return set_pc_from(e, w, target);
}

void check_sgpr_index(uint32_t index, unsigned width) {
  if (index + width > 102 + 2 /* flat_scratch */ && index < 106)
    raise(FaultKind::Trap, "M0-relative SGPR index " + std::to_string(index) + " is out of range");
  if (index + width > 128) raise(FaultKind::Trap, "M0-relative SGPR index " + std::to_string(index) + " is out of range");
}
Step s_movrels_b32(Exec&, Wave& w, const Op& op) {
  uint32_t idx = S0(op).code + w.s.m0();
  check_sgpr_index(idx, 1);
  swrite(w, D(op).code, w.s.sgpr[idx]);
  return Step::Next;
}
Step s_movrels_b64(Exec&, Wave& w, const Op& op) {
  uint32_t idx = S0(op).code + w.s.m0();
  check_sgpr_index(idx, 2);
  swrite64(w, D(op).code, w.s.sgpr64(idx));
  return Step::Next;
}
Step s_movreld_b32(Exec&, Wave& w, const Op& op) {
  uint32_t idx = D(op).code + w.s.m0();
  check_sgpr_index(idx, 1);
  w.s.sgpr[idx] = sread(w, S0(op));
  return Step::Next;
}
Step s_movreld_b64(Exec&, Wave& w, const Op& op) {
  uint32_t idx = D(op).code + w.s.m0();
  check_sgpr_index(idx, 2);
  w.s.set_sgpr64(idx, sread64(w, S0(op)));
  return Step::Next;
}
Step s_set_gpr_idx_idx(Exec&, Wave& w, const Op& op) {
  w.s.sgpr[isa::code::kM0] = (w.s.m0() & ~0xffu) | (sread(w, S0(op)) & 0xff);
  return Step::Next;
}

Step s_cmov_b32(Exec&, Wave& w, const Op& op) {
  if (w.s.scc) swrite(w, D(op).code, sread(w, S0(op)));
  return Step::Next;
}
Step s_cmov_b64(Exec&, Wave& w, const Op& op) {
  if (w.s.scc) swrite64(w, D(op).code, sread64(w, S0(op)));
  return Step::Next;
}
Step s_bitset_32(Wave& w, const Op& op, bool set) {
  uint32_t d = sread(w, D(op)), b = 1u << (sread(w, S0(op)) & 31);
  swrite(w, D(op).code, set ? d | b : d & ~b);
  return Step::Next;
}
Step s_bitset_64(Wave& w, const Op& op, bool set) {
  uint64_t d = sread64(w, D(op)), b = uint64_t(1) << (sread(w, S0(op)) & 63);
  swrite64(w, D(op).code, set ? d | b : d & ~b);
  return Step::Next;
}

// ----------------------------------------------------------------- SOPC ---

using Cmp32 = bool (*)(uint32_t, uint32_t);
template <class F>
Step sopc_32(Exec&, Wave& w, const Op& op) {
  w.s.scc = F{}(sread(w, S0(op)), sread(w, S1(op)));
  return Step::Next;
}
template <bool Eq>
Step sopc_u64(Exec&, Wave& w, const Op& op) {
  bool eq = sread64(w, S0(op)) == sread64(w, S1(op));
  w.s.scc = Eq ? eq : !eq;
  return Step::Next;
}
template <bool One>
Step bitcmp_64(Exec&, Wave& w, const Op& op) {
  bool bit = (sread64(w, S0(op)) >> (sread(w, S1(op)) & 63)) & 1;
  w.s.scc = One ? bit : !bit;
  return Step::Next;
}
Step s_setvskip(Exec&, Wave& w, const Op& op) {
  bool bit = (sread(w, S0(op)) >> (sread(w, S1(op)) & 31)) & 1;
  w.s.mode = bit ? (w.s.mode | kModeVskip) : (w.s.mode & ~kModeVskip);
  return Step::Next;
}
Step s_set_gpr_idx_on(Exec&, Wave& w, const Op& op) {
  uint32_t idx = sread(w, S0(op)) & 0xff;
  uint32_t mode = op.opnd(Field::ssrc1).value & 0xf;
  w.s.sgpr[isa::code::kM0] = (w.s.m0() & ~0xf0ffu) | idx | (mode << 12);
  w.s.mode |= kModeGprIdxEn;
  return Step::Next;
}

// ----------------------------------------------------------------- SOPK ---

template <class F, bool Unsigned>
Step sopk_cmp(Exec&, Wave& w, const Op& op) {
  uint32_t imm = Unsigned ? uimm(op) : uint32_t(simm(op));
  w.s.scc = F{}(sread(w, D(op)), imm);
  return Step::Next;
}
Step s_movk_i32(Exec&, Wave& w, const Op& op) {
  swrite(w, D(op).code, uint32_t(simm(op)));
  return Step::Next;
}
Step s_cmovk_i32(Exec&, Wave& w, const Op& op) {
  if (w.s.scc) swrite(w, D(op).code, uint32_t(simm(op)));
  return Step::Next;
}
Step s_addk_i32(Exec&, Wave& w, const Op& op) {
  int32_t a = int32_t(sread(w, D(op))), b = simm(op);
  int32_t r = int32_t(uint32_t(a) + uint32_t(b));
  w.s.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
  swrite(w, D(op).code, uint32_t(r));
  return Step::Next;
}
Step s_mulk_i32(Exec&, Wave& w, const Op& op) {
  swrite(w, D(op).code, sread(w, D(op)) * uint32_t(simm(op)));
  return Step::Next;
}
Step s_call_b64(Exec& e, Wave& w, const Op& op) {
  swrite64(w, D(op).code, e.d.prog->base + op.pc + op.size);
  w.s.pc = op.pc + 4 + int64_t(simm(op)) * 4;
  return Step::Jump;
}

// Hardware registers (GFX9 ids).
enum HwReg : unsigned {
  kHwMode = 1, kHwStatus = 2, kHwTrapsts = 3, kHwHwId = 4, kHwGprAlloc = 5, kHwLdsAlloc = 6,
  kHwIbSts = 7, kHwShMemBases = 15,
};

uint32_t hwreg_value(Exec& e, Wave& w, unsigned id) {
  const KernelSpec& k = *e.d.kernel;
  switch (id) {
    case kHwMode: return w.s.mode;
    case kHwStatus:
      return uint32_t(w.s.scc) | (w.s.exec() == 0 ? 1u << 9 : 0) | (w.s.vcc() == 0 ? 1u << 10 : 0) |
             (e.nwaves > 1 ? 1u << 11 : 0) | (1u << 16);
    case kHwTrapsts: return w.s.trap_status;
    case kHwHwId:
      return (w.index & 15) | ((w.index & 3) << 4) | (uint32_t(e.wg_flat & 15) << 8) |
             (uint32_t(e.wg_flat & 15) << 16);
    case kHwGprAlloc:
      return ((k.rsrc1 & 0x3f) << 8) | (((k.rsrc1 >> 6) & 0xf) << 24);
    case kHwLdsAlloc: return ((e.lds_size + 511) / 512) << 12;
    case kHwIbSts: return 0;
    case kHwShMemBases:
      return uint32_t(kPrivateApertureBase >> 48) | uint32_t(kSharedApertureBase >> 48) << 16;
    default: return 0;
  }
}
void set_hwreg(Wave& w, uint16_t imm, uint32_t value) {
  unsigned id = imm & 63, off = (imm >> 6) & 31, size = ((imm >> 11) & 31) + 1;
  uint32_t mask = (size >= 32 ? ~0u : ((1u << size) - 1)) << off;
  uint32_t* reg = nullptr;
  if (id == kHwMode) reg = &w.s.mode;
  else if (id == kHwTrapsts) reg = &w.s.trap_status;
  if (reg) *reg = (*reg & ~mask) | ((value << off) & mask);
}
Step s_getreg_b32(Exec& e, Wave& w, const Op& op) {
  uint16_t imm = uint16_t(uimm(op));
  unsigned id = imm & 63, off = (imm >> 6) & 31, size = ((imm >> 11) & 31) + 1;
  uint32_t v = hwreg_value(e, w, id) >> off;
  if (size < 32) v &= (1u << size) - 1;
  swrite(w, D(op).code, v);
  return Step::Next;
}
Step s_setreg_b32(Exec&, Wave& w, const Op& op) {
  set_hwreg(w, uint16_t(uimm(op)), sread(w, D(op)));
  return Step::Next;
}
Step s_setreg_imm32_b32(Exec&, Wave& w, const Op& op) {
  set_hwreg(w, uint16_t(uimm(op)), op.opnd(Field::literal).value);
  return Step::Next;
}

// ----------------------------------------------------------------- SOPP ---

Step nop(Exec&, Wave&, const Op&) { return Step::Next; }
Step end(Exec&, Wave&, const Op&) { return Step::End; }
Step barrier(Exec&, Wave&, const Op&) { return Step::Barrier; }

Step branch_to(Wave& w, const Op& op) {
  w.s.pc = op.pc + 4 + int64_t(simm(op)) * 4;
  return Step::Jump;
}
Step s_branch(Exec&, Wave& w, const Op& op) { return branch_to(w, op); }
template <int Cond>
Step cbranch(Exec&, Wave& w, const Op& op) {
  bool take;
  switch (Cond) {
    case 0: take = !w.s.scc; break;
    case 1: take = w.s.scc; break;
    case 2: take = w.s.vcc() == 0; break;
    case 3: take = w.s.vcc() != 0; break;
    case 4: take = w.s.exec() == 0; break;
    default: take = w.s.exec() != 0; break;
  }
  return take ? branch_to(w, op) : Step::Next;
}
Step s_trap(Exec&, Wave&, const Op& op) {
  raise(FaultKind::Trap, "s_trap " + std::to_string(uimm(op) & 0xff) +
                             ((uimm(op) & 0xff) == 2 ? " (llvm.trap: the kernel aborted)" : ""));
}
Step s_sethalt(Exec&, Wave&, const Op& op) {
  if (uimm(op) & 1) raise(FaultKind::Trap, "s_sethalt halted the wave");
  return Step::Next;
}
Step s_set_gpr_idx_off(Exec&, Wave& w, const Op&) {
  w.s.mode &= ~kModeGprIdxEn;
  return Step::Next;
}
Step s_set_gpr_idx_mode(Exec&, Wave& w, const Op& op) {
  w.s.sgpr[isa::code::kM0] = (w.s.m0() & ~0xf000u) | ((uimm(op) & 0xf) << 12);
  return Step::Next;
}

#define BIN32(expr) decltype([](uint32_t a, uint32_t b, bool& scc) -> uint32_t { (void)a; (void)b; (void)scc; expr; })
#define BIN64(expr) decltype([](uint64_t a, uint64_t b, bool& scc) -> uint64_t { (void)a; (void)b; (void)scc; expr; })
#define UN32(expr) decltype([](uint32_t a, bool& scc) -> uint32_t { (void)a; (void)scc; expr; })
#define UN64(expr) decltype([](uint64_t a, bool& scc) -> uint64_t { (void)a; (void)scc; expr; })
#define RED64(expr) decltype([](uint64_t a, bool& scc) -> uint32_t { (void)a; (void)scc; expr; })
#define EXECF(expr) decltype([](uint64_t s, uint64_t x) -> uint64_t { return expr; })
#define CMP32(expr) decltype([](uint32_t a, uint32_t b) -> bool { return expr; })

}  // namespace

void register_salu(std::vector<CoreEntry>& out) {
  using I = int32_t;
  auto add = [&](const char* name, CoreFn fn) { out.push_back({name, fn}); };

  // SOP2
  add("s_add_u32", sop2_32<BIN32(uint64_t r = uint64_t(a) + b; scc = r >> 32; return uint32_t(r))>);
  add("s_sub_u32", sop2_32<BIN32(scc = b > a; return a - b)>);
  add("s_add_i32", sop2_32<BIN32(uint32_t r = a + b; scc = ((I(a) >= 0) == (I(b) >= 0)) && ((I(r) >= 0) != (I(a) >= 0)); return r)>);
  add("s_sub_i32", sop2_32<BIN32(uint32_t r = a - b; scc = ((I(a) >= 0) != (I(b) >= 0)) && ((I(r) >= 0) != (I(a) >= 0)); return r)>);
  add("s_addc_u32", sop2_32<BIN32(uint64_t r = uint64_t(a) + b + scc; scc = r >> 32; return uint32_t(r))>);
  add("s_subb_u32", sop2_32<BIN32(uint64_t r = uint64_t(a) - b - scc; scc = (r >> 32) != 0; return uint32_t(r))>);
  add("s_min_i32", sop2_32<BIN32(scc = I(a) < I(b); return scc ? a : b)>);
  add("s_min_u32", sop2_32<BIN32(scc = a < b; return scc ? a : b)>);
  add("s_max_i32", sop2_32<BIN32(scc = I(a) > I(b); return scc ? a : b)>);
  add("s_max_u32", sop2_32<BIN32(scc = a > b; return scc ? a : b)>);
  add("s_cselect_b32", sop2_32<BIN32(return scc ? a : b)>);
  add("s_cselect_b64", sop2_64<BIN64(return scc ? a : b), true, true>);
  add("s_and_b32", sop2_32<BIN32(uint32_t r = a & b; scc = nz(r); return r)>);
  add("s_and_b64", sop2_64<BIN64(uint64_t r = a & b; scc = r != 0; return r), true, true>);
  add("s_or_b32", sop2_32<BIN32(uint32_t r = a | b; scc = nz(r); return r)>);
  add("s_or_b64", sop2_64<BIN64(uint64_t r = a | b; scc = r != 0; return r), true, true>);
  add("s_xor_b32", sop2_32<BIN32(uint32_t r = a ^ b; scc = nz(r); return r)>);
  add("s_xor_b64", sop2_64<BIN64(uint64_t r = a ^ b; scc = r != 0; return r), true, true>);
  add("s_andn2_b32", sop2_32<BIN32(uint32_t r = a & ~b; scc = nz(r); return r)>);
  add("s_andn2_b64", sop2_64<BIN64(uint64_t r = a & ~b; scc = r != 0; return r), true, true>);
  add("s_orn2_b32", sop2_32<BIN32(uint32_t r = a | ~b; scc = nz(r); return r)>);
  add("s_orn2_b64", sop2_64<BIN64(uint64_t r = a | ~b; scc = r != 0; return r), true, true>);
  add("s_nand_b32", sop2_32<BIN32(uint32_t r = ~(a & b); scc = nz(r); return r)>);
  add("s_nand_b64", sop2_64<BIN64(uint64_t r = ~(a & b); scc = r != 0; return r), true, true>);
  add("s_nor_b32", sop2_32<BIN32(uint32_t r = ~(a | b); scc = nz(r); return r)>);
  add("s_nor_b64", sop2_64<BIN64(uint64_t r = ~(a | b); scc = r != 0; return r), true, true>);
  add("s_xnor_b32", sop2_32<BIN32(uint32_t r = ~(a ^ b); scc = nz(r); return r)>);
  add("s_xnor_b64", sop2_64<BIN64(uint64_t r = ~(a ^ b); scc = r != 0; return r), true, true>);
  add("s_lshl_b32", sop2_32<BIN32(uint32_t r = a << (b & 31); scc = nz(r); return r)>);
  add("s_lshl_b64", sop2_64<BIN64(uint64_t r = a << (b & 63); scc = r != 0; return r), true, false>);
  add("s_lshr_b32", sop2_32<BIN32(uint32_t r = a >> (b & 31); scc = nz(r); return r)>);
  add("s_lshr_b64", sop2_64<BIN64(uint64_t r = a >> (b & 63); scc = r != 0; return r), true, false>);
  add("s_ashr_i32", sop2_32<BIN32(uint32_t r = uint32_t(I(a) >> (b & 31)); scc = nz(r); return r)>);
  add("s_ashr_i64", sop2_64<BIN64(uint64_t r = uint64_t(int64_t(a) >> (b & 63)); scc = r != 0; return r), true, false, true>);
  add("s_bfm_b32", sop2_32<BIN32(return ((1u << (a & 31)) - 1) << (b & 31))>);
  add("s_bfm_b64", sop2_64<BIN64(return ((uint64_t(1) << (a & 63)) - 1) << (b & 63)), false, false>);
  add("s_mul_i32", sop2_32<BIN32(return uint32_t(I(a) * int64_t(I(b))))>);
  add("s_bfe_u32", sop2_32<BIN32(uint32_t r = bfe_u32(a, b); scc = nz(r); return r)>);
  add("s_bfe_i32", sop2_32<BIN32(uint32_t r = bfe_i32(a, b); scc = nz(r); return r)>);
  add("s_bfe_u64", sop2_64<BIN64(uint64_t r = bfe_u64(a, uint32_t(b)); scc = r != 0; return r), true, false>);
  add("s_bfe_i64", sop2_64<BIN64(uint64_t r = bfe_i64(a, uint32_t(b)); scc = r != 0; return r), true, false, true>);
  add("s_absdiff_i32", sop2_32<BIN32(int64_t d = int64_t(I(a)) - I(b); uint32_t r = uint32_t(d < 0 ? -d : d); scc = nz(r); return r)>);
  add("s_mul_hi_u32", sop2_32<BIN32(return uint32_t((uint64_t(a) * b) >> 32))>);
  add("s_mul_hi_i32", sop2_32<BIN32(return uint32_t(uint64_t(int64_t(I(a)) * I(b)) >> 32))>);
  add("s_lshl1_add_u32", sop2_32<LshlAdd<1>>);
  add("s_lshl2_add_u32", sop2_32<LshlAdd<2>>);
  add("s_lshl3_add_u32", sop2_32<LshlAdd<3>>);
  add("s_lshl4_add_u32", sop2_32<LshlAdd<4>>);
  add("s_pack_ll_b32_b16", sop2_32<BIN32(return (a & 0xffff) | (b << 16))>);
  add("s_pack_lh_b32_b16", sop2_32<BIN32(return (a & 0xffff) | (b & 0xffff0000u))>);
  add("s_pack_hh_b32_b16", sop2_32<BIN32(return (a >> 16) | (b & 0xffff0000u))>);

  // SOPK
  add("s_movk_i32", s_movk_i32);
  add("s_cmovk_i32", s_cmovk_i32);
  add("s_cmpk_eq_i32", sopk_cmp<CMP32(a == b), false>);
  add("s_cmpk_lg_i32", sopk_cmp<CMP32(a != b), false>);
  add("s_cmpk_gt_i32", sopk_cmp<CMP32(int32_t(a) > int32_t(b)), false>);
  add("s_cmpk_ge_i32", sopk_cmp<CMP32(int32_t(a) >= int32_t(b)), false>);
  add("s_cmpk_lt_i32", sopk_cmp<CMP32(int32_t(a) < int32_t(b)), false>);
  add("s_cmpk_le_i32", sopk_cmp<CMP32(int32_t(a) <= int32_t(b)), false>);
  add("s_cmpk_eq_u32", sopk_cmp<CMP32(a == b), true>);
  add("s_cmpk_lg_u32", sopk_cmp<CMP32(a != b), true>);
  add("s_cmpk_gt_u32", sopk_cmp<CMP32(a > b), true>);
  add("s_cmpk_ge_u32", sopk_cmp<CMP32(a >= b), true>);
  add("s_cmpk_lt_u32", sopk_cmp<CMP32(a < b), true>);
  add("s_cmpk_le_u32", sopk_cmp<CMP32(a <= b), true>);
  add("s_addk_i32", s_addk_i32);
  add("s_mulk_i32", s_mulk_i32);
  add("s_getreg_b32", s_getreg_b32);
  add("s_setreg_b32", s_setreg_b32);
  add("s_setreg_imm32_b32", s_setreg_imm32_b32);
  add("s_call_b64", s_call_b64);

  // SOP1
  add("s_mov_b32", sop1_32<UN32(return a)>);
  add("s_mov_b64", sop1_64<UN64(return a)>);
  add("s_cmov_b32", s_cmov_b32);
  add("s_cmov_b64", s_cmov_b64);
  add("s_not_b32", sop1_32<UN32(uint32_t r = ~a; scc = r != 0; return r)>);
  add("s_not_b64", sop1_64<UN64(uint64_t r = ~a; scc = r != 0; return r)>);
  add("s_wqm_b32", sop1_32<UN32(uint32_t r = uint32_t(wqm64(a)); scc = r != 0; return r)>);
  add("s_wqm_b64", sop1_64<UN64(uint64_t r = wqm64(a); scc = r != 0; return r)>);
  add("s_brev_b32", sop1_32<UN32(uint32_t r = 0; for (int i = 0; i < 32; ++i) r |= ((a >> i) & 1) << (31 - i); return r)>);
  add("s_brev_b64", sop1_64<UN64(uint64_t r = 0; for (int i = 0; i < 64; ++i) r |= ((a >> i) & 1) << (63 - i); return r)>);
  add("s_bcnt0_i32_b32", sop1_32<UN32(uint32_t r = uint32_t(std::popcount(~a)); scc = r != 0; return r)>);
  add("s_bcnt0_i32_b64", sop1_r64<RED64(uint32_t r = uint32_t(std::popcount(~a)); scc = r != 0; return r)>);
  add("s_bcnt1_i32_b32", sop1_32<UN32(uint32_t r = uint32_t(std::popcount(a)); scc = r != 0; return r)>);
  add("s_bcnt1_i32_b64", sop1_r64<RED64(uint32_t r = uint32_t(std::popcount(a)); scc = r != 0; return r)>);
  add("s_ff0_i32_b32", sop1_32<UN32(return ~a ? uint32_t(std::countr_zero(~a)) : ~0u)>);
  add("s_ff0_i32_b64", sop1_r64<RED64(return ~a ? uint32_t(std::countr_zero(~a)) : ~0u)>);
  add("s_ff1_i32_b32", sop1_32<UN32(return a ? uint32_t(std::countr_zero(a)) : ~0u)>);
  add("s_ff1_i32_b64", sop1_r64<RED64(return a ? uint32_t(std::countr_zero(a)) : ~0u)>);
  add("s_flbit_i32_b32", sop1_32<UN32(return a ? uint32_t(std::countl_zero(a)) : ~0u)>);
  add("s_flbit_i32_b64", sop1_r64<RED64(return a ? uint32_t(std::countl_zero(a)) : ~0u)>);
  add("s_flbit_i32", sop1_32<UN32(return uint32_t(flbit_signed(int32_t(a), 32)))>);
  add("s_flbit_i32_i64", sop1_r64<RED64(return uint32_t(flbit_signed(int64_t(a), 64))), true>);
  add("s_sext_i32_i8", sop1_32<UN32(return uint32_t(int32_t(int8_t(uint8_t(a)))))>);
  add("s_sext_i32_i16", sop1_32<UN32(return uint32_t(int32_t(int16_t(uint16_t(a)))))>);
  add("s_bitset0_b32", +[](Exec&, Wave& w, const Op& op) { return s_bitset_32(w, op, false); });
  add("s_bitset0_b64", +[](Exec&, Wave& w, const Op& op) { return s_bitset_64(w, op, false); });
  add("s_bitset1_b32", +[](Exec&, Wave& w, const Op& op) { return s_bitset_32(w, op, true); });
  add("s_bitset1_b64", +[](Exec&, Wave& w, const Op& op) { return s_bitset_64(w, op, true); });
  add("s_getpc_b64", s_getpc_b64);
  add("s_setpc_b64", s_setpc_b64);
  add("s_rfe_b64", s_rfe_b64);
  add("s_swappc_b64", s_swappc_b64);
  add("s_and_saveexec_b64", saveexec<EXECF(s & x)>);
  add("s_or_saveexec_b64", saveexec<EXECF(s | x)>);
  add("s_xor_saveexec_b64", saveexec<EXECF(s ^ x)>);
  add("s_andn2_saveexec_b64", saveexec<EXECF(s & ~x)>);
  add("s_orn2_saveexec_b64", saveexec<EXECF(s | ~x)>);
  add("s_nand_saveexec_b64", saveexec<EXECF(~(s & x))>);
  add("s_nor_saveexec_b64", saveexec<EXECF(~(s | x))>);
  add("s_xnor_saveexec_b64", saveexec<EXECF(~(s ^ x))>);
  add("s_andn1_saveexec_b64", saveexec<EXECF(~s & x)>);
  add("s_orn1_saveexec_b64", saveexec<EXECF(~s | x)>);
  add("s_andn1_wrexec_b64", wrexec<EXECF(~s & x)>);
  add("s_andn2_wrexec_b64", wrexec<EXECF(s & ~x)>);
  add("s_quadmask_b32", sop1_32<UN32(uint32_t r = uint32_t(quadmask64(a)) & 0xff; scc = r != 0; return r)>);
  add("s_quadmask_b64", sop1_64<UN64(uint64_t r = quadmask64(a); scc = r != 0; return r)>);
  add("s_movrels_b32", s_movrels_b32);
  add("s_movrels_b64", s_movrels_b64);
  add("s_movreld_b32", s_movreld_b32);
  add("s_movreld_b64", s_movreld_b64);
  add("s_abs_i32", sop1_32<UN32(uint32_t r = I(a) < 0 ? uint32_t(0) - a : a; scc = r != 0; return r)>);
  add("s_set_gpr_idx_idx", s_set_gpr_idx_idx);
  add("s_bitreplicate_b64_b32", sop1_64<UN64(uint64_t r = 0; for (int i = 0; i < 32; ++i) if ((a >> i) & 1) r |= uint64_t(3) << (2 * i); return r)>);

  // SOPC
  add("s_cmp_eq_i32", sopc_32<CMP32(a == b)>);
  add("s_cmp_lg_i32", sopc_32<CMP32(a != b)>);
  add("s_cmp_gt_i32", sopc_32<CMP32(int32_t(a) > int32_t(b))>);
  add("s_cmp_ge_i32", sopc_32<CMP32(int32_t(a) >= int32_t(b))>);
  add("s_cmp_lt_i32", sopc_32<CMP32(int32_t(a) < int32_t(b))>);
  add("s_cmp_le_i32", sopc_32<CMP32(int32_t(a) <= int32_t(b))>);
  add("s_cmp_eq_u32", sopc_32<CMP32(a == b)>);
  add("s_cmp_lg_u32", sopc_32<CMP32(a != b)>);
  add("s_cmp_gt_u32", sopc_32<CMP32(a > b)>);
  add("s_cmp_ge_u32", sopc_32<CMP32(a >= b)>);
  add("s_cmp_lt_u32", sopc_32<CMP32(a < b)>);
  add("s_cmp_le_u32", sopc_32<CMP32(a <= b)>);
  add("s_bitcmp0_b32", sopc_32<CMP32(((a >> (b & 31)) & 1) == 0)>);
  add("s_bitcmp1_b32", sopc_32<CMP32(((a >> (b & 31)) & 1) == 1)>);
  add("s_bitcmp0_b64", bitcmp_64<false>);
  add("s_bitcmp1_b64", bitcmp_64<true>);
  add("s_setvskip", s_setvskip);
  add("s_set_gpr_idx_on", s_set_gpr_idx_on);
  add("s_cmp_eq_u64", sopc_u64<true>);
  add("s_cmp_lg_u64", sopc_u64<false>);

  // SOPP
  add("s_nop", nop);
  add("s_endpgm", end);
  add("s_branch", s_branch);
  add("s_wakeup", nop);
  add("s_cbranch_scc0", cbranch<0>);
  add("s_cbranch_scc1", cbranch<1>);
  add("s_cbranch_vccz", cbranch<2>);
  add("s_cbranch_vccnz", cbranch<3>);
  add("s_cbranch_execz", cbranch<4>);
  add("s_cbranch_execnz", cbranch<5>);
  add("s_barrier", barrier);
  add("s_setkill", nop);
  add("s_waitcnt", nop);
  add("s_sethalt", s_sethalt);
  add("s_sleep", nop);
  add("s_setprio", nop);
  add("s_sendmsg", nop);
  add("s_sendmsghalt", end);
  add("s_trap", s_trap);
  add("s_icache_inv", nop);
  add("s_incperflevel", nop);
  add("s_decperflevel", nop);
  add("s_ttracedata", nop);
  // Debugger-controlled branches: the conditions (debug bits) are never set.
  add("s_cbranch_cdbgsys", nop);
  add("s_cbranch_cdbguser", nop);
  add("s_cbranch_cdbgsys_or_user", nop);
  add("s_cbranch_cdbgsys_and_user", nop);
  add("s_endpgm_saved", end);
  add("s_set_gpr_idx_off", s_set_gpr_idx_off);
  add("s_set_gpr_idx_mode", s_set_gpr_idx_mode);
  add("s_endpgm_ordered_ps_done", end);
}

}  // namespace k100::emu::detail
