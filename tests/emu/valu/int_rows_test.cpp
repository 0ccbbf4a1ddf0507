// Unit tests of the integer VALU rows against host formulas.
#include <algorithm>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

using F3 = std::function<uint32_t(uint32_t, uint32_t, uint32_t)>;

void u32(const std::string& row, int n, F3 ref, Gen32 gen = gen_u32, bool clamp = false) {
  Check32 c;
  c.row = row;
  c.nsrc = n;
  c.gen = gen;
  c.ref = std::move(ref);
  c.mods.clamp = clamp;
  check32(c);
}

int64_t s24(uint32_t x) { return (x & 0x800000) ? int64_t(x & 0xffffff) - 0x1000000 : int64_t(x & 0xffffff); }
uint32_t satu(int64_t v) { return v < 0 ? 0 : v > 0xffffffffll ? 0xffffffffu : uint32_t(v); }
uint32_t sati(int64_t v) { return uint32_t(int32_t(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX))); }

// ---- VOP1

ROW_CHECK(mov, "v_mov_b32") { u32(row, 1, [](uint32_t a, uint32_t, uint32_t) { return a; }); }
ROW_CHECK(not_, "v_not_b32") { u32(row, 1, [](uint32_t a, uint32_t, uint32_t) { return ~a; }); }
ROW_CHECK(bfrev, "v_bfrev_b32") {
  u32(row, 1, [](uint32_t a, uint32_t, uint32_t) {
    uint32_t r = 0;
    for (int k = 0; k < 32; ++k)
      if (a & (1u << k)) r |= 1u << (31 - k);
    return r;
  });
}
ROW_CHECK(ffbh_u, "v_ffbh_u32") {
  u32(row, 1, [](uint32_t a, uint32_t, uint32_t) {
    for (int k = 31; k >= 0; --k)
      if (a & (1u << k)) return uint32_t(31 - k);
    return 0xffffffffu;
  });
}
ROW_CHECK(ffbl, "v_ffbl_b32") {
  u32(row, 1, [](uint32_t a, uint32_t, uint32_t) {
    for (int k = 0; k < 32; ++k)
      if (a & (1u << k)) return uint32_t(k);
    return 0xffffffffu;
  });
}
ROW_CHECK(ffbh_i, "v_ffbh_i32") {
  u32(row, 1, [](uint32_t a, uint32_t, uint32_t) {
    uint32_t sign = a >> 31;
    for (int k = 30; k >= 0; --k)
      if (((a >> k) & 1) != sign) return uint32_t(31 - k);
    return 0xffffffffu;
  });
}
ROW_CHECK(sat_pk, "v_sat_pk_u8_i16") {
  u32(row, 1, [](uint32_t a, uint32_t, uint32_t) {
    auto s = [](int v) { return uint32_t(std::clamp(v, 0, 255)); };
    return s(int16_t(a)) | s(int16_t(a >> 16)) << 8;
  });
}
ROW_CHECK(nop, "v_nop", "v_clrexcp") {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) w.vgpr[0][l] = uint32_t(l * 7);
  WaveState before = w;
  run(w, make(row, Encoding::Native, {}));
  EXPECT_EQ(w.vgpr, before.vgpr);
  EXPECT_EQ(w.sgpr, before.sgpr);
}

// ---- VOP2 / VOP3 32-bit

