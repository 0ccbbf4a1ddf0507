// Bad input: every malformed line gets a diagnostic with file:line:col and a
// caret, the rest of the file is still checked, and nothing crashes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "k100/asm/assembler.h"

namespace k100::as {
namespace {

DiagnosticSink run(const std::string& src, size_t limit = 100) {
  DiagnosticSink d(limit);
  Options o;
  o.target = isa::Target::gfx906;
  o.error_limit = limit;
  assemble(src, "bad.s", o, d);
  return d;
}

TEST(Diagnostics, ReportsEveryErrorWithLocationAndCaret) {
  auto d = run(
      "  s_mov_b32 s0, s1\n"
      "  v_add_f23 v0, v1, v2\n"
      "  s_mov_b32 s0 s1\n"
      "  v_add_f32 v0, v1\n"
      "  s_endpgm\n"
      "  v_mad_f32 v0, v1, v2, 0x41200000\n"
      "  s_load_dword s0, s[1:2], 0x0\n");
  ASSERT_EQ(d.error_count(), 5u) << d.format_all();
  const auto& g = d.diagnostics();
  EXPECT_EQ(g[0].loc.line, 2u);
  EXPECT_EQ(g[0].loc.col, 3u);
  EXPECT_NE(g[0].message.find("did you mean: v_add_f32"), std::string::npos) << g[0].message;
  EXPECT_EQ(g[1].loc.line, 3u);
  EXPECT_NE(g[1].message.find("expected ','"), std::string::npos) << g[1].message;
  EXPECT_NE(g[1].message.find("'s1'"), std::string::npos) << g[1].message;
  EXPECT_EQ(g[2].loc.line, 4u);
  EXPECT_NE(g[2].message.find("too few operands"), std::string::npos);
  EXPECT_EQ(g[3].loc.line, 6u);
  EXPECT_NE(g[3].message.find("literal operands are not supported"), std::string::npos);
  EXPECT_EQ(g[4].loc.line, 7u);
  std::string text = d.format_all();
  EXPECT_NE(text.find("bad.s:2:3: error:"), std::string::npos);
  EXPECT_NE(text.find("  v_add_f23 v0, v1, v2\n  ^\n"), std::string::npos) << text;
}

TEST(Diagnostics, LabelsAndSymbols) {
  auto d = run(
      "a:\n"
      "a:\n"
      "  s_branch nowhere\n"
      "  s_mov_b32 s0, undefined_sym\n"
      "  .set x, 1 /\n"
      "  .bogus_directive 3\n"
      "  .p2align 3, 0, 1, 2\n");
  std::string t = d.format_all();
  EXPECT_NE(t.find("bad.s:2:1: error: invalid symbol redefinition: 'a'"), std::string::npos) << t;
  EXPECT_NE(t.find("bad.s:3:12: error: undefined symbol 'nowhere'"), std::string::npos) << t;
  EXPECT_NE(t.find("bad.s:4:17: error: undefined symbol 'undefined_sym'"), std::string::npos) << t;
  EXPECT_NE(t.find("unknown directive '.bogus_directive'"), std::string::npos) << t;
  EXPECT_GE(d.error_count(), 5u);
}

TEST(Diagnostics, StopsAtTheErrorLimit) {
  std::string src;
  for (int i = 0; i < 50; ++i) src += "v_nonsense v0\n";
  auto d = run(src, 10);
  EXPECT_EQ(d.error_count(), 10u);
}

TEST(Diagnostics, RandomGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const char alphabet[] = "vs0123456789[]:,|-()_.abcdefxyz \t;/*\"#$@!~+=<>&^%";
  const char* words[] = {"v_add_f32", "s_mov_b32", "ds_read_b32", "buffer_load_dword", "v_pk_fma_f16",
                         "global_load_dword", "s_waitcnt", "v_cmp_eq_u32", ".p2align", ".set", ".byte",
                         "offset:", "vmcnt(", "hwreg(", "sendmsg(", "swizzle(", "v[", "s[", "off", "glc"};
  std::string src;
  for (int line = 0; line < 3000; ++line) {
    int n = int(rng() % 10);
    for (int k = 0; k < n; ++k) {
      if (rng() % 2) src += words[rng() % std::size(words)];
      else src += alphabet[rng() % (sizeof alphabet - 1)];
      if (rng() % 3 == 0) src += ' ';
    }
    src += '\n';
  }
  auto d = run(src, 100000);
  EXPECT_GT(d.error_count(), 100u);
  for (const auto& g : d.diagnostics()) {
    EXPECT_GT(g.loc.line, 0u);
    EXPECT_FALSE(g.message.empty());
  }
}

TEST(Diagnostics, HugeRegisterIndicesAreRangeErrors) {
  auto d = run("s_mov_b32 s99999999999999999999999, 0\n"
               "v_mov_b32 v4294967296, 0\n"
               "v_mov_b32 v[4294967296:4294967297], 0\n"
               "s_load_dwordx4 s99999999999999[8:11], s[4:5], 0x0\n"
               "v_mov_b32 v256, 0\n");
  ASSERT_EQ(d.error_count(), 5u);
  for (const auto& g : d.diagnostics()) EXPECT_NE(g.message.find("register"), std::string::npos) << g.message;
  EXPECT_NE(d.diagnostics()[0].message.find("out of range"), std::string::npos);
  EXPECT_EQ(d.diagnostics()[0].loc.col, 11u);
}

// Inputs the fuzzer once crashed the assembler with (tests/fuzz/regressions/asm_parser_*):
// each assembles or gives diagnostics, never an exception.
TEST(Diagnostics, FuzzerRegressionsGiveDiagnostics) {
  namespace fs = std::filesystem;
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(K100_SOURCE_DIR) / "tests" / "fuzz" / "regressions")) {
    if (entry.path().filename().string().rfind("asm_parser_", 0) != 0) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NO_THROW(run(text.str(), 1000)) << entry.path();
    ++seen;
  }
  EXPECT_GE(seen, 1);
}

}  // namespace
}  // namespace k100::as
