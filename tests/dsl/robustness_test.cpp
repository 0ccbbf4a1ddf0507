// Broken and hostile inputs end in diagnostics, never in a crash, an
// exception or a hang: mutations of the example kernels and pathological
// nesting.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "k100/dsl/typing.h"

namespace k100::dsl {
namespace {

struct Outcome {
  bool errors = false;
  size_t kernels = 0;
};

Outcome run(const std::string& text) {
  SourceText src("m.kkl", text);
  DiagnosticSink sink;
  auto ks = check_source(src, sink);
  for (const auto& d : sink.diagnostics()) {
    // Every error points into the file (a line of it, or one past the end).
    EXPECT_GE(d.loc.line, 1u) << d.format();
    EXPECT_FALSE(d.message.empty());
  }
  return Outcome{sink.has_errors(), ks.size()};
}

std::vector<std::string> examples() {
  std::vector<std::string> out;
  std::filesystem::path dir = std::filesystem::path(K100_SOURCE_DIR) / "tests/dsl/kkl";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".kkl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

TEST(DslRobustness, MutatedExamplesNeverCrash) {
  const char inserts[] = {'(', ')', ':', ' ', '\t', '\'', '[', '-', '\n', '=', '#', '@', 'x', '0', '.', ','};
  size_t runs = 0, refused = 0;
  for (const auto& text : examples()) {
    ASSERT_FALSE(text.empty());
    for (size_t pos = 0; pos < text.size(); pos += 5) {
      Outcome cut = run(text.substr(0, pos));
      Outcome del = run(text.substr(0, pos) + text.substr(pos + 1));
      std::string ins = text;
      ins.insert(ins.begin() + static_cast<long>(pos), inserts[(pos / 5) % sizeof inserts]);
      Outcome add = run(ins);
      runs += 3;
      refused += cut.errors + del.errors + add.errors;
    }
  }
  // Most mutations break something; the point is that none crashed.
  EXPECT_GT(runs, 1000u);
  EXPECT_GT(refused, runs / 4);
}

TEST(DslRobustness, PathologicalNestingIsAnError) {
  const std::string k = "def k(p: ptr[f32]):\n";
  EXPECT_TRUE(run(k + "    x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n").errors);
  EXPECT_TRUE(run(k + "    x = " + std::string(100000, '-') + "1\n").errors);
  EXPECT_TRUE(run(k + "    x = " + std::string(5000, '~') + "1\n").errors);
  std::string nots = k + "    if ";
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_TRUE(run(nots + "1 < 2:\n        pass\n").errors);
  std::string elifs = k + "    if p[0] > 0.0:\n        pass\n";
  for (int i = 0; i < 5000; ++i) elifs += "    elif p[0] > " + std::to_string(i) + ".0:\n        pass\n";
  EXPECT_TRUE(run(elifs).errors);
  std::string blocks = k;
  for (int i = 0; i < 400; ++i) blocks += std::string(4 * (i + 1), ' ') + "if p[0] > 0.0:\n";
  blocks += std::string(4 * 401, ' ') + "pass\n";
  EXPECT_TRUE(run(blocks).errors);
  // Unrolling and inlining budgets.
  EXPECT_TRUE(run(k + "    for i in static_range(4096):\n        for j in static_range(4096):\n"
                      "            p[0] = 1.0\n").errors);
  std::string chain = "def h0(x):\n    return x + 1\n";
  for (int i = 1; i < 20; ++i)
    chain += "def h" + std::to_string(i) + "(x):\n    return h" + std::to_string(i - 1) + "(x) + h" +
             std::to_string(i - 1) + "(x)\n";
  EXPECT_TRUE(run(chain + k + "    p[0] = h19(1)\n").errors);
  std::string chain_expr = k + "    x = p[0]";
  for (int i = 0; i < 100000; ++i) chain_expr += " + p[0]";
  EXPECT_TRUE(run(chain_expr + "\n").errors);
  // A moderate nesting is fine.
  EXPECT_FALSE(run(k + "    x = " + std::string(50, '(') + "1.0" + std::string(50, ')') + "\n    p[0] = x\n").errors);
}

TEST(DslRobustness, OddBytes) {
  EXPECT_TRUE(run(std::string("def k(p: ptr[f32]):\n    x = 1\0\n", 30)).errors);
  EXPECT_TRUE(run("def k(p: ptr[f32]):\n    x = \xc3\xa9\n").errors);
  EXPECT_TRUE(run("def k(p: ptr[f32]):\r\n    p[0] = 1.0\r\n").errors == false);
  EXPECT_FALSE(run("").errors);
  EXPECT_FALSE(run("# only a comment\n\n").errors);
}

}  // namespace
}  // namespace k100::dsl