ROW_CHECK(mul_i24, "v_mul_i32_i24") { u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(s24(a) * s24(b)); }); }
ROW_CHECK(mul_hi_i24, "v_mul_hi_i32_i24") {
  u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) { return uint32_t((s24(a) * s24(b)) >> 32); });
}
ROW_CHECK(mul_u24, "v_mul_u32_u24") {
  u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) { return uint32_t(uint64_t(a & 0xffffff) * (b & 0xffffff)); });
}
ROW_CHECK(mul_hi_u24, "v_mul_hi_u32_u24") {
  u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) { return uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32); });
}
ROW_CHECK(minmax, "v_min_i32", "v_max_i32", "v_min_u32", "v_max_u32") {
  bool is_min = row.find("min") != std::string::npos, is_signed = row.find("_i32") != std::string::npos;
  u32(row, 2, [=](uint32_t a, uint32_t b, uint32_t) {
    bool a_less = is_signed ? int32_t(a) < int32_t(b) : a < b;
    return (a_less == is_min) ? a : b;
  });
}
ROW_CHECK(shifts, "v_lshrrev_b32", "v_ashrrev_i32", "v_lshlrev_b32") {
  u32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) {
    unsigned s = a % 32;
    if (row == "v_lshrrev_b32") return b >> s;
    if (row == "v_lshlrev_b32") return b << s;
    return uint32_t(int64_t(int32_t(b)) >> s);
  });
}
ROW_CHECK(logic, "v_and_b32", "v_or_b32", "v_xor_b32", "v_xnor_b32") {
  u32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) {
    if (row == "v_and_b32") return a & b;
    if (row == "v_or_b32") return a | b;
    if (row == "v_xor_b32") return a ^ b;
    return ~(a ^ b);
  });
}
ROW_CHECK(addsub_u32, "v_add_u32", "v_sub_u32", "v_subrev_u32") {
  for (bool clamp : {false, true})
    u32(row, 2, [row, clamp](uint32_t a, uint32_t b, uint32_t) {
      int64_t r = row == "v_add_u32" ? int64_t(a) + b : row == "v_sub_u32" ? int64_t(a) - b : int64_t(b) - a;
      return clamp ? satu(r) : uint32_t(r);
    }, gen_u32, clamp);
}
ROW_CHECK(addsub_i32, "v_add_i32", "v_sub_i32") {
  for (bool clamp : {false, true})
    u32(row, 2, [row, clamp](uint32_t a, uint32_t b, uint32_t) {
      int64_t r = row == "v_add_i32" ? int64_t(int32_t(a)) + int32_t(b) : int64_t(int32_t(a)) - int32_t(b);
      return clamp ? sati(r) : uint32_t(r);
    }, gen_u32, clamp);
}
ROW_CHECK(mad24, "v_mad_i32_i24", "v_mad_u32_u24") {
  for (bool clamp : {false, true})
    u32(row, 3, [row, clamp](uint32_t a, uint32_t b, uint32_t c) {
      if (row == "v_mad_i32_i24") {
        int64_t r = s24(a) * s24(b) + int32_t(c);
        return clamp ? sati(r) : uint32_t(r);
      }
      int64_t r = int64_t(uint64_t(a & 0xffffff) * (b & 0xffffff)) + c;
      return clamp ? satu(r) : uint32_t(r);
    }, gen_u32, clamp);
}
ROW_CHECK(bfe, "v_bfe_u32", "v_bfe_i32") {
  auto gen = [](std::mt19937& rng, int s) -> uint32_t { return s == 0 ? rng() : (rng() % 3 ? rng() % 40 : rng()); };
  u32(row, 3, [row](uint32_t x, uint32_t off, uint32_t width) {
    off &= 31;
    width &= 31;
    if (!width) return 0u;
    uint32_t r = 0;
    for (unsigned k = 0; k < width; ++k) {
      unsigned bit = off + k;
      uint32_t v = bit < 32 ? (x >> bit) & 1 : (row == "v_bfe_i32" ? x >> 31 : 0);
      r |= v << k;
    }
    if (row == "v_bfe_i32" && ((r >> (width - 1)) & 1)) r |= ~0u << width;
    return width == 32 ? r : r;
  }, gen);
}
ROW_CHECK(bfi, "v_bfi_b32") { u32(row, 3, [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }); }
ROW_CHECK(bfm, "v_bfm_b32") {
  u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) {
    uint32_t m = 0;
    for (unsigned k = 0; k < (a & 31); ++k) m |= 1u << k;
    return m << (b & 31);
  });
}
ROW_CHECK(lerp, "v_lerp_u8") {
  u32(row, 3, [](uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) {
      uint32_t x = (a >> (8 * k)) & 255, y = (b >> (8 * k)) & 255, round = (c >> (8 * k)) & 1;
      r |= ((x + y + round) / 2) << (8 * k);
    }
    return r;
  });
}
ROW_CHECK(align, "v_alignbit_b32", "v_alignbyte_b32") {
  u32(row, 3, [row](uint32_t a, uint32_t b, uint32_t c) {
    unsigned sh = row == "v_alignbit_b32" ? (c & 31) : 8 * (c & 3);
    unsigned __int128 v = (unsigned __int128)a << 32 | b;
    return uint32_t(v >> sh);
  });
}
ROW_CHECK(three, "v_min3_i32", "v_min3_u32", "v_max3_i32", "v_max3_u32", "v_med3_i32", "v_med3_u32") {
  bool sgn = row.find("_i32") != std::string::npos;
  u32(row, 3, [row, sgn](uint32_t a, uint32_t b, uint32_t c) {
    int64_t v[3] = {sgn ? int64_t(int32_t(a)) : int64_t(a), sgn ? int64_t(int32_t(b)) : int64_t(b),
                    sgn ? int64_t(int32_t(c)) : int64_t(c)};
    std::sort(v, v + 3);
    int64_t r = row.find("min3") != std::string::npos ? v[0] : row.find("max3") != std::string::npos ? v[2] : v[1];
    return uint32_t(r);
  });
}
uint32_t ad(uint32_t x, uint32_t y) { return x > y ? x - y : y - x; }
ROW_CHECK(sad, "v_sad_u8", "v_sad_hi_u8", "v_sad_u16", "v_sad_u32", "v_msad_u8") {
  for (bool clamp : {false, true})
    u32(row, 3, [row, clamp](uint32_t a, uint32_t b, uint32_t c) {
      uint64_t s = 0;
      if (row == "v_sad_u32") {
        s = ad(a, b);
      } else if (row == "v_sad_u16") {
        s = ad(a & 0xffff, b & 0xffff) + ad(a >> 16, b >> 16);
      } else {
        for (int k = 0; k < 4; ++k) {
          uint32_t x = (a >> (8 * k)) & 255, y = (b >> (8 * k)) & 255;
          if (row == "v_msad_u8" && y == 0) continue;
          s += ad(x, y);
        }
        if (row == "v_sad_hi_u8") s <<= 16;
      }
      uint64_t t = s + c;
      return clamp ? uint32_t(std::min<uint64_t>(t, 0xffffffffu)) : uint32_t(t);
    }, gen_u32, clamp);
}
ROW_CHECK(perm, "v_perm_b32") {
  auto gen = [](std::mt19937& rng, int s) -> uint32_t {
    if (s < 2) return rng();
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) r |= uint32_t(rng() % 16) << (8 * k);
    return rng() % 8 ? r : rng();
  };
  u32(row, 3, [](uint32_t a, uint32_t b, uint32_t sel) {
    uint8_t bytes[8];
    for (int k = 0; k < 4; ++k) {
      bytes[k] = uint8_t(b >> (8 * k));
      bytes[4 + k] = uint8_t(a >> (8 * k));
    }
    uint32_t r = 0;
    for (int k = 0; k < 4; ++k) {
      uint32_t s = (sel >> (8 * k)) & 255, v;
      if (s < 8) v = bytes[s];
      else if (s < 12) v = (bytes[2 * (s - 8) + 1] & 0x80) ? 0xff : 0;
      else if (s == 12) v = 0;
      else v = 0xff;
      r |= v << (8 * k);
    }
    return r;
  }, gen);
}
ROW_CHECK(misc3, "v_xad_u32", "v_lshl_add_u32", "v_add_lshl_u32", "v_add3_u32", "v_lshl_or_b32", "v_and_or_b32",
          "v_or3_b32") {
  u32(row, 3, [row](uint32_t a, uint32_t b, uint32_t c) -> uint32_t {
    if (row == "v_xad_u32") return (a ^ b) + c;
    if (row == "v_lshl_add_u32") return uint32_t((uint64_t(a) << (b % 32)) + c);
    if (row == "v_add_lshl_u32") return uint32_t(uint64_t(a + b) << (c % 32));
    if (row == "v_add3_u32") return a + b + c;
    if (row == "v_lshl_or_b32") return uint32_t(uint64_t(a) << (b % 32)) | c;
    if (row == "v_and_or_b32") return (a & b) | c;
    return a | b | c;
  });
}
ROW_CHECK(mul32, "v_mul_lo_u32", "v_mul_hi_u32", "v_mul_hi_i32") {
  u32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) {
    if (row == "v_mul_lo_u32") return uint32_t(uint64_t(a) * b);
    if (row == "v_mul_hi_u32") return uint32_t((uint64_t(a) * b) >> 32);
    return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32);
  });
}
ROW_CHECK(bcnt, "v_bcnt_u32_b32") {
  u32(row, 2, [](uint32_t a, uint32_t b, uint32_t) {
    uint32_t n = 0;
    for (int k = 0; k < 32; ++k) n += (a >> k) & 1;
    return n + b;
  });
}
ROW_CHECK(mbcnt, "v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32") {
  std::mt19937 rng(5);
  WaveState w = fresh_wave();
  uint32_t mask = rng();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = l % 3 ? mask : rng();
    w.vgpr[2][l] = rng() % 100;
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10), V(1), V(2)}));
  for (int l = 0; l < 64; ++l) {
    uint64_t below = l == 0 ? 0 : (~0ull >> (64 - l));
    uint32_t part = row == "v_mbcnt_lo_u32_b32" ? uint32_t(below) : uint32_t(below >> 32);
    EXPECT_EQ(w.vgpr[10][l], uint32_t(std::popcount(o.vgpr[1][l] & part)) + o.vgpr[2][l]) << row << " lane " << l;
  }
}
ROW_CHECK(cvt_pk, "v_cvt_pk_u16_u32", "v_cvt_pk_i16_i32") {
  u32(row, 2, [row](uint32_t a, uint32_t b, uint32_t) {
    auto f = [&](uint32_t x) -> uint32_t {
      if (row == "v_cvt_pk_u16_u32") return std::min<uint32_t>(x, 0xffff);
      return uint16_t(int16_t(std::clamp<int32_t>(int32_t(x), -32768, 32767)));
    };
    return f(a) | f(b) << 16;
  });
}

