// Vector ALU conversions between f16/f32/f64 and integers, normalised
// integers and packed formats. Float-to-integer conversions truncate (or
// floor / round as named), saturate, and turn NaN into 0. Float-to-float
// conversions round with the MODE field of the destination type.
#include <cmath>

#include "drivers.h"

namespace k100::emu::valu {

namespace {

constexpr Half Z = Half::Lo16Zero;

inline uint32_t to_i32(double x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483647.0) return 0x7fffffffu;
  if (x <= -2147483648.0) return 0x80000000u;
  return uint32_t(int32_t(x));
}
inline uint32_t to_u32(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= 4294967295.0) return 0xffffffffu;
  return uint32_t(x);
}
inline uint32_t to_u16(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= 65535.0) return 0xffffu;
  return uint32_t(x);
}
inline uint32_t to_i16(double x) {
  if (std::isnan(x)) return 0;
  if (x >= 32767.0) return 0x7fffu;
  if (x <= -32768.0) return 0x8000u;
  return uint32_t(uint16_t(int16_t(x)));
}

// flt_to_snorm / flt_to_unorm with round-to-nearest-even.
inline uint32_t snorm16(double x) {
  if (std::isnan(x)) return 0;
  x = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
  return uint32_t(uint16_t(int16_t(__builtin_roundeven(x * 32767.0))));
}
inline uint32_t unorm16(double x) {
  if (std::isnan(x)) return 0;
  x = x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
  return uint32_t(__builtin_roundeven(x * 65535.0));
}
inline uint32_t unorm8_of(float f) {
  if (std::isnan(f)) return 0;
  float r = __builtin_roundevenf(f);
  return r <= 0.0f ? 0u : r >= 255.0f ? 255u : uint32_t(r);
}

// f32 source -> 32-bit integer result.
template <class F>
void f32_to_int(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = f(as_f32(a[i]));
  v.write32(r);
}

template <class F>
void f64_to_int(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint64_t* a = v.f64(0);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = f(as_f64(a[i]));
  v.write32(r);
}

template <class F>
void f16_to_int16(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = f(f16_to_f64(a[i]));
  v.write32(r, Z);
}

// Integer source -> f64 (exact).
template <class F>
void int_to_f64(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* a = v.b32(0);
  uint64_t* r = v.out64();
  for (int i = 0; i < kLanes; ++i) r[i] = bits_of(f(a[i]));
  v.finish_f64(r);
}

// Two f32 sources packed into two 16-bit results.
template <class F>
void pack_f32(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0);
  const uint32_t* b = v.f32(1);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = (f(as_f32(a[i])) & 0xffffu) | f(as_f32(b[i])) << 16;
  v.write32(r);
}

template <class F>
void pack_f16(WaveState& w, const isa::Inst& in, F f) {
  Vop v(w, in);
  const uint32_t* a = v.f16(0);
  const uint32_t* b = v.f16(1);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = (f(f16_to_f64(a[i])) & 0xffffu) | f(f16_to_f64(b[i])) << 16;
  v.write32(r);
}

template <int Byte>
void cvt_ubyte(WaveState& w, const isa::Inst& in) {
  Vop v(w, in);
  const uint32_t* a = v.b32(0);
  uint32_t* r = v.out32();
  for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float((a[i] >> (8 * Byte)) & 0xffu));
  v.finish_f32(r);
}

}  // namespace

