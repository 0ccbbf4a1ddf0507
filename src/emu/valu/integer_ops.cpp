// Vector ALU integer semantics: moves, bit operations, shifts, 24-bit and
// 32-bit multiplies, add/sub with carries and saturation, 16-bit integer ops,
// SAD family, permutes and 64-bit shifts.
#include <algorithm>
#include <bit>

#include "drivers.h"

namespace k100::emu::valu {

namespace {

// ---- carries ----------------------------------------------------------------

enum class CarryOp { Add, Sub, SubRev, AddC, SubB, SubBRev };

template <CarryOp Op>
void carry_op(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.b32(0);
  const uint32_t* b = v.b32(1);
  constexpr bool has_cin = Op == CarryOp::AddC || Op == CarryOp::SubB || Op == CarryOp::SubBRev;
  alignas(64) uint32_t cin[kLanes];
  if (has_cin) expand_mask(v.mask_src(2), cin);
  uint32_t* r = v.out32();
  alignas(64) uint8_t co[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    uint32_t x = a[i], y = b[i], c = has_cin ? (cin[i] & 1u) : 0u;
    uint32_t res;
    bool carry;
    switch (Op) {
      case CarryOp::Add: res = x + y; carry = res < x; break;
      case CarryOp::AddC: res = x + y + c; carry = (res < x) | ((res == x) & (c != 0)); break;
      case CarryOp::Sub: res = x - y; carry = y > x; break;
      case CarryOp::SubRev: res = y - x; carry = x > y; break;
      case CarryOp::SubB: res = x - y - c; carry = (y > x) | ((y == x) & (c != 0)); break;
      default: res = y - x - c; carry = (x > y) | ((x == y) & (c != 0)); break;
    }
    r[i] = res;
    co[i] = carry;
  }
  if (in.mods.clamp) {
    uint32_t sat = (Op == CarryOp::Add || Op == CarryOp::AddC) ? 0xffffffffu : 0u;
    for (int i = 0; i < kLanes; ++i) r[i] = co[i] ? sat : r[i];
  }
  v.write32(r);
  v.write_sdst(pack_lanes(co));
}

// ---- SAD helpers ------------------------------------------------------------

inline uint32_t absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

inline uint32_t sad_bytes(uint32_t a, uint32_t b) {
  uint32_t s = 0;
  for (int k = 0; k < 4; ++k) s += absdiff((a >> (8 * k)) & 0xff, (b >> (8 * k)) & 0xff);
  return s;
}
// Masked SAD: reference bytes (b) that are zero do not count.
inline uint32_t msad_bytes(uint32_t a, uint32_t b) {
  uint32_t s = 0;
  for (int k = 0; k < 4; ++k) {
    uint32_t rb = (b >> (8 * k)) & 0xff;
    if (rb) s += absdiff((a >> (8 * k)) & 0xff, rb);
  }
  return s;
}

template <bool Masked>
void qsad(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint64_t* a = v.b64(0);
  const uint32_t* ref = v.b32(1);
  const uint64_t* acc = v.b64(2);
  uint64_t* r = v.out64();
  for (int i = 0; i < kLanes; ++i) {
    uint64_t out = 0;
    for (int j = 0; j < 4; ++j) {
      uint32_t window = uint32_t(a[i] >> (8 * j));
      uint32_t s = (Masked ? msad_bytes(window, ref[i]) : sad_bytes(window, ref[i])) +
                   uint32_t((acc[i] >> (16 * j)) & 0xffff);
      if (in.mods.clamp && s > 0xffff) s = 0xffff;
      out |= uint64_t(s & 0xffff) << (16 * j);
    }
    r[i] = out;
  }
  v.write64(r);
}

void mqsad_u32(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint64_t* a = v.b64(0);
  const uint32_t* ref = v.b32(1);
  // src2 and vdst are 4-register VGPR tuples.
  const uint32_t* acc = v.vgpr_row(v.lay.src[2], 2);
  alignas(64) uint32_t res[4][kLanes];
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < kLanes; ++i) {
      uint64_t s = uint64_t(msad_bytes(uint32_t(a[i] >> (8 * j)), ref[i])) + acc[j * kLanes + i];
      res[j][i] = in.mods.clamp ? sat_u32(s) : uint32_t(s);
    }
  uint32_t* d = v.vgpr_row(v.lay.dst, 3);
  alignas(64) uint32_t mk[kLanes];
  expand_mask(v.exec, mk);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < kLanes; ++i) d[j * kLanes + i] = (res[j][i] & mk[i]) | (d[j * kLanes + i] & ~mk[i]);
}