// ---- 16-bit (VOP2: high half zeroed; VOP3 op_sel ops: high half kept)

uint32_t gen16(std::mt19937& rng, int) {
  static const uint16_t special[] = {0, 1, 0x7fff, 0x8000, 0xffff, 15, 16, 17};
  uint32_t hi = rng() & 0xffff0000u;
  return hi | (rng() % 3 ? uint16_t(rng()) : special[rng() % 8]);
}

void i16(const std::string& row, int n, std::function<uint32_t(uint32_t, uint32_t, uint32_t)> ref, bool keep_high,
         bool clamp = false) {
  Check32 c;
  c.row = row;
  c.nsrc = n;
  c.gen = gen16;
  c.mods.clamp = clamp;
  c.ref_old = [ref, keep_high](uint32_t a, uint32_t b, uint32_t cc, uint32_t old) {
    uint32_t r = ref(a & 0xffff, b & 0xffff, cc & 0xffff) & 0xffff;
    return keep_high ? (old & 0xffff0000u) | r : r;
  };
  check32(c);
}
int64_t sx16(uint32_t v) { return int16_t(v); }
uint32_t satu16(int64_t v) { return uint32_t(std::clamp<int64_t>(v, 0, 0xffff)); }
uint32_t sati16(int64_t v) { return uint32_t(uint16_t(std::clamp<int64_t>(v, -32768, 32767))); }

