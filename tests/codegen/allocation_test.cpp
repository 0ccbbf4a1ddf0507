#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/kernel.h"

namespace {

using namespace k100::codegen;
using k100::isa::Target;

const Signature kSig("alloc_k", {out("y", "f32"), value("n", "u32")});

// `count` values live at once: each written, then all summed at the end.
void many_live(Kernel& k, int count) {
  std::vector<VGPR> v;
  for (int i = 0; i < count; ++i) {
    v.push_back(k.vgpr(1, "value" + std::to_string(i)));
    k.v_mov_b32(v.back(), float(i));
  }
  for (int i = 1; i < count; ++i) k.v_add_f32(v[0], v[0], v[size_t(i)]);
  k.s_endpgm();
}

std::string build_error(Kernel& k) {
  try {
    k.build();
  } catch (const k100::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Allocation, EightWavesPerSimdGetAtMost32Vgprs) {
  EXPECT_EQ(vgpr_budget(8), 32);
  EXPECT_EQ(vgpr_budget(10), 24);
  EXPECT_EQ(vgpr_budget(1), 256);
  EXPECT_EQ(sgpr_budget(10), 74);
  Kernel fits(kSig, Target::gfx926, {.waves_per_simd = 8});
  many_live(fits, 32);
  fits.build();
  EXPECT_EQ(fits.allocation().vgprs, 32);
  EXPECT_EQ(fits.allocation().max_live_vgprs, 32);
}

TEST(Allocation, ARegisterThatDoesNotFitIsANamedErrorWhenSpillingIsOff) {
  Kernel k(kSig, Target::gfx926, {.waves_per_simd = 8, .spill = false});
  many_live(k, 33);
  const std::string e = build_error(k);
  EXPECT_NE(e.find("kernel 'alloc_k': 'value32' (VGPR) does not fit in 32 VGPRs"), std::string::npos) << e;
  EXPECT_NE(e.find("33 dwords are live: 'value0' (VGPR), 'value1' (VGPR)"), std::string::npos) << e;
  EXPECT_NE(e.find("after instruction 32 (v_mov_b32_e32 %value32, 0x42000000)"), std::string::npos) << e;
  // The same kernel fits when it asks for fewer waves.
  Kernel relaxed(kSig, Target::gfx926, {.waves_per_simd = 7});
  many_live(relaxed, 33);
  relaxed.build();
  EXPECT_EQ(relaxed.allocation().vgprs, 33);
}

TEST(Allocation, ValuesThatAreNotLiveAtOnceShareRegisters) {
  Kernel k(kSig, Target::gfx926);
  VGPR prev = k.vgpr(1, "t0");
  k.v_mov_b32(prev, 1.0f);
  for (int i = 1; i < 40; ++i) {
    VGPR t = k.vgpr(1, "t" + std::to_string(i));
    k.v_add_f32(t, 1.0f, prev);  // prev's last use
    prev = t;
  }
  k.s_endpgm();
  k.build();
  EXPECT_EQ(k.allocation().vgprs, 1);  // every step reads and writes the same register
}

TEST(Allocation, AValueUsedInsideALoopStaysLiveAcrossTheBackEdge) {
  Kernel k(kSig, Target::gfx926);
  SGPR count = k.sgpr(1, "count");
  VGPR keep = k.vgpr(1, "keep"), acc = k.vgpr(1, "acc");
  k.v_mov_b32(keep, 2.0f);
  k.v_mov_b32(acc, 0);
  k.s_mov_b32(count, 10);
  Label loop = k.label("loop");
  k.bind(loop);
  VGPR t = k.vgpr(1, "t");
  k.v_mul_f32(t, keep, acc);  // keep is read in every trip
  k.v_add_f32(acc, t, acc);
  k.s_sub_u32(count, count, 1);
  k.s_cmp_lg_u32(count, 0);
  k.s_cbranch_scc1(loop);
  k.s_endpgm();
  k.build();
  const auto& base = k.allocation().base;
  EXPECT_NE(base[size_t(keep.id)], base[size_t(t.id)]);
  EXPECT_NE(base[size_t(acc.id)], base[size_t(t.id)]);
  EXPECT_NE(base[size_t(keep.id)], base[size_t(acc.id)]);
  EXPECT_NE(k.assembly().find("s_cbranch_scc1 .Lloop"), std::string::npos) << k.assembly();
}

TEST(Allocation, ScalarRangesAreAlignedAndOnlyTheArgumentsReadAreLoaded) {
  Signature sig("args_k", {in("a", "f32"), in("b", "f32"), out("c", "f32"), value("n", "u32"), value("m", "u32")});
  Kernel k(sig, Target::gfx926);
  SGPR odd = k.sgpr(1, "odd"), pair = k.sgpr(2, "pair");
  k.s_mov_b32(odd, 1);
  k.s_mov_b64(pair, k.arg("c"));
  k.s_add_u32(odd, odd, k.arg("m"));
  k.s_add_u32(pair[0], pair[0], odd);
  k.s_endpgm();
  k.build();
  EXPECT_EQ(k.allocation().base[size_t(pair.id)] % 2, 0);
  // c (bytes 16..23) and m (28..31) are read, a, b and n are not: those
  // bytes only (one line, one host request), c into an aligned pair, neither
  // overlapping the kernarg pointer they read
  const std::string t = k.assembly();
  EXPECT_NE(t.find("s_load_dwordx2 s[0:1], s[4:5], 0x10"), std::string::npos) << t;
  EXPECT_NE(t.find("s_load_dword s2, s[4:5], 0x1c"), std::string::npos) << t;
  EXPECT_EQ(t.find("s_load_dwordx4"), std::string::npos) << t;
}

TEST(Allocation, ReadingARegisterNoInstructionWroteIsANamedError) {
  Kernel k(kSig, Target::gfx926);
  VGPR a = k.vgpr(1, "a"), b = k.vgpr(1, "b");
  k.v_add_f32(a, 1.0f, b);
  k.s_endpgm();
  const std::string e = build_error(k);
  EXPECT_NE(e.find("kernel 'alloc_k': instruction 0 (v_add_f32_e32 %a, 1.0, %b) reads 'b' (VGPR), which no earlier"),
            std::string::npos)
      << e;
}

TEST(Allocation, GeneralRegistersCannotBeNamedPhysically) {
  Kernel k(kSig, Target::gfx926);
  try {
    k.s_mov_b32(k100::as::s(7), 0);
    FAIL();
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("SGPRs come from sgpr()"), std::string::npos) << e.what();
  }
  k.s_mov_b64(k100::as::exec, -1);  // special registers are fine
  EXPECT_EQ(k.size(), 1u);
}

}  // namespace
