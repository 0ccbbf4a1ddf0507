#include "k100/dsl/parser.h"

#include <gtest/gtest.h>

#include "dsl_test_support.h"

namespace k100::dsl {
namespace {

struct Parsed {
  Module module;
  DiagnosticSink sink;
};

Parsed run(std::string_view text) {
  Parsed p;
  SourceText src("t.kkl", text);
  p.module = parse_source(src, p.sink);
  return p;
}

// The dump of the first function's body.
std::string body(std::string_view text) {
  auto p = run(text);
  EXPECT_FALSE(p.sink.has_errors()) << p.sink.format_all();
  if (p.module.functions.empty()) return "<no function>";
  return dump(p.module.functions[0].body);
}

std::string in_kernel(std::string_view stmts) {
  return body("def k(p: ptr[f32], n: u32):\n" + testing::indent(stmts));
}

TEST(DslParser, SignatureConstantsHelpersImports) {
  auto p = run(
      "from k100lc_kernels.dsl import *\nimport math\nBLOCK = 64 * 4\n"
      "@inline\ndef sq(x) -> f32:\n    return x * x\n"
      "def k(a: ptr[f32], b: ptr[u8], n: u32, s: s32, f: f32) -> None:\n    pass\n");
  ASSERT_FALSE(p.sink.has_errors()) << p.sink.format_all();
  ASSERT_EQ(p.module.constants.size(), 1u);
  EXPECT_EQ(p.module.constants[0].name, "BLOCK");
  EXPECT_EQ(dump(*p.module.constants[0].value), "(* 64 4)");
  ASSERT_EQ(p.module.functions.size(), 2u);
  const auto& sq = p.module.functions[0];
  EXPECT_TRUE(sq.inline_decorator);
  EXPECT_FALSE(sq.params[0].ann.has_value());
  ASSERT_TRUE(sq.returns.has_value());
  EXPECT_EQ(type_name(sq.returns->type), "f32");
  const auto& k = p.module.functions[1];
  EXPECT_FALSE(k.inline_decorator);
  ASSERT_EQ(k.params.size(), 5u);
  std::string sig;
  for (const auto& q : k.params) sig += q.name + ":" + type_name(q.ann->type) + " ";
  EXPECT_EQ(sig, "a:ptr[f32] b:ptr[u8] n:u32 s:s32 f:f32 ");
  EXPECT_EQ(k.params[3].loc.line, 7u);
  EXPECT_EQ(k.params[3].loc.col, 40u);
}

TEST(DslParser, Statements) {
  EXPECT_EQ(in_kernel("x = 1\ny: f32 = 2\nx += 3\nx //= 2\nx <<= 1\np[x] = y\npass\nbarrier()\n"),
            " (= x 1) (= y :f32 2) (+= x 3) (//= x 2) (<<= x 1) (= (sub p x) y) (pass) (do (barrier))");
  EXPECT_EQ(in_kernel("if x < n:\n    a = 1\nelif x == n:\n    a = 2\nelse:\n    a = 3\n"),
            " (if (< x n) (= a 1) else (if (== x n) (= a 2) else (= a 3)))");
  EXPECT_EQ(in_kernel("while x < n:\n    if x > 3:\n        break\n    continue\n"),
            " (while (< x n) (if (> x 3) (break)) (continue))");
  EXPECT_EQ(in_kernel("for i in range(n):\n    pass\nfor j in range(1, n, 2):\n    return\n"
                      "for k in static_range(4):\n    p[k] = 0\n"),
            " (for i (range n) (pass)) (for j (range 1 n 2) (return)) (for k (static_range 4) (= (sub p k) 0))");
  EXPECT_EQ(in_kernel("if x: a = 1; b = 2\n"), " (if x (= a 1) (= b 2))");
}

TEST(DslParser, PrecedenceFollowsPython) {
  EXPECT_EQ(in_kernel("x = a + b * c - d / e // f % g\n"), " (= x (- (+ a (* b c)) (% (// (/ d e) f) g)))");
  EXPECT_EQ(in_kernel("x = a | b ^ c & d << 1 + e\n"), " (= x (| a (^ b (& c (<< d (+ 1 e))))))");
  EXPECT_EQ(in_kernel("x = -a * ~b\n"), " (= x (* (- a) (~ b)))");
  EXPECT_EQ(in_kernel("if not a < b and c >= d or e != f:\n    pass\n"),
            " (if (or (and (not (< a b)) (>= c d)) (!= e f)) (pass))");
  EXPECT_EQ(in_kernel("x = a if c > 0 else b + 1\n"), " (= x (ifexp (> c 0) a (+ b 1)))");
  EXPECT_EQ(in_kernel("x = (a + b) * p[i + 1] >> 2\n"), " (= x (>> (* (+ a b) (sub p (+ i 1))) 2))");
  EXPECT_EQ(in_kernel("x = fma(a, b, c) + 1.5\n"), " (= x (+ (fma a b c) 1.5))");
  EXPECT_EQ(in_kernel("x = a - b - c\n"), " (= x (- (- a b) c))");
}

void expect_error(std::string_view text, const std::string& where, const std::string& message,
                  const std::string& caret) {
  auto p = run(text);
  ASSERT_TRUE(p.sink.has_errors()) << text;
  testing::expect_diagnostic(p.sink.format_all(), where, message, caret);
}

TEST(DslParser, RefusedConstructsSayWhatIsAllowed) {
  const std::string k = "def k(p: ptr[f32], n: u32):\n";
  expect_error(k + "    a, b = 1, 2\n", "2:6", "tuple assignment is not supported; assign each name on its own line",
               "     ^");
  expect_error(k + "    a = b = 1\n", "2:11", "chained assignment is not supported; assign each name on its own line",
               "          ^");
  expect_error(k + "    if 0 < n < 4:\n        pass\n", "2:14",
               "chained comparisons (a < b < c) are not supported; write (a < b) and (b < c)", "             ^");
  expect_error(k + "    with x:\n        pass\n", "2:5", "'with' is not supported", "    ^");
  expect_error(k + "    x = a ** 2\n", "2:11", "'**' is not supported; multiply (x * x) or use exp()",
               "          ^");
  expect_error(k + "    x = [1, 2]\n", "2:9", "list displays are not supported; use a pointer parameter or an LDS",
               "        ^");
  expect_error(k + "    x = p.shape\n", "2:10", "attribute access (a.b) is not supported", "         ^");
  expect_error(k + "    x = p[1:4]\n", "2:12", "slices are not supported; index one element: p[i]", "           ^");
  expect_error(k + "    x = f(a=1)\n", "2:11", "keyword arguments are not supported; pass arguments by position",
               "          ^");
  expect_error(k + "    for x in p:\n        pass\n", "2:14",
               "a for loop runs over range(...) or static_range(...)", "             ^");
  expect_error(k + "    for i in range(1, 2, 3, 4):\n        pass\n", "2:14", "range takes 1 to 3 arguments",
               "             ^");
  expect_error(k + "    while n:\n        pass\n    else:\n        pass\n", "4:5",
               "'else' after a loop is not supported; set a variable before 'break'", "    ^");
  expect_error(k + "    def h():\n        pass\n", "2:5",
               "a 'def' inside a function is not supported; define helpers at the top level", "    ^");
  expect_error(k + "    x = +a\n", "2:9", "unary '+' is not supported; write the operand alone", "        ^");
  expect_error(k + "    x = True\n", "2:9", "'True' is not supported; write 1", "        ^");
  expect_error(k + "    if a is b:\n        pass\n", "2:10", "'is' is not supported; compare numbers with == or !=",
               "         ^");
  expect_error(k + "    x: ptr[f32] = p\n", "2:8", "local pointers are not supported; index the pointer parameter",
               "       ^");
  expect_error(k + "    x: f32\n", "2:11", "an annotated variable needs an initial value: write x: f32 = <value>",
               "          ^");
  expect_error(k + "    p[i] += 1\n", "2:5", "'+=' needs a variable name on the left; write p[i] = p[i] + v",
               "    ^");
  expect_error(k + "    x = (a, b)\n", "2:11", "tuples are not supported", "          ^");
  expect_error(k + "    y = x if c\n", "2:15", "a conditional expression needs 'else'", "              ^");
  expect_error(k + "    lambda: 0\n", "2:5", "'lambda' is not supported; write a helper function", "    ^");
  expect_error(k + "    import math\n", "2:5", "imports are allowed only at the top level", "    ^");
  expect_error(k + "    x = 4294967296\n", "2:9", "does not fit in 32 bits", "        ^");
  expect_error("def k(p: ptr[f23]):\n    pass\n", "1:14", "unknown element type 'f23' (did you mean 'f32'?)",
               "             ^");
  expect_error("def k(n: u3):\n    pass\n", "1:10", "unknown type 'u3' (did you mean 'u32'?); parameters are",
               "         ^");
  expect_error("def k(n: f16):\n    pass\n", "1:10", "scalar parameters are u32, s32 or f32", "         ^");
  expect_error("def k(n):\n    pass\n@jit\ndef g():\n    pass\n", "3:2",
               "unknown decorator 'jit'; the only decorator is @inline", " ^");
  expect_error("def k(n=1):\n    pass\n", "1:8", "default parameter values are not supported", "       ^");
  expect_error("x += 1\n", "1:1", "only 'def' (kernels and helpers), constants (NAME = value) and imports may appear",
               "^");
  expect_error("def k():\n    pass\ndef k():\n    pass\n", "3:5", "function 'k' is defined twice (first at line 1)",
               "    ^");
  expect_error("class A:\n    pass\n", "1:1", "'class' is not supported; write kernels and helpers as top-level",
               "^");
}

TEST(DslParser, MoreRefusals) {
  const std::string k = "def k(p: ptr[f32], n: u32):\n";
  expect_error(k + "    x = {1: 2}\n", "2:9", "dict and set displays are not supported; use an LDS array", "        ^");
  expect_error(k + "    x = ()\n", "2:10", "empty tuples are not supported", "         ^");
  expect_error(k + "    x = ...\n", "2:9", "'...' is not supported; write 'pass' for an empty block", "        ^");
  expect_error(k + "    else:\n        pass\n", "2:5", "'else' without a matching 'if'", "    ^");
  expect_error(k + "    if a not in b:\n        pass\n", "2:10", "'not in' is not supported; compare with == or !=",
               "         ^");
  expect_error(k + "    x = a in b\n", "2:11", "'in' is not supported outside 'for NAME in range(...)'",
               "          ^");
  expect_error(k + "    x = 1\n        y = 2\n", "3:9", "unexpected indentation; this line is not inside a block",
               "        ^");
  expect_error(k + "    for i, j in range(4):\n        pass\n", "2:9", "tuple loop targets are not supported",
               "        ^");
  expect_error(k + "    x = p[1, 2]\n", "2:12", "multi-dimensional indexing is not supported; compute a flat index",
               "           ^");
  expect_error(k + "    x = f(1)(2)\n", "2:9", "only a function name can be called", "        ^");
  expect_error(k + "    x = f(1)[2]\n", "2:9", "only a pointer parameter or an LDS array name can be indexed",
               "        ^");
  expect_error(k + "    x **= 2\n", "2:7", "'**=' is not supported; augmented assignment takes + - * / // % & | ^ << >>",
               "      ^");
  expect_error(k + "    x = a @ b\n", "2:11", "'@' (matrix multiplication) is not supported", "          ^");
  expect_error(k + "    if (x := 1) > 0:\n        pass\n", "2:11", "assignment expressions (:=) are not supported",
               "          ^");
  expect_error(k + "    x: u8 = 1\n", "2:8", "a 'u8' variable is not supported; values are f32, f16, bf16, u32 or s32",
               "       ^");
  expect_error(k + "    x = 1 if\n", "2:13", "expected a value, found end of line", "            ^");
  expect_error(k + "    return a, b\n", "2:13", "returning several values is not supported", "            ^");
  expect_error(k + "    x = if\n", "2:9", "expected a value, found the keyword 'if'", "        ^");
  expect_error("def if():\n    pass\n", "1:5", "'if' is a keyword and cannot be used as a function name", "    ^");
  expect_error("def k(*args):\n    pass\n", "1:7", "'*' in a parameter list is not supported", "      ^");
  expect_error("def k(a, a):\n    pass\n", "1:10", "parameter 'a' is listed twice", "         ^");
  expect_error("@inline(1)\ndef k():\n    pass\n", "1:8", "@inline takes no arguments", "       ^");
  expect_error("@inline\nx = 1\n", "2:1", "a decorator must be followed by 'def'", "^");
  expect_error("def k():\nx = 1\n", "2:1", "expected an indented block after ':'", "^");
  expect_error("def k(n: u32)\n    pass\n", "1:14", "expected ':' after the function's signature, found end of line",
               "             ^");
  expect_error("  x = 1\n", "1:3", "unexpected indentation; top-level statements start in column 1", "  ^");
}

TEST(DslParser, ReportsEveryBrokenStatementOfAFile) {
  auto p = run("def k(n: u32):\n    a, b = 1\n    x = 1\n    with q:\n        y = 2\n    z = [1]\n"
               "def g(n: u32):\n    pass\n");
  EXPECT_EQ(p.sink.error_count(), 3u) << p.sink.format_all();
  EXPECT_EQ(p.module.functions.size(), 2u);
}

}  // namespace
}  // namespace k100::dsl