ROW_CHECK(addsub_u16, "v_add_u16", "v_sub_u16", "v_subrev_u16") {
  for (bool clamp : {false, true})
    i16(row, 2, [row, clamp](uint32_t a, uint32_t b, uint32_t) {
      int64_t r = row == "v_add_u16" ? int64_t(a) + b : row == "v_sub_u16" ? int64_t(a) - b : int64_t(b) - a;
      return clamp ? satu16(r) : uint32_t(r);
    }, false, clamp);
}
ROW_CHECK(ops16, "v_mul_lo_u16", "v_lshlrev_b16", "v_lshrrev_b16", "v_ashrrev_i16", "v_max_u16", "v_max_i16",
          "v_min_u16", "v_min_i16") {
  i16(row, 2, [row](uint32_t a, uint32_t b, uint32_t) -> uint32_t {
    if (row == "v_mul_lo_u16") return a * b;
    if (row == "v_lshlrev_b16") return b << (a % 16);
    if (row == "v_lshrrev_b16") return b >> (a % 16);
    if (row == "v_ashrrev_i16") return uint32_t(sx16(b) >> (a % 16));
    if (row == "v_max_u16") return std::max(a, b);
    if (row == "v_min_u16") return std::min(a, b);
    if (row == "v_max_i16") return uint32_t(std::max(sx16(a), sx16(b)));
    return uint32_t(std::min(sx16(a), sx16(b)));
  }, false);
}
ROW_CHECK(addsub_i16, "v_add_i16", "v_sub_i16") {
  for (bool clamp : {false, true})
    i16(row, 2, [row, clamp](uint32_t a, uint32_t b, uint32_t) {
      int64_t r = row == "v_add_i16" ? sx16(a) + sx16(b) : sx16(a) - sx16(b);
      return clamp ? sati16(r) : uint32_t(r);
    }, true, clamp);
}
ROW_CHECK(three16, "v_min3_i16", "v_min3_u16", "v_max3_i16", "v_max3_u16", "v_med3_i16", "v_med3_u16") {
  bool sgn = row.find("_i16") != std::string::npos;
  i16(row, 3, [row, sgn](uint32_t a, uint32_t b, uint32_t c) {
    int64_t v[3] = {sgn ? sx16(a) : int64_t(a), sgn ? sx16(b) : int64_t(b), sgn ? sx16(c) : int64_t(c)};
    std::sort(v, v + 3);
    return uint32_t(row.find("min3") != std::string::npos ? v[0] : row.find("max3") != std::string::npos ? v[2] : v[1]);
  }, true);
}
ROW_CHECK(mad16, "v_mad_u16", "v_mad_i16", "v_mad_legacy_u16", "v_mad_legacy_i16") {
  bool sgn = row.find("i16") != std::string::npos, keep = row.find("legacy") == std::string::npos;
  for (bool clamp : {false, true})
    i16(row, 3, [sgn, clamp](uint32_t a, uint32_t b, uint32_t c) {
      int64_t r = sgn ? sx16(a) * sx16(b) + sx16(c) : int64_t(a) * b + c;
      return clamp ? (sgn ? sati16(r) : satu16(r)) : uint32_t(r);
    }, keep, clamp);
}
ROW_CHECK(mad32_16, "v_mad_u32_u16", "v_mad_i32_i16") {
  bool sgn = row == "v_mad_i32_i16";
  for (bool clamp : {false, true})
    u32(row, 3, [sgn, clamp](uint32_t a, uint32_t b, uint32_t c) {
      int64_t r = sgn ? sx16(a) * sx16(b) + int32_t(c) : int64_t(a & 0xffff) * (b & 0xffff) + c;
      return clamp ? (sgn ? sati(r) : satu(r)) : uint32_t(r);
    }, gen_u32, clamp);
}

