#include "harness.h"

#include <cmath>

namespace k100::emu::valu_test {

isa::Inst make(const std::string& name, Encoding enc, std::initializer_list<Operand> ops,
               const isa::Modifiers& mods, bool default_opsel_hi) {
  const isa::InstDesc* d = isa::find_instruction(name);
  EXPECT_NE(d, nullptr) << name;
  isa::Inst in;
  if (!d) return in;
  in.id = d->id;
  in.encoding = enc;
  in.mods = mods;
  in.num_operands = uint8_t(ops.size());
  size_t i = 0;
  for (const Operand& o : ops) in.ops[i++] = o;
  // Register widths come from the operand list of the encoding.
  const auto& specs = in.specs();
  EXPECT_EQ(specs.size(), ops.size()) << name << ": operand count";
  for (size_t k = 0; k < specs.size() && k < ops.size(); ++k)
    if ((in.ops[k].is_vgpr() || in.ops[k].is_sgpr()) && in.ops[k].width == 1)
      in.ops[k].width = uint8_t(in.expected_width(int(k)));
  if (d->family == isa::Family::VOP3P && default_opsel_hi && mods.op_sel_hi == 0) in.mods.op_sel_hi = 7;
  return in;
}

void run(WaveState& w, const isa::Inst& in, bool check_legal) {
  if (check_legal) {
    std::string why = isa::check(in);
    ASSERT_EQ(why, "") << isa::print(in);
  }
  ValuFn fn = valu_semantics()[in.id];
  ASSERT_NE(fn, nullptr) << in.desc().name;
  fn(w, in);
}

WaveState fresh_wave() {
  WaveState w;
  w.set_exec(~0ull);
  w.mode = 0xf0 | ModeBits::kIeee | ModeBits::kDx10Clamp;
  return w;
}

uint32_t pick_f32(std::mt19937& rng) {
  static const uint32_t special[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00400000, 0x00800000,
                                     0x80800000, 0x3f800000, 0xbf800000, 0x3f000000, 0x40490fdb, 0x7f7fffff,
                                     0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001,
                                     0x4b000000, 0x4b000001, 0xcf000000, 0x4f800000, 0x3effffff, 0xbf000001};
  uint32_t k = rng() % 8;
  if (k == 0) return special[rng() % (sizeof special / sizeof special[0])];
  if (k <= 3) {  // moderate magnitudes
    std::uniform_real_distribution<float> d(-100.0f, 100.0f);
    return fbits(d(rng));
  }
  if (k == 4) return rng() & 0x807fffffu;  // denormals
  return rng();                            // anything
}

uint64_t pick_f64(std::mt19937& rng) {
  static const uint64_t special[] = {0, 0x8000000000000000ull, 1, 0x800fffffffffffffull, 0x0010000000000000ull,
                                     0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
                                     0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                     0x7ff0000000000001ull, 0x4330000000000000ull, 0x41e0000000000000ull};
  uint32_t k = rng() % 8;
  if (k == 0) return special[rng() % (sizeof special / sizeof special[0])];
  if (k <= 3) {
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    return dbits(d(rng));
  }
  if (k == 4) return ((uint64_t(rng()) << 32) | rng()) & 0x800fffffffffffffull;
  return (uint64_t(rng()) << 32) | rng();
}

uint16_t pick_f16(std::mt19937& rng) {
  static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0xbc00, 0x3800,
                                     0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x6400, 0x3555};
  uint32_t k = rng() % 6;
  if (k == 0) return special[rng() % (sizeof special / sizeof special[0])];
  if (k == 1) return uint16_t(rng() & 0x83ff);
  if (k <= 3) return uint16_t((rng() & 0x8000) | (0x3000 + rng() % 0x1800));  // around 1
  return uint16_t(rng());
}

long double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  long double mag;
  if (e == 31) mag = m ? NAN : INFINITY;
  else if (e == 0) mag = std::ldexp((long double)m, -24);
  else mag = std::ldexp((long double)(m | 0x400), e - 25);
  return (h & 0x8000) ? -mag : mag;
}

// Rounds by locating the neighbouring f16 values in the ordered list of all
// finite positive f16 encodings (independent of bit tricks).
q128 q_of_f16(uint16_t h) { return (q128)f16_value(h); }

