// Unit tests of the f32, f64 and f16 arithmetic rows against host references
// (host float/double arithmetic in round-to-nearest-even, std::fma, and exact
// binary128 arithmetic plus an independent f16 rounding for f16).
#include <algorithm>
#include <cmath>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

using F3 = std::function<uint32_t(uint32_t, uint32_t, uint32_t)>;

void f32(const std::string& row, int n, F3 ref) {
  Check32 c;
  c.row = row;
  c.nsrc = n;
  c.gen = gen_f32;
  c.ref = std::move(ref);
  c.nan_equal_f32 = true;
  check32(c);
}
float F(uint32_t b) { return fval(b); }
uint32_t B(float f) { return fbits(f); }

bool is_snan32(uint32_t x) { return std::isnan(F(x)) && !(x & 0x400000); }
bool is_snan64(uint64_t x) { return std::isnan(dval(x)) && !(x & 0x0008000000000000ull); }

// IEEE-mode min/max reference on bits: quieted sNaN wins, a quiet NaN loses,
// -0 < +0.
template <class U, class T>
U ref_minmax(U a, U b, bool is_max, T (*val)(U), bool (*snan)(U), U quiet) {
  if (snan(a)) return a | quiet;
  if (snan(b)) return b | quiet;
  T x = val(a), y = val(b);
  if (x != x) return b;
  if (y != y) return a;
  if (x == y) {
    bool a_neg = std::signbit(x);
    return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  return (x < y) != is_max ? a : b;
}
uint32_t min32(uint32_t a, uint32_t b) { return ref_minmax<uint32_t, float>(a, b, false, F, is_snan32, 0x400000u); }
uint32_t max32(uint32_t a, uint32_t b) { return ref_minmax<uint32_t, float>(a, b, true, F, is_snan32, 0x400000u); }

uint32_t flush32(uint32_t x) { return std::fpclassify(F(x)) == FP_SUBNORMAL ? (x & 0x80000000u) : x; }

ROW_CHECK(add32, "v_add_f32", "v_sub_f32", "v_subrev_f32", "v_mul_f32") {
  f32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) {
    if (row == "v_add_f32") return B(F(a) + F(b));
    if (row == "v_sub_f32") return B(F(a) - F(b));
    if (row == "v_subrev_f32") return B(F(b) - F(a));
    return B(F(a) * F(b));
  });
}
ROW_CHECK(mul_legacy, "v_mul_legacy_f32") {
  f32(row, 2, [](uint32_t a, uint32_t b, uint32_t) { return (F(a) == 0 || F(b) == 0) ? 0u : B(F(a) * F(b)); });
}
ROW_CHECK(minmax32, "v_min_f32", "v_max_f32") {
  f32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) { return row == "v_min_f32" ? min32(a, b) : max32(a, b); });
}
ROW_CHECK(three32, "v_min3_f32", "v_max3_f32", "v_med3_f32") {
  f32(row, 3, [row](uint32_t a, uint32_t b, uint32_t c) {
    if (row == "v_min3_f32") return min32(min32(a, b), c);
    if (row == "v_max3_f32") return max32(max32(a, b), c);
    if (std::isnan(F(a)) || std::isnan(F(b)) || std::isnan(F(c))) return min32(min32(a, b), c);
    float v[3] = {F(a), F(b), F(c)};
    std::sort(v, v + 3);
    // The middle value; among equal zeros any encoding of that value.
    return B(v[1]);
  });
}
ROW_CHECK(fma32, "v_fma_f32") {
  f32(row, 3, [](uint32_t a, uint32_t b, uint32_t c) { return B(std::fma(F(a), F(b), F(c))); });
}
// v_mad_f32 is unfused and never sees or produces denormals.
uint32_t mad_ref(uint32_t a, uint32_t b, uint32_t c) {
  float p = F(flush32(B(F(flush32(a)) * F(flush32(b)))));
  return flush32(B(p + F(flush32(c))));
}
ROW_CHECK(mad32, "v_mad_f32") { f32(row, 3, mad_ref); }
ROW_CHECK(mad_legacy32, "v_mad_legacy_f32") {
  f32(row, 3, [](uint32_t a, uint32_t b, uint32_t c) {
    a = flush32(a);
    b = flush32(b);
    float p = (F(a) == 0 || F(b) == 0) ? 0.0f : F(flush32(B(F(a) * F(b))));
    return flush32(B(p + F(flush32(c))));
  });
}
ROW_CHECK(mac32, "v_mac_f32", "v_fmac_f32") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = gen_f32;
  c.nan_equal_f32 = true;
  c.ref_old = [row](uint32_t a, uint32_t b, uint32_t, uint32_t d) {
    return row == "v_mac_f32" ? mad_ref(a, b, d) : B(std::fma(F(a), F(b), F(d)));
  };
  check32(c);
}
ROW_CHECK(madk32, "v_madmk_f32", "v_madak_f32") {
  std::mt19937 rng(23);
  for (uint32_t k : {0x40400000u, 0xbf000000u, 0x00000001u, 0x7f800000u}) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = pick_f32(rng);
      w.vgpr[2][l] = pick_f32(rng);
    }
    WaveState o = w;
    isa::Inst in = row == "v_madmk_f32" ? make(row, Encoding::Native, {V(10), V(1), Imm(k), V(2)})
                                        : make(row, Encoding::Native, {V(10), V(1), V(2), Imm(k)});
    run(w, in);
    for (int l = 0; l < 64; ++l) {
      uint32_t a = o.vgpr[1][l], b = o.vgpr[2][l];
      uint32_t want = row == "v_madmk_f32" ? mad_ref(a, k, b) : mad_ref(a, b, k);
      uint32_t got = w.vgpr[10][l];
      EXPECT_TRUE(got == want || (std::isnan(F(got)) && std::isnan(F(want))))
          << row << std::hex << " lane " << l << " got " << got << " want " << want;
    }
  }
}
ROW_CHECK(round32, "v_fract_f32", "v_trunc_f32", "v_ceil_f32", "v_floor_f32", "v_rndne_f32") {
  f32(row, 1, [row](uint32_t a, uint32_t, uint32_t) {
    float x = F(a);
    if (row == "v_trunc_f32") return B(std::trunc(x));
    if (row == "v_ceil_f32") return B(std::ceil(x));
    if (row == "v_floor_f32") return B(std::floor(x));
    if (row == "v_rndne_f32") return B(std::nearbyint(x));
    if (std::isinf(x)) return 0x7fc00000u;
    double r = double(x) - std::floor(double(x));  // exact
    float f = float(r);
    return B(f >= 1.0f ? std::nextafter(1.0f, 0.0f) : f);
  });
}
ROW_CHECK(frexp32, "v_frexp_mant_f32", "v_frexp_exp_i32_f32") {
  Check32 c;
  c.row = row;
  c.nsrc = 1;
  c.gen = gen_f32;
  c.nan_equal_f32 = row == "v_frexp_mant_f32";
  c.ref = [row](uint32_t a, uint32_t, uint32_t) -> uint32_t {
    float x = F(a);
    int e = 0;
    float m = std::frexp(x, &e);
    if (std::isnan(x) || std::isinf(x)) return row == "v_frexp_mant_f32" ? a : 0u;
    return row == "v_frexp_mant_f32" ? B(m) : uint32_t(e);
  };
  check32(c);
}
ROW_CHECK(ldexp32, "v_ldexp_f32") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = [](std::mt19937& rng, int s) -> uint32_t {
    if (s == 0) return pick_f32(rng);
    return rng() % 4 ? uint32_t(int32_t(rng() % 600) - 300) : rng();
  };
  c.nan_equal_f32 = true;
  c.ref = [](uint32_t a, uint32_t b, uint32_t) {
    int n = int32_t(b);
    n = std::clamp(n, -1000, 1000);
    return B(float(std::ldexp((long double)F(a), n)));  // exact scale, one rounding
  };
  check32(c);
}
ROW_CHECK(cube, "v_cubeid_f32", "v_cubesc_f32", "v_cubetc_f32", "v_cubema_f32") {
  f32(row, 3, [row](uint32_t a, uint32_t b, uint32_t c) {
    float x = F(a), y = F(b), z = F(c);
    int axis = (std::fabs(z) >= std::fabs(x) && std::fabs(z) >= std::fabs(y)) ? 2 : std::fabs(y) >= std::fabs(x) ? 1 : 0;
    float r;
    if (row == "v_cubeid_f32") r = axis == 2 ? (z < 0 ? 5.f : 4.f) : axis == 1 ? (y < 0 ? 3.f : 2.f) : (x < 0 ? 1.f : 0.f);
    else if (row == "v_cubema_f32") r = 2.0f * (axis == 2 ? z : axis == 1 ? y : x);
    else if (row == "v_cubesc_f32") r = axis == 2 ? (z < 0 ? -x : x) : axis == 1 ? x : (x < 0 ? z : -z);
    else r = axis == 2 ? -y : axis == 1 ? (y < 0 ? -z : z) : -y;
    return B(r);
  });
}