// ---- carries

ROW_CHECK(carry, "v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
          "v_subbrev_co_u32") {
  bool cin = row == "v_addc_co_u32" || row == "v_subb_co_u32" || row == "v_subbrev_co_u32";
  std::mt19937 rng(11);
  for (Encoding enc : forms_of(row))
    for (bool clamp : {false, true}) {
      if (clamp && enc == Encoding::Native) continue;
      WaveState w = fresh_wave();
      for (int l = 0; l < 64; ++l) {
        w.vgpr[1][l] = gen_u32(rng, 0);
        w.vgpr[2][l] = gen_u32(rng, 1);
      }
      LaneMask in_mask = (uint64_t(rng()) << 32) | rng();
      isa::Modifiers m;
      m.clamp = clamp;
      isa::Inst inst;
      if (enc == Encoding::Native) {
        w.set_vcc(in_mask);
        inst = cin ? make(row, enc, {V(10), VCC(), V(1), V(2), VCC()}) : make(row, enc, {V(10), VCC(), V(1), V(2)});
      } else {
        w.set_sgpr64(20, in_mask);
        inst = cin ? make(row, enc, {V(10), S(30, 2), V(1), V(2), S(20, 2)}, m)
                   : make(row, enc, {V(10), S(30, 2), V(1), V(2)}, m);
      }
      LaneMask exec = ~0ull ^ (1ull << 7) ^ (1ull << 40);
      w.set_exec(exec);
      WaveState o = w;
      run(w, inst);
      LaneMask out = enc == Encoding::Native ? w.vcc() : w.sgpr64(30);
      for (int l = 0; l < 64; ++l) {
        uint64_t a = o.vgpr[1][l], b = o.vgpr[2][l], c = cin ? (in_mask >> l) & 1 : 0;
        bool add = row.find("add") != std::string::npos, rev = row.find("rev") != std::string::npos;
        int64_t t = add ? int64_t(a + b + c) : rev ? int64_t(b) - int64_t(a) - int64_t(c) : int64_t(a) - int64_t(b) - int64_t(c);
        bool carry = add ? t > 0xffffffffll : t < 0;
        uint32_t want = uint32_t(t);
        if (clamp && carry) want = add ? 0xffffffffu : 0u;
        if ((exec >> l) & 1) {
          EXPECT_EQ(w.vgpr[10][l], want) << row << " lane " << l;
          EXPECT_EQ((out >> l) & 1, uint64_t(carry)) << row << " carry lane " << l;
        } else {
          EXPECT_EQ(w.vgpr[10][l], o.vgpr[10][l]) << row << " inactive lane written";
          EXPECT_EQ((out >> l) & 1, 0u) << row << " inactive lane carry";
        }
      }
    }
}

