// The division helpers (v_div_scale, v_div_fmas, v_div_fixup) and
// v_trig_preop_f64.
//
// The compiler divides as: scale numerator and denominator (div_scale, which
// sets VCC when the quotient needs rescaling), refine a reciprocal with FMAs,
// form the quotient with div_fmas (which undoes the scaling for VCC lanes),
// and let div_fixup handle zeros, infinities and NaNs. The scaling rules here
// are self-consistent so that sequence yields the correctly rounded quotient.
#include <cmath>

#include "drivers.h"

namespace k100::emu::valu {

namespace {

// ---- div_scale ----------------------------------------------------------------

// Per-type constants of the scaling rules.
struct ScaleF32 {
  using U = uint32_t;
  static constexpr int kExpGap = 96, kTinyNumExp = 23, kScale = 64;
  static constexpr double kMinNormal = 0x1p-126, kMaxRcpNormal = 0x1p126;
};
struct ScaleF64 {
  using U = uint64_t;
  static constexpr int kExpGap = 768, kTinyNumExp = 53, kScale = 128;
  static constexpr long double kMinNormal = 0x1p-1022L, kMaxRcpNormal = 0x1p1022L;
};

// Returns the scaled S0 and whether the quotient must be rescaled (VCC).
template <class T, class F>
F div_scale_lane(F x, F den, F num, int exp_num, int exp_den, bool& vcc) {
  vcc = false;
  if (num == 0 || den == 0) return F(NAN);
  if (exp_num - exp_den >= T::kExpGap) {  // quotient near overflow: scale the denominator up
    vcc = true;
    return x == den ? std::ldexp(x, T::kScale) : x;
  }
  if (exp_den == 0) return std::ldexp(x, T::kScale);  // denominator denormal: scale both up
  using W = long double;
  W q = W(num) / W(den);
  bool rcp_denorm = std::fabs(W(den)) > T::kMaxRcpNormal;
  bool quot_denorm = q != 0 && std::fabs(q) < T::kMinNormal;
  if (rcp_denorm && quot_denorm) {  // scale the denominator down, rescale the quotient
    vcc = true;
    return x == den ? std::ldexp(x, -T::kScale) : x;
  }
  if (rcp_denorm) return std::ldexp(x, -T::kScale);  // scale both down
  if (quot_denorm) {                                 // scale the numerator up
    vcc = true;
    return x == num ? std::ldexp(x, T::kScale) : x;
  }
  if (exp_num <= T::kTinyNumExp) return std::ldexp(x, T::kScale);  // tiny numerator: both up
  return x;
}

void div_scale_f32(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* x = v.mods32(0);
  const uint32_t* den = v.mods32(1);
  const uint32_t* num = v.mods32(2);
  uint32_t* r = v.out32();
  LaneMask vcc = 0;
  for (int i = 0; i < kLanes; ++i) {
    bool flag;
    float y = div_scale_lane<ScaleF32>(as_f32(x[i]), as_f32(den[i]), as_f32(num[i]), exp_field_f32(num[i]),
                                       exp_field_f32(den[i]), flag);
    r[i] = bits_of(y);
    vcc |= LaneMask(flag) << i;
  }
  v.finish_f32(r);
  v.write_sdst(vcc);
}

void div_scale_f64(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint64_t* x = v.b64(0);
  const uint64_t* den = v.b64(1);
  const uint64_t* num = v.b64(2);
  uint64_t n0 = v.neg(0) ? kF64Sign : 0, n1 = v.neg(1) ? kF64Sign : 0, n2 = v.neg(2) ? kF64Sign : 0;
  uint64_t a1 = v.abs(1) ? ~kF64Sign : ~0ull;
  uint64_t* r = v.out64();
  LaneMask vcc = 0;
  for (int i = 0; i < kLanes; ++i) {
    uint64_t xb = x[i] ^ n0, db = (den[i] & a1) ^ n1, nb = num[i] ^ n2;
    bool flag;
    double y = div_scale_lane<ScaleF64>(as_f64(xb), as_f64(db), as_f64(nb), exp_field_f64(nb), exp_field_f64(db), flag);
    r[i] = bits_of(y);
    vcc |= LaneMask(flag) << i;
  }
  v.finish_f64(r);
  v.write_sdst(vcc);
}

// ---- div_fmas -----------------------------------------------------------------

// fma(a, b, c), scaled by 2^64 (|c| >= 2) or 2^-64 for lanes set in VCC, with
// a single rounding.
void div_fmas_f32(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0);
  const uint32_t* b = v.f32(1);
  const uint32_t* c = v.f32(2);
  LaneMask vcc = w.vcc();
  alignas(64) double x[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    double t = fma_to_odd(as_f32(a[i]), as_f32(b[i]), as_f32(c[i]));
    if ((vcc >> i) & 1) t *= exp_field_f32(c[i]) > 127 ? 0x1p64 : 0x1p-64;
    x[i] = t;
  }
  uint32_t* r = v.out32();
  {
    HostRounding g(v.mode.round32());
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(x[i]));
  }
  v.finish_f32(r);
}

