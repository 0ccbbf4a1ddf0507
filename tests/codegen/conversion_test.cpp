// The conversion blocks on the emulator against host computations of the
// same formats (bit for bit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "k100/codegen/codegen.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"

namespace {

using namespace k100::codegen;
using namespace k100::kernels;

const Signature kConv("conversions_k", {out("y", "u32"), in("x", "u32"), value("n", "u32")});
constexpr int kOutputs = 7;

k100::codeobj::CodeObject build(k100::isa::Target target) {
  Kernel k(kConv, target);
  const VGPR i = k.vgpr(1, "i"), off = k.vgpr(1, "offset"), x = k.vgpr(1, "x"), out = k.vgpr(kOutputs, "out");
  const SGPR first = k.sgpr(1, "first");
  k.s_lshl_b32(first, k.workgroup_id(), 6);
  k.v_add_u32(i, first, lane_of_local_id(k));
  if_lanes_below(k, k.arg("n"), i, [&] {
    k.v_lshlrev_b32(off, 2, i);
    k.global_load_dword(x, off, k.arg("x"));
    f32_to_bf16(k, out[0], x);
    bf16_to_f32(k, out[1], x, 0);
    bf16_to_f32(k, out[2], x, 1);
    f16_to_f32(k, out[3], x, 0);
    f16_to_f32(k, out[4], x, 1);
    i8_to_f32(k, out[5], x, 2);
    k.v_mov_b32(out[6], 1);
    dot4_i8(k, out[6], x, x);
    k.v_mul_u32_u24(off, kOutputs * 4, i);
    for (int c = 0; c < kOutputs; ++c) k.global_store_dword(off, out[c], k.arg("y"), k100::as::offset(4 * c));
  });
  k.s_endpgm();
  return k.build();
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
// Round to nearest even; NaN keeps its high half with the quiet bit set.
uint32_t bf16_of(uint32_t f) {
  if (std::isnan(from_bits(f))) return (f | 0x400000u) >> 16;
  return (f + 0x7fffu + ((f >> 16) & 1)) >> 16;
}
float half(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 0x3ff;
  float v = e == 0 ? std::ldexp(float(m), -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(float(m | 0x400), e - 25);
  return (h >> 15) ? -v : v;
}

TEST(Conversions, MatchTheHostBitForBit) {
  ASSERT_NO_THROW(build(k100::isa::Target::gfx926));
  Registry r;
  KernelDef d = generated_kernel("test", kConv, build);
  d.cases = [](bool) { return std::vector<Case>{make_case({{"n", 1000}})}; };
  d.run = [](TestDevice&, const Case&) { return CaseResult{}; };
  r.add(std::move(d));
  EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  std::vector<uint32_t> x(1000);
  Rng rng(5);
  for (auto& v : x) v = uint32_t(rng.engine()());
  x[0] = 0x7f800001u;  // a signalling NaN
  x[1] = 0x3f808000u;  // a tie that rounds to even (down)
  x[2] = 0x3f818000u;  // a tie that rounds up
  x[3] = 0xff7fffffu;  // -FLT_MAX rounds to -inf
  DeviceBuffer<uint32_t> dx(dev, x), dy(dev, x.size() * kOutputs);
  launch(dev, kConv, {16}, {64}, {dy.addr(), dx.addr(), 1000u});
  auto y = dy.download();
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t v = x[i];
    const uint32_t* o = &y[i * kOutputs];
    ASSERT_EQ(o[0], bf16_of(v)) << i;
    ASSERT_EQ(o[1], v << 16) << i;
    ASSERT_EQ(o[2], v & 0xffff0000u) << i;
    const float h0 = half(uint16_t(v)), h1 = half(uint16_t(v >> 16));
    // f16 NaN payloads are kept; compare the NaN-ness there
    ASSERT_EQ(std::isnan(from_bits(o[3])), std::isnan(h0)) << i;
    ASSERT_EQ(std::isnan(from_bits(o[4])), std::isnan(h1)) << i;
    if (!std::isnan(h0)) {
      ASSERT_EQ(o[3], bits(h0)) << i;
    }
    if (!std::isnan(h1)) {
      ASSERT_EQ(o[4], bits(h1)) << i;
    }
    ASSERT_EQ(o[5], bits(float(int8_t(v >> 16)))) << i;
    int32_t dot = 1;
    for (int b = 0; b < 4; ++b) dot += int32_t(int8_t(v >> (8 * b))) * int32_t(int8_t(v >> (8 * b)));
    ASSERT_EQ(int32_t(o[6]), dot) << i;
  }
}

}  // namespace