ROW_CHECK(cndmask, "v_cndmask_b32") {
  std::mt19937 rng(3);
  for (Encoding enc : forms_of(row)) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = rng();
      w.vgpr[2][l] = rng();
    }
    LaneMask m = (uint64_t(rng()) << 32) | rng();
    isa::Inst inst;
    isa::Modifiers mods;
    if (enc == Encoding::Native) {
      w.set_vcc(m);
      inst = make(row, enc, {V(10), V(1), V(2), VCC()});
    } else {
      w.set_sgpr64(8, m);
      mods.neg = 1;  // -src0 flips the f32 sign bit
      mods.abs = 2;  // |src1|
      inst = make(row, enc, {V(10), V(1), V(2), S(8, 2)}, mods);
    }
    WaveState o = w;
    run(w, inst);
    for (int l = 0; l < 64; ++l) {
      uint32_t a = o.vgpr[1][l], b = o.vgpr[2][l];
      if (enc == Encoding::E64) {
        a ^= 0x80000000u;
        b &= 0x7fffffffu;
      }
      EXPECT_EQ(w.vgpr[10][l], ((m >> l) & 1) ? b : a) << row << " lane " << l;
    }
  }
}

// ---- 64-bit

ROW_CHECK(shift64, "v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64") {
  std::mt19937 rng(9);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = l < 8 ? uint32_t(l * 9) : rng();
    set64(w, 2, l, (uint64_t(rng()) << 32) | rng());
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10, 2), V(1), V(2, 2)}));
  for (int l = 0; l < 64; ++l) {
    uint64_t x = get64(o, 2, l);
    unsigned s = o.vgpr[1][l] & 63;
    uint64_t want = row == "v_lshlrev_b64" ? x << s : row == "v_lshrrev_b64" ? x >> s : uint64_t(int64_t(x) >> s);
    EXPECT_EQ(get64(w, 10, l), want) << row << " lane " << l;
  }
}

ROW_CHECK(mad64, "v_mad_u64_u32", "v_mad_i64_i32") {
  std::mt19937 rng(13);
  bool sgn = row == "v_mad_i64_i32";
  for (bool clamp : {false, true}) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = gen_u32(rng, 0);
      w.vgpr[2][l] = gen_u32(rng, 1);
      set64(w, 4, l, l % 4 == 0 ? ~0ull - l : (uint64_t(rng()) << 32) | rng());
    }
    isa::Modifiers m;
    m.clamp = clamp;
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10, 2), S(40, 2), V(1), V(2), V(4, 2)}, m));
    for (int l = 0; l < 64; ++l) {
      uint64_t a = o.vgpr[1][l], b = o.vgpr[2][l], c = get64(o, 4, l);
      uint64_t want;
      bool carry;
      if (sgn) {
        __int128 t = __int128(int64_t(int32_t(a)) * int64_t(int32_t(b))) + __int128(int64_t(c));
        carry = t > INT64_MAX || t < INT64_MIN;
        want = uint64_t(t);
        if (clamp && carry) want = t > 0 ? uint64_t(INT64_MAX) : uint64_t(INT64_MIN);
      } else {
        unsigned __int128 t = (unsigned __int128)a * b + c;
        carry = (t >> 64) != 0;
        want = clamp && carry ? ~0ull : uint64_t(t);
      }
      EXPECT_EQ(get64(w, 10, l), want) << row << " lane " << l;
      EXPECT_EQ((w.sgpr64(40) >> l) & 1, uint64_t(carry)) << row << " carry lane " << l;
    }
  }
}

