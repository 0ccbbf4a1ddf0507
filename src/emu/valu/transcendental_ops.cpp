// Transcendental and reciprocal units: exp/log (base 2), rcp, rsq, sqrt,
// sin/cos (arguments in revolutions: sin(2*pi*x)) for f32 and f16, and
// rcp/rsq/sqrt for f64.
//
// Results are computed in a wider format and rounded once to the
// destination, so they are within 1 ulp of the correctly rounded value (rcp
// and sqrt are correctly rounded). Denormal inputs and outputs follow the
// MODE register like every other float op.
#include <cmath>

#include "drivers.h"
#include "host_lanes.h"
#include "transcendental_lanes.h"
#include "transcendental.h"

namespace k100::emu::valu {

namespace {

// f32 -> f32 through a double-precision lane kernel; the final conversion
// uses the wave's f32 rounding mode.
void unary_f32_via_f64(WaveState& w, const isa::Inst& in, LanesF32ToF64 kernel) {
  Vop v(w, in);
  const uint32_t* a = v.f32(0);
  alignas(64) double x[kLanes];
  kernel(x, a);
  uint32_t* r = v.out32();
  {
    HostRounding g(v.mode.round32());
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(x[i]));
  }
  v.finish_f32(r);
}

template <class F>
void unary_f16_via_f64(WaveState& w, const isa::Inst& in, F f) {
  run_f16<1>(w, in, f, Half::Lo16Zero);
}

}  // namespace

void add_transcendental_ops(Defs& d) {
  d.push_back({"v_exp_f32", K100_VALU { unary_f32_via_f64(w, in, exp2_lanes); }});
  d.push_back({"v_exp_legacy_f32", K100_VALU { unary_f32_via_f64(w, in, exp2_lanes); }});
  d.push_back({"v_log_f32", K100_VALU { unary_f32_via_f64(w, in, log2_lanes); }});
  d.push_back({"v_log_legacy_f32", K100_VALU { unary_f32_via_f64(w, in, log2_lanes); }});
  // f32 division and square root are correctly rounded on the host.
  d.push_back({"v_rcp_f32", K100_VALU { run_f32<1>(w, in, [](float x) { return 1.0f / x; }); }});
  d.push_back({"v_rcp_iflag_f32", K100_VALU { run_f32<1>(w, in, [](float x) { return 1.0f / x; }); }});
  d.push_back({"v_rsq_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    alignas(64) double x[kLanes];
    rsq_lanes_f32_to_f64(x, a);
    uint32_t* r = v.out32();
    {
      HostRounding g(v.mode.round32());
      for (int i = 0; i < kLanes; ++i) r[i] = bits_of(float(x[i]));
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_sqrt_f32", K100_VALU {
    Vop v(w, in);
    const uint32_t* a = v.f32(0);
    uint32_t* r = v.out32_direct();
    {
      HostRounding g(v.mode.round32());
      sqrt_lanes_f32(r, a);
    }
    v.finish_f32(r);
  }});
  d.push_back({"v_sin_f32", K100_VALU { unary_f32_via_f64(w, in, sin_rev_lanes); }});
  d.push_back({"v_cos_f32", K100_VALU { unary_f32_via_f64(w, in, cos_rev_lanes); }});

  d.push_back({"v_exp_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return exp2_f64(x); }); }});
  d.push_back({"v_log_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return log2_f64(x); }); }});
  d.push_back({"v_rcp_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return 1.0 / x; }); }});
  d.push_back({"v_rsq_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return 1.0 / std::sqrt(x); }); }});
  d.push_back({"v_sqrt_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return std::sqrt(x); }); }});
  d.push_back({"v_sin_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return sin_rev_f64(x); }); }});
  d.push_back({"v_cos_f16", K100_VALU { unary_f16_via_f64(w, in, [](double x) { return cos_rev_f64(x); }); }});

  d.push_back({"v_rcp_f64", K100_VALU { run_f64<1>(w, in, [](double x) { return 1.0 / x; }); }});
  d.push_back({"v_sqrt_f64", K100_VALU {
    Vop v(w, in);
    const uint64_t* a = v.f64(0);
    uint64_t* r = v.out64();
    {
      HostRounding g(v.mode.round16_64());
      sqrt_lanes_f64(r, a);
    }
    v.finish_f64(r);
  }});
  d.push_back({"v_rsq_f64", K100_VALU {
    run_f64<1>(w, in, [](double x) { return double(1.0L / std::sqrt((long double)x)); });
  }});
}

}  // namespace k100::emu::valu
