// Unit tests of the compare rows (every predicate and type, cmpx, class) and
// of the conversion rows.
#include <algorithm>
#include <cmath>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

// ---- compares

std::vector<std::string> compare_rows() {
  std::vector<std::string> r;
  for (const auto& d : isa::instructions())
    if (d.family == isa::Family::VOPC && d.name.find("class") == std::string::npos) r.push_back(d.name);
  return r;
}

// Parses v_cmp[x]_<pred>_<type>.
struct CmpName {
  bool cmpx;
  std::string pred, type;
};
CmpName parse(const std::string& row) {
  CmpName n;
  n.cmpx = row.rfind("v_cmpx_", 0) == 0;
  std::string rest = row.substr(n.cmpx ? 7 : 6);
  size_t us = rest.rfind('_');
  n.pred = rest.substr(0, us);
  n.type = rest.substr(us + 1);
  return n;
}

template <class T>
bool pred(const std::string& p, T a, T b) {
  bool un = a != a || b != b;
  if (p == "f") return false;
  if (p == "lt") return a < b;
  if (p == "eq") return a == b;
  if (p == "le") return a <= b;
  if (p == "gt") return a > b;
  if (p == "lg") return !un && a != b;
  if (p == "ne") return a != b;
  if (p == "ge") return a >= b;
  if (p == "o") return !un;
  if (p == "u") return un;
  if (p == "nge") return !(a >= b);
  if (p == "nlg") return un || a == b;
  if (p == "ngt") return !(a > b);
  if (p == "nle") return !(a <= b);
  if (p == "neq") return !(a == b);
  if (p == "nlt") return !(a < b);
  return true;  // tru, t
}

bool expected(const CmpName& n, uint64_t a, uint64_t b) {
  const std::string& t = n.type;
  if (t == "f32") return pred<float>(n.pred, fval(uint32_t(a)), fval(uint32_t(b)));
  if (t == "f64") return pred<double>(n.pred, dval(a), dval(b));
  if (t == "f16") return pred<long double>(n.pred, f16_value(uint16_t(a)), f16_value(uint16_t(b)));
  if (t == "i16") return pred<int64_t>(n.pred, int16_t(a), int16_t(b));
  if (t == "u16") return pred<int64_t>(n.pred, uint16_t(a), uint16_t(b));
  if (t == "i32") return pred<int64_t>(n.pred, int32_t(a), int32_t(b));
  if (t == "u32") return pred<int64_t>(n.pred, uint32_t(a), uint32_t(b));
  if (t == "i64") return pred<int64_t>(n.pred, int64_t(a), int64_t(b));
  return pred<uint64_t>(n.pred, a, b);
}

uint64_t gen_for(const std::string& type, std::mt19937& rng, uint64_t other, bool equal) {
  if (equal) return other;
  if (type == "f32") return pick_f32(rng);
  if (type == "f64") return pick_f64(rng);
  if (type == "f16") return (rng() & 0xffff0000u) | pick_f16(rng);
  if (type == "i16" || type == "u16") return rng() % 4 ? rng() : (rng() & 0xffff0000u) | 0x8000u;
  if (type == "i32" || type == "u32") return gen_u32(rng, 0);
  return rng() % 4 ? (uint64_t(rng()) << 32) | rng() : uint64_t(int64_t(int32_t(rng())));
}

void check_compare(const std::string& row) {
  CmpName n = parse(row);
  bool wide = n.type == "f64" || n.type == "i64" || n.type == "u64";
  std::mt19937 rng(uint32_t(std::hash<std::string>{}(row)));
  for (Encoding enc : forms_of(row))
    for (int round = 0; round < 3; ++round) {
      WaveState w = fresh_wave();
      uint64_t av[64], bv[64];
      for (int l = 0; l < 64; ++l) {
        av[l] = gen_for(n.type, rng, 0, false);
        bv[l] = gen_for(n.type, rng, av[l], rng() % 5 == 0);
        if (wide) {
          set64(w, 2, l, av[l]);
          set64(w, 4, l, bv[l]);
        } else {
          w.vgpr[2][l] = uint32_t(av[l]);
          w.vgpr[4][l] = uint32_t(bv[l]);
        }
      }
      LaneMask exec = round == 0 ? ~0ull : (uint64_t(rng()) << 32) | rng();
      w.set_exec(exec);
      w.set_vcc(0x5555aaaa5555aaaaull);
      w.set_sgpr64(12, 0x123456789abcdefull);
      uint8_t wd = wide ? 2 : 1;
      isa::Inst in = enc == Encoding::Native ? make(row, enc, {VCC(), V(2, wd), V(4, wd)})
                                             : make(row, enc, {S(12, 2), V(2, wd), V(4, wd)});
      run(w, in);
      LaneMask want = 0;
      for (int l = 0; l < 64; ++l)
        if (((exec >> l) & 1) && expected(n, av[l], bv[l])) want |= 1ull << l;
      LaneMask got = enc == Encoding::Native ? w.vcc() : w.sgpr64(12);
      EXPECT_EQ(got, want) << row << (enc == Encoding::E64 ? " (e64)" : "") << std::hex << " exec " << exec;
      EXPECT_EQ(w.exec(), n.cmpx ? want : exec) << row << " exec after";
      if (enc == Encoding::E64) {
        EXPECT_EQ(w.vcc(), 0x5555aaaa5555aaaaull) << row << " vcc untouched by e64";
      }
      if (::testing::Test::HasFailure()) return;
    }
}
RowCheckRegistrar compares(compare_rows(), check_compare);