// ---- 64-bit multiply-add with carry out -------------------------------------

template <bool Signed>
void mad64(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.b32(0);
  const uint32_t* b = v.b32(1);
  const uint64_t* c = v.b64(2);
  uint64_t* r = v.out64();
  LaneMask carry = 0;
  for (int i = 0; i < kLanes; ++i) {
    if constexpr (Signed) {
      __int128 p = __int128(int64_t(int32_t(a[i])) * int64_t(int32_t(b[i]))) + __int128(int64_t(c[i]));
      bool over = p > __int128(INT64_MAX) || p < __int128(INT64_MIN);
      uint64_t res = uint64_t(p);
      if (in.mods.clamp && over) res = p > 0 ? uint64_t(INT64_MAX) : uint64_t(INT64_MIN);
      r[i] = res;
      carry |= LaneMask(over) << i;
    } else {
      unsigned __int128 p = (unsigned __int128)(uint64_t(a[i]) * uint64_t(b[i])) + c[i];
      bool over = (p >> 64) != 0;
      r[i] = (in.mods.clamp && over) ? ~0ull : uint64_t(p);
      carry |= LaneMask(over) << i;
    }
  }
  v.write64(r);
  v.write_sdst(carry);
}

// ---- 64-bit shifts ----------------------------------------------------------

template <class F>
void shift64(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* s = v.b32(0);
  const uint64_t* x = v.b64(1);
  uint64_t* r = v.out64();
  for (int i = 0; i < kLanes; ++i) r[i] = f(x[i], s[i] & 63);
  v.write64(r);
}

// ---- misc -------------------------------------------------------------------

inline uint32_t bfe_u(uint32_t x, uint32_t off, uint32_t width) {
  off &= 31;
  width &= 31;
  if (width == 0) return 0;
  return uint32_t((uint64_t(x) >> off) & ((1ull << width) - 1));
}
inline uint32_t bfe_i(uint32_t x, uint32_t off, uint32_t width) {
  off &= 31;
  width &= 31;
  if (width == 0) return 0;
  int64_t v = int64_t(int32_t(x)) >> off;
  return uint32_t(int32_t((v << (64 - width)) >> (64 - width)));
}

inline uint32_t perm_byte(uint64_t data, uint32_t sel) {
  sel &= 0xff;
  if (sel >= 13) return 0xff;
  if (sel == 12) return 0x00;
  if (sel == 11) return (data >> 63) & 1 ? 0xff : 0;
  if (sel == 10) return (data >> 47) & 1 ? 0xff : 0;
  if (sel == 9) return (data >> 31) & 1 ? 0xff : 0;
  if (sel == 8) return (data >> 15) & 1 ? 0xff : 0;
  return uint32_t(data >> (8 * sel)) & 0xff;
}

