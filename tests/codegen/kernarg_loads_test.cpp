#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/kernarg_loads.h"
#include "k100/codegen/kernel.h"

namespace {

using namespace k100::codegen;
using k100::isa::Target;

std::string text(const std::vector<KernargLoad>& loads) {
  std::string t;
  for (const KernargLoad& l : loads) t += (t.empty() ? "" : " ") + std::to_string(l.first) + "+" + std::to_string(l.dwords);
  return t;
}

TEST(KernargLoads, OnlyTheDwordsReadAreLoaded) {
  // three pointers and two values read, a third value (dword 8) never: one x8
  const KernargPlan p = plan_kernarg_loads({{0, 2}, {2, 2}, {4, 2}, {6, 1}, {7, 1}}, 10);
  EXPECT_EQ(text(p.loads), "0+8");
  EXPECT_EQ(kernarg_link_bytes(p.loads), 52u);
  EXPECT_EQ(p.load_of_use, (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(KernargLoads, LoadsOfOneLineShareARequestSoOnlyUsedDwordsAreRead) {
  // three pointers in dwords 0..5, then dwords 6, 8, 10 and 13 of a 14-dword
  // segment: all in one 64-byte line, so one request of the bytes read; the
  // 40 bytes used beat any wider load (two x8: 64 bytes)
  const KernargPlan p = plan_kernarg_loads({{0, 2}, {2, 2}, {4, 2}, {6, 1}, {8, 1}, {10, 1}, {13, 1}}, 14);
  EXPECT_EQ(text(p.loads), "0+2 2+4 6+1 8+1 10+1 13+1");
  EXPECT_EQ(kernarg_link_bytes(p.loads), 60u);
  EXPECT_EQ(kernarg_link_bytes({{0, 8}, {6, 8}}), 84u);
  // each use is read from a load that holds it
  for (size_t u = 0; u < p.load_of_use.size(); ++u) EXPECT_GE(p.load_of_use[u], 0);
  // a load across two lines is a request of its own; two lines, two requests
  EXPECT_EQ(kernarg_link_bytes({{14, 4}}), 36u);
  EXPECT_EQ(kernarg_link_bytes({{0, 1}, {16, 1}}), 48u);
}

TEST(KernargLoads, DistantPiecesGetSeparateLoadsAndPairsStayAligned) {
  // dword 0 and dword 15: two single loads (28 bytes) beat one x16 (84)
  EXPECT_EQ(text(plan_kernarg_loads({{0, 1}, {15, 1}}, 16).loads), "0+1 15+1");
  // a pointer at dwords 3..4 cannot sit at an odd place of a load: a load
  // starting at dword 3 holds it at its first (even) place
  const KernargPlan p = plan_kernarg_loads({{3, 2}}, 8);
  EXPECT_EQ(text(p.loads), "3+2");
  // a use past the segment is a named error
  try {
    plan_kernarg_loads({{7, 2}}, 8, "short_k");
    FAIL();
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'short_k'"), std::string::npos) << e.what();
  }
}

TEST(KernargLoads, AnArgumentTheKernelNeverReadsIsNeverLoaded) {
  Signature sig("unused_arg_k", {out("y", "f32"), in("x", "f32"), value("n", "u32"), value("unused", "u32")});
  Kernel k(sig, Target::gfx926);
  SGPR t = k.sgpr(1, "t");
  k.s_add_u32(t, k.arg("n"), k.arg("x")[0]);
  k.s_endpgm();
  k.build();
  const std::string a = k.assembly();
  // the low dword of x (dword 2) and n (dword 4) exactly, from bytes 8 and 16; y and `unused` not read
  EXPECT_NE(a.find("s_load_dword s0, s[4:5], 0x8"), std::string::npos) << a;
  EXPECT_NE(a.find("s_load_dword s1, s[4:5], 0x10"), std::string::npos) << a;
  size_t loads = 0;
  for (size_t at = a.find("s_load"); at != std::string::npos; at = a.find("s_load", at + 1)) ++loads;
  EXPECT_EQ(loads, 2u) << a;
}

}  // namespace
