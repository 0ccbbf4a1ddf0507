// Vector ALU f32 arithmetic: add/sub/mul (and the legacy DX9 multiply),
// mad/mac/madmk/madak (unfused, denormals flushed), fma/fmac, min/max/med3,
// rounding to integers, fract, ldexp, frexp and the cube-map helpers.
#include <cmath>

#include "drivers.h"
#include "host_lanes.h"
#include "minmax.h"

namespace k100::emu::valu {

namespace {

// DX9 multiply: 0 times anything (even inf or NaN) is +0.
inline float mul_legacy(float a, float b) { return (a == 0.0f || b == 0.0f) ? 0.0f : a * b; }

// ldexp with an exact exponent adjustment when the result stays normal.
inline float ldexp_f32(float x, int32_t n) {
  uint32_t b = bits_of(x);
  int e = int((b >> 23) & 0xff);
  if (e != 0 && e != 255 && n > -254 && n < 254 && e + n >= 1 && e + n <= 254)
    return as_f32((b & ~kF32Exp) | (uint32_t(e + n) << 23));
  if (n > 300) n = 300;
  if (n < -300) n = -300;
  return std::ldexp(x, n);
}

inline float fract_f32(float x) {
  float r = x - std::floor(x);
  return r < 0x1.fffffep-1f ? r : (std::isnan(r) ? r : 0x1.fffffep-1f);
}

inline float frexp_mant_f32(float x) {
  if (std::isnan(x) || std::isinf(x)) return x;
  int e;
  return std::frexp(x, &e);
}
inline uint32_t frexp_exp_f32(float x) {
  if (std::isnan(x) || std::isinf(x)) return 0;
  int e;
  std::frexp(x, &e);
  return uint32_t(e);
}

// The face-selection rule shared by the cube instructions: 2 when |z| is the
// major axis, 1 for |y|, 0 for |x|.
inline int cube_axis(float x, float y, float z) {
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  if (az >= ax && az >= ay) return 2;
  if (ay >= ax) return 1;
  return 0;
}

// D = S0 * S1 + D (unfused, v_mac_f32) or fma(S0, S1, D) (v_fmac_f32).
template <bool Fused>
void mac_f32(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  bool flush_in = !Fused || v.mode.flush_in32();
  const uint32_t* a = v.f32(0, !Fused);
  const uint32_t* b = v.f32(1, !Fused);
  const uint32_t* d = v.vgpr_row(v.lay.dst, 3);
  alignas(64) uint32_t acc_buf[kLanes];
  const uint32_t* acc = d;
  if (flush_in) {
    for (int i = 0; i < kLanes; ++i) acc_buf[i] = flush_f32(d[i]);
    acc = acc_buf;
  }
  uint32_t* r = v.out32_direct();
  {
    HostRounding g(v.mode.round32());
    if constexpr (Fused) {
      fma_lanes_f32(r, a, b, acc);
    } else {
      for (int i = 0; i < kLanes; ++i) {
        float p = as_f32(a[i]) * as_f32(b[i]);
        p = as_f32(flush_f32(bits_of(p)));
        r[i] = bits_of(p + as_f32(acc[i]));
      }
    }
  }
  v.finish_f32(r, !Fused);
}

// Unfused multiply-add with intermediate flush (v_mad_f32 and friends).
inline float mad_flush(float a, float b, float c) {
  float p = as_f32(flush_f32(bits_of(a * b)));
  return p + c;
}

// madmk: S0 * K + S1; madak: S0 * S1 + K.
template <bool K_is_multiplier>
void madk_f32(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0, true);
  const uint32_t* b = v.f32(1, true);
  float k = as_f32(flush_f32(in.ops[v.lay.kimm].value));
  uint32_t* r = v.out32();
  {
    HostRounding g(v.mode.round32());
    for (int i = 0; i < kLanes; ++i)
      r[i] = K_is_multiplier ? bits_of(mad_flush(as_f32(a[i]), k, as_f32(b[i])))
                             : bits_of(mad_flush(as_f32(a[i]), as_f32(b[i]), k));
  }
  v.finish_f32(r, true);
}

}  // namespace