// Exact fma scaled by 2^k, rounded once, for results that land in the
// denormal range (binary128 holds the product exactly; round-to-odd keeps
// the final rounding correct).
double scaled_fma_exact(double a, double b, double c, int k) {
  int saved = std::fegetround();  // the error-free sum needs round-to-nearest
  std::fesetround(FE_TONEAREST);
  __float128 p = (__float128)a * b;
  __float128 s = p + c;
  __float128 bb = s - p;
  __float128 e = (p - (s - bb)) + (c - bb);
  if (e != 0) {
    // round s to odd in binary128
    unsigned __int128 bits;
    __builtin_memcpy(&bits, &s, 16);
    if (!(bits & 1)) {
      bool toward_zero = (e < 0) == (s > 0);
      bits = toward_zero ? bits - 1 : bits + 1;
      __builtin_memcpy(&s, &bits, 16);
    }
  }
  s = s * (k > 0 ? (__float128)0x1p128 : (__float128)0x1p-128);
  std::fesetround(saved);
  return double(s);
}

void div_fmas_f64(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint64_t* a = v.f64(0);
  const uint64_t* b = v.f64(1);
  const uint64_t* c = v.f64(2);
  LaneMask vcc = w.vcc();
  uint64_t* r = v.out64();
  {
    HostRounding g(v.mode.round16_64());
    for (int i = 0; i < kLanes; ++i) {
      double t = std::fma(as_f64(a[i]), as_f64(b[i]), as_f64(c[i]));
      if ((vcc >> i) & 1) {
        int k = exp_field_f64(c[i]) > 1023 ? 128 : -128;
        double s = std::ldexp(t, k);
        // Scaling a correctly rounded value is exact unless it leaves the
        // normal range; redo those lanes with one rounding.
        if (std::isfinite(t) && t != 0 && !(std::fabs(s) >= 0x1p-1022 && std::isfinite(s)))
          s = scaled_fma_exact(as_f64(a[i]), as_f64(b[i]), as_f64(c[i]), k);
        t = s;
      }
      r[i] = bits_of(t);
    }
  }
  v.finish_f64(r);
}

// ---- div_fixup ----------------------------------------------------------------

struct Fix32 {
  using U = uint32_t;
  static constexpr U kSign = kF32Sign, kInf = kF32Exp, kQuiet = 0x00400000u, kDefaultNaN = 0xffc00000u;
  static constexpr int kUnderflowGap = -150, kMaxExp = 255;
  static bool nan(U x) { return is_nan_f32(x); }
  static int exp(U x) { return exp_field_f32(x); }
};
struct Fix64 {
  using U = uint64_t;
  static constexpr U kSign = kF64Sign, kInf = kF64Exp, kQuiet = 0x0008000000000000ull,
                     kDefaultNaN = 0xfff8000000000000ull;
  static constexpr int kUnderflowGap = -1075, kMaxExp = 2047;
  static bool nan(U x) { return is_nan_f64(x); }
  static int exp(U x) { return exp_field_f64(x); }
};
struct Fix16 {
  using U = uint32_t;
  static constexpr U kSign = kF16Sign, kInf = kF16Exp, kQuiet = 0x0200u, kDefaultNaN = 0xfe00u;
  static constexpr int kUnderflowGap = -25, kMaxExp = 31;
  static bool nan(U x) { return is_nan_f16(x); }
  static int exp(U x) { return exp_field_f16(x); }
};

