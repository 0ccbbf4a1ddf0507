#include <gtest/gtest.h>

#include "k100/asm/assembler.h"

namespace k100::as {
namespace {

Program run(const std::string& src, DiagnosticSink& diags, isa::Target t = isa::Target::gfx906) {
  Options o;
  o.target = t;
  return assemble(src, "test.s", o, diags);
}

std::vector<uint8_t> text_of(const Program& p) {
  const Section* s = p.section(".text");
  return s ? s->bytes : std::vector<uint8_t>{};
}

TEST(Assembler, BranchesToLabelsBackwardAndForward) {
  DiagnosticSink d;
  Program p = run(
      "start:\n"
      "  s_nop 0\n"
      "  s_cbranch_scc0 done   // forward\n"
      "  s_branch start        ; backward\n"
      "done:\n"
      "  s_endpgm\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.format_all();
  std::vector<uint8_t> want = {0x00, 0x00, 0x80, 0xbf,   // s_nop 0
                               0x01, 0x00, 0x84, 0xbf,   // s_cbranch_scc0 +1
                               0xfd, 0xff, 0x82, 0xbf,   // s_branch -3
                               0x00, 0x00, 0x81, 0xbf};  // s_endpgm
  EXPECT_EQ(text_of(p), want);
  const Symbol* done = p.symbol("done");
  ASSERT_NE(done, nullptr);
  EXPECT_EQ(done->value, 12);
}

TEST(Assembler, SymbolsExpressionsAndLabelDifferences) {
  DiagnosticSink d;
  Program p = run(
      ".set N, 4 * 16 + 1\n"
      "lim = N << 2\n"
      "  s_mov_b32 s0, N          // 65: a literal\n"
      "  s_mov_b32 s1, N - 1      // 64: inline\n"
      "  s_movk_i32 s2, lim\n"
      "a:\n"
      "  s_nop 0\n"
      "b:\n"
      "  s_mov_b32 s3, b - a\n"
      "  s_mov_b32 s4, later - a  // forward: becomes a literal\n"
      "later:\n"
      ".size a, later - a\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.format_all();
  auto t = text_of(p);
  ASSERT_EQ(t.size(), 8u + 4 + 4 + 4 + 4 + 8);
  EXPECT_EQ(t[0], 0xff);  // literal marker
  EXPECT_EQ(t[4], 65);
  EXPECT_EQ(t[8], 0xc0);  // inline 64
  EXPECT_EQ(t[12] | t[13] << 8, 260);
  EXPECT_EQ(t[20], 0x84);  // inline 4 = b - a
  EXPECT_EQ(t[24], 0xff);
  EXPECT_EQ(t[28], 16);    // later - a
  EXPECT_EQ(p.symbol("a")->size, 16);
}

TEST(Assembler, DataAndAlignmentFillCodeWithNops) {
  DiagnosticSink d;
  Program p = run(
      "start:\n"
      "  s_nop 0\n"
      "  .p2align 4\n"
      "  .byte 1, 2\n"
      "  .short 0x304\n"
      "  .long 0x05060708, end - start\n"
      "end:\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.format_all();
  auto t = text_of(p);
  ASSERT_EQ(t.size(), 16u + 2 + 2 + 8);
  for (int i = 4; i < 16; i += 4) EXPECT_EQ(t[size_t(i) + 3], 0xbf) << i;  // s_nop 0 padding
  EXPECT_EQ(t[16], 1);
  EXPECT_EQ(t[18], 4);
  EXPECT_EQ(t[20], 8);
  EXPECT_EQ(t[24], 28);  // address of end
}

TEST(Assembler, CommentsInAllStyles) {
  DiagnosticSink d;
  Program p = run(
      "s_nop 1 ; semicolon\n"
      "s_nop 2 // slashes\n"
      "/* block\n"
      "   over lines */ s_nop 3 /* and inline */\n"
      "# hash line\n",
      d);
  ASSERT_FALSE(d.has_errors()) << d.format_all();
  auto t = text_of(p);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ(t[0], 1);
  EXPECT_EQ(t[4], 2);
  EXPECT_EQ(t[8], 3);
}

TEST(Assembler, ListingPrintsCanonicalText) {
  DiagnosticSink d;
  Program p = run("v_add_f32 v0, v1, v2\nv_cmp_eq_u32 vcc, v0, s1\n", d);
  ASSERT_FALSE(d.has_errors());
  ASSERT_EQ(p.listing.size(), 2u);
  EXPECT_EQ(p.listing[0].text, "v_add_f32_e32 v0, v1, v2");
  EXPECT_EQ(p.listing[1].text, "v_cmp_eq_u32_e64 vcc, v0, s1");
}

}  // namespace
}  // namespace k100::as
