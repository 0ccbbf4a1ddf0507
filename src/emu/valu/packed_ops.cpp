// VOP3P: packed 16-bit arithmetic, the f16/f32 mix FMAs and the integer and
// f16 dot products.
//
// Each packed source yields a low and a high element: op_sel bit s picks the
// half feeding the low element, op_sel_hi bit s the half feeding the high
// element; neg_lo / neg_hi negate the f16 elements of float operations. The
// mix ops read source s as f16 (half chosen by op_sel) when op_sel_hi bit s
// is set and as f32 otherwise, with neg_lo as negation and neg_hi as abs.
#include <cmath>

#include "drivers.h"
#include "minmax.h"

namespace k100::emu::valu {

namespace {

// Splits packed source s into its low and high elements (16-bit values).
void split(Vop& v, int s, bool is_float, uint32_t* lo, uint32_t* hi) {
  const uint32_t* p = v.b32(s);
  const isa::Modifiers& m = v.in.mods;
  unsigned sl = ((m.op_sel >> s) & 1) ? 16 : 0, sh = ((m.op_sel_hi >> s) & 1) ? 16 : 0;
  uint32_t nl = is_float && ((m.neg >> s) & 1) ? 0x8000u : 0u;
  uint32_t nh = is_float && ((m.neg_hi >> s) & 1) ? 0x8000u : 0u;
  bool flush = is_float && v.mode.flush_in16_64();
  for (int i = 0; i < kLanes; ++i) {
    uint32_t l = ((p[i] >> sl) & 0xffffu) ^ nl, h = ((p[i] >> sh) & 0xffffu) ^ nh;
    lo[i] = flush ? flush_f16(l) : l;
    hi[i] = flush ? flush_f16(h) : h;
  }
}

uint32_t clamp_f16_bits(uint32_t x, bool dx10) {
  if (is_nan_f16(x)) return dx10 ? 0u : x;
  return (x & kF16Sign) ? 0u : (x > 0x3c00u ? 0x3c00u : x);
}

// Packed f16: f(double...) -> exact (or round-to-odd) double per element.
template <int N, class F>
void pk_f16(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  alignas(64) uint32_t lo[3][kLanes], hi[3][kLanes];
  for (int s = 0; s < N; ++s) split(v, s, true, lo[s], hi[s]);
  // x[e][s][i]: element e (0 low, 1 high) of source s as an exact double
  alignas(64) double x[2][3][kLanes];
  for (int s = 0; s < N; ++s) {
    f16_to_f64_lanes(x[0][s], lo[s]);
    f16_to_f64_lanes(x[1][s], hi[s]);
  }
  alignas(64) double res[2 * kLanes];
  for (int e = 0; e < 2; ++e)
    for (int i = 0; i < kLanes; ++i) {
      if constexpr (N == 2) res[e * kLanes + i] = f(x[e][0][i], x[e][1][i]);
      else res[e * kLanes + i] = f(x[e][0][i], x[e][1][i], x[e][2][i]);
    }
  int rm = v.mode.round16_64();
  bool flush = v.mode.flush_out16_64(), clamp = in.mods.clamp, dx10 = v.mode.dx10_clamp();
  alignas(64) uint32_t h[2 * kLanes];
  if (rm == kRoundNearestEven && !flush) {
    f16_from_f64_rne_lanes(h, res, 2 * kLanes);
  } else {
    for (int i = 0; i < 2 * kLanes; ++i) h[i] = f16_from_f64(res[i], rm, flush);
  }
  if (clamp)
    for (int i = 0; i < 2 * kLanes; ++i) h[i] = clamp_f16_bits(h[i], dx10);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = h[i] | h[kLanes + i] << 16;
  v.write32(r);
}

// Packed f16 on raw element bits (min/max).
template <class F>
void pk_f16_bits(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  alignas(64) uint32_t lo[2][kLanes], hi[2][kLanes];
  for (int s = 0; s < 2; ++s) split(v, s, true, lo[s], hi[s]);
  bool clamp = in.mods.clamp, dx10 = v.mode.dx10_clamp();
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) {
    uint32_t l = f(lo[0][i], lo[1][i]) & 0xffffu, h = f(hi[0][i], hi[1][i]) & 0xffffu;
    if (clamp) {
      l = clamp_f16_bits(l, dx10);
      h = clamp_f16_bits(h, dx10);
    }
    r[i] = l | h << 16;
  }
  v.write32(r);
}

// Packed 16-bit integers; f(clamp_tag, x...) -> 16-bit result.
template <int N, class F>
void pk_i16(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  alignas(64) uint32_t lo[3][kLanes], hi[3][kLanes];
  for (int s = 0; s < N; ++s) split(v, s, false, lo[s], hi[s]);
  uint32_t* r = v.out32();
  auto run = [&](auto c) {
    for (int i = 0; i < kLanes; ++i) {
      uint32_t l, h;
      if constexpr (N == 2) {
        l = uint16_t(f(c, uint16_t(lo[0][i]), uint16_t(lo[1][i])));
        h = uint16_t(f(c, uint16_t(hi[0][i]), uint16_t(hi[1][i])));
      } else {
        l = uint16_t(f(c, uint16_t(lo[0][i]), uint16_t(lo[1][i]), uint16_t(lo[2][i])));
        h = uint16_t(f(c, uint16_t(hi[0][i]), uint16_t(hi[1][i]), uint16_t(hi[2][i])));
      }
      r[i] = l | h << 16;
    }
  };
  if (in.mods.clamp) run(True{});
  else run(False{});
  v.write32(r);
}

// ---- mix ---------------------------------------------------------------------

// Source s of a mix op as a double (exact): f16 or f32 per op_sel_hi.
void mix_source(Vop& v, int s, double* out) {
  const uint32_t* p = v.b32(s);
  const isa::Modifiers& m = v.in.mods;
  bool is_f16 = (m.op_sel_hi >> s) & 1;
  bool neg = (m.neg >> s) & 1, abs = (m.neg_hi >> s) & 1;
  unsigned sh = ((m.op_sel >> s) & 1) ? 16 : 0;
  for (int i = 0; i < kLanes; ++i) {
    double x;
    if (is_f16) {
      uint32_t h = (p[i] >> sh) & 0xffffu;
      if (v.mode.flush_in16_64()) h = flush_f16(h);
      x = f16_to_f64(h);
    } else {
      uint32_t b = p[i];
      if (v.mode.flush_in32()) b = flush_f32(b);
      x = double(as_f32(b));
    }
    if (abs) x = std::fabs(x);
    if (neg) x = -x;
    out[i] = x;
  }
}

enum class MixDst { F32, Lo, Hi };

template <MixDst D>
void fma_mix(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  alignas(64) double a[kLanes], b[kLanes], c[kLanes];
  mix_source(v, 0, a);
  mix_source(v, 1, b);
  mix_source(v, 2, c);
  double* x = v.outd();
  for (int i = 0; i < kLanes; ++i) x[i] = fma_to_odd(a[i], b[i], c[i]);
  if constexpr (D == MixDst::F32) {
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(x[i]));
    }
    v.finish_f32(r);
  } else {
    v.finish_f16(x, D == MixDst::Lo ? Half::Lo16Keep : Half::Hi16Keep);
  }
}

