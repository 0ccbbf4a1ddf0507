// Per-lane gather addresses (lane_address, add_lane_offset, add_lane_bytes),
// u8_to_f32, and an argument block whose last 64-byte piece is 3 dwords
// (loaded as 4), on the emulator against host arithmetic.
#include <gtest/gtest.h>

#include <cstring>

#include "k100/codegen/codegen.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"

namespace {

using namespace k100::codegen;
using namespace k100::kernels;

// y, x, n, then u32 values v0..v13 at 20..72: the explicit block ends at 76.
Signature signature() {
  std::vector<Param> p = {out("y", "u32"), in("x", "u32"), value("n", "u32")};
  for (int j = 0; j < 14; ++j) p.push_back(value("v" + std::to_string(j), "u32"));
  return Signature("lane_address_k", p);
}
constexpr int kOutputs = 10;

k100::codeobj::CodeObject build(k100::isa::Target target) {
  Kernel k(signature(), target);
  const VGPR i = k.vgpr(1, "i"), x = k.vgpr(1, "x"), out = k.vgpr(kOutputs, "out");
  const SGPR first = k.sgpr(1, "first"), big = k.sgpr(1, "big");
  k.s_lshl_b32(first, k.workgroup_id(), 6);
  k.v_add_u32(i, first, lane_of_local_id(k));
  if_lanes_below(k, k.arg("n"), i, [&] {
    const VGPR xa = lane_address(k, k.arg("x"), i, 4u);
    k.global_load_dword(x, xa, k100::as::off);
    // byte i % 4 of x[i]: lanes differ in the byte, so pick it with a shift
    const VGPR shifted = k.vgpr(1, "shifted");
    k.v_and_b32(shifted, 3, i);
    k.v_lshlrev_b32(shifted, 3, shifted);
    k.v_lshrrev_b32(shifted, shifted, x);
    u8_to_f32(k, out[0], shifted, 0);
    const VGPR a = lane_address(k, k.arg("x"), i, 1000u);  // a scale that is not an inline constant
    k.v_mov_b32(out[1], a[0]);
    k.v_mov_b32(out[2], a[1]);
    k.s_mov_b32(big, 0x40000001u);
    add_lane_offset(k, a, i, Operand(big));  // products past 2^32
    k.v_mov_b32(out[3], a[0]);
    k.v_mov_b32(out[4], a[1]);
    add_lane_bytes(k, a, k.arg("v0"));  // a carry into the high dword
    k.v_mov_b32(out[5], a[0]);
    k.v_mov_b32(out[6], a[1]);
    for (int j = 0; j < 3; ++j) k.v_mov_b32(out[7 + j], k.arg("v" + std::to_string(11 + j)));
    const VGPR ya = lane_address(k, k.arg("y"), i, uint32_t(4 * kOutputs));
    for (int c = 0; c < kOutputs; ++c) k.global_store_dword(ya, out[c], k100::as::off, k100::as::offset(4 * c));
  });
  k.s_endpgm();
  return k.build();
}

TEST(LaneAddress, MatchesHostArithmetic) {
  Registry r;
  KernelDef d = generated_kernel("test", signature(), build);
  d.cases = [](bool) { return std::vector<Case>{make_case({{"n", 1}})}; };
  d.run = [](TestDevice&, const Case&) { return CaseResult{}; };
  r.add(std::move(d));
  EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  constexpr uint32_t n = 200;
  std::vector<uint32_t> x(n);
  Rng rng(3);
  for (auto& v : x) v = uint32_t(rng.engine()());
  DeviceBuffer<uint32_t> dx(dev, x), dy(dev, n * kOutputs);
  std::vector<ArgValue> argv = {dy.addr(), dx.addr(), int64_t(n), int64_t(0xfffffff7u)};
  for (int j = 1; j < 14; ++j) argv.push_back(int64_t(100 + j));
  dev.launch("lane_address_k", {(n + 63) / 64}, {64}, signature().pack(argv));
  const auto y = dy.download();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t* o = &y[i * kOutputs];
    const float want = float((x[i] >> (8 * (i % 4))) & 0xff);
    uint32_t want_bits;
    std::memcpy(&want_bits, &want, 4);
    ASSERT_EQ(o[0], want_bits) << i;
    const uint64_t a1 = dx.addr() + uint64_t(i) * 1000, a2 = a1 + uint64_t(i) * 0x40000001u, a3 = a2 + 0xfffffff7u;
    ASSERT_EQ(o[1] | uint64_t(o[2]) << 32, a1) << i;
    ASSERT_EQ(o[3] | uint64_t(o[4]) << 32, a2) << i;
    ASSERT_EQ(o[5] | uint64_t(o[6]) << 32, a3) << i;
    for (int j = 0; j < 3; ++j) ASSERT_EQ(o[7 + j], 111u + uint32_t(j)) << i;
  }
}

}  // namespace
