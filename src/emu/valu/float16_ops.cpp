// Vector ALU f16 arithmetic, computed exactly in double (or rounded to odd)
// and rounded to f16 in software with the MODE register's f16/f64 fields.
// GFX9's VOP1/VOP2 16-bit results zero the high half of the destination,
// except v_mac_f16/v_madak_f16/v_madmk_f16 which keep it; the VOP3-only
// opcodes with op_sel write the half op_sel[3] selects and keep the other.
#include <cmath>

#include "drivers.h"
#include "minmax.h"

namespace k100::emu::valu {

namespace {

constexpr Half Z = Half::Lo16Zero;
constexpr Half O = Half::OpSelDst;

// The f16 value of an f16-rounded intermediate (mad's product), with the
// denormal flush mad always applies.
inline double round_f16(double x, int rm) { return f16_to_f64(f16_from_f64(x, rm, true)); }

inline double fract_f16(double x) {
  double r = x - std::floor(x);
  return r < 0x1.ffcp-1 ? r : (std::isnan(r) ? r : 0x1.ffcp-1);
}

inline double frexp_mant(double x) {
  if (std::isnan(x) || std::isinf(x)) return x;
  int e;
  return std::frexp(x, &e);
}

// Unfused multiply-add: f16 product (denormals flushed) then the sum.
void mad_f16(WaveState& w, const isa::Inst& in, Half h) {
  int rm = Mode{w.mode}.round16_64();
  run_f16<3>(w, in, [rm](double a, double b, double c) { return round_f16(a * b, rm) + c; }, h, true);
}

void fma_f16(WaveState& w, const isa::Inst& in, Half h) {
  run_f16<3>(w, in, [](double a, double b, double c) { return fma_to_odd(a, b, c); }, h);
}

// D.lo = S0 * S1 + D.lo (v_mac_f16) with the high half kept.
void mac_f16(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0, true);
  const uint32_t* b = v.f16(1, true);
  const uint32_t* d = v.vgpr_row(v.lay.dst, 3);
  int rm = v.mode.round16_64();
  double* r = v.outd();
  for (int i = 0; i < kLanes; ++i)
    r[i] = round_f16(f16_to_f64(a[i]) * f16_to_f64(b[i]), rm) + f16_to_f64(flush_f16(d[i] & 0xffffu));
  v.finish_f16(r, Half::Lo16Keep, true);
}

template <bool K_is_multiplier>
void madk_f16(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0, true);
  const uint32_t* b = v.f16(1, true);
  double k = f16_to_f64(flush_f16(in.ops[v.lay.kimm].value & 0xffffu));
  int rm = v.mode.round16_64();
  double* r = v.outd();
  for (int i = 0; i < kLanes; ++i) {
    double x = f16_to_f64(a[i]), y = f16_to_f64(b[i]);
    r[i] = K_is_multiplier ? round_f16(x * k, rm) + y : round_f16(x * y, rm) + k;
  }
  v.finish_f16(r, Half::Lo16Keep, true);
}

}  // namespace

void add_float16_ops(Defs& d) {
  d.push_back({"v_add_f16", K100_VALU { run_f16<2>(w, in, [](double a, double b) { return a + b; }, Z); }});
  d.push_back({"v_sub_f16", K100_VALU { run_f16<2>(w, in, [](double a, double b) { return a - b; }, Z); }});
  d.push_back({"v_subrev_f16", K100_VALU { run_f16<2>(w, in, [](double a, double b) { return b - a; }, Z); }});
  d.push_back({"v_mul_f16", K100_VALU { run_f16<2>(w, in, [](double a, double b) { return a * b; }, Z); }});
  d.push_back({"v_min_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f16_bits<2>(w, in, [ieee](uint32_t a, uint32_t b) { return fmin_bits<F16Bits>(a, b, ieee); }, Z);
  }});
  d.push_back({"v_max_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f16_bits<2>(w, in, [ieee](uint32_t a, uint32_t b) { return fmax_bits<F16Bits>(a, b, ieee); }, Z);
  }});
  d.push_back({"v_min3_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f16_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmin3_bits<F16Bits>(a, b, c, ieee); }, O);
  }});
  d.push_back({"v_max3_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f16_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmax3_bits<F16Bits>(a, b, c, ieee); }, O);
  }});
  d.push_back({"v_med3_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f16_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmed3_bits<F16Bits>(a, b, c, ieee); }, O);
  }});
  d.push_back({"v_mac_f16", mac_f16});
  d.push_back({"v_madmk_f16", madk_f16<true>});
  d.push_back({"v_madak_f16", madk_f16<false>});
  d.push_back({"v_mad_f16", K100_VALU { mad_f16(w, in, O); }});
  d.push_back({"v_mad_legacy_f16", K100_VALU { mad_f16(w, in, Z); }});
  d.push_back({"v_fma_f16", K100_VALU { fma_f16(w, in, O); }});
  d.push_back({"v_fma_legacy_f16", K100_VALU { fma_f16(w, in, Z); }});
  d.push_back({"v_ldexp_f16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f16(0);
    const uint32_t* b = v.b32(1);
    double* r = v.outd();
    for (int i = 0; i < kLanes; ++i) {
      int n = int16_t(b[i]);
      n = n > 64 ? 64 : n < -64 ? -64 : n;
      r[i] = std::ldexp(f16_to_f64(a[i]), n);
    }
    v.finish_f16(r, Z);
  }});
  d.push_back({"v_floor_f16", K100_VALU { run_f16<1>(w, in, [](double a) { return std::floor(a); }, Z); }});
  d.push_back({"v_ceil_f16", K100_VALU { run_f16<1>(w, in, [](double a) { return std::ceil(a); }, Z); }});
  d.push_back({"v_trunc_f16", K100_VALU { run_f16<1>(w, in, [](double a) { return std::trunc(a); }, Z); }});
  d.push_back({"v_rndne_f16", K100_VALU { run_f16<1>(w, in, [](double a) { return __builtin_roundeven(a); }, Z); }});
  d.push_back({"v_fract_f16", K100_VALU { run_f16<1>(w, in, fract_f16, Z); }});
  d.push_back({"v_frexp_mant_f16", K100_VALU { run_f16<1>(w, in, frexp_mant, Z); }});
  d.push_back({"v_frexp_exp_i16_f16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f16(0);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      double x = f16_to_f64(a[i]);
      int e = 0;
      if (!std::isnan(x) && !std::isinf(x)) std::frexp(x, &e);
      r[i] = uint32_t(uint16_t(int16_t(e)));
    }
    v.write32(r, Z);
  }});
  d.push_back({"v_pack_b32_f16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.mods16(0);
    const uint32_t* b = v.mods16(1);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = (a[i] & 0xffffu) | (b[i] << 16);
    v.write32(r);
  }});
}

}  // namespace k100::emu::valu