// ---- dot products ----------------------------------------------------------

template <bool Signed, int Bits>
void dot_int(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  constexpr int n = 32 / Bits;
  alignas(64) uint32_t a[kLanes], b[kLanes];
  if constexpr (Bits == 16) {
    // The two 16-bit elements come through op_sel / op_sel_hi.
    alignas(64) uint32_t alo[kLanes], ahi[kLanes], blo[kLanes], bhi[kLanes];
    split(v, 0, false, alo, ahi);
    split(v, 1, false, blo, bhi);
    for (int i = 0; i < kLanes; ++i) {
      a[i] = alo[i] | ahi[i] << 16;
      b[i] = blo[i] | bhi[i] << 16;
    }
  } else {
    const uint32_t* pa = v.b32(0);
    const uint32_t* pb = v.b32(1);
    for (int i = 0; i < kLanes; ++i) {
      a[i] = pa[i];
      b[i] = pb[i];
    }
  }
  const uint32_t* c = v.b32(2);
  uint32_t* r = v.out32();
  constexpr uint32_t mask = (1u << Bits) - 1;
  for (int i = 0; i < kLanes; ++i) {
    int64_t acc = Signed ? int64_t(int32_t(c[i])) : int64_t(c[i]);
    for (int k = 0; k < n; ++k) {
      uint32_t x = (a[i] >> (Bits * k)) & mask, y = (b[i] >> (Bits * k)) & mask;
      if constexpr (Signed) {
        int64_t sx = int64_t(int32_t(x << (32 - Bits)) >> (32 - Bits));
        int64_t sy = int64_t(int32_t(y << (32 - Bits)) >> (32 - Bits));
        acc += sx * sy;
      } else {
        acc += int64_t(x) * int64_t(y);
      }
    }
    if (in.mods.clamp) r[i] = Signed ? sat_i32(acc) : sat_u32(uint64_t(acc));
    else r[i] = uint32_t(acc);
  }
  v.write32(r);
}

void dot2_f32_f16(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  alignas(64) uint32_t alo[kLanes], ahi[kLanes], blo[kLanes], bhi[kLanes];
  split(v, 0, true, alo, ahi);
  split(v, 1, true, blo, bhi);
  const uint32_t* c = v.b32(2);
  bool negc = (in.mods.neg >> 2) & 1, flush_c = v.mode.flush_in32();
  double* x = v.outd();
  for (int i = 0; i < kLanes; ++i) {
    double p0 = f16_to_f64(alo[i]) * f16_to_f64(blo[i]);  // exact
    double p1 = f16_to_f64(ahi[i]) * f16_to_f64(bhi[i]);  // exact
    uint32_t cb = flush_c ? flush_f32(c[i]) : c[i];
    double cc = double(as_f32(cb));
    if (negc) cc = -cc;
    // Exact sum of three terms, rounded to odd so the f32 rounding is right.
    double s1, e1, s2, e2, t, te, u, ue;
    two_sum(p0, p1, s1, e1);
    two_sum(s1, cc, s2, e2);
    two_sum(e1, e2, t, te);
    two_sum(s2, t, u, ue);
    x[i] = std::isfinite(u) ? round_to_odd(u, ue + te) : p0 + p1 + cc;
  }
  uint32_t* r = v.out32();
  {
    HostRounding g(v.mode.round32());
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(x[i]));
  }
  v.finish_f32(r);
}

}  // namespace