inline int32_t med3(int32_t a, int32_t b, int32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
inline uint32_t med3u(uint32_t a, uint32_t b, uint32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

uint32_t ffbh_i32(uint32_t x) {
  if (x == 0 || x == 0xffffffffu) return 0xffffffffu;
  return uint32_t(std::countl_zero(int32_t(x) < 0 ? ~x : x));
}

}  // namespace

void add_integer_ops(Defs& d) {
  // ---- VOP1
  d.push_back({"v_nop", K100_VALU {}});
  d.push_back({"v_clrexcp", K100_VALU {}});
  d.push_back({"v_mov_b32", K100_VALU { run_b32<1>(w, in, [](uint32_t a) { return a; }); }});
  d.push_back({"v_not_b32", K100_VALU { run_b32<1>(w, in, [](uint32_t a) { return ~a; }); }});
  d.push_back({"v_bfrev_b32", K100_VALU {
    run_b32<1>(w, in, [](uint32_t a) {
      a = ((a >> 1) & 0x55555555u) | ((a & 0x55555555u) << 1);
      a = ((a >> 2) & 0x33333333u) | ((a & 0x33333333u) << 2);
      a = ((a >> 4) & 0x0f0f0f0fu) | ((a & 0x0f0f0f0fu) << 4);
      return __builtin_bswap32(a);
    });
  }});
  d.push_back({"v_ffbh_u32", K100_VALU {
    run_b32<1>(w, in, [](uint32_t a) { return a ? uint32_t(std::countl_zero(a)) : 0xffffffffu; });
  }});
  d.push_back({"v_ffbl_b32", K100_VALU {
    run_b32<1>(w, in, [](uint32_t a) { return a ? uint32_t(std::countr_zero(a)) : 0xffffffffu; });
  }});
  d.push_back({"v_ffbh_i32", K100_VALU { run_b32<1>(w, in, ffbh_i32); }});
  d.push_back({"v_sat_pk_u8_i16", K100_VALU {
    run_b32<1>(w, in, [](uint32_t a) {
      uint32_t lo = sat_u16(int16_t(a)) > 255 ? 255u : sat_u16(int16_t(a));
      uint32_t hi = sat_u16(int16_t(a >> 16)) > 255 ? 255u : sat_u16(int16_t(a >> 16));
      return lo | hi << 8;
    }, Half::Lo16Zero);
  }});

  // ---- VOP2 32-bit
  d.push_back({"v_cndmask_b32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.mods32(0);
    const uint32_t* b = v.mods32(1);
    LaneMask m = v.mask_src(2);
    alignas(64) uint32_t mk[kLanes];
    expand_mask(m, mk);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = (b[i] & mk[i]) | (a[i] & ~mk[i]);
    v.write32(r);
  }});
  d.push_back({"v_mul_i32_i24", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) {
      int64_t p = int64_t(sext24(a)) * sext24(b);
      return c ? sat_i32(p) : uint32_t(p);
    });
  }});
  d.push_back({"v_mul_hi_i32_i24", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t((int64_t(sext24(a)) * sext24(b)) >> 32); });
  }});
  d.push_back({"v_mul_u32_u24", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) {
      uint64_t p = uint64_t(a & 0xffffffu) * (b & 0xffffffu);
      return c ? sat_u32(p) : uint32_t(p);
    });
  }});
  d.push_back({"v_mul_hi_u32_u24", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a & 0xffffffu) * (b & 0xffffffu)) >> 32); });
  }});
  d.push_back({"v_min_i32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t(std::min(int32_t(a), int32_t(b))); }); }});
  d.push_back({"v_max_i32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t(std::max(int32_t(a), int32_t(b))); }); }});
  d.push_back({"v_min_u32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return std::min(a, b); }); }});
  d.push_back({"v_max_u32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return std::max(a, b); }); }});
  d.push_back({"v_lshrrev_b32", K100_VALU { run_shift32(w, in, [](uint32_t a, uint32_t b) { return b >> (a & 31); }); }});
  d.push_back({"v_ashrrev_i32", K100_VALU { run_shift32(w, in, [](uint32_t a, uint32_t b) { return uint32_t(int32_t(b) >> (a & 31)); }); }});
  d.push_back({"v_lshlrev_b32", K100_VALU { run_shift32(w, in, [](uint32_t a, uint32_t b) { return b << (a & 31); }); }});
  d.push_back({"v_and_b32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return a & b; }); }});
  d.push_back({"v_or_b32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return a | b; }); }});
  d.push_back({"v_xor_b32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return a ^ b; }); }});
  d.push_back({"v_xnor_b32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return ~(a ^ b); }); }});
  d.push_back({"v_add_u32", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) { return c ? sat_u32(uint64_t(a) + b) : a + b; });
  }});
  d.push_back({"v_sub_u32", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) { return c ? (b > a ? 0u : a - b) : a - b; });
  }});
  d.push_back({"v_subrev_u32", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) { return c ? (a > b ? 0u : b - a) : b - a; });
  }});
  d.push_back({"v_add_co_u32", carry_op<CarryOp::Add>});
  d.push_back({"v_sub_co_u32", carry_op<CarryOp::Sub>});
  d.push_back({"v_subrev_co_u32", carry_op<CarryOp::SubRev>});
  d.push_back({"v_addc_co_u32", carry_op<CarryOp::AddC>});
  d.push_back({"v_subb_co_u32", carry_op<CarryOp::SubB>});
  d.push_back({"v_subbrev_co_u32", carry_op<CarryOp::SubBRev>});

  // ---- VOP2 16-bit (GFX9 zeroes the high half)
  constexpr Half Z = Half::Lo16Zero;
  d.push_back({"v_add_u16", K100_VALU {
    run_b16_clamp<2>(w, in, [](auto c, uint16_t a, uint16_t b) { return c ? sat_u16(int64_t(a) + b) : uint16_t(a + b); }, Z);
  }});
  d.push_back({"v_sub_u16", K100_VALU {
    run_b16_clamp<2>(w, in, [](auto c, uint16_t a, uint16_t b) { return c ? sat_u16(int64_t(a) - b) : uint16_t(a - b); }, Z);
  }});
  d.push_back({"v_subrev_u16", K100_VALU {
    run_b16_clamp<2>(w, in, [](auto c, uint16_t a, uint16_t b) { return c ? sat_u16(int64_t(b) - a) : uint16_t(b - a); }, Z);
  }});
  d.push_back({"v_mul_lo_u16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(a * b); }, Z); }});
  d.push_back({"v_lshlrev_b16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(b << (a & 15)); }, Z); }});
  d.push_back({"v_lshrrev_b16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(b >> (a & 15)); }, Z); }});
  d.push_back({"v_ashrrev_i16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(int16_t(b) >> (a & 15)); }, Z); }});
  d.push_back({"v_max_u16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return std::max(a, b); }, Z); }});
  d.push_back({"v_min_u16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return std::min(a, b); }, Z); }});
  d.push_back({"v_max_i16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(std::max(int16_t(a), int16_t(b))); }, Z); }});
  d.push_back({"v_min_i16", K100_VALU { run_b16<2>(w, in, [](uint16_t a, uint16_t b) { return uint16_t(std::min(int16_t(a), int16_t(b))); }, Z); }});

  // ---- VOP3 32-bit
  d.push_back({"v_mad_i32_i24", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      int64_t p = int64_t(sext24(a)) * sext24(b) + int32_t(s);
      return c ? sat_i32(p) : uint32_t(p);
    });
  }});
  d.push_back({"v_mad_u32_u24", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t p = uint64_t(a & 0xffffffu) * (b & 0xffffffu) + s;
      return c ? sat_u32(p) : uint32_t(p);
    });
  }});
  d.push_back({"v_bfe_u32", K100_VALU { run_b32<3>(w, in, bfe_u); }});
  d.push_back({"v_bfe_i32", K100_VALU { run_b32<3>(w, in, bfe_i); }});
  d.push_back({"v_bfi_b32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }); }});
  d.push_back({"v_bfm_b32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t(((1ull << (a & 31)) - 1) << (b & 31)); });
  }});
  d.push_back({"v_lerp_u8", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) {
      uint32_t r = 0;
      for (int k = 0; k < 4; ++k) {
        uint32_t s = ((a >> (8 * k)) & 0xff) + ((b >> (8 * k)) & 0xff) + ((c >> (8 * k)) & 1);
        r |= ((s >> 1) & 0xff) << (8 * k);
      }
      return r;
    });
  }});
  d.push_back({"v_alignbit_b32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)); });
  }});
  d.push_back({"v_alignbyte_b32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))); });
  }});
  d.push_back({"v_min3_i32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})); });
  }});
  d.push_back({"v_min3_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return std::min({a, b, c}); }); }});
  d.push_back({"v_max3_i32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})); });
  }});
  d.push_back({"v_max3_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return std::max({a, b, c}); }); }});
  d.push_back({"v_med3_i32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return uint32_t(med3(int32_t(a), int32_t(b), int32_t(c))); });
  }});
  d.push_back({"v_med3_u32", K100_VALU { run_b32<3>(w, in, med3u); }});
  d.push_back({"v_sad_u8", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t t = uint64_t(sad_bytes(a, b)) + s;
      return c ? sat_u32(t) : uint32_t(t);
    });
  }});
  d.push_back({"v_sad_hi_u8", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t t = (uint64_t(sad_bytes(a, b)) << 16) + s;
      return c ? sat_u32(t) : uint32_t(t);
    });
  }});
  d.push_back({"v_sad_u16", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t t = uint64_t(absdiff(a & 0xffff, b & 0xffff)) + absdiff(a >> 16, b >> 16) + s;
      return c ? sat_u32(t) : uint32_t(t);
    });
  }});
  d.push_back({"v_sad_u32", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t t = uint64_t(absdiff(a, b)) + s;
      return c ? sat_u32(t) : uint32_t(t);
    });
  }});
  d.push_back({"v_msad_u8", K100_VALU {
    run_b32_clamp<3>(w, in, [](auto c, uint32_t a, uint32_t b, uint32_t s) {
      uint64_t t = uint64_t(msad_bytes(a, b)) + s;
      return c ? sat_u32(t) : uint32_t(t);
    });
  }});
  d.push_back({"v_qsad_pk_u16_u8", qsad<false>});
  d.push_back({"v_mqsad_pk_u16_u8", qsad<true>});
  d.push_back({"v_mqsad_u32_u8", mqsad_u32});
  d.push_back({"v_mad_u64_u32", mad64<false>});
  d.push_back({"v_mad_i64_i32", mad64<true>});
  d.push_back({"v_perm_b32", K100_VALU {
    run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t s) {
      uint64_t data = (uint64_t(a) << 32) | b;
      return perm_byte(data, s) | perm_byte(data, s >> 8) << 8 | perm_byte(data, s >> 16) << 16 |
             perm_byte(data, s >> 24) << 24;
    });
  }});
  d.push_back({"v_xad_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }); }});
  d.push_back({"v_lshl_add_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) + c; }); }});
  d.push_back({"v_add_lshl_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a + b) << (c & 31); }); }});
  d.push_back({"v_add3_u32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }); }});
  d.push_back({"v_lshl_or_b32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) | c; }); }});
  d.push_back({"v_and_or_b32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; }); }});
  d.push_back({"v_or3_b32", K100_VALU { run_b32<3>(w, in, [](uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }); }});
  d.push_back({"v_mul_lo_u32", K100_VALU { run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return a * b; }); }});
  d.push_back({"v_mul_hi_u32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); });
  }});
  d.push_back({"v_mul_hi_i32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32); });
  }});
  d.push_back({"v_bcnt_u32_b32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return uint32_t(std::popcount(a)) + b; });
  }});
  d.push_back({"v_mbcnt_lo_u32_b32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b32(0);
    const uint32_t* b = v.b32(1);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      uint32_t below = i >= 32 ? 0xffffffffu : uint32_t((1ull << i) - 1);
      r[i] = uint32_t(std::popcount(a[i] & below)) + b[i];
    }
    v.write32(r);
  }});
  d.push_back({"v_mbcnt_hi_u32_b32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b32(0);
    const uint32_t* b = v.b32(1);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      uint32_t below = i < 32 ? 0u : uint32_t((1ull << (i - 32)) - 1);
      r[i] = uint32_t(std::popcount(a[i] & below)) + b[i];
    }
    v.write32(r);
  }});
  d.push_back({"v_lshlrev_b64", K100_VALU { shift64(w, in, [](uint64_t x, uint32_t s) { return x << s; }); }});
  d.push_back({"v_lshrrev_b64", K100_VALU { shift64(w, in, [](uint64_t x, uint32_t s) { return x >> s; }); }});
  d.push_back({"v_ashrrev_i64", K100_VALU { shift64(w, in, [](uint64_t x, uint32_t s) { return uint64_t(int64_t(x) >> s); }); }});
  d.push_back({"v_cvt_pk_u16_u32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) { return std::min(a, 0xffffu) | std::min(b, 0xffffu) << 16; });
  }});
  d.push_back({"v_cvt_pk_i16_i32", K100_VALU {
    run_b32<2>(w, in, [](uint32_t a, uint32_t b) {
      return uint32_t(sat_i16(int32_t(a))) | uint32_t(sat_i16(int32_t(b))) << 16;
    });
  }});
  d.push_back({"v_add_i32", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) {
      return c ? sat_i32(int64_t(int32_t(a)) + int32_t(b)) : a + b;
    });
  }});
  d.push_back({"v_sub_i32", K100_VALU {
    run_b32_clamp<2>(w, in, [](auto c, uint32_t a, uint32_t b) {
      return c ? sat_i32(int64_t(int32_t(a)) - int32_t(b)) : a - b;
    });
  }});

  // ---- VOP3 16-bit with op_sel (the other half of the destination is kept)
  constexpr Half O = Half::OpSelDst;
  d.push_back({"v_add_i16", K100_VALU {
    run_b16_clamp<2>(w, in, [](auto c, uint16_t a, uint16_t b) {
      return c ? sat_i16(int64_t(int16_t(a)) + int16_t(b)) : uint16_t(a + b);
    }, O);
  }});
  d.push_back({"v_sub_i16", K100_VALU {
    run_b16_clamp<2>(w, in, [](auto c, uint16_t a, uint16_t b) {
      return c ? sat_i16(int64_t(int16_t(a)) - int16_t(b)) : uint16_t(a - b);
    }, O);
  }});
  d.push_back({"v_min3_i16", K100_VALU {
    run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return uint16_t(std::min({int16_t(a), int16_t(b), int16_t(c)})); }, O);
  }});
  d.push_back({"v_min3_u16", K100_VALU { run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return std::min({a, b, c}); }, O); }});
  d.push_back({"v_max3_i16", K100_VALU {
    run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return uint16_t(std::max({int16_t(a), int16_t(b), int16_t(c)})); }, O);
  }});
  d.push_back({"v_max3_u16", K100_VALU { run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return std::max({a, b, c}); }, O); }});
  d.push_back({"v_med3_i16", K100_VALU {
    run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return uint16_t(med3(int16_t(a), int16_t(b), int16_t(c))); }, O);
  }});
  d.push_back({"v_med3_u16", K100_VALU {
    run_b16<3>(w, in, [](uint16_t a, uint16_t b, uint16_t c) { return uint16_t(med3u(a, b, c)); }, O);
  }});
  // the legacy forms differ only in what they do with the destination's high half
  static constexpr auto mad_u16 = [](auto c, uint16_t a, uint16_t b, uint16_t s) {
    return c ? sat_u16(int64_t(a) * b + s) : uint16_t(a * b + s);
  };
  static constexpr auto mad_i16 = [](auto c, uint16_t a, uint16_t b, uint16_t s) {
    int64_t t = int64_t(int16_t(a)) * int16_t(b) + int16_t(s);
    return c ? sat_i16(t) : uint16_t(t);
  };
  d.push_back({"v_mad_u16", K100_VALU { run_b16_clamp<3>(w, in, mad_u16, O); }});
  d.push_back({"v_mad_i16", K100_VALU { run_b16_clamp<3>(w, in, mad_i16, O); }});
  d.push_back({"v_mad_legacy_u16", K100_VALU { run_b16_clamp<3>(w, in, mad_u16, Z); }});
  d.push_back({"v_mad_legacy_i16", K100_VALU { run_b16_clamp<3>(w, in, mad_i16, Z); }});
  // 16 x 16 + 32 -> 32
  d.push_back({"v_mad_u32_u16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b16(0);
    const uint32_t* b = v.b16(1);
    const uint32_t* c = v.b32(2);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      uint64_t t = uint64_t(a[i] & 0xffff) * (b[i] & 0xffff) + c[i];
      r[i] = in.mods.clamp ? sat_u32(t) : uint32_t(t);
    }
    v.write32(r);
  }});
  d.push_back({"v_mad_i32_i16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b16(0);
    const uint32_t* b = v.b16(1);
    const uint32_t* c = v.b32(2);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      int64_t t = int64_t(int16_t(a[i])) * int16_t(b[i]) + int32_t(c[i]);
      r[i] = in.mods.clamp ? sat_i32(t) : uint32_t(t);
    }
    v.write32(r);
  }});
}

}  // namespace k100::emu::valu