// S0 = quotient, S1 = denominator, S2 = numerator.
template <class T>
typename T::U div_fixup(typename T::U q, typename T::U den, typename T::U num) {
  using U = typename T::U;
  U mag = T::kSign - 1;
  U sign = (den ^ num) & T::kSign;
  if (T::nan(num)) return num | T::kQuiet;
  if (T::nan(den)) return den | T::kQuiet;
  bool den0 = (den & mag) == 0, num0 = (num & mag) == 0;
  bool den_inf = (den & mag) == T::kInf, num_inf = (num & mag) == T::kInf;
  if (den0 && num0) return T::kDefaultNaN;
  if (den_inf && num_inf) return T::kDefaultNaN;
  if (den0 || num_inf) return sign | T::kInf;
  if (den_inf || num0) return sign;
  if (T::exp(num) - T::exp(den) < T::kUnderflowGap) return sign;
  if (T::exp(den) == T::kMaxExp) return sign | T::kInf;
  // A NaN quotient from finite non-zero operands: the scaled iteration
  // overflowed, so the quotient is out of range.
  if (T::nan(q)) return sign | T::kInf;
  return sign | (q & mag);
}

// ---- trig_preop -----------------------------------------------------------------

// The first 1216 fraction bits of 2/pi (tools/gen_two_over_pi.py); the
// instruction uses the first 1201.
constexpr uint32_t kTwoOverPi[38] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab};

// Fraction bit `pos` (1-based from the binary point) of 2/pi; 0 past bit 1201.
inline uint64_t two_over_pi_bit(int pos) {
  if (pos < 1 || pos > 1201) return 0;
  int k = pos - 1;
  return (kTwoOverPi[k / 32] >> (31 - k % 32)) & 1;
}

inline uint64_t two_over_pi_bits53(int shift) {
  uint64_t r = 0;
  for (int j = 1; j <= 53; ++j) r = (r << 1) | two_over_pi_bit(shift + j);
  return r;
}

double trig_preop(double x, uint32_t segment) {
  int e = exp_field_f64(bits_of(x));
  int shift = int(segment & 31) * 53;
  if (e > 1077) shift += e - 1077;
  double result = double(two_over_pi_bits53(shift));  // exact: 53 bits
  int scale = -53 - shift;
  if (e >= 1968) scale += 128;
  return std::ldexp(result, scale);
}

}  // namespace

void add_special_ops(Defs& d) {
  d.push_back({"v_div_scale_f32", div_scale_f32});
  d.push_back({"v_div_scale_f64", div_scale_f64});
  d.push_back({"v_div_fmas_f32", div_fmas_f32});
  d.push_back({"v_div_fmas_f64", div_fmas_f64});
  d.push_back({"v_div_fixup_f32", K100_VALU {
    run_f32_bits<3>(w, in, [](uint32_t q, uint32_t den, uint32_t num) { return div_fixup<Fix32>(q, den, num); });
  }});
  d.push_back({"v_div_fixup_f64", K100_VALU {
    run_f64_bits<3>(w, in, [](uint64_t q, uint64_t den, uint64_t num) { return div_fixup<Fix64>(q, den, num); });
  }});
  d.push_back({"v_div_fixup_f16", K100_VALU {
    run_f16_bits<3>(w, in, [](uint32_t q, uint32_t den, uint32_t num) { return div_fixup<Fix16>(q, den, num); },
                    Half::OpSelDst);
  }});
  d.push_back({"v_div_fixup_legacy_f16", K100_VALU {
    run_f16_bits<3>(w, in, [](uint32_t q, uint32_t den, uint32_t num) { return div_fixup<Fix16>(q, den, num); },
                    Half::Lo16Zero);
  }});
  d.push_back({"v_trig_preop_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    const uint32_t* b = v.b32(1);
    uint64_t* r = v.out64();
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(trig_preop(as_f64(a[i]), b[i]));
    v.finish_f64(r);
  }});
}

}  // namespace k100::emu::valu