ROW_CHECK(cmp_class, "v_cmp_class_f32", "v_cmpx_class_f32", "v_cmp_class_f64", "v_cmpx_class_f64",
          "v_cmp_class_f16", "v_cmpx_class_f16") {
  std::string type = row.substr(row.size() - 3);
  bool cmpx = row.find("cmpx") != std::string::npos, wide = type == "f64";
  std::mt19937 rng(41);
  auto cls = [&](uint64_t x) -> int {
    long double v;
    bool snan, qnan;
    if (type == "f32") {
      float f = fval(uint32_t(x));
      v = f;
      snan = std::isnan(f) && !(x & 0x400000);
      qnan = std::isnan(f) && (x & 0x400000);
    } else if (type == "f64") {
      double d = dval(x);
      v = d;
      snan = std::isnan(d) && !(x & 0x0008000000000000ull);
      qnan = std::isnan(d) && (x & 0x0008000000000000ull);
    } else {
      v = f16_value(uint16_t(x));
      snan = std::isnan(v) && !(x & 0x200);
      qnan = std::isnan(v) && (x & 0x200);
    }
    if (snan) return 0;
    if (qnan) return 1;
    bool neg = std::signbit(v);
    if (std::isinf(v)) return neg ? 2 : 9;
    if (v == 0) return neg ? 5 : 6;
    long double minnorm = type == "f32" ? 0x1p-126L : type == "f64" ? 0x1p-1022L : 0x1p-14L;
    bool denorm = std::fabs(v) < minnorm;
    return neg ? (denorm ? 4 : 3) : (denorm ? 7 : 8);
  };
  for (Encoding enc : forms_of(row)) {
    WaveState w = fresh_wave();
    uint64_t av[64];
    uint32_t masks[64];
    for (int l = 0; l < 64; ++l) {
      av[l] = type == "f32" ? pick_f32(rng) : type == "f64" ? pick_f64(rng) : pick_f16(rng);
      masks[l] = l < 10 ? (1u << l) : rng() & 0x3ff;
      if (wide) {
        set64(w, 2, l, av[l]);
      } else {
        w.vgpr[2][l] = uint32_t(av[l]);
      }
      w.vgpr[4][l] = masks[l];
    }
    isa::Inst in = enc == Encoding::Native ? make(row, enc, {VCC(), V(2, wide ? 2 : 1), V(4)})
                                           : make(row, enc, {S(12, 2), V(2, wide ? 2 : 1), V(4)});
    run(w, in);
    LaneMask want = 0;
    for (int l = 0; l < 64; ++l)
      if ((masks[l] >> cls(av[l])) & 1) want |= 1ull << l;
    EXPECT_EQ(enc == Encoding::Native ? w.vcc() : w.sgpr64(12), want) << row;
    EXPECT_EQ(w.exec(), cmpx ? want : ~0ull) << row;
  }
}

// ---- conversions

float F(uint32_t b) { return fval(b); }
uint32_t B(float f) { return fbits(f); }

uint32_t sat_i(long double x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483647.0L) return 0x7fffffffu;
  if (x <= -2147483648.0L) return 0x80000000u;
  return uint32_t(int32_t(x));
}
uint32_t sat_u(long double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= 4294967295.0L) return 0xffffffffu;
  return uint32_t(x);
}

void cvt32(const std::string& row, Gen32 gen, std::function<uint32_t(uint32_t)> ref, bool nan_f32 = false,
           bool nan_f16 = false) {
  Check32 c;
  c.row = row;
  c.nsrc = 1;
  c.gen = gen;
  c.nan_equal_f32 = nan_f32;
  c.nan_equal_f16 = nan_f16;
  c.ref = [ref](uint32_t a, uint32_t, uint32_t) { return ref(a); };
  check32(c);
}

