// The MODE register: f32 and f16/f64 denormal modes (flush inputs, outputs,
// both, neither), rounding modes for f32, f64 and f16, and the mad family's
// unconditional flush.
#include <cfenv>
#include <cmath>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

constexpr uint32_t kIeee = ModeBits::kIeee;

uint32_t mode_with(int round32, int round64, int denorm32, int denorm64) {
  return uint32_t(round32) | uint32_t(round64) << 2 | uint32_t(denorm32) << 4 | uint32_t(denorm64) << 6 | kIeee;
}

TEST(Mode, F32DenormalFlushOfInputsAndOutputs) {
  const uint32_t tiny = 0x00000100;               // a denormal
  const float small = 0x1p-120f;                  // normal
  for (int dm = 0; dm < 4; ++dm) {
    bool allow_in = dm & 1, allow_out = dm & 2;
    WaveState w = fresh_wave();
    w.mode = mode_with(0, 0, dm, 3);
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = tiny;
      w.vgpr[2][l] = fbits(0.0f);
      w.vgpr[3][l] = fbits(small);
      w.vgpr[4][l] = fbits(0x1p-10f);
    }
    run(w, make("v_add_f32", Encoding::Native, {V(10), V(1), V(2)}));  // denormal input passes through add
    EXPECT_EQ(w.vgpr[10][0], allow_in && allow_out ? tiny : 0u) << "mode " << dm;
    run(w, make("v_mul_f32", Encoding::Native, {V(11), V(3), V(4)}));  // normal inputs, denormal result
    EXPECT_EQ(w.vgpr[11][0], allow_out ? fbits(small * 0x1p-10f) : 0u) << "mode " << dm;
    run(w, make("v_cmp_eq_f32", Encoding::Native, {VCC(), V(1), V(2)}));  // denormal == 0 when flushed
    EXPECT_EQ(w.vcc(), allow_in ? 0ull : ~0ull) << "mode " << dm;
    // f64 and f16 do not look at the f32 field
    for (int l = 0; l < 64; ++l) set64(w, 6, l, 1);
    run(w, make("v_add_f64", Encoding::Native, {V(12, 2), V(6, 2), V(6, 2)}));
    EXPECT_EQ(get64(w, 12, 0), 2u);
  }
}

TEST(Mode, F16AndF64DenormalFlush) {
  for (int dm = 0; dm < 4; ++dm) {
    bool allow_in = dm & 1, allow_out = dm & 2;
    WaveState w = fresh_wave();
    w.mode = mode_with(0, 0, 3, dm);
    for (int l = 0; l < 64; ++l) {
      set64(w, 2, l, 0x10);              // f64 denormal
      set64(w, 4, l, dbits(0x1p-1000));  // normal
      set64(w, 6, l, dbits(0x1p-30));
      w.vgpr[8][l] = 0x0010;             // f16 denormal
      w.vgpr[9][l] = 0x0400;             // f16 min normal
      w.vgpr[1][l] = 0x00000100;         // f32 denormal: unaffected by this field
    }
    run(w, make("v_add_f64", Encoding::Native, {V(12, 2), V(2, 2), V(2, 2)}));
    EXPECT_EQ(get64(w, 12, 0), allow_in && allow_out ? 0x20u : 0u) << dm;
    run(w, make("v_mul_f64", Encoding::Native, {V(12, 2), V(4, 2), V(6, 2)}));
    EXPECT_EQ(get64(w, 12, 0), allow_out ? dbits(0x1p-1030) : 0u) << dm;
    run(w, make("v_add_f16", Encoding::Native, {V(14), V(8), V(8)}));
    EXPECT_EQ(w.vgpr[14][0], allow_in && allow_out ? 0x0020u : 0u) << dm;
    run(w, make("v_mul_f16", Encoding::E64, {V(14), V(9), FConst(240)}));  // 2^-14 * 0.5 -> denormal
    EXPECT_EQ(w.vgpr[14][0], allow_out ? 0x0200u : 0u) << dm;
    run(w, make("v_add_f32", Encoding::Native, {V(15), V(1), V(1)}));
    EXPECT_EQ(w.vgpr[15][0], 0x00000200u) << dm;
  }
}