void add_float32_ops(Defs& d) {
  d.push_back({"v_add_f32", K100_VALU { run_f32<2>(w, in, [](float a, float b) { return a + b; }); }});
  d.push_back({"v_sub_f32", K100_VALU { run_f32<2>(w, in, [](float a, float b) { return a - b; }); }});
  d.push_back({"v_subrev_f32", K100_VALU { run_f32<2>(w, in, [](float a, float b) { return b - a; }); }});
  d.push_back({"v_mul_f32", K100_VALU { run_f32<2>(w, in, [](float a, float b) { return a * b; }); }});
  d.push_back({"v_mul_legacy_f32", K100_VALU { run_f32<2>(w, in, mul_legacy); }});
  d.push_back({"v_min_f32", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f32_bits<2>(w, in, [ieee](uint32_t a, uint32_t b) { return fmin_bits<F32Bits>(a, b, ieee); });
  }});
  d.push_back({"v_max_f32", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f32_bits<2>(w, in, [ieee](uint32_t a, uint32_t b) { return fmax_bits<F32Bits>(a, b, ieee); });
  }});
  d.push_back({"v_min3_f32", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f32_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmin3_bits<F32Bits>(a, b, c, ieee); });
  }});
  d.push_back({"v_max3_f32", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f32_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmax3_bits<F32Bits>(a, b, c, ieee); });
  }});
  d.push_back({"v_med3_f32", K100_VALU {
    bool ieee = Mode{w.mode}.ieee();
    run_f32_bits<3>(w, in, [ieee](uint32_t a, uint32_t b, uint32_t c) { return fmed3_bits<F32Bits>(a, b, c, ieee); });
  }});
  d.push_back({"v_mac_f32", mac_f32<false>});
  d.push_back({"v_fmac_f32", mac_f32<true>});
  d.push_back({"v_madmk_f32", madk_f32<true>});
  d.push_back({"v_madak_f32", madk_f32<false>});
  d.push_back({"v_mad_f32", K100_VALU { run_f32<3>(w, in, mad_flush, true); }});
  d.push_back({"v_mad_legacy_f32", K100_VALU {
    run_f32<3>(w, in, [](float a, float b, float c) { return as_f32(flush_f32(bits_of(mul_legacy(a, b)))) + c; }, true);
  }});
  d.push_back({"v_fma_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.f32(1);
    const uint32_t* c = v.f32(2);
    uint32_t* r = v.out32_direct();
    {
      HostRounding g(v.mode.round32());
      fma_lanes_f32(r, a, b, c);
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_fract_f32", K100_VALU { run_f32<1>(w, in, fract_f32); }});
  d.push_back({"v_trunc_f32", K100_VALU { run_f32<1>(w, in, [](float a) { return std::trunc(a); }); }});
  d.push_back({"v_ceil_f32", K100_VALU { run_f32<1>(w, in, [](float a) { return std::ceil(a); }); }});
  d.push_back({"v_floor_f32", K100_VALU { run_f32<1>(w, in, [](float a) { return std::floor(a); }); }});
  d.push_back({"v_rndne_f32", K100_VALU { run_f32<1>(w, in, [](float a) { return __builtin_roundevenf(a); }); }});
  d.push_back({"v_frexp_mant_f32", K100_VALU { run_f32<1>(w, in, frexp_mant_f32); }});
  d.push_back({"v_frexp_exp_i32_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = frexp_exp_f32(as_f32(a[i]));
    v.write32(r);
  }});
  d.push_back({"v_ldexp_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.b32(1);
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(ldexp_f32(as_f32(a[i]), int32_t(b[i])));
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_cubeid_f32", K100_VALU {
    run_f32<3>(w, in, [](float x, float y, float z) {
      switch (cube_axis(x, y, z)) {
        case 2: return z < 0 ? 5.0f : 4.0f;
        case 1: return y < 0 ? 3.0f : 2.0f;
        default: return x < 0 ? 1.0f : 0.0f;
      }
    });
  }});
  d.push_back({"v_cubesc_f32", K100_VALU {
    run_f32<3>(w, in, [](float x, float y, float z) {
      switch (cube_axis(x, y, z)) {
        case 2: return z < 0 ? -x : x;
        case 1: return x;
        default: return x < 0 ? z : -z;
      }
    });
  }});
  d.push_back({"v_cubetc_f32", K100_VALU {
    run_f32<3>(w, in, [](float x, float y, float z) {
      switch (cube_axis(x, y, z)) {
        case 2: return -y;
        case 1: return y < 0 ? -z : z;
        default: return -y;
      }
    });
  }});
  d.push_back({"v_cubema_f32", K100_VALU {
    run_f32<3>(w, in, [](float x, float y, float z) {
      switch (cube_axis(x, y, z)) {
        case 2: return 2.0f * z;
        case 1: return 2.0f * y;
        default: return 2.0f * x;
      }
    });
  }});
}

}  // namespace k100::emu::valu