ROW_CHECK(cvt_f32_int, "v_cvt_i32_f32", "v_cvt_u32_f32", "v_cvt_rpi_i32_f32", "v_cvt_flr_i32_f32") {
  cvt32(row, gen_f32, [row](uint32_t a) {
    long double x = F(a);
    if (row == "v_cvt_i32_f32") return sat_i(std::trunc(x));
    if (row == "v_cvt_u32_f32") return sat_u(std::trunc(x));
    if (row == "v_cvt_rpi_i32_f32") return sat_i(std::floor(x + 0.5L));
    return sat_i(std::floor(x));
  });
}
ROW_CHECK(cvt_int_f32, "v_cvt_f32_i32", "v_cvt_f32_u32") {
  cvt32(row, gen_u32, [row](uint32_t a) { return row == "v_cvt_f32_i32" ? B(float(int32_t(a))) : B(float(a)); });
}
ROW_CHECK(cvt_ubyte, "v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2", "v_cvt_f32_ubyte3") {
  int k = row.back() - '0';
  cvt32(row, gen_u32, [k](uint32_t a) { return B(float((a >> (8 * k)) & 255)); });
}
ROW_CHECK(cvt_off, "v_cvt_off_f32_i4") {
  cvt32(row, gen_u32, [](uint32_t a) {
    int v = int(a & 15);
    if (v >= 8) v -= 16;
    return B(float(v) / 16.0f);
  });
}
ROW_CHECK(cvt_f16_f32, "v_cvt_f16_f32") {
  cvt32(row, gen_f32, [](uint32_t a) -> uint32_t { return f16_round((long double)F(a)); }, false, true);
}
ROW_CHECK(cvt_f32_f16, "v_cvt_f32_f16") {
  cvt32(row, gen_f16, [](uint32_t a) { return B(float(f16_value(uint16_t(a)))); }, true);
}
ROW_CHECK(cvt_f16_int, "v_cvt_f16_u16", "v_cvt_f16_i16") {
  cvt32(row, gen_u32, [row](uint32_t a) -> uint32_t {
    return f16_round(row == "v_cvt_f16_u16" ? (long double)uint16_t(a) : (long double)int16_t(a));
  });
}
ROW_CHECK(cvt_int_f16, "v_cvt_u16_f16", "v_cvt_i16_f16", "v_cvt_norm_i16_f16", "v_cvt_norm_u16_f16") {
  cvt32(row, gen_f16, [row](uint32_t a) -> uint32_t {
    long double x = f16_value(uint16_t(a));
    if (std::isnan(x)) return 0;
    if (row == "v_cvt_u16_f16") return uint32_t(std::clamp<long double>(std::trunc(x), 0, 65535));
    if (row == "v_cvt_i16_f16") return uint16_t(int16_t(std::clamp<long double>(std::trunc(x), -32768, 32767)));
    if (row == "v_cvt_norm_i16_f16")
      return uint16_t(int16_t(std::nearbyint(std::clamp<long double>(x, -1, 1) * 32767)));
    return uint32_t(std::nearbyint(std::clamp<long double>(x, 0, 1) * 65535));
  });
}
ROW_CHECK(cvt_f64, "v_cvt_i32_f64", "v_cvt_u32_f64", "v_cvt_f32_f64") {
  std::mt19937 rng(43);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) set64(w, 2, l, pick_f64(rng));
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10), V(2, 2)}));
  for (int l = 0; l < 64; ++l) {
    double x = dval(get64(o, 2, l));
    uint32_t want = row == "v_cvt_i32_f64" ? sat_i(std::trunc((long double)x))
                    : row == "v_cvt_u32_f64" ? sat_u(std::trunc((long double)x))
                                             : B(float(x));
    uint32_t got = w.vgpr[10][l];
    EXPECT_TRUE(got == want || (row == "v_cvt_f32_f64" && std::isnan(F(got)) && std::isnan(F(want))))
        << row << " lane " << l << std::hex << " x=" << get64(o, 2, l) << " got " << got << " want " << want;
  }
}
ROW_CHECK(cvt_to_f64, "v_cvt_f64_i32", "v_cvt_f64_u32", "v_cvt_f64_f32") {
  std::mt19937 rng(47);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) w.vgpr[2][l] = row == "v_cvt_f64_f32" ? pick_f32(rng) : gen_u32(rng, 0);
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10, 2), V(2)}));
  for (int l = 0; l < 64; ++l) {
    uint32_t a = o.vgpr[2][l];
    double want = row == "v_cvt_f64_i32" ? double(int32_t(a)) : row == "v_cvt_f64_u32" ? double(a) : double(F(a));
    double got = dval(get64(w, 10, l));
    EXPECT_TRUE(dbits(got) == dbits(want) || (std::isnan(got) && std::isnan(want))) << row << " lane " << l;
  }
}
ROW_CHECK(cvt_pk, "v_cvt_pknorm_i16_f32", "v_cvt_pknorm_u16_f32", "v_cvt_pkrtz_f16_f32") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = gen_f32;
  c.ref = [row](uint32_t a, uint32_t b, uint32_t) {
    auto one = [&](uint32_t x) -> uint32_t {
      long double v = F(x);
      if (row == "v_cvt_pkrtz_f16_f32") return f16_round(v, 3);
      if (std::isnan(v)) return 0;
      if (row == "v_cvt_pknorm_i16_f32") return uint16_t(int16_t(std::nearbyint(std::clamp<long double>(v, -1, 1) * 32767)));
      return uint32_t(std::nearbyint(std::clamp<long double>(v, 0, 1) * 65535));
    };
    return one(a) | one(b) << 16;
  };
  if (row == "v_cvt_pkrtz_f16_f32") {
    c.ref = [c](uint32_t a, uint32_t b, uint32_t) {
      auto one = [](uint32_t x) -> uint32_t {
        long double v = fval(x);
        return std::isnan(v) ? 0x7e00u : f16_round(v, 3);
      };
      return one(a) | one(b) << 16;
    };
    c.mask = 0xffffffffu;
  }
  // NaN halves of pkrtz: compare as NaN per half.
  if (row != "v_cvt_pkrtz_f16_f32") {
    check32(c);
    return;
  }
  std::mt19937 rng(53);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = pick_f32(rng);
    w.vgpr[2][l] = pick_f32(rng);
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10), V(1), V(2)}));
  for (int l = 0; l < 64; ++l) {
    uint32_t want = c.ref(o.vgpr[1][l], o.vgpr[2][l], 0), got = w.vgpr[10][l];
    for (int h = 0; h < 2; ++h) {
      uint16_t g = uint16_t(got >> (16 * h)), x = uint16_t(want >> (16 * h));
      bool ok = g == x || (((g & 0x7fff) > 0x7c00) && ((x & 0x7fff) > 0x7c00));
      EXPECT_TRUE(ok) << row << " lane " << l << std::hex << " got " << got << " want " << want;
    }
  }
}
ROW_CHECK(cvt_pk16, "v_cvt_pknorm_i16_f16", "v_cvt_pknorm_u16_f16") {
  Check32 c;
  c.row = row;
  c.nsrc = 2;
  c.gen = gen_f16;
  c.ref = [row](uint32_t a, uint32_t b, uint32_t) {
    auto one = [&](uint32_t x) -> uint32_t {
      long double v = f16_value(uint16_t(x));
      if (std::isnan(v)) return 0;
      if (row == "v_cvt_pknorm_i16_f16") return uint16_t(int16_t(std::nearbyint(std::clamp<long double>(v, -1, 1) * 32767)));
      return uint32_t(std::nearbyint(std::clamp<long double>(v, 0, 1) * 65535));
    };
    return one(a) | one(b) << 16;
  };
  check32(c);
}
ROW_CHECK(cvt_pk_u8, "v_cvt_pk_u8_f32", "v_cvt_pkaccum_u8_f32") {
  std::mt19937 rng(59);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    std::uniform_real_distribution<float> d(-20.0f, 300.0f);
    w.vgpr[1][l] = l % 5 ? fbits(d(rng)) : pick_f32(rng);
    w.vgpr[2][l] = rng();
    w.vgpr[3][l] = rng();
    w.vgpr[10][l] = rng();
  }
  WaveState o = w;
  bool accum = row == "v_cvt_pkaccum_u8_f32";
  run(w, accum ? make(row, Encoding::Native, {V(10), V(1), V(2)}) : make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}));
  for (int l = 0; l < 64; ++l) {
    float x = F(o.vgpr[1][l]);
    uint32_t byte = std::isnan(x) ? 0 : uint32_t(std::clamp(std::nearbyint(x), 0.0f, 255.0f));
    unsigned sh = 8 * (o.vgpr[2][l] & 3);
    uint32_t base = accum ? o.vgpr[10][l] : o.vgpr[3][l];
    EXPECT_EQ(w.vgpr[10][l], (base & ~(0xffu << sh)) | byte << sh) << row << " lane " << l;
  }
}

}  // namespace
}  // namespace k100::emu::valu_test