void add_packed_ops(Defs& d) {
  d.push_back({"v_pk_add_f16", K100_VALU { pk_f16<2>(w, in, [](double a, double b) { return a + b; }); }});
  d.push_back({"v_pk_mul_f16", K100_VALU { pk_f16<2>(w, in, [](double a, double b) { return a * b; }); }});
  d.push_back({"v_pk_fma_f16", K100_VALU {
    pk_f16<3>(w, in, [](double a, double b, double c) { return fma_to_odd(a, b, c); });
  }});
  d.push_back({"v_pk_min_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    pk_f16_bits(w, in, [ieee](uint32_t a, uint32_t b) { return fmin_bits<F16Bits>(a, b, ieee); });
  }});
  d.push_back({"v_pk_max_f16", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    pk_f16_bits(w, in, [ieee](uint32_t a, uint32_t b) { return fmax_bits<F16Bits>(a, b, ieee); });
  }});

  d.push_back({"v_pk_add_u16", K100_VALU {
    pk_i16<2>(w, in, [](auto c, uint16_t a, uint16_t b) { return c ? sat_u16(int64_t(a) + b) : uint16_t(a + b); });
  }});
  d.push_back({"v_pk_sub_u16", K100_VALU {
    pk_i16<2>(w, in, [](auto c, uint16_t a, uint16_t b) { return c ? sat_u16(int64_t(a) - b) : uint16_t(a - b); });
  }});
  d.push_back({"v_pk_add_i16", K100_VALU {
    pk_i16<2>(w, in, [](auto c, uint16_t a, uint16_t b) {
      return c ? sat_i16(int64_t(int16_t(a)) + int16_t(b)) : uint16_t(a + b);
    });
  }});
  d.push_back({"v_pk_sub_i16", K100_VALU {
    pk_i16<2>(w, in, [](auto c, uint16_t a, uint16_t b) {
      return c ? sat_i16(int64_t(int16_t(a)) - int16_t(b)) : uint16_t(a - b);
    });
  }});
  d.push_back({"v_pk_mul_lo_u16", K100_VALU { pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(a * b); }); }});
  d.push_back({"v_pk_mad_u16", K100_VALU {
    pk_i16<3>(w, in, [](auto c, uint16_t a, uint16_t b, uint16_t s) {
      return c ? sat_u16(int64_t(a) * b + s) : uint16_t(a * b + s);
    });
  }});
  d.push_back({"v_pk_mad_i16", K100_VALU {
    pk_i16<3>(w, in, [](auto c, uint16_t a, uint16_t b, uint16_t s) {
      int64_t t = int64_t(int16_t(a)) * int16_t(b) + int16_t(s);
      return c ? sat_i16(t) : uint16_t(t);
    });
  }});
  d.push_back({"v_pk_lshlrev_b16", K100_VALU { pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(b << (a & 15)); }); }});
  d.push_back({"v_pk_lshrrev_b16", K100_VALU { pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(b >> (a & 15)); }); }});
  d.push_back({"v_pk_ashrrev_i16", K100_VALU {
    pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(int16_t(b) >> (a & 15)); });
  }});
  d.push_back({"v_pk_max_i16", K100_VALU {
    pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(std::max(int16_t(a), int16_t(b))); });
  }});
  d.push_back({"v_pk_min_i16", K100_VALU {
    pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return uint16_t(std::min(int16_t(a), int16_t(b))); });
  }});
  d.push_back({"v_pk_max_u16", K100_VALU { pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return std::max(a, b); }); }});
  d.push_back({"v_pk_min_u16", K100_VALU { pk_i16<2>(w, in, [](auto, uint16_t a, uint16_t b) { return std::min(a, b); }); }});

  d.push_back({"v_fma_mix_f32", fma_mix<MixDst::F32>});
  d.push_back({"v_fma_mixlo_f16", fma_mix<MixDst::Lo>});
  d.push_back({"v_fma_mixhi_f16", fma_mix<MixDst::Hi>});

  d.push_back({"v_dot2_f32_f16", dot2_f32_f16});
  d.push_back({"v_dot2_i32_i16", dot_int<true, 16>});
  d.push_back({"v_dot2_u32_u16", dot_int<false, 16>});
  d.push_back({"v_dot4_i32_i8", dot_int<true, 8>});
  d.push_back({"v_dot4_u32_u8", dot_int<false, 8>});
  d.push_back({"v_dot8_i32_i4", dot_int<true, 4>});
  d.push_back({"v_dot8_u32_u4", dot_int<false, 4>});
}

}  // namespace k100::emu::valu