uint16_t f16_round_q(q128 x, int mode, bool flush) {
  if (x != x) return 0x7e00;
  bool neg = x < 0 || (x == 0 && std::signbit((double)x));
  uint16_t sign = neg ? 0x8000 : 0;
  q128 a = neg ? -x : x;
  bool up_mode = (mode == 1 && !neg) || (mode == 2 && neg);
  bool down_mode = mode == 3 || (mode == 1 && neg) || (mode == 2 && !neg);
  uint16_t result;
  q128 maxv = q_of_f16(0x7bff);
  if (a > maxv) {
    q128 limit = maxv + 16;  // max + half an ulp (ulp = 32)
    bool inf = a > (q128)1e300;
    if (inf) result = 0x7c00;
    else if (down_mode) result = 0x7bff;
    else if (up_mode) result = 0x7c00;
    else result = a >= limit ? 0x7c00 : 0x7bff;
  } else {
    uint16_t lo = 0, hi = 0x7bff;  // largest encoding with value <= a
    while (lo < hi) {
      uint16_t mid = uint16_t((lo + hi + 1) / 2);
      if (q_of_f16(mid) <= a) lo = mid;
      else hi = uint16_t(mid - 1);
    }
    if (q_of_f16(lo) == a) {
      result = lo;
    } else {
      uint16_t next = uint16_t(lo + 1);
      q128 d0 = a - q_of_f16(lo), d1 = q_of_f16(next) - a;
      if (down_mode) result = lo;
      else if (up_mode) result = next;
      else if (d0 < d1) result = lo;
      else if (d1 < d0) result = next;
      else result = (lo & 1) ? next : lo;
    }
  }
  if (flush && result < 0x0400) result = 0;
  return uint16_t(sign | result);
}

uint16_t f16_round(long double x, int mode, bool flush) {
  if (std::isnan(x)) return 0x7e00;
  if (std::isinf(x)) return x > 0 ? 0x7c00 : 0xfc00;
  uint16_t r = f16_round_q((q128)x, mode, flush);
  if (x == 0 && std::signbit(x)) r |= 0x8000;
  return r;
}

q128 sum_to_odd(q128 a, q128 b) {
  q128 s = a + b;
  if (s != s || s - s != 0) return s;  // NaN or infinite
  q128 bb = s - a;
  q128 e = (a - (s - bb)) + (b - bb);
  if (e == 0) return s;
  if (s == 0) return e;
  unsigned __int128 bits;
  __builtin_memcpy(&bits, &s, 16);
  if (bits & 1) return s;
  bool toward_zero = (e < 0) == (s > 0);
  bits = toward_zero ? bits - 1 : bits + 1;
  __builtin_memcpy(&s, &bits, 16);
  return s;
}

namespace {
template <class U>
int64_t ordered(U x, int bits) {
  U sign = U(1) << (bits - 1);
  return (x & sign) ? -int64_t(x & ~sign) : int64_t(x);
}
}  // namespace

int64_t ulp_diff_f32(uint32_t a, uint32_t b) {
  if (std::isnan(fval(a)) && std::isnan(fval(b))) return 0;
  if (std::isnan(fval(a)) || std::isnan(fval(b))) return INT64_MAX;
  return std::llabs(ordered(a, 32) - ordered(b, 32));
}
int64_t ulp_diff_f64(uint64_t a, uint64_t b) {
  if (std::isnan(dval(a)) && std::isnan(dval(b))) return 0;
  if (std::isnan(dval(a)) || std::isnan(dval(b))) return INT64_MAX;
  return std::llabs(ordered(a, 64) - ordered(b, 64));
}
int64_t ulp_diff_f16(uint16_t a, uint16_t b) {
  bool na = ((a & 0x7fff) > 0x7c00), nb = ((b & 0x7fff) > 0x7c00);
  if (na && nb) return 0;
  if (na || nb) return INT64_MAX;
  return std::llabs(ordered<uint16_t>(a, 16) - ordered<uint16_t>(b, 16));
}

}  // namespace k100::emu::valu_test

#include <map>

