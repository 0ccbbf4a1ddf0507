// Vector compares (VOPC and their VOP3/SDWA forms): one result bit per lane
// to VCC or an SGPR pair (0 for lanes outside EXEC); v_cmpx_* also writes the
// result to EXEC. Float predicates follow IEEE ordered/unordered rules on the
// (input-flushed) values; v_cmp_class_* tests the unflushed class of S0
// against the class mask in S1.
#include <cmath>
#include <string>

#include "drivers.h"

namespace k100::emu::valu {

namespace {

enum class Ty { F16, F32, F64, I16, U16, I32, U32, I64, U64 };

// Float predicates in opcode order.
enum FP { kF, kLt, kEq, kLe, kGt, kLg, kGe, kO, kU, kNge, kNlg, kNgt, kNle, kNeq, kNlt, kTru };
const char* const kFloatPred[] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o",
                                  "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
// Integer predicates in opcode order.
enum IP { kIF, kILt, kIEq, kILe, kIGt, kINe, kIGe, kIT };
const char* const kIntPred[] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};

template <int P, class T>
inline bool fpred(T a, T b) {
  switch (P) {
    case kF: return false;
    case kLt: return a < b;
    case kEq: return a == b;
    case kLe: return a <= b;
    case kGt: return a > b;
    case kLg: return a < b || a > b;
    case kGe: return a >= b;
    case kO: return !std::isnan(a) && !std::isnan(b);
    case kU: return std::isnan(a) || std::isnan(b);
    case kNge: return !(a >= b);
    case kNlg: return !(a < b || a > b);
    case kNgt: return !(a > b);
    case kNle: return !(a <= b);
    case kNeq: return !(a == b);
    case kNlt: return !(a < b);
    default: return true;
  }
}

template <int P, class T>
inline bool ipred(T a, T b) {
  switch (P) {
    case kIF: return false;
    case kILt: return a < b;
    case kIEq: return a == b;
    case kILe: return a <= b;
    case kIGt: return a > b;
    case kINe: return a != b;
    case kIGe: return a >= b;
    default: return true;
  }
}

void finish(Vop& v, LaneMask m, bool cmpx) {
  LaneMask exec = v.exec;
  v.write_sdst(m);
  if (cmpx) v.w.set_exec(m & exec);
}

template <Ty T, int P, bool X>
void cmp(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  alignas(64) uint8_t c[kLanes];
  if constexpr (T == Ty::F32) {
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.f32(1);
    for (int i = 0; i < kLanes; ++i) c[i] = fpred<P>(as_f32(a[i]), as_f32(b[i]));
  } else if constexpr (T == Ty::F16) {
    const uint32_t* a = v.f16(0);
    const uint32_t* b = v.f16(1);
    for (int i = 0; i < kLanes; ++i) c[i] = fpred<P>(f16_to_f32(a[i]), f16_to_f32(b[i]));
  } else if constexpr (T == Ty::F64) {
    const uint64_t* a = v.f64(0);
    const uint64_t* b = v.f64(1);
    for (int i = 0; i < kLanes; ++i) c[i] = fpred<P>(as_f64(a[i]), as_f64(b[i]));
  } else if constexpr (T == Ty::I32 || T == Ty::U32) {
    const uint32_t* a = v.b32(0);
    const uint32_t* b = v.b32(1);
    using C = std::conditional_t<T == Ty::I32, int32_t, uint32_t>;
    for (int i = 0; i < kLanes; ++i) c[i] = ipred<P>(C(a[i]), C(b[i]));
  } else if constexpr (T == Ty::I16 || T == Ty::U16) {
    const uint32_t* a = v.b16(0);
    const uint32_t* b = v.b16(1);
    using C = std::conditional_t<T == Ty::I16, int16_t, uint16_t>;
    for (int i = 0; i < kLanes; ++i) c[i] = ipred<P>(C(a[i]), C(b[i]));
  } else {
    constexpr bool is_signed = T == Ty::I64;
    const uint64_t* a = v.b64(0, is_signed);
    const uint64_t* b = v.b64(1, is_signed);
    using C = std::conditional_t<is_signed, int64_t, uint64_t>;
    for (int i = 0; i < kLanes; ++i) c[i] = ipred<P>(C(a[i]), C(b[i]));
  }
  finish(v, pack_lanes(c), X);
}

template <Ty T, bool X>
void cmp_class(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  LaneMask m = 0;
  const uint32_t* mask = v.b32(1);
  if constexpr (T == Ty::F32) {
    const uint32_t* a = v.mods32(0);
    for (int i = 0; i < kLanes; ++i) m |= LaneMask((mask[i] >> class_f32(a[i])) & 1) << i;
  } else if constexpr (T == Ty::F16) {
    const uint32_t* a = v.mods16(0);
    for (int i = 0; i < kLanes; ++i) m |= LaneMask((mask[i] >> class_f16(a[i])) & 1) << i;
  } else {
    const uint64_t* a = v.b64(0);
    uint64_t and_mask = v.abs(0) ? ~kF64Sign : ~0ull, xor_mask = v.neg(0) ? kF64Sign : 0ull;
    for (int i = 0; i < kLanes; ++i)
      m |= LaneMask((mask[i] >> class_f64((a[i] & and_mask) ^ xor_mask)) & 1) << i;
  }
  finish(v, m, X);
}

template <Ty T, int... P>
void add_float_family(Defs& d, const char* type, std::integer_sequence<int, P...>) {
  ((d.push_back({std::string("v_cmp_") + kFloatPred[P] + "_" + type, cmp<T, P, false>}),
    d.push_back({std::string("v_cmpx_") + kFloatPred[P] + "_" + type, cmp<T, P, true>})),
   ...);
}

template <Ty T, int... P>
void add_int_family(Defs& d, const char* type, std::integer_sequence<int, P...>) {
  ((d.push_back({std::string("v_cmp_") + kIntPred[P] + "_" + type, cmp<T, P, false>}),
    d.push_back({std::string("v_cmpx_") + kIntPred[P] + "_" + type, cmp<T, P, true>})),
   ...);
}

}  // namespace

void add_compare_ops(Defs& d) {
  auto fseq = std::make_integer_sequence<int, 16>{};
  auto iseq = std::make_integer_sequence<int, 8>{};
  add_float_family<Ty::F16>(d, "f16", fseq);
  add_float_family<Ty::F32>(d, "f32", fseq);
  add_float_family<Ty::F64>(d, "f64", fseq);
  add_int_family<Ty::I16>(d, "i16", iseq);
  add_int_family<Ty::U16>(d, "u16", iseq);
  add_int_family<Ty::I32>(d, "i32", iseq);
  add_int_family<Ty::U32>(d, "u32", iseq);
  add_int_family<Ty::I64>(d, "i64", iseq);
  add_int_family<Ty::U64>(d, "u64", iseq);
  d.push_back({"v_cmp_class_f16", cmp_class<Ty::F16, false>});
  d.push_back({"v_cmpx_class_f16", cmp_class<Ty::F16, true>});
  d.push_back({"v_cmp_class_f32", cmp_class<Ty::F32, false>});
  d.push_back({"v_cmpx_class_f32", cmp_class<Ty::F32, true>});
  d.push_back({"v_cmp_class_f64", cmp_class<Ty::F64, false>});
  d.push_back({"v_cmpx_class_f64", cmp_class<Ty::F64, true>});
}

}  // namespace k100::emu::valu