TEST(Mode, MadFamilyAlwaysFlushesFmaDoesNot) {
  WaveState w = fresh_wave();  // denormals allowed everywhere
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(0x1p-70f);
    w.vgpr[2][l] = fbits(0x1p-70f);
    w.vgpr[3][l] = 0;
  }
  run(w, make("v_mad_f32", Encoding::Native, {V(10), V(1), V(2), V(3)}));
  EXPECT_EQ(w.vgpr[10][0], 0u);
  run(w, make("v_fma_f32", Encoding::Native, {V(10), V(1), V(2), V(3)}));
  EXPECT_EQ(fval(w.vgpr[10][0]), 0x1p-140f);
  run(w, make("v_mac_f32", Encoding::Native, {V(3), V(1), V(2)}));
  EXPECT_EQ(w.vgpr[3][0], 0u);
}

// Directed rounding: 1 + 2^-30 in f32 rounds to 1 (nearest, down, zero) or
// the next float up (+inf mode); negated, the other way.
TEST(Mode, F32RoundingModes) {
  const float one_up = std::nextafter(1.0f, 2.0f);
  struct Want {
    int mode;
    float pos, neg;
  } wants[] = {{0, 1.0f, -1.0f}, {1, one_up, -1.0f}, {2, 1.0f, -one_up}, {3, 1.0f, -1.0f}};
  for (const Want& x : wants) {
    WaveState w = fresh_wave();
    w.mode = mode_with(x.mode, 0, 3, 3);
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = fbits(l % 2 ? -1.0f : 1.0f);
      w.vgpr[2][l] = fbits(l % 2 ? -0x1p-30f : 0x1p-30f);
    }
    run(w, make("v_add_f32", Encoding::Native, {V(10), V(1), V(2)}));
    EXPECT_EQ(fval(w.vgpr[10][0]), x.pos) << "mode " << x.mode;
    EXPECT_EQ(fval(w.vgpr[10][1]), x.neg) << "mode " << x.mode;
    run(w, make("v_fma_f32", Encoding::Native, {V(11), V(1), FConst(242), V(2)}));
    EXPECT_EQ(fval(w.vgpr[11][0]), x.pos) << "fma mode " << x.mode;
    // the f64 field is untouched: exact f64 sum
    for (int l = 0; l < 64; ++l) {
      set64(w, 2, l, dbits(1.0));
      set64(w, 4, l, dbits(0x1p-60));
    }
    run(w, make("v_add_f64", Encoding::Native, {V(12, 2), V(2, 2), V(4, 2)}));
    EXPECT_EQ(dval(get64(w, 12, 0)), 1.0) << "f64 uses its own field";
    // conversions to f32 follow the f32 field
    run(w, make("v_cvt_f32_u32", Encoding::Native, {V(13), Lit(0xffffffffu)}));
    EXPECT_EQ(fval(w.vgpr[13][0]), x.mode == 1 ? 0x1p32f : (x.mode == 0 ? 0x1p32f : 0x1.fffffep31f)) << x.mode;
  }
  EXPECT_EQ(std::fegetround(), FE_TONEAREST) << "host rounding mode restored";
}

TEST(Mode, F64AndF16RoundingModes) {
  for (int m = 0; m < 4; ++m) {
    WaveState w = fresh_wave();
    w.mode = mode_with(0, m, 3, 3);
    for (int l = 0; l < 64; ++l) {
      set64(w, 2, l, dbits(l % 2 ? -1.0 : 1.0));
      set64(w, 4, l, dbits(l % 2 ? -0x1p-60 : 0x1p-60));
      w.vgpr[6][l] = l % 2 ? 0xbc00 : 0x3c00;  // +-1.0
      w.vgpr[7][l] = l % 2 ? 0x8001 : 0x0001;  // +-2^-24
    }
    run(w, make("v_add_f64", Encoding::Native, {V(10, 2), V(2, 2), V(4, 2)}));
    double up = std::nextafter(1.0, 2.0);
    EXPECT_EQ(dval(get64(w, 10, 0)), m == 1 ? up : 1.0) << m;
    EXPECT_EQ(dval(get64(w, 10, 1)), m == 2 ? -up : -1.0) << m;
    run(w, make("v_add_f16", Encoding::Native, {V(12), V(6), V(7)}));
    EXPECT_EQ(w.vgpr[12][0], m == 1 ? 0x3c01u : 0x3c00u) << m;
    EXPECT_EQ(w.vgpr[12][1], m == 2 ? 0xbc01u : 0xbc00u) << m;
    run(w, make("v_cvt_f16_f32", Encoding::Native, {V(13), Lit(0x477ff000)}));  // 65520: halfway between 65504 and "65536"
    EXPECT_EQ(w.vgpr[13][0], (m == 0 || m == 1) ? 0x7c00u : 0x7bffu) << m;
  }
}

}  // namespace
}  // namespace k100::emu::valu_test