// ---- f64

struct Check64 {
  std::string row;
  int nsrc = 2;
  std::function<uint64_t(uint64_t, uint64_t, uint64_t)> ref;
};
void check64(const Check64& c, Gen64 gen = [](std::mt19937& rng, int) { return pick_f64(rng); }) {
  std::mt19937 rng(uint32_t(std::hash<std::string>{}(c.row)));
  for (Encoding enc : forms_of(c.row))
    for (int round = 0; round < 4; ++round) {
      WaveState w = fresh_wave();
      for (int l = 0; l < 64; ++l)
        for (int s = 0; s < 3; ++s) set64(w, 2 + 2 * s, l, gen(rng, s));
      isa::Inst in = c.nsrc == 1   ? make(c.row, enc, {V(10, 2), V(2, 2)})
                     : c.nsrc == 2 ? make(c.row, enc, {V(10, 2), V(2, 2), V(4, 2)})
                                   : make(c.row, enc, {V(10, 2), V(2, 2), V(4, 2), V(6, 2)});
      WaveState o = w;
      run(w, in);
      for (int l = 0; l < 64; ++l) {
        uint64_t a = get64(o, 2, l), b = get64(o, 4, l), cc = get64(o, 6, l);
        uint64_t want = c.ref(a, b, cc), got = get64(w, 10, l);
        if (!(got == want || (std::isnan(dval(got)) && std::isnan(dval(want))))) {
          ADD_FAILURE() << c.row << std::hex << " lane " << l << " srcs " << a << " " << b << " " << cc << " got "
                        << got << " want " << want;
          return;
        }
      }
    }
}
double D(uint64_t b) { return dval(b); }
uint64_t DB(double d) { return dbits(d); }