void add_convert_ops(Defs& d) {
  // f32 <-> integers
  d.push_back({"v_cvt_i32_f32", K100_VALU { f32_to_int(w, in, [](float x) { return to_i32(std::trunc(double(x))); }); }});
  d.push_back({"v_cvt_u32_f32", K100_VALU { f32_to_int(w, in, [](float x) { return to_u32(std::trunc(double(x))); }); }});
  d.push_back({"v_cvt_rpi_i32_f32", K100_VALU {
    f32_to_int(w, in, [](float x) { return to_i32(std::floor(double(x) + 0.5)); });
  }});
  d.push_back({"v_cvt_flr_i32_f32", K100_VALU { f32_to_int(w, in, [](float x) { return to_i32(std::floor(double(x))); }); }});
  d.push_back({"v_cvt_f32_i32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b32(0);
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(int32_t(a[i])));
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_cvt_f32_u32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b32(0);
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(a[i]));
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_cvt_off_f32_i4", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b32(0);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(int32_t(a[i] << 28) >> 28) * 0.0625f);
    v.finish_f32(r);
  }});
  d.push_back({"v_cvt_f32_ubyte0", cvt_ubyte<0>});
  d.push_back({"v_cvt_f32_ubyte1", cvt_ubyte<1>});
  d.push_back({"v_cvt_f32_ubyte2", cvt_ubyte<2>});
  d.push_back({"v_cvt_f32_ubyte3", cvt_ubyte<3>});

  // f64 <-> integers, f64 <-> f32
  d.push_back({"v_cvt_i32_f64", K100_VALU { f64_to_int(w, in, [](double x) { return to_i32(std::trunc(x)); }); }});
  d.push_back({"v_cvt_u32_f64", K100_VALU { f64_to_int(w, in, [](double x) { return to_u32(std::trunc(x)); }); }});
  d.push_back({"v_cvt_f64_i32", K100_VALU { int_to_f64(w, in, [](uint32_t x) { return double(int32_t(x)); }); }});
  d.push_back({"v_cvt_f64_u32", K100_VALU { int_to_f64(w, in, [](uint32_t x) { return double(x); }); }});
  d.push_back({"v_cvt_f32_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(as_f64(a[i])));
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_cvt_f64_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    uint64_t* r = v.out64();
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(double(as_f32(a[i])));
    v.finish_f64(r);
  }});

  // f16 <-> f32 / integers
  d.push_back({"v_cvt_f16_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    double* r = v.outd();
    for (int i = 0; i < kLanes; ++i) r[i] = double(as_f32(a[i]));
    v.finish_f16(r, Z);
  }});
  d.push_back({"v_cvt_f32_f16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f16(0);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(f16_to_f32(a[i]));
    v.finish_f32(r);
  }});
  d.push_back({"v_cvt_f16_u16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b16(0);
    double* r = v.outd();
    for (int i = 0; i < kLanes; ++i) r[i] = double(a[i] & 0xffffu);
    v.finish_f16(r, Z);
  }});
  d.push_back({"v_cvt_f16_i16", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.b16(0);
    double* r = v.outd();
    for (int i = 0; i < kLanes; ++i) r[i] = double(int16_t(a[i]));
    v.finish_f16(r, Z);
  }});
  d.push_back({"v_cvt_u16_f16", K100_VALU { f16_to_int16(w, in, [](double x) { return to_u16(std::trunc(x)); }); }});
  d.push_back({"v_cvt_i16_f16", K100_VALU { f16_to_int16(w, in, [](double x) { return to_i16(std::trunc(x)); }); }});
  d.push_back({"v_cvt_norm_i16_f16", K100_VALU { f16_to_int16(w, in, snorm16); }});
  d.push_back({"v_cvt_norm_u16_f16", K100_VALU { f16_to_int16(w, in, unorm16); }});

  // packed conversions
  d.push_back({"v_cvt_pknorm_i16_f32", K100_VALU { pack_f32(w, in, [](float x) { return snorm16(x); }); }});
  d.push_back({"v_cvt_pknorm_u16_f32", K100_VALU { pack_f32(w, in, [](float x) { return unorm16(x); }); }});
  d.push_back({"v_cvt_pknorm_i16_f16", K100_VALU { pack_f16(w, in, snorm16); }});
  d.push_back({"v_cvt_pknorm_u16_f16", K100_VALU { pack_f16(w, in, unorm16); }});
  d.push_back({"v_cvt_pkrtz_f16_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.f32(1);
    bool flush = v.mode.flush_out16_64(), clamp = in.mods.clamp, dx10 = v.mode.dx10_clamp();
    static const double factor[4] = {1.0, 2.0, 4.0, 0.5};
    double k = factor[in.mods.omod & 3];
    auto cvt = [&](float x) -> uint32_t {
      double y = double(x) * k;
      if (clamp) y = std::isnan(y) ? (dx10 ? 0.0 : y) : (y <= 0.0 ? 0.0 : y > 1.0 ? 1.0 : y);
      return f16_from_f64(y, kRoundZero, flush);
    };
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) r[i] = cvt(as_f32(a[i])) | cvt(as_f32(b[i])) << 16;
    v.write32(r);
  }});
  d.push_back({"v_cvt_pk_u8_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.b32(1);
    const uint32_t* c = v.b32(2);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      unsigned sh = 8 * (b[i] & 3);
      r[i] = (c[i] & ~(0xffu << sh)) | unorm8_of(as_f32(a[i])) << sh;
    }
    v.write32(r);
  }});
  d.push_back({"v_cvt_pkaccum_u8_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    const uint32_t* b = v.b32(1);
    const uint32_t* dst = v.vgpr_row(v.lay.dst, 3);
    uint32_t* r = v.out32();
    for (int i = 0; i < kLanes; ++i) {
      unsigned sh = 8 * (b[i] & 3);
      r[i] = (dst[i] & ~(0xffu << sh)) | unorm8_of(as_f32(a[i])) << sh;
    }
    v.write32(r);
  }});
}

}  // namespace k100::emu::valu