ROW_CHECK(qsad, "v_qsad_pk_u16_u8", "v_mqsad_pk_u16_u8") {
  std::mt19937 rng(17);
  bool masked = row[2] == 'm';
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    set64(w, 2, l, (uint64_t(rng()) << 32) | rng());
    w.vgpr[1][l] = l % 3 ? rng() : rng() & 0xff00ff00u;
    set64(w, 4, l, (uint64_t(rng()) << 32) | rng());
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10, 2), V(2, 2), V(1), V(4, 2)}));
  for (int l = 0; l < 64; ++l) {
    uint64_t src = get64(o, 2, l), acc = get64(o, 4, l), want = 0;
    uint32_t ref = o.vgpr[1][l];
    for (int j = 0; j < 4; ++j) {
      uint32_t s = uint32_t(acc >> (16 * j)) & 0xffff;
      for (int k = 0; k < 4; ++k) {
        uint32_t x = uint32_t(src >> (8 * (j + k))) & 255, y = (ref >> (8 * k)) & 255;
        if (masked && y == 0) continue;
        s += ad(x, y);
      }
      want |= uint64_t(s & 0xffff) << (16 * j);
    }
    EXPECT_EQ(get64(w, 10, l), want) << row << " lane " << l;
  }
}

ROW_CHECK(mqsad32, "v_mqsad_u32_u8") {
  std::mt19937 rng(19);
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    set64(w, 2, l, (uint64_t(rng()) << 32) | rng());
    w.vgpr[1][l] = l % 3 ? rng() : rng() & 0x00ff00ffu;
    for (int k = 0; k < 4; ++k) w.vgpr[4 + k][l] = rng();
  }
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(10, 4), V(2, 2), V(1), V(4, 4)}));
  for (int l = 0; l < 64; ++l) {
    uint64_t src = get64(o, 2, l);
    uint32_t ref = o.vgpr[1][l];
    for (int j = 0; j < 4; ++j) {
      uint32_t s = o.vgpr[4 + j][l];
      for (int k = 0; k < 4; ++k) {
        uint32_t x = uint32_t(src >> (8 * (j + k))) & 255, y = (ref >> (8 * k)) & 255;
        if (y) s += ad(x, y);
      }
      EXPECT_EQ(w.vgpr[10 + j][l], s) << row << " lane " << l << " dword " << j;
    }
  }
}

// ---- lane ops

ROW_CHECK(readfirstlane, "v_readfirstlane_b32") {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) w.vgpr[3][l] = 1000 + l;
  for (LaneMask exec : {~0ull, 0x100ull, 0x8000000000000000ull, 0ull}) {
    w.set_exec(exec);
    run(w, make(row, Encoding::Native, {S(7), V(3)}));
    EXPECT_EQ(w.sgpr[7], 1000u + (exec ? std::countr_zero(exec) : 0));
  }
}
ROW_CHECK(readlane, "v_readlane_b32") {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) w.vgpr[3][l] = 2000 + l;
  w.set_exec(1);  // EXEC does not matter
  w.sgpr[5] = 77;  // & 63 = 13
  run(w, make(row, Encoding::Native, {S(7), V(3), S(5)}));
  EXPECT_EQ(w.sgpr[7], 2013u);
  run(w, make(row, Encoding::Native, {isa::Operand::reg(isa::code::kM0), V(3), Int(40)}));
  EXPECT_EQ(w.m0(), 2040u);
}
ROW_CHECK(writelane, "v_writelane_b32") {
  WaveState w = fresh_wave();
  w.set_exec(0);
  w.sgpr[4] = 0xabcd;
  w.sgpr[124] = 64 + 21;  // m0: the lane select is taken modulo 64
  WaveState o = w;
  run(w, make(row, Encoding::Native, {V(9), S(4), isa::Operand::reg(isa::code::kM0)}), false);
  for (int l = 0; l < 64; ++l) EXPECT_EQ(w.vgpr[9][l], l == 21 ? 0xabcdu : o.vgpr[9][l]);
  run(w, make(row, Encoding::Native, {V(9), Int(-7), Int(3)}));
  EXPECT_EQ(w.vgpr[9][3], uint32_t(-7));
}
ROW_CHECK(swap, "v_swap_b32") {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = l;
    w.vgpr[2][l] = 100 + l;
  }
  w.set_exec(0x00000000ffff0000ull);
  run(w, make(row, Encoding::Native, {V(1), V(2)}));
  for (int l = 0; l < 64; ++l) {
    bool on = l >= 16 && l < 32;
    EXPECT_EQ(w.vgpr[1][l], on ? 100u + l : uint32_t(l));
    EXPECT_EQ(w.vgpr[2][l], on ? uint32_t(l) : 100u + l);
  }
}

}  // namespace
}  // namespace k100::emu::valu_test