ROW_CHECK(arith64, "v_add_f64", "v_mul_f64", "v_fma_f64", "v_min_f64", "v_max_f64") {
  check64({row, row == "v_fma_f64" ? 3 : 2, [row](uint64_t a, uint64_t b, uint64_t c) -> uint64_t {
             if (row == "v_add_f64") return DB(D(a) + D(b));
             if (row == "v_mul_f64") return DB(D(a) * D(b));
             if (row == "v_fma_f64") return DB(std::fma(D(a), D(b), D(c)));
             return ref_minmax<uint64_t, double>(a, b, row == "v_max_f64", D, is_snan64, 0x0008000000000000ull);
           }});
}
ROW_CHECK(round64, "v_trunc_f64", "v_ceil_f64", "v_floor_f64", "v_rndne_f64", "v_fract_f64", "v_frexp_mant_f64") {
  check64({row, 1, [row](uint64_t a, uint64_t, uint64_t) -> uint64_t {
             double x = D(a);
             if (row == "v_trunc_f64") return DB(std::trunc(x));
             if (row == "v_ceil_f64") return DB(std::ceil(x));
             if (row == "v_floor_f64") return DB(std::floor(x));
             if (row == "v_rndne_f64") return DB(std::nearbyint(x));
             if (row == "v_frexp_mant_f64") {
               if (std::isnan(x) || std::isinf(x)) return a;
               int e;
               return DB(std::frexp(x, &e));
             }
             if (std::isinf(x)) return 0x7ff8000000000000ull;
             long double r = (long double)x - std::floor((long double)x);
             double f = double(r);
             return DB(f >= 1.0 ? std::nextafter(1.0, 0.0) : f);
           }});
}
ROW_CHECK(ldexp64, "v_ldexp_f64") {
  std::mt19937 rng(29);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    set64(w, 2, l, pick_f64(rng));
    w.vgpr[4][l] = rng() % 4 ? uint32_t(int32_t(rng() % 4400) - 2200) : rng();
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10, 2), V(2, 2), V(4)}));
  for (int l = 0; l < 64; ++l) {
    double x = D(get64(o, 2, l));
    int n = std::clamp(int32_t(o.vgpr[4][l]), -5000, 5000);
    double want = std::ldexp(x, n);  // glibc scalbn: exact scale, one rounding
    uint64_t got = get64(w, 10, l);
    EXPECT_TRUE(got == DB(want) || (std::isnan(D(got)) && std::isnan(want))) << row << " lane " << l;
  }
}
ROW_CHECK(frexp_exp64, "v_frexp_exp_i32_f64") {
  std::mt19937 rng(31);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) set64(w, 2, l, pick_f64(rng));
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10), V(2, 2)}));
  for (int l = 0; l < 64; ++l) {
    double x = D(get64(o, 2, l));
    int e = 0;
    if (!std::isnan(x) && !std::isinf(x)) std::frexp(x, &e);
    EXPECT_EQ(w.vgpr[10][l], uint32_t(e)) << row << " lane " << l;
  }
}

// ---- f16

