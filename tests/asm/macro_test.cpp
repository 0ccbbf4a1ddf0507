// The macro language: .include, .macro/.endm/.exitm/.purgem, .rept, .irp,
// .irpc, and the conditionals (.if family, .else, .elseif, .endif). Sources using them assemble to the same .text bytes as llvm-mc
// (skipped when llvm-mc is not installed), and every misuse is a diagnostic at
// the file, line and column where it was written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "k100/asm/assembler.h"
#include "tools.h"

namespace k100::as {
namespace {

using k100::test::find_tool;
int run(const std::string& cmd, std::string* output) { return k100::test::run_shell(cmd, output); }

// A fresh folder of its own for each test, under the build tree.
std::string test_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path d = std::filesystem::path(K100_BINARY_DIR) / "tests" / "asm_macro_work" / info->name();
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

struct Ours {
  std::vector<uint8_t> text;
  std::string diags;
  bool ok = false;
};

Ours assemble_file(const std::string& path, std::vector<std::string> include_dirs = {}) {
  DiagnosticSink d;
  Options o;
  o.target = isa::Target::gfx906;
  o.include_dirs = std::move(include_dirs);
  Program p = assemble(read(path), path, o, d);
  Ours r;
  r.diags = d.format_all();
  r.ok = !d.has_errors();
  if (const Section* s = p.section(".text")) r.text = s->bytes;
  return r;
}

// The .text bytes llvm-mc makes of `path` (include folder `inc`); nullopt with
// *why set when the tools are missing.
std::optional<std::vector<uint8_t>> llvm_text(const std::string& path, const std::string& inc, std::string* why) {
  std::string mc = find_tool("llvm-mc-14"), objcopy = find_tool("llvm-objcopy-14");
  if (mc.empty()) mc = find_tool("llvm-mc");
  if (objcopy.empty()) objcopy = find_tool("llvm-objcopy");
  if (mc.empty() || objcopy.empty()) {
    *why = "llvm-mc-14 / llvm-objcopy-14 not found (apt-get install llvm-14)";
    return std::nullopt;
  }
  std::string out;
  if (run(mc + " -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj -I " + inc + " -o " + path + ".o " + path,
          &out) != 0) {
    *why = "llvm-mc rejected " + path + ":\n" + out;
    return std::vector<uint8_t>{};
  }
  if (run(objcopy + " -O binary --only-section=.text " + path + ".o " + path + ".bin", &out) != 0) {
    *why = "llvm-objcopy failed:\n" + out;
    return std::vector<uint8_t>{};
  }
  std::string b = read(path + ".bin");
  return std::vector<uint8_t>(b.begin(), b.end());
}

// Writes `files` (name -> text) into a fresh folder, assembles "main.s" with
// both assemblers (the folder "inc" on the include path) and compares .text.
void expect_same_as_llvm(const std::vector<std::pair<std::string, std::string>>& files, size_t min_bytes) {
  std::string dir = test_dir();
  mkdir((dir + "/inc").c_str(), 0755);
  for (const auto& [name, text] : files) write(dir + "/" + name, text);
  Ours ours = assemble_file(dir + "/main.s", {dir + "/inc"});
  ASSERT_TRUE(ours.ok) << ours.diags;
  EXPECT_GE(ours.text.size(), min_bytes);
  std::string why;
  auto ref = llvm_text(dir + "/main.s", dir + "/inc", &why);
  if (!ref) K100_ORACLE_MISSING(why);
  ASSERT_FALSE(ref->empty()) << why;
  EXPECT_EQ(ours.text, *ref);
}

TEST(MacroDifferential, ParametersDefaultsNamedVarargAndUniqueLabels) {
  expect_same_as_llvm(
      {{"main.s",
        "// wave reduction, as the kernels write it\n"
        ".macro wave_reduce op, acc, tmp\n"
        "  v_mov_b32 \\tmp, \\acc\n"
        "  s_nop 1\n"
        "  \\op\\()_dpp \\acc, \\tmp, \\acc row_shr:1     ; comment with \\acc\n"
        "  s_nop 1\n"
        "  \\op\\()_dpp \\acc, \\acc, \\acc row_bcast:15 row_mask:0xa\n"
        ".endm\n"
        ".macro loop_down counter, step=1\n"
        ".Lloop\\@:\n"
        "  s_sub_u32 \\counter, \\counter, \\step\n"
        "  s_cmp_lg_u32 \\counter, 0\n"
        "  s_cbranch_scc1 .Lloop\\@\n"
        ".endm\n"
        ".macro movs first, rest:vararg\n"
        "  s_mov_b32 \\first, 0\n"
        "  s_mov_b64 \\rest\n"
        ".endm\n"
        ".macro req_arg r:req, v=7\n"
        "  v_mov_b32 \\r, \\v\n"
        ".endm\n"
        "start:\n"
        "  wave_reduce v_max_f32, v1, v3\n"
        "  wave_reduce v_add_f32 v2 v4\n"
        "  loop_down s4\n"
        "  loop_down s5, 2\n"
        "  loop_down step=3, counter=s6\n"
        "  movs s7, s[8:9], s[10:11]\n"
        "  req_arg v5\n"
        "  req_arg v6, 1 + 2\n"
        "  req_arg v7 0x10 -1\n"
        "  req_arg r=v8, v=0x3f800000\n"
        "  s_branch start\n"
        "  s_endpgm\n"}},
      60);
}

TEST(MacroDifferential, NestedMacrosExitmAndPurgem) {
  expect_same_as_llvm(
      {{"main.s",
        ".macro add_pair a, b\n"
        "  v_add_f32 \\a, \\a, \\b\n"
        ".endm\n"
        ".macro tree4 op, base\n"
        "  \\op v[\\base], v[\\base], v[\\base+1]\n"
        "  \\op v[\\base+2], v[\\base+2], v[\\base+3]\n"
        "  \\op v[\\base], v[\\base], v[\\base+2]\n"
        ".endm\n"
        ".macro outer n\n"
        "  tree4 v_max_f32, \\n\n"
        "  add_pair v\\n, v1\n"
        "  .exitm\n"
        "  s_nop 7\n"
        ".endm\n"
        ".macro define_inner name, value\n"
        "  .macro \\name\n"
        "    s_movk_i32 s0, \\value\n"
        "  .endm\n"
        ".endm\n"
        "  outer 4\n"
        "  outer 12\n"
        "  define_inner set_s0, 0x1234\n"
        "  set_s0\n"
        "  .purgem set_s0\n"
        "  define_inner set_s0, 0x42\n"
        "  set_s0\n"
        "  s_endpgm\n"}},
      40);
}

TEST(MacroDifferential, ExpansionCounterAcrossIrpAndRept) {
  // \@ counts macro expansions only; an .irp sees the count at its start
  expect_same_as_llvm(
      {{"main.s",
        ".macro m\n"
        "  s_nop \\@\n"
        ".endm\n"
        "  m\n"
        ".irp x, 1, 2\n"
        "  s_movk_i32 s0, \\@ + \\x\n"
        "  m\n"
        ".endr\n"
        ".rept 2\n"
        "  m\n"
        ".endr\n"
        "  m\n"}},
      32);
}

TEST(MacroDifferential, ReptIrpIrpcWithSymbolsAndRegisterExpressions) {
  expect_same_as_llvm(
      {{"main.s",
        ".set ROWS, 3\n"
        ".rept ROWS\n"
        "  s_nop 0\n"
        ".endr\n"
        ".rept 0\n"
        "  s_nop 9\n"
        ".endr\n"
        ".irp r, 4, 5, 6, 7\n"
        "  global_load_dword v\\r, v1, s[20:21] offset:4*(\\r-4)\n"
        "  .rept 2\n"
        "  v_fmac_f32 v21, v[\\r+18], v\\r\n"
        "  .endr\n"
        ".endr\n"
        ".irp s, s10 s11, s12\n"
        "  s_add_u32 \\s, \\s, 1\n"
        ".endr\n"
        ".irpc c, 0123\n"
        "  s_mov_b32 s\\c, \\c\n"
        ".endr\n"
        ".macro stores regs:vararg\n"
        "  .irp r, \\regs\n"
        "  global_store_dword v1, v\\r, s[30:31]\n"
        "  s_add_u32 s30, s30, s34\n"
        "  s_addc_u32 s31, s31, s35\n"
        "  .endr\n"
        ".endm\n"
        "  stores 4, 5, 6, 7, 8\n"
        "  s_endpgm\n"}},
      100);
}

TEST(MacroDifferential, ConditionalsOnExpressionsNestedWithElseAndElseif) {
  expect_same_as_llvm(
      {{"main.s",
        ".set MODE, 2\n"
        "WIDTH = 64\n"
        ".if MODE == 1\n"
        "  s_nop 1\n"
        ".elseif MODE == 2\n"
        "  s_nop 2\n"
        "  .if WIDTH > 32\n"
        "    s_movk_i32 s0, 0x40\n"
        "    .if 0\n"
        "      this line is not parsed at all\n"
        "      .rept 3\n"
        "      .macro half_open\n"
        "      .if 1\n"
        "        s_nop 9\n"
        "      .else\n"
        "        s_nop 8\n"
        "      .endif\n"
        "    .elseif 1\n"
        "      s_movk_i32 s1, 0x41\n"
        "    .else\n"
        "      s_movk_i32 s1, 0x42\n"
        "    .endif\n"
        "  .else\n"
        "    s_movk_i32 s0, 0x20\n"
        "  .endif\n"
        ".elseif undefined_but_never_evaluated\n"
        "  s_nop 3\n"
        ".else\n"
        "  s_nop 4\n"
        ".endif\n"
        ".ifne MODE - 2\n  s_nop 5\n.else\n  s_movk_i32 s2, 0x102\n.endif\n"
        ".ifeq MODE - 2\n  s_movk_i32 s2, 0x103\n.endif\n"
        ".ifge -1\n  s_nop 6\n.endif\n.ifge 0\n  s_movk_i32 s2, 0x104\n.endif\n"
        ".ifgt 0\n  s_nop 6\n.endif\n.ifgt 1\n  s_movk_i32 s2, 0x105\n.endif\n"
        ".ifle 1\n  s_nop 6\n.endif\n.ifle 0\n  s_movk_i32 s2, 0x106\n.endif\n"
        ".iflt 0\n  s_nop 6\n.endif\n.iflt -5\n  s_movk_i32 s2, 0x107\n.endif\n"
        "  s_endpgm\n"}},
      40);
}

TEST(MacroDifferential, IfdefOnLabelsAndSetSymbolsIfcAndIfb) {
  expect_same_as_llvm(
      {{"main.s",
        ".ifdef later\n  s_movk_i32 s0, 1\n.endif\n"  // defined further down: not yet
        ".ifndef later\n  s_movk_i32 s0, 2\n.endif\n"
        "later:\n"
        ".ifdef later\n  s_movk_i32 s0, 3\n.endif\n"
        ".ifnotdef COUNT\n  s_movk_i32 s0, 4\n.endif\n"
        ".set COUNT, 3\n"
        ".ifdef COUNT\n  s_movk_i32 s0, COUNT\n.endif\n"
        ".ifndef COUNT\n  s_nop 1\n.endif\n"
        ".ifdef never_defined\n  s_nop 2\n.else\n  s_movk_i32 s0, 5\n.endif\n"
        ".ifc  abc , abc\n  s_movk_i32 s1, 6\n.endif\n"
        ".ifc a b,a c\n  s_nop 3\n.else\n  s_movk_i32 s1, 7\n.endif\n"
        ".ifnc x, y\n  s_movk_i32 s1, 8\n.endif\n"
        ".ifb\n  s_movk_i32 s1, 9\n.endif\n"
        ".ifnb   ; only a comment\n  s_nop 4\n.else\n  s_movk_i32 s1, 10\n.endif\n"
        ".ifnb x\n  s_movk_i32 s1, 11\n.endif\n"
        "  s_branch later\n"}},
      40);
}

TEST(MacroDifferential, ConditionalsInsideMacrosReptAndIncludes) {
  expect_same_as_llvm(
      {{"main.s",
        ".include \"guarded.inc\"\n"
        ".include \"guarded.inc\"\n"  // the include guard makes this one empty
        ".macro load dst, src, off\n"
        "  .ifb \\off\n"
        "    s_load_dword \\dst, \\src, 0x0\n"
        "  .else\n"
        "    s_load_dword \\dst, \\src, \\off\n"
        "  .endif\n"
        "  .ifnb \\src\n"
        "    .ifc \\dst, s4\n"
        "      s_nop 1\n"
        "    .endif\n"
        "    .ifnc \\dst, s4\n"
        "      s_nop 2\n"
        "    .endif\n"
        "  .endif\n"
        ".endm\n"
        ".macro unroll n\n"
        "  .if \\n <= 0\n"
        "    .exitm\n"
        "  .endif\n"
        "  v_add_f32 v[\\n], v[\\n], v0\n"
        "  unroll (\\n - 1)\n"
        ".endm\n"
        ".macro pick kind\n"
        "  .ifc \\kind, max\n"
        "    v_max_f32 v1, v1, v2\n"
        "  .elseif GUARDED_VALUE == 7\n"
        "    v_min_f32 v1, v1, v2\n"
        "  .endif\n"
        ".endm\n"
        "  load s4, s[0:1]\n"
        "  load s5, s[0:1], 0x8\n"
        "  unroll 3\n"
        "  pick max\n"
        "  pick min\n"
        ".set I, 0\n"
        ".rept 5\n"
        "  .if I & 1\n"
        "    s_movk_i32 s3, I\n"
        "  .elseif I == 4\n"
        "    s_nop 4\n"
        "  .else\n"
        "    s_movk_i32 s2, I + 0x100\n"
        "  .endif\n"
        "  .set I, I + 1\n"
        ".endr\n"
        ".irp r, 6, 7, 8\n"
        "  .ifeq \\r - 7\n"
        "    s_movk_i32 s\\r, 0x77\n"
        "  .else\n"
        "    s_mov_b32 s\\r, 0\n"
        "  .endif\n"
        ".endr\n"
        ".if 0\n"
        "  load s9, s[0:1]\n"  // a macro call in a skipped region does not expand
        "  .include \"missing_but_skipped.inc\"\n"
        ".endif\n"
        "  s_endpgm\n"},
       {"inc/guarded.inc",
        ".ifndef GUARDED_INC\n"
        ".set GUARDED_INC, 1\n"
        ".set GUARDED_VALUE, 7\n"
        "  s_movk_i32 s10, GUARDED_VALUE\n"
        ".endif\n"}},
      60);
}

TEST(MacroDifferential, AnIfOpenedInAnIncludedFileMayEndInTheIncludingFile) {
  // llvm-mc accepts this; so do we
  expect_same_as_llvm({{"main.s", ".include \"open.inc\"\n  s_nop 1\n.else\n  s_nop 2\n.endif\n  s_endpgm\n"},
                       {"inc/open.inc", ".if 1\n  s_nop 0\n"}},
                      12);
}

TEST(MacroDifferential, IncludeFromTheIncludePathAndNestedIncludes) {
  expect_same_as_llvm(
      {{"inc/reduce.inc",
        "// shared macros\n"
        ".include \"regs.inc\"\n"
        ".macro reduce op\n"
        "  \\op v[ACC], v[ACC], v[TMP]\n"
        ".endm\n"},
       {"inc/regs.inc", "ACC = 1\n.set TMP, 3\n"},
       {"main.s",
        "  s_nop 0\n"
        ".include \"reduce.inc\"\n"
        "  reduce v_max_f32\n"
        "  v_mov_b32 v0, ACC + TMP\n"
        "  reduce v_add_f32\n"
        "  s_endpgm\n"}},
      16);
}

// ---------------------------------------------------------------- errors

struct Result {
  std::string text;
  std::vector<Diagnostic> diags;
  size_t errors = 0;
};

Result errors_of(const std::vector<std::pair<std::string, std::string>>& files, const std::string& main = "main.s") {
  std::string dir = test_dir();
  mkdir((dir + "/inc").c_str(), 0755);
  for (const auto& [name, text] : files) write(dir + "/" + name, text);
  DiagnosticSink d(1000);
  Options o;
  o.target = isa::Target::gfx906;
  o.include_dirs = {dir + "/inc"};
  assemble(read(dir + "/" + main), dir + "/" + main, o, d);
  std::string t = d.format_all();
  // paths relative to the test folder, for readable expectations
  for (size_t at; (at = t.find(dir + "/")) != std::string::npos;) t.erase(at, dir.size() + 1);
  return {t, d.diagnostics(), d.error_count()};
}

TEST(MacroErrors, MissingIncludeNamesTheFileAndTheFoldersSearched) {
  auto r = errors_of({{"main.s", "  s_nop 0\n  .include \"nope.inc\"\n  s_nop 1\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:12: error: cannot find include file 'nope.inc' (searched: "), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find(", inc)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("  .include \"nope.inc\"\n           ^"), std::string::npos) << r.text;
}

TEST(MacroErrors, RecursiveIncludeStopsWithANamedError) {
  auto r = errors_of({{"main.s", ".include \"loop.inc\"\n"}, {"inc/loop.inc", "s_nop 0\n.include \"loop.inc\"\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("loop.inc:2:1: error: '.include' nested more than 32 levels deep"), std::string::npos)
      << r.text;
}

TEST(MacroErrors, ErrorInsideAnIncludedFileNamesThatFileAndLine) {
  auto r = errors_of({{"main.s", "  s_nop 0\n.include \"bad.inc\"\n  v_bogus_op v1\n"},
                      {"inc/bad.inc", "// line 1\n\n  s_mov_b32 s0 s1\n"}});
  EXPECT_EQ(r.errors, 2u) << r.text;
  EXPECT_NE(r.text.find("inc/bad.inc:3:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("  s_mov_b32 s0 s1\n"), std::string::npos) << r.text;  // the included file's own text
  EXPECT_NE(r.text.find("main.s:3:3: error:"), std::string::npos) << r.text;  // back in the main file
}

TEST(MacroErrors, ErrorInsideAnExpansionPointsAtTheBodyAndNotesTheCall) {
  auto r = errors_of({{"main.s",
                       ".macro inner reg\n"
                       "  v_add_f32 \\reg, v1\n"
                       ".endm\n"
                       ".macro outer\n"
                       "  inner v9\n"
                       ".endm\n"
                       "  s_nop 0\n"
                       "  outer\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  ASSERT_GE(r.diags.size(), 3u) << r.text;
  EXPECT_EQ(r.diags[0].loc.line, 2u);
  EXPECT_EQ(r.diags[1].severity, Severity::Note);
  EXPECT_NE(r.diags[1].message.find("in expansion of macro 'inner'"), std::string::npos) << r.text;
  EXPECT_EQ(r.diags[1].loc.line, 5u);
  EXPECT_EQ(r.diags[1].loc.col, 3u);
  EXPECT_NE(r.diags[2].message.find("in expansion of macro 'outer'"), std::string::npos) << r.text;
  EXPECT_EQ(r.diags[2].loc.line, 8u);
}

TEST(MacroErrors, ColumnsAfterASubstitutionMapBackToTheBody) {
  // the bad operand comes after a long substituted argument: the caret is under
  // the operand as written in the macro body
  auto r = errors_of({{"main.s",
                       ".macro m op\n"
                       "\t\\op v0, v1, bogus_reg\n"
                       ".endm\n"
                       "\tm v_fma_f32\n"}});
  ASSERT_EQ(r.errors, 1u) << r.text;
  EXPECT_EQ(r.diags[0].loc.line, 2u);
  EXPECT_EQ(r.diags[0].loc.col, 14u) << r.text;  // "\t\op v0, v1, " is 13 characters
}

TEST(MacroErrors, UnterminatedDefinitionsPointAtTheirStart) {
  auto r = errors_of({{"main.s", "  s_nop 0\n  .macro never_closed a\n  s_nop \\a\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:3: error: '.macro' without '.endm'"), std::string::npos) << r.text;
  r = errors_of({{"main.s", ".rept 3\n  s_nop 0\n.rept 2\n.endr\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:1:1: error: '.rept' without '.endr'"), std::string::npos) << r.text;
  // a definition does not run on past the end of the included file it starts in
  r = errors_of({{"main.s", ".include \"open.inc\"\n  s_nop 0\n.endm\n"}, {"inc/open.inc", ".macro open\n"}});
  EXPECT_NE(r.text.find("open.inc:1:1: error: '.macro' without '.endm'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:3:1: error: '.endm' without '.macro'"), std::string::npos) << r.text;
}

TEST(MacroErrors, BadArguments) {
  auto r = errors_of({{"main.s",
                       ".macro two a, b=1\n"
                       "  s_mov_b32 \\a, \\b\n"
                       ".endm\n"
                       ".macro need r:req\n"
                       "  s_nop \\r\n"
                       ".endm\n"
                       "  two s0, 2, 3\n"
                       "  two s0, c=4\n"
                       "  two a=s0, 5\n"
                       "  need\n"
                       "  two s1\n"}});
  EXPECT_EQ(r.errors, 4u) << r.text;
  EXPECT_NE(r.text.find("main.s:7:14: error: too many arguments for macro 'two' (it takes 2)"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("main.s:8:11: error: macro 'two' has no parameter named 'c'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:9:13: error: positional argument after a named one"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:10:3: error: missing value for required parameter 'r' of macro 'need'"),
            std::string::npos)
      << r.text;
}

TEST(MacroErrors, BadDefinitionsAndStrayDirectives) {
  auto r = errors_of({{"main.s",
                       ".macro dup x, x\n"
                       ".endm\n"
                       ".macro once\n"
                       ".endm\n"
                       ".macro once\n"
                       ".endm\n"
                       ".macro va a:vararg, b\n"
                       ".endm\n"
                       ".macro q a:optional\n"
                       ".endm\n"
                       ".endr\n"
                       ".exitm\n"
                       ".purgem nothing\n"
                       ".rept -1\n"
                       ".endr\n"
                       ".macr x\n"}});
  EXPECT_NE(r.text.find("main.s:1:15: error: macro 'dup' has two parameters named 'x'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:5:1: error: macro 'once' is already defined"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:7:21: error: vararg parameter 'a' must be the last one"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:9:12: error: expected 'req' or 'vararg'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:11:1: error: '.endr' without '.rept' or '.irp'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:12:1: error: '.exitm' outside of a macro"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:13:9: error: macro 'nothing' is not defined"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:14:7: error: repeat count is negative"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:16:1: error: unknown directive '.macr', did you mean '.macro'?"), std::string::npos)
      << r.text;
  EXPECT_EQ(r.errors, 9u) << r.text;
}

TEST(MacroErrors, ConditionalMisuse) {
  auto r = errors_of({{"main.s",
                       ".else\n"                  // 1
                       ".elseif 1\n"              // 2
                       ".endif\n"                 // 3
                       ".if 1\n"                  // 4
                       ".else\n"                  // 5
                       ".else\n"                  // 6
                       ".elseif 0\n"              // 7
                       ".endif\n"                 // 8
                       ".if undefined_sym\n"      // 9
                       "  s_nop 0\n"              // 10
                       ".endif\n"                 // 11
                       ".if 1 +\n"                // 12
                       ".endif\n"                 // 13
                       ".ifdef 3\n"               // 14
                       ".endif\n"                 // 15
                       ".ifc abc\n"               // 16
                       ".endif\n"                 // 17
                       ".if 0\n"                  // 18
                       ".elseif nope\n"           // 19
                       ".else junk\n"             // 20
                       ".endif\n"                 // 21
                       ".ifeq 0 junk\n"           // 22
                       ".endif\n"                 // 23
                       ".iff 1\n"}});             // 24
  EXPECT_NE(r.text.find("main.s:1:1: error: '.else' without '.if'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:2:1: error: '.elseif' without '.if'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:3:1: error: '.endif' without '.if'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:6:1: error: second '.else' for the '.if' at "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:7:1: error: '.elseif' after '.else' of the '.if' at "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:9:5: error: expected an absolute expression for the condition of '.if' "
                        "(undefined symbol 'undefined_sym')"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("main.s:12:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:14:8: error: expected a symbol name after '.ifdef'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:16:9: error: expected ',' between the two strings of '.ifc'"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("main.s:19:9: error: expected an absolute expression for '.elseif'"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("main.s:20:7: error: unexpected 'junk'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:22:9: error: unexpected 'junk'"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("main.s:24:1: error: unknown directive '.iff', did you mean '.if'?"), std::string::npos)
      << r.text;
  EXPECT_EQ(r.errors, 13u) << r.text;
  EXPECT_EQ(r.text.find("main.s:10:"), std::string::npos) << r.text;  // the body of a bad .if does not run
}

TEST(MacroErrors, UnterminatedConditionalsPointAtTheirIf) {
  auto r = errors_of({{"main.s", "  s_nop 0\n  .if 1\n  .ifdef x\n  .endif\n  s_nop 1\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:3: error: '.if' without '.endif' before the end of the file"), std::string::npos)
      << r.text;
  // skipped regions track nesting too
  r = errors_of({{"main.s", ".if 0\n.ifne 1\n.endif\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:1:1: error: '.if' without '.endif' before the end of the file"), std::string::npos)
      << r.text;
  // left open at the end of an included file and never closed: points into that file
  r = errors_of({{"main.s", ".include \"open.inc\"\n  s_nop 0\n"}, {"inc/open.inc", "\n.ifndef GUARD\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("open.inc:2:1: error: '.ifndef' without '.endif' before the end of the file"),
            std::string::npos)
      << r.text;
  // a macro body or a .rept body must close what it opens
  r = errors_of({{"main.s", ".macro m\n  .if 0\n.endm\n  m\n  s_nop 0\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:3: error: '.if' without '.endif' before the end of the expansion"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("main.s:4:3: note: in expansion of macro 'm'"), std::string::npos) << r.text;
  r = errors_of({{"main.s", ".rept 1\n  .ifb\n.endr\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:3: error: '.ifb' without '.endif' before the end of the expansion"),
            std::string::npos)
      << r.text;
  // .exitm leaves the conditionals the macro opened
  r = errors_of({{"main.s", ".macro m\n  .if 1\n  .exitm\n  .endif\n.endm\n  m\n  s_nop 0\n"}});
  EXPECT_EQ(r.errors, 0u) << r.text;
}

// Errors of a source that takes the plain path (no macro directives), as plain.s.
std::pair<size_t, std::string> plain_errors(const std::string& src) {
  DiagnosticSink d;
  Options o;
  assemble(src, "plain.s", o, d);
  return {d.error_count(), d.format_all()};
}

TEST(MacroErrors, StrayConditionalClosersInPlainSources) {
  auto [n, t] = plain_errors("  s_nop 0\n.endif\n  .else\n");
  EXPECT_EQ(n, 2u) << t;
  EXPECT_NE(t.find("plain.s:2:1: error: '.endif' without '.if'"), std::string::npos) << t;
  EXPECT_NE(t.find("plain.s:3:3: error: '.else' without '.if'"), std::string::npos) << t;
}

TEST(MacroErrors, RunawayExpansionsStopWithANamedError) {
  auto r = errors_of({{"main.s", ".macro self\n  s_nop 0\n  self\n.endm\n  self\n  s_nop 1\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:3:3: error: macros cannot be nested more than 20 levels deep"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("outer expansions"), std::string::npos) << r.text;  // notes are capped
  r = errors_of({{"main.s", ".rept 1000000\n.rept 2000000\n  s_nop 0\n.endr\n.endr\n"}});
  EXPECT_EQ(r.errors, 1u) << r.text;
  EXPECT_NE(r.text.find("main.s:2:1: error: macro expansions would produce more than 4194304 lines"),
            std::string::npos)
      << r.text;
  // a macro calling itself twice: stops at the first branch that is too deep
  r = errors_of({{"main.s", ".macro twice\n  s_nop 0\n  twice\n  twice\n.endm\n  twice\n"}});
  EXPECT_NE(r.text.find("error: macros cannot be nested more than 20 levels deep"), std::string::npos) << r.text;
  EXPECT_EQ(r.errors, 1u) << r.text;
}

TEST(MacroErrors, StrayClosersInSourcesWithoutMacrosAreErrorsToo) {
  auto [n, t] = plain_errors("  s_nop 0\n.endm\n.exitm\n");
  EXPECT_EQ(n, 2u) << t;
  EXPECT_NE(t.find("plain.s:2:1: error: '.endm' without '.macro'"), std::string::npos) << t;
}

}  // namespace
}  // namespace k100::as
