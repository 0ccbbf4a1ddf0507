// Atomics on global memory and LDS, each returning the element's old value
// (every active lane performs its own). Global f32 addition has no
// instruction on this target: each lane retries a compare-and-swap of the
// bits it last saw until it succeeds, and so does f16 addition, on the dword
// that holds the element. f32 exchange and compare-and-swap act on the bits.
#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

namespace {

const char* global_mnemonic(BuiltinId id, Scalar elem) {
  const bool sgn = elem == Scalar::S32;
  switch (id) {
    case BuiltinId::AtomicAdd: return elem == Scalar::F32 ? nullptr : "global_atomic_add";
    case BuiltinId::AtomicMin: return sgn ? "global_atomic_smin" : "global_atomic_umin";
    case BuiltinId::AtomicMax: return sgn ? "global_atomic_smax" : "global_atomic_umax";
    case BuiltinId::AtomicXchg: return "global_atomic_swap";
    default: return "global_atomic_cmpswap";
  }
}

const char* lds_mnemonic(BuiltinId id, Scalar elem) {
  const bool sgn = elem == Scalar::S32;
  switch (id) {
    case BuiltinId::AtomicAdd: return elem == Scalar::F32 ? "ds_add_rtn_f32" : "ds_add_rtn_u32";
    case BuiltinId::AtomicMin: return sgn ? "ds_min_rtn_i32" : "ds_min_rtn_u32";
    case BuiltinId::AtomicMax: return sgn ? "ds_max_rtn_i32" : "ds_max_rtn_u32";
    case BuiltinId::AtomicXchg: return "ds_wrxchg_rtn_b32";
    default: return "ds_cmpst_rtn_b32";
  }
}

}  // namespace

Lowerer::Reg Lowerer::atomic(const ir::Value& v) {
  const Variable& m = f_.kernel->vars[size_t(v.var)];
  const Scalar elem = m.type.scalar;
  const bool cas = v.builtin == BuiltinId::AtomicCas;
  Reg r = new_vreg("old");
  if (m.type.kind == Type::Kind::Lds) {
    VGPR a = k_.vgpr(1, "lds address");
    k_.v_lshlrev_b32(a, 2, vec(v.args[0]));
    const auto at = as::offset(int(m.lds_offset));
    if (cas)  // DATA0 is the value compared, DATA1 the one stored
      k_.emit(lds_mnemonic(v.builtin, elem), {r.v, a, vec(v.args[1]), vec(v.args[2]), at});
    else
      k_.emit(lds_mnemonic(v.builtin, elem), {r.v, a, vec(v.args[1]), at});
    return r;
  }
  if (elem == Scalar::F16) return half_atomic_add(v);
  const char* mnemonic = global_mnemonic(v.builtin, elem);
  VGPR a = global_address(v.var, v.args[0], 4);
  if (!mnemonic) {  // f32 add on global memory: compare-and-swap until no other lane came between
    VGPR x = vec(v.args[1]), data = k_.vgpr(2, "sum and expected"), seen = k_.vgpr(1, "seen");
    k_.global_load_dword(r.v, a, off, as::glc());
    k_.loop_();
    k_.v_add_f32(data[0], r.v, x);
    k_.v_mov_b32(data[1], r.v);
    k_.global_atomic_cmpswap(seen, a, data, off, as::glc());
    SGPR done = k_.sgpr(2, "swapped");
    k_.v_cmp_eq_u32(done, seen, r.v);  // the bits we expected were there: our sum is stored
    k_.v_mov_b32(r.v, seen);
    k_.break_(done);
    k_.end_loop();
    return r;
  }
  if (cas) {  // DATA[0] is the value stored, DATA[1] the one compared
    VGPR data = k_.vgpr(2, "swap and compare");
    k_.v_mov_b32(data[0], vec(v.args[2]));
    k_.v_mov_b32(data[1], vec(v.args[1]));
    k_.emit(mnemonic, {r.v, a, data, off, as::glc()});
  } else {
    k_.emit(mnemonic, {r.v, a, vec(v.args[1]), off, as::glc()});
  }
  return r;
}

// f16 addition on global memory: the aligned dword holding the element is
// compare-and-swapped with the element's half replaced by the f16 sum (one
// rounding), until no other lane changed the dword in between; the other
// half is kept, so two elements of one dword can be added at once.
Lowerer::Reg Lowerer::half_atomic_add(const ir::Value& v) {
  VGPR a = global_address(v.var, v.args[0], 2), x = vec(v.args[1]);
  VGPR word = k_.vgpr(2, "dword address"), shift = k_.vgpr(1, "half shift"), seen = k_.vgpr(1, "seen dword");
  k_.v_and_b32(word[0], 0xfffffffcu, a[0]);
  k_.v_mov_b32(word[1], a[1]);
  k_.v_and_b32(shift, 2, a[0]);
  k_.v_lshlrev_b32(shift, 3, shift);  // 0 or 16
  VGPR keep = k_.vgpr(1, "element bits"), data = k_.vgpr(2, "new and expected"), sum = k_.vgpr(1, "sum");
  k_.v_mov_b32(keep, 0xffffu);
  k_.v_lshlrev_b32(keep, shift, keep);
  k_.global_load_dword(seen, word, off, as::glc());
  k_.loop_();
  VGPR old = k_.vgpr(1, "old half");
  k_.v_lshrrev_b32(old, shift, seen);
  k_.v_add_f16(sum, old, x);  // the high half of sum is zero
  k_.v_lshlrev_b32(sum, shift, sum);
  k_.v_bfi_b32(data[0], keep, sum, seen);
  k_.v_mov_b32(data[1], seen);
  VGPR got = k_.vgpr(1, "got");
  k_.global_atomic_cmpswap(got, word, data, off, as::glc());
  SGPR done = k_.sgpr(2, "swapped");
  k_.v_cmp_eq_u32(done, got, seen);  // the dword was as expected: our sum is stored
  k_.v_mov_b32(seen, got);
  k_.break_(done);
  k_.end_loop();
  Reg r = new_vreg("old");
  k_.v_lshrrev_b32(r.v, shift, seen);  // the element before this lane's add
  return r;
}

}  // namespace k100::dsl