uint32_t gen_f16_moderate(std::mt19937& rng, int s) { return gen_f16(rng, s); }

void f16(const std::string& row, int n, std::function<uint16_t(uint16_t, uint16_t, uint16_t)> ref, bool keep_high) {
  Check32 c;
  c.row = row;
  c.nsrc = n;
  c.gen = gen_f16_moderate;
  c.nan_equal_f16 = true;
  c.mask = 0xffffffffu;
  c.ref_old = [ref, keep_high](uint32_t a, uint32_t b, uint32_t cc, uint32_t old) {
    uint32_t r = ref(uint16_t(a), uint16_t(b), uint16_t(cc));
    return keep_high ? (old & 0xffff0000u) | r : r;
  };
  check32(c);
}
q128 Q(uint16_t h) { return q_of_f16(h); }
uint16_t R(q128 x) { return f16_round_q(x); }
bool nan16(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
uint16_t flush16(uint16_t h) { return (h & 0x7c00) == 0 ? uint16_t(h & 0x8000) : h; }
bool snan16(uint16_t h) { return nan16(h) && !(h & 0x200); }
uint16_t minmax16(uint16_t a, uint16_t b, bool is_max) {
  if (snan16(a)) return a | 0x200;
  if (snan16(b)) return b | 0x200;
  if (nan16(a)) return b;
  if (nan16(b)) return a;
  q128 x = Q(a), y = Q(b);
  if (x == y) {
    bool a_neg = a & 0x8000;
    return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  return (x < y) != is_max ? a : b;
}
// NaN-propagating binary op reference: any NaN input gives a NaN.
uint16_t nanin(uint16_t a, uint16_t b, uint16_t c, int n) {
  return (nan16(a) || (n > 1 && nan16(b)) || (n > 2 && nan16(c))) ? 0x7e00 : 0;
}

ROW_CHECK(arith16, "v_add_f16", "v_sub_f16", "v_subrev_f16", "v_mul_f16") {
  f16(row, 2, [row](uint16_t a, uint16_t b, uint16_t) -> uint16_t {
    if (nanin(a, b, 0, 2)) return 0x7e00;
    q128 x = Q(a), y = Q(b);
    // inf - inf and 0 * inf are NaN.
    if (row == "v_add_f16") return std::isnan((double)(x + y)) ? 0x7e00 : R(x + y);
    if (row == "v_sub_f16") return std::isnan((double)(x - y)) ? 0x7e00 : R(x - y);
    if (row == "v_subrev_f16") return std::isnan((double)(y - x)) ? 0x7e00 : R(y - x);
    return std::isnan((double)(x * y)) ? 0x7e00 : R(x * y);
  }, false);
}
ROW_CHECK(minmax16r, "v_min_f16", "v_max_f16") {
  f16(row, 2, [row](uint16_t a, uint16_t b, uint16_t) { return minmax16(a, b, row == "v_max_f16"); }, false);
}
ROW_CHECK(three16f, "v_min3_f16", "v_max3_f16", "v_med3_f16") {
  f16(row, 3, [row](uint16_t a, uint16_t b, uint16_t c) -> uint16_t {
    if (row == "v_min3_f16") return minmax16(minmax16(a, b, false), c, false);
    if (row == "v_max3_f16") return minmax16(minmax16(a, b, true), c, true);
    if (nan16(a) || nan16(b) || nan16(c)) return minmax16(minmax16(a, b, false), c, false);
    uint16_t v[3] = {a, b, c};
    std::sort(v, v + 3, [](uint16_t x, uint16_t y) { return Q(x) < Q(y); });
    return v[1];
  }, true);
}
uint16_t fma16(uint16_t a, uint16_t b, uint16_t c) {
  if (nanin(a, b, c, 3)) return 0x7e00;
  q128 p = Q(a) * Q(b);  // exact
  q128 s = sum_to_odd(p, Q(c));
  if (std::isnan((double)s)) return 0x7e00;
  return R(s);
}
uint16_t mad16(uint16_t a, uint16_t b, uint16_t c) {
  a = flush16(a), b = flush16(b), c = flush16(c);
  if (nanin(a, b, c, 3)) return 0x7e00;
  q128 p = Q(a) * Q(b);
  if (std::isnan((double)p)) return 0x7e00;
  uint16_t ph = flush16(R(p));
  q128 s = Q(ph) + Q(c);
  if (std::isnan((double)s)) return 0x7e00;
  return flush16(R(s));
}
ROW_CHECK(fma16r, "v_fma_f16", "v_fma_legacy_f16") { f16(row, 3, fma16, row == "v_fma_f16"); }
ROW_CHECK(mad16r, "v_mad_f16", "v_mad_legacy_f16") { f16(row, 3, mad16, row == "v_mad_f16"); }
ROW_CHECK(mac16, "v_mac_f16") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = gen_f16;
  c.nan_equal_f16 = true;
  c.ref_old = [](uint32_t a, uint32_t b, uint32_t, uint32_t d) {
    return (d & 0xffff0000u) | mad16(uint16_t(a), uint16_t(b), uint16_t(d));
  };
  check32(c);
}
ROW_CHECK(madk16, "v_madmk_f16", "v_madak_f16") {
  std::mt19937 rng(37);
  for (uint32_t k : {0x4200u, 0xb800u, 0x0001u, 0x7c00u}) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = gen_f16(rng, 0);
      w.vgpr[2][l] = gen_f16(rng, 1);
      w.vgpr[10][l] = rng();
    }
    WaveState o = w;
    isa::Inst in = row == "v_madmk_f16" ? make(row, Encoding::Native, {V(10), V(1), Imm(k), V(2)})
                                        : make(row, Encoding::Native, {V(10), V(1), V(2), Imm(k)});
    run(w, in);
    for (int l = 0; l < 64; ++l) {
      uint16_t a = uint16_t(o.vgpr[1][l]), b = uint16_t(o.vgpr[2][l]);
      uint16_t want = row == "v_madmk_f16" ? mad16(a, uint16_t(k), b) : mad16(a, b, uint16_t(k));
      uint32_t got = w.vgpr[10][l];
      EXPECT_EQ(got >> 16, o.vgpr[10][l] >> 16) << row << " high half kept";
      EXPECT_TRUE(uint16_t(got) == want || (nan16(uint16_t(got)) && nan16(want)))
          << row << std::hex << " lane " << l << " got " << got << " want " << want;
    }
  }
}
ROW_CHECK(ldexp16, "v_ldexp_f16") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = [](std::mt19937& rng, int s) -> uint32_t {
    if (s == 0) return gen_f16(rng, s);
    return rng() % 4 ? uint32_t(int32_t(rng() % 80) - 40) : rng();
  };
  c.nan_equal_f16 = true;
  c.ref = [](uint32_t a, uint32_t b, uint32_t) -> uint32_t {
    uint16_t h = uint16_t(a);
    if (nan16(h)) return 0x7e00;
    int n = std::clamp<int>(int16_t(b), -100, 100);
    return R(Q(h) * (q128)std::ldexp(1.0L, n));
  };
  check32(c);
}
ROW_CHECK(round16, "v_floor_f16", "v_ceil_f16", "v_trunc_f16", "v_rndne_f16", "v_fract_f16", "v_frexp_mant_f16") {
  f16(row, 1, [row](uint16_t a, uint16_t, uint16_t) -> uint16_t {
    if (nan16(a)) return 0x7e00;
    double x = (double)Q(a);  // exact
    if (row == "v_floor_f16") return f16_round(std::floor(x));
    if (row == "v_ceil_f16") return f16_round(std::ceil(x));
    if (row == "v_trunc_f16") return f16_round(std::trunc(x));
    if (row == "v_rndne_f16") return f16_round(std::nearbyint(x));
    if (row == "v_frexp_mant_f16") {
      if (std::isinf(x)) return a;
      int e;
      return f16_round(std::frexp(x, &e));
    }
    if (std::isinf(x)) return 0x7e00;
    uint16_t r = f16_round(x - std::floor(x));
    return r >= 0x3c00 && !(r & 0x8000) ? uint16_t(0x3bff) : r;
  }, false);
}
ROW_CHECK(frexp_exp16, "v_frexp_exp_i16_f16") {
  f16(row, 1, [](uint16_t a, uint16_t, uint16_t) -> uint16_t {
    double x = (double)Q(a);
    int e = 0;
    if (!nan16(a) && !std::isinf(x)) std::frexp(x, &e);
    return uint16_t(int16_t(e));
  }, false);
}
ROW_CHECK(pack16, "v_pack_b32_f16") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = gen_f16;
  c.ref = [](uint32_t a, uint32_t b, uint32_t) { return (a & 0xffff) | (b << 16); };
  check32(c);
  // with modifiers and op_sel: -|hi(a)|, -b.lo
  isa::Modifiers m;
  m.op_sel = 1;
  m.abs = 1;
  m.neg = 3;
  c.mods = m;
  c.ref = [](uint32_t a, uint32_t b, uint32_t) { return ((a >> 16) | 0x8000u) | ((b ^ 0x8000u) << 16); };
  check32(c);
}

}  // namespace
}  // namespace k100::emu::valu_test