namespace k100::emu::valu_test {

namespace {
std::map<std::string, std::vector<RowCheck>>& registry() {
  static std::map<std::string, std::vector<RowCheck>> r;
  return r;
}
}  // namespace

RowCheckRegistrar::RowCheckRegistrar(std::initializer_list<const char*> rows, RowCheck fn) {
  for (const char* r : rows) registry()[r].push_back(fn);
}
RowCheckRegistrar::RowCheckRegistrar(const std::vector<std::string>& rows, RowCheck fn) {
  for (const auto& r : rows) registry()[r].push_back(fn);
}

const std::vector<RowCheck>* row_checks(const std::string& row) {
  auto it = registry().find(row);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<Encoding> forms_of(const std::string& row) {
  const isa::InstDesc* d = isa::find_instruction(row);
  std::vector<Encoding> f = {Encoding::Native};
  if (d && d->has_e64()) f.push_back(Encoding::E64);
  return f;
}

uint32_t gen_u32(std::mt19937& rng, int) {
  static const uint32_t special[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
                                     0x00ffffff, 0x00800000, 0xff800000, 0x8000, 0xffff, 0x7fff, 31, 32, 33};
  switch (rng() % 4) {
    case 0: return special[rng() % (sizeof special / sizeof special[0])];
    case 1: return rng() % 256;
    default: return rng();
  }
}
uint32_t gen_f32(std::mt19937& rng, int) { return pick_f32(rng); }
uint32_t gen_f16(std::mt19937& rng, int) { return (rng() & 0xffff0000u) | pick_f16(rng); }
uint32_t gen_small(std::mt19937& rng, int) { return rng() % 40; }

void check32(const Check32& c) {
  const isa::InstDesc* d = isa::find_instruction(c.row);
  ASSERT_NE(d, nullptr) << c.row;
  std::mt19937 rng(uint32_t(std::hash<std::string>{}(c.row)));
  for (Encoding enc : forms_of(c.row)) {
    for (int round = 0; round < c.rounds; ++round) {
      WaveState w = fresh_wave();
      if (c.mode) w.mode = c.mode;
      for (int lane = 0; lane < 64; ++lane)
        for (int s = 0; s < 3; ++s) w.vgpr[1 + s][lane] = c.gen(rng, s);
      for (int lane = 0; lane < 64; ++lane) w.vgpr[10][lane] = rng();
      isa::Inst in;
      bool e64 = enc == Encoding::E64;
      bool vop3 = d->family == isa::Family::VOP3 || d->family == isa::Family::VOP3P;
      if (c.nsrc == 1) in = make(c.row, enc, {V(10), V(1)}, c.mods);
      else if (c.nsrc == 2) in = make(c.row, enc, {V(10), V(1), V(2)}, c.mods);
      else in = make(c.row, enc, {V(10), V(1), V(2), V(3)}, c.mods);
      (void)e64;
      (void)vop3;
      // Modifiers only some forms accept (clamp, omod, neg/abs) skip the others.
      if (!isa::check(in).empty() && enc == Encoding::Native && forms_of(c.row).size() > 1) break;
      uint32_t before[64];
      for (int lane = 0; lane < 64; ++lane) before[lane] = w.vgpr[10][lane];
      WaveState orig = w;
      run(w, in);
      for (int lane = 0; lane < 64; ++lane) {
        uint32_t a = orig.vgpr[1][lane], b = orig.vgpr[2][lane], cc = orig.vgpr[3][lane];
        uint32_t want = c.ref_old ? c.ref_old(a, b, cc, before[lane]) : c.ref(a, b, cc);
        uint32_t got = w.vgpr[10][lane];
        bool ok = (got & c.mask) == (want & c.mask);
        if (!ok && c.nan_equal_f32 && std::isnan(fval(got)) && std::isnan(fval(want))) ok = true;
        if (!ok && c.nan_equal_f16 && ((got & 0x7fff) > 0x7c00) && ((want & 0x7fff) > 0x7c00)) ok = true;
        if (!ok) {
          ADD_FAILURE() << c.row << (enc == Encoding::E64 ? " (e64)" : "") << " lane " << lane << std::hex
                        << ": srcs 0x" << a << " 0x" << b << " 0x" << cc << " got 0x" << got << " want 0x" << want
                        << " (old dst 0x" << before[lane] << ")";
          return;
        }
      }
    }
  }
}

}  // namespace k100::emu::valu_test
