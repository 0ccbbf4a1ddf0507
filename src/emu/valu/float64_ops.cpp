// Vector ALU f64 arithmetic: add, mul, fma, min/max, ldexp, rounding to
// integers, fract and frexp. The MODE register's f16/f64 rounding and
// denormal fields apply.
#include <cmath>

#include "drivers.h"
#include "host_lanes.h"
#include "minmax.h"

namespace k100::emu::valu {

namespace {

inline double ldexp_f64(double x, int32_t n) {
  uint64_t b = bits_of(x);
  int e = int((b >> 52) & 0x7ff);
  if (e != 0 && e != 0x7ff && n > -2046 && n < 2046 && e + n >= 1 && e + n <= 0x7fe)
    return as_f64((b & ~kF64Exp) | (uint64_t(e + n) << 52));
  if (n > 2200) n = 2200;
  if (n < -2200) n = -2200;
  return std::ldexp(x, n);
}

inline double fract_f64(double x) {
  double r = x - std::floor(x);
  return r < 0x1.fffffffffffffp-1 ? r : (std::isnan(r) ? r : 0x1.fffffffffffffp-1);
}

}  // namespace

void add_float64_ops(Defs& d) {
  d.push_back({"v_add_f64", K100_VALU { run_f64<2>(w, in, [](double a, double b) { return a + b; }); }});
  d.push_back({"v_mul_f64", K100_VALU { run_f64<2>(w, in, [](double a, double b) { return a * b; }); }});
  d.push_back({"v_min_f64", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f64_bits<2>(w, in, [ieee](uint64_t a, uint64_t b) { return fmin_bits<F64Bits>(a, b, ieee); });
  }});
  d.push_back({"v_max_f64", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f64_bits<2>(w, in, [ieee](uint64_t a, uint64_t b) { return fmax_bits<F64Bits>(a, b, ieee); });
  }});
  d.push_back({"v_fma_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    const uint64_t* b = v.f64(1);
    const uint64_t* c = v.f64(2);
    uint64_t* r = v.out64();
    {
      HostRounding g(v.mode.round16_64());
      fma_lanes_f64(r, a, b, c);
    }
    v.finish_f64(r);
  }});
  d.push_back({"v_ldexp_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    const uint32_t* b = v.b32(1);
    uint64_t* r = v.out64();
    {
      HostRounding g(v.mode.round16_64());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(ldexp_f64(as_f64(a[i]), int32_t(b[i])));
    }
    v.finish_f64(r);
  }});
  d.push_back({"v_trunc_f64", K100_VALU { run_f64<1>(w, in, [](double a) { return std::trunc(a); }); }});
  d.push_back({"v_ceil_f64", K100_VALU { run_f64<1>(w, in, [](double a) { return std::ceil(a); }); }});
  d.push_back({"v_floor_f64", K100_VALU { run_f64<1>(w, in, [](double a) { return std::floor(a); }); }});
  d.push_back({"v_rndne_f64", K100_VALU { run_f64<1>(w, in, [](double a) { return __builtin_roundeven(a); }); }});
  d.push_back({"v_fract_f64", K100_VALU { run_f64<1>(w, in, fract_f64); }});
  d.push_back({"v_frexp_mant_f64", K100_VALU {
    run_f64<1>(w, in, [](double a) {
      if (std::isnan(a) || std::isinf(a)) return a;
      int e;
      return std::frexp(a, &e);
    });
  }});
  d.push_back({"v_frexp_exp_i32_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      double x = as_f64(a[i]);
      int e = 0;
      if (!std::isnan(x) && !std::isinf(x)) std::frexp(x, &e);
      r[i] = uint32_t(e);
    }
    v.write32(r);
  }});
}

}  // namespace k100::emu::valu
