#include "k100/dsl/typing.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "dsl_test_support.h"

namespace k100::dsl {
namespace {

struct Checked {
  std::vector<TypedKernel> kernels;
  DiagnosticSink sink;
};

Checked run(std::string_view text, std::string file = "t.kkl") {
  Checked c;
  SourceText src(std::move(file), text);
  c.kernels = check_source(src, c.sink);
  return c;
}

const std::string kHead = "def k(p: ptr[f32], q: ptr[u32], n: u32, s: s32, f: f32):\n";

using testing::indent;

// The typed dump of kernel k's body (statements given without indentation).
std::string typed(std::string_view stmts, std::string prelude = "") {
  auto c = run(prelude + kHead + indent(stmts));
  EXPECT_FALSE(c.sink.has_errors()) << c.sink.format_all();
  if (c.kernels.empty()) return "<none>";
  return dump(c.kernels[0].body, true);
}

void expect_error(std::string_view stmts, const std::string& where, const std::string& message,
                  const std::string& caret, std::string prelude = "") {
  auto c = run(prelude + kHead + indent(stmts));
  ASSERT_TRUE(c.sink.has_errors()) << stmts;
  testing::expect_diagnostic(c.sink.format_all(), where, message, caret);
}

std::string read_kkl(const std::string& name) {
  std::ifstream in(std::string(K100_SOURCE_DIR) + "/tests/dsl/kkl/" + name + ".kkl");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DslTyping, ExampleKernelsTypeCheck) {
  struct Case {
    const char* file;
    const char* signature;
    uint32_t lds;
  };
  const Case cases[] = {
      {"vadd", "vadd(a: ptr[f32], b: ptr[f32], out: ptr[f32], n: u32)", 0},
      {"axpy", "axpy(a: ptr[f32], x: ptr[f32], y: ptr[f32], n: u32, alpha: f32)", 0},
      {"silu", "silu(x: ptr[f32], y: ptr[f32], n: u32)", 0},
      {"clamp_scale", "clamp_scale(src: ptr[f32], dst: ptr[f32], n: u32, lo: f32, hi: f32, k: f32)", 0},
      {"row_sumsq", "row_sumsq(x: ptr[f32], out: ptr[f32], cols: u32)", 256},
      {"widen_f16", "widen_f16(src: ptr[u8], dst: ptr[f32], n: u32)", 0},
      {"rope_apply_k",
       "rope_apply_k(y: ptr[f32], x: ptr[f32], cs: ptr[f32], sn: ptr[f32], rows: u32, dim: u32, tsh: u32, "
       "tbase: u32)", 0},
      {"embed_f16_k", "embed_f16_k(y: ptr[f32], ids: ptr[u32], tab: ptr[u16], rows: u32, dim: u32)", 0},
      {"vt_scatter_k",
       "vt_scatter_k(vt: ptr[f32], v: ptr[f32], rows: u32, dim: u32, vstride: u32, ystride: u32, y0: u32, "
       "cshift: u32)", 64 * 65 * 4},
      {"vt_scatter_v_k",
       "vt_scatter_v_k(vt: ptr[f32], vc: ptr[f32], k: ptr[f32], v: ptr[f32], rows: u32, dim: u32, kstride: u32, "
       "vstride: u32, ystride: u32, y0: u32, cshift: u32)", 64 * 65 * 4},
  };
  for (const auto& c : cases) {
    std::string text = read_kkl(c.file);
    ASSERT_FALSE(text.empty()) << c.file;
    auto r = run(text, std::string(c.file) + ".kkl");
    EXPECT_FALSE(r.sink.has_errors()) << r.sink.format_all();
    ASSERT_EQ(r.kernels.size(), 1u) << c.file;
    EXPECT_EQ(r.kernels[0].signature(), c.signature);
    EXPECT_EQ(r.kernels[0].lds_bytes, c.lds) << c.file;
  }
}

TEST(DslTyping, CountPositiveIsRefusedByTheRegionRule) {
  auto r = run(read_kkl("count_positive"));
  ASSERT_EQ(r.sink.error_count(), 1u) << r.sink.format_all();
  testing::expect_diagnostic(r.sink.format_all(), "7:13",
                             "uniform variable 'hits' (created at line 4) cannot be assigned here, inside the varying "
                             "control flow at line 6",
                             "            ^");
  EXPECT_NE(r.sink.format_all().find("use an f32 variable for a per-lane counter or accumulator (hits = 0.0)"),
            std::string::npos);
  // The fix the spec gives: an f32 counter is per lane.
  std::string fixed = read_kkl("count_positive");
  fixed.replace(fixed.find("hits = 0 "), 9, "hits = 0.0");
  auto ok = run(fixed);
  EXPECT_FALSE(ok.sink.has_errors()) << ok.sink.format_all();
}

TEST(DslTyping, PromotionAndLiterals) {
  // Integer literals in f32 context become f32 constants; integer variables convert by value.
  EXPECT_EQ(typed("x = p[n] + 1\n"), " (= x:f32' (+ (sub p:ptr[f32] n:u32):f32' 1.0:f32):f32')");
  EXPECT_EQ(typed("x = f * n\n"), " (= x:f32' (* f:f32' (cvt n:u32):f32'):f32')");
  // One s32 operand makes the result s32; -1 is an s32 literal.
  EXPECT_EQ(typed("x = n + s\ny = -1\n"), " (= x:s32 (+ (cvt n:u32):s32 s:s32):s32) (= y:s32 4294967295:s32)");
  // Integer division and modulo by any value; shifts keep the left type.
  EXPECT_EQ(typed("x = n / 3 + n % s\n"),
            " (= x:s32 (+ (cvt (/ n:u32 3:u32):u32):s32 (% (cvt n:u32):s32 s:s32):s32):s32)");
  EXPECT_EQ(typed("x = s >> n\n"), " (= x:s32 (>> s:s32 n:u32):s32)");
  // Narrow loads widen: u8 → u32, s16 → s32 (via a pointer of that element).
  auto c = run("def k(a: ptr[u8], b: ptr[s16], o: ptr[s32]):\n    o[0] = a[0] + b[1]\n");
  ASSERT_FALSE(c.sink.has_errors()) << c.sink.format_all();
  EXPECT_EQ(dump(c.kernels[0].body, true),
            " (= (sub o:ptr[s32] 0:u32):s32' (+ (cvt (sub a:ptr[u8] 0:u32):u32'):s32' (sub b:ptr[s16] 1:u32):s32'):s32')");
  // Annotations force a type; storing an integer into f32 memory converts by value.
  EXPECT_EQ(typed("x: f32 = 2\ny: s32 = n\np[0] = y\n"),
            " (= x:f32' 2.0:f32) (= y:s32 (cvt n:u32):s32) (= (sub p:ptr[f32] 0:u32):f32' (cvt y:s32):f32')");
  // f16 arithmetic stays f16; mixing with f32 gives f32.
  EXPECT_EQ(typed("h = f16(f)\ng = h * h + 1\nx = g + f\n"),
            " (= h:f16' (cvt f:f32'):f16') (= g:f16' (+ (* h:f16' h:f16'):f16' 1.0:f16):f16') "
            "(= x:f32' (+ (cvt g:f16'):f32' f:f32'):f32')");
  // bf16 with an integer stays bf16, with f16 is f32; f16/bf16 literals
  // hold their type's nearest value.
  EXPECT_EQ(typed("b = bf16(f)\nc = b * 3\nx = b + f16(f)\ny = f32(f16(3001))\nz = f32(bf16(257))\n"),
            " (= b:bf16' (cvt f:f32'):bf16') (= c:bf16' (* b:bf16' 3.0:bf16):bf16') "
            "(= x:f32' (+ (cvt b:bf16'):f32' (cvt (cvt f:f32'):f16'):f32'):f32') (= y:f32' 3000.0:f32) "
            "(= z:f32' 256.0:f32)");
  // pack_f16 converts both to f16 and is a per-lane u32.
  EXPECT_EQ(typed("w = pack_f16(1, f)\n"), " (= w:u32' (pack_f16 1.0:f16 (cvt f:f32'):f16'):u32')");
  // Constants fold; a conditional expression unifies its branches.
  EXPECT_EQ(typed("x = W * 2 + HALF\ny = 1 if n > 2 else 2.5\n", "W = 16\nHALF = 0.5\n"),
            " (= x:f32' (+ (cvt (* 16:u32 2:u32):u32):f32' 0.5:f32):f32') (= y:f32' (ifexp (> n:u32 2:u32):bool 1.0:f32 2.5:f32):f32')");
}

TEST(DslTyping, UniformAndVarying) {
  // Ids: bid uniform, gid/lid/lane varying, with dimensions.
  EXPECT_EQ(typed("a = bid(1)\nb = gid(2)\nc = lid()\nd = a + n\n"),
            " (= a:u32 (bid 1:u32):u32) (= b:u32' (gid 2:u32):u32') (= c:u32' (lid 0:u32):u32') "
            "(= d:u32 (+ a:u32 n:u32):u32)");
  // A variable assigned a per-lane value anywhere is per-lane everywhere.
  EXPECT_EQ(typed("x = n\nx = gid()\n"), " (= x:u32' n:u32) (= x:u32' (gid 0:u32):u32')");
  // A uniform if branches; a varying one is marked.
  EXPECT_EQ(typed("if n > 2:\n    pass\nif gid() > 2:\n    pass\n"),
            " (if (> n:u32 2:u32):bool) (if' (> (gid 0:u32):u32' 2:u32):bool')");
  // A scalar created and updated inside the same varying region stays scalar (the K-quant pattern).
  EXPECT_EQ(typed("if gid() < n:\n    b = n\n    b = b + 1\n"),
            " (if' (< (gid 0:u32):u32' n:u32):bool' (= b:u32 n:u32) (= b:u32 (+ b:u32 1:u32):u32))");
  // A break under a varying if makes the loop varying, its counter per lane.
  EXPECT_EQ(typed("for i in range(n):\n    if p[i] > 0.0:\n        break\n"),
            " (for' i (range 0:u32 n:u32) step 1 (if' (> (sub p:ptr[f32] i:u32'):f32' 0.0:f32):bool' (break)))");
  // A uniform loop around varying work keeps its counter scalar.
  EXPECT_EQ(typed("for i in range(n):\n    p[i] = 0\n"),
            " (for i (range 0:u32 n:u32) step 1 (= (sub p:ptr[f32] i:u32):f32' 0.0:f32))");
}

TEST(DslTyping, LoopsAndControlFlow) {
  EXPECT_EQ(typed("for i in range(n, 0, -2):\n    continue\n"),
            " (for i (range (cvt n:u32):s32 0:s32) step -2 (continue))");
  EXPECT_EQ(typed("while 1:\n    break\n"), " (while 1:u32 (break))");
  EXPECT_EQ(typed("i = gid()\nwhile i < n:\n    i = i + 64\n"),
            " (= i:u32' (gid 0:u32):u32') (while' (< i:u32' n:u32):bool' (= i:u32' (+ i:u32' 64:u32):u32'))");
  EXPECT_EQ(typed("if gid() >= n:\n    return\np[0] = 1.0\n"),
            " (if' (>= (gid 0:u32):u32' n:u32):bool' (return)) (= (sub p:ptr[f32] 0:u32):f32' 1.0:f32)");
  EXPECT_EQ(typed("if n == 0:\n    x = 1\nelif n == 1:\n    x = 2\nelse:\n    x = 3\n"),
            " (if (== n:u32 0:u32):bool (= x:u32 1:u32) else (if (== n:u32 1:u32):bool (= x:u32 2:u32) else "
            "(= x:u32 3:u32)))");
  // static_range unrolls; its counter is a constant in each copy (LDS indices fold).
  EXPECT_EQ(typed("t = lds(4)\nfor j in static_range(1, 4, 2):\n    t[j] = j\n"),
            " (= (sub t:lds[f32] 1:u32):f32' 1.0:f32) (= (sub t:lds[f32] 3:u32):f32' 3.0:f32)");
  EXPECT_EQ(typed("x = 0\nx += n\nx <<= 2\n"),
            " (= x:u32 0:u32) (= x:u32 (+ x:u32 n:u32):u32) (= x:u32 (<< x:u32 2:u32):u32)");
}

TEST(DslTyping, BuiltinsTyping) {
  EXPECT_EQ(typed("x = sqrt(4)\ny = fma(f, 2, 1)\nz = max(n, 3)\nw = min(f, 1)\n"),
            " (= x:f32' (sqrt 4.0:f32):f32') (= y:f32' (fma f:f32' 2.0:f32 1.0:f32):f32') "
            "(= z:u32 (max n:u32 3:u32):u32) (= w:f32' (min f:f32' 1.0:f32):f32')");
  EXPECT_EQ(typed("old = atomic_add(p, 0, 1)\natomic_max(q, n, 5)\nv = atomic_cas(q, 1, 2, 3)\n"),
            " (= old:f32' (atomic_add p:ptr[f32] 0:u32 1.0:f32):f32') (do (atomic_max q:ptr[u32] n:u32 5:u32):u32') "
            "(= v:u32' (atomic_cas q:ptr[u32] 1:u32 2:u32 3:u32):u32')");
  EXPECT_EQ(typed("a = lds(64, u32)\nold = atomic_add(a, lane(), 1)\nbarrier()\n"),
            " (= old:u32' (atomic_add a:lds[u32] (lane 0:u32):u32' 1:u32):u32') (do (barrier):void)");
  EXPECT_EQ(typed("m = ballot(gid() < n)\nx = wave_sum(n)\ny = shuffle(f, lane() ^ 1)\nz = broadcast(gid(), 0)\n"),
            " (= m:u64 (ballot (< (gid 0:u32):u32' n:u32):bool'):u64) (= x:u32 (wave_sum n:u32):u32) "
            "(= y:f32' (shuffle f:f32' (^ (lane 0:u32):u32' 1:u32):u32'):f32') "
            "(= z:u32 (broadcast (gid 0:u32):u32' 0:u32):u32)");
  EXPECT_EQ(typed("a = dot2(n, n, f)\nb = dot4(q[0], q[1], 0)\n"),
            " (= a:f32' (dot2 n:u32 n:u32 f:f32'):f32') (= b:s32' (dot4 (sub q:ptr[u32] 0:u32):u32' "
            "(sub q:ptr[u32] 1:u32):u32' 0:s32):s32')");
  EXPECT_EQ(typed("x = f16_to_f32(load16(q, 2))\ny = ubyte(n)\nz = s8(n)\nw = u32(f)\n"),
            " (= x:f32' (f16_to_f32 (load16 q:ptr[u32] 2:u32):u32'):f32') (= y:f32' (ubyte n:u32):f32') "
            "(= z:s32 (s8 n:u32):s32) (= w:u32' (cvt f:f32'):u32')");
}

TEST(DslTyping, HelpersAreInlined) {
  std::string helpers =
      "@inline\ndef sq(x):\n    return x * x\n"
      "def clampi(v: s32, hi: s32) -> s32:\n    if v > hi:\n        return hi\n    return v\n"
      "def put(dst, i: u32, v: f32):\n    dst[i] = v\n";
  auto c = run(helpers + kHead + indent("a = sq(f) + 1.0\nb = clampi(s, 4)\nput(p, n, a)\n"));
  ASSERT_FALSE(c.sink.has_errors()) << c.sink.format_all();
  ASSERT_EQ(c.kernels.size(), 1u);  // sq, clampi and put are helpers, not kernels
  EXPECT_EQ(dump(c.kernels[0].body, true),
            " (inlined sq (= x:f32' f:f32') (= sq:f32' (* x:f32' x:f32'):f32') (return)) "
            "(= a:f32' (+ sq:f32' 1.0:f32):f32') "
            "(inlined clampi (= v:s32 s:s32) (= hi:s32 4:s32) (if (> v:s32 hi:s32):bool (= clampi:s32 hi:s32) (return)) "
            "(= clampi:s32 v:s32) (return)) (= b:s32 clampi:s32) "
            "(inlined put (= i:u32 n:u32) (= v:f32' a:f32') (= (sub dst:ptr[f32] i:u32):f32' v:f32'))");
}

TEST(DslTyping, Errors) {
  expect_error("x = sqr(f)\n", "2:9", "unknown function 'sqr' (did you mean 'sqrt'?)", "        ^");
  expect_error("x = nn + 1\n", "2:9", "unknown name 'nn' (did you mean 'n'?); a variable must be assigned before",
               "        ^");
  expect_error("x = f & 1\n", "2:9", "'&' needs integers; 'f' (f32) has no bit operations", "        ^");
  expect_error("x = f // 2.0\n", "2:11", "'//' on floats is not supported; write floor(a / b)", "          ^");
  expect_error("x = n / 0\n", "2:13", "division by zero", "            ^");
  expect_error("x = p + 1\n", "2:9", "'p' is a pointer and cannot be used as a number in '+'; index it: p[i]",
               "        ^");
  expect_error("x = p\n", "2:9", "local pointers are not supported; index the parameter directly (p[i])",
               "        ^");
  expect_error("x = n < 2\n", "2:11", "a comparison result cannot be stored in a variable", "          ^");
  expect_error("if n:\n    pass\n", "2:8", "a condition must be a comparison (or and/or/not of comparisons); for "
               "an integer write x != 0", "       ^");
  expect_error("x = 1\nx = f\n", "3:9", "'x' is u32 (created at line 2) and the value is f32; convert with u32(v), "
               "or create it as a float (x = 0.0)", "        ^");
  expect_error("x = n\nx = s\n", "3:9", "'x' is u32 (created at line 2) and the value is s32; write u32(v) to "
               "reinterpret it", "        ^");
  expect_error("n = 1\n", "2:5", "parameter 'n' cannot be assigned; copy it into a local variable (m = n)",
               "    ^");
  expect_error("q[0] = f\n", "2:12", "storing 'f' (f32) into 'q' (ptr[u32]) needs an explicit conversion: u32(v)",
               "           ^");
  expect_error("x = p[f]\n", "2:11", "an index must be u32 or s32, not f32; convert with u32(x)", "          ^");
  expect_error("x = n[0]\n", "2:9", "'n' is 'n' (u32), not a pointer or an LDS array", "        ^");
  expect_error("barrier(1)\n", "2:5", "barrier takes 0 arguments, got 1 (barrier())", "    ^");
  expect_error("x = barrier()\n", "2:9", "this call has no value to assign", "        ^");
  expect_error("x = 1 + lds(4)\n", "2:13", "lds(n) declares an LDS array and has no value here", "            ^");
  expect_error("if n > 1:\n    a = lds(4)\n", "3:13", "declare LDS arrays at the top level of the kernel body",
               "            ^");
  expect_error("a = lds(n)\n", "2:13", "the size of lds() must be a compile-time constant", "            ^");
  expect_error("a = lds(0)\n", "2:13", "the size of lds() must be a positive number of elements, got 0",
               "            ^");
  expect_error("a = lds(16000)\nb = lds(400)\n", "3:9", "LDS array 'b' (400 elements, 1600 bytes at offset 64000) "
               "does not fit: the kernel would use 65600 bytes of LDS, more than the 65536", "        ^");
  expect_error("a = lds(8)\nx = a[8]\n", "3:11", "index 8 is outside LDS array 'a' of 8 elements (0 to 7)",
               "          ^");
  expect_error("sqrt(f)\n", "2:5", "the result of sqrt(...) is unused; assign it to a variable", "    ^");
  expect_error("f + 1\n", "2:7", "this expression has no effect; assign it to a variable or store it", "      ^");
  expect_error("x = 1 + atomic_add(p, 0, 1.0)\n", "2:13", "atomic_add(...) has a side effect; call it as a "
               "statement or as the whole right side of an assignment", "            ^");
  expect_error("x = atomic_min(p, 0, f)\n", "2:9", "atomic_min() on f32 is not supported; f32 atomics are "
               "atomic_add, atomic_xchg and atomic_cas", "        ^");
  expect_error("x = gid(3)\n", "2:13", "the dimension of gid() is 0 (x), 1 (y) or 2 (z)", "            ^");
  expect_error("x = broadcast(f, lane())\n", "2:22", "the lane of broadcast() must be the same for the whole wave",
               "                     ^");
  expect_error("break\n", "2:5", "'break' outside a loop", "    ^");
  expect_error("for i in static_range(4):\n    break\n", "3:9", "'break' inside static_range is not supported: the "
               "loop is unrolled", "        ^");
  expect_error("for i in static_range(n):\n    pass\n", "2:27", "a bound of static_range() (use range() for "
               "run-time bounds) must be a compile-time constant", "                          ^");
  expect_error("for i in range(0, n, s):\n    pass\n", "2:26", "the step of range() must be a compile-time constant",
               "                         ^");
  expect_error("for i in range(n):\n    i = 2\n", "3:9", "the loop counter 'i' cannot be assigned inside its loop",
               "        ^");
  expect_error("for i in range(f):\n    pass\n", "2:20", "range bounds must be u32 or s32, not f32; convert with "
               "u32(x)", "                   ^");
  expect_error("return 1\n", "2:12", "a kernel returns nothing; results are stored through pointer parameters",
               "           ^");
  expect_error("i = 0\nwhile i < n:\n    if gid() < 4:\n        i = i + 1\n", "5:13",
               "uniform variable 'i' (created at line 2) cannot be assigned here, inside the varying control flow at line 4",
               "            ^");
  expect_error("if gid() < n:\n    b = 1\nb = 2\n", "4:5", "uniform variable 'b' (created at line 3) cannot be "
               "assigned here, outside the varying control flow at line 2 that created it", "    ^");
  expect_error("x = h(1)\n", "4:12", "recursive call of helper 'h' (h -> g -> h)", "           ^",
               "def h(a):\n    return g(a)\ndef g(a):\n    return h(a)\n");
  expect_error("x = h(1, 2)\n", "4:9", "helper 'h' takes 1 argument, got 2", "        ^",
               "def h(a):\n    return a\n");
  expect_error("x = 1 + st(p)\n", "5:13", "helper 'st' stores to memory (or uses atomics or barrier()); call it as "
               "a statement", "            ^", "def st(d):\n    d[0] = 1.0\n    return 1\n");
  expect_error("x = bf16(f) // s\n", "2:17", "'//' on floats is not supported; write floor(a / b)",
               "                ^");
  expect_error("sqrt = 1\n", "2:5", "'sqrt' is a built-in function; choose another variable name", "    ^");
  expect_error("W = 2\n", "3:5", "'W' is a constant (line 1); choose another variable name", "    ^", "W = 4\n");
}

TEST(DslTyping, MoreErrors) {
  expect_error("x = not n\n", "2:9", "'not' takes a comparison; for an integer write x == 0", "        ^");
  expect_error("if n and s > 0:\n    pass\n", "2:8", "'and' combines comparisons; for an integer write x != 0",
               "       ^");
  expect_error("x = ~f\n", "2:9", "'~' needs an integer; 'f' (f32) has no bit operations", "        ^");
  expect_error("x = f % 2.0\n", "2:11", "'%' on floats is not supported; write a - b * floor(a / b)", "          ^");
  expect_error("m = ballot(f > 0.0)\nx = m * 2\n", "3:11", "'*' on u64 masks is not supported", "          ^");
  expect_error("m = ballot(f > 0.0)\nx = m + s\n", "3:11", "'+' mixes a u64 mask with s32", "          ^");
  expect_error("x = min(n, s)\n", "2:9", "min of u32 and s32 is ambiguous; convert one side with u32(x) or s32(x)",
               "        ^");
  expect_error("h = f16(f)\nh = f\n", "3:9", "'h' is f16 (created at line 2) and the value is f32; convert explicitly "
               "with f16(v)", "        ^");
  expect_error("x = 1\nx: f32 = 2.0\n", "3:8", "'x' is already u32 (line 2); an annotation cannot change its type",
               "       ^");
  expect_error("x: u32 = f\n", "2:14", "cannot initialise u32 'x' with 'f' (f32); convert with u32(v)",
               "             ^");
  expect_error("x = ballot(n)\n", "2:16", "ballot() takes a comparison (e.g. ballot(x > 0))", "               ^");
  expect_error("x = load16(n, 0)\n", "2:16", "the first argument of load16() must be a pointer parameter",
               "               ^");
  expect_error("x = atomic_add(n, 0, 1)\n", "2:20", "the first argument of atomic_add() must be a pointer parameter or "
               "an LDS array", "                   ^");
  expect_error("x = atomic_add(q, 0, f)\n", "2:26", "the value of atomic_add() on ptr[u32] must be an integer; convert "
               "with u32(x)", "                         ^");
  expect_error("x = shuffle(f16(f), 0)\n", "2:17", "shuffle() moves 32-bit values (u32, s32, f32), not f16",
               "                ^");
  expect_error("x = dot4(n, n, f)\n", "2:20", "the accumulator of dot4() is s32; convert with s32(x)",
               "                   ^");
  expect_error("x = dot2(f, n, f)\n", "2:14", "the first operand of dot2() must be u32 or s32, not f32",
               "             ^");
  expect_error("x = sqrt(n < 1)\n", "2:16", "a comparison result cannot be used as a number in an argument of sqrt()",
               "               ^");
  expect_error("while 0:\n    pass\n", "2:11", "'while 0' never runs; remove the loop", "          ^");
  expect_error("while h(n) > 0:\n    pass\n", "4:11", "a helper call in a while condition is not supported; compute "
               "it into a variable before the loop", "          ^", "def h(a):\n    return a\n");
  expect_error("for i in range(0, n, 0):\n    pass\n", "2:26", "the step of range() must be a non-zero integer "
               "constant; for a variable step write a while loop", "                         ^");
  expect_error("for i in range(n):\n    for i in range(n):\n        pass\n", "3:9",
               "'i' is already the counter of an enclosing loop; use another name", "        ^");
  expect_error("i = f\nfor i in range(n):\n    pass\n", "3:5", "the loop counter 'i' would be u32 but 'i' is already "
               "f32 (line 2); use another name", "    ^");
  expect_error("x = 1\nfor x in static_range(2):\n    pass\n", "3:5", "the static_range counter 'x' would hide an "
               "existing name; choose another", "    ^");
  expect_error("a = lds(4)\na = lds(4)\n", "3:5", "'a' is already defined (line 2); each LDS array needs a new name",
               "    ^");
  expect_error("a = lds(4, u8)\n", "2:16", "the element type of lds() is f32, u32 or s32", "               ^");
  expect_error("a = lds(4)\nx = a[-1]\n", "3:11", "index -1 is negative; LDS array 'a' starts at 0", "          ^");
  expect_error("a = lds(4)\na = 1\n", "3:5", "'a' is an LDS array; store an element: a[i] = v", "    ^");
  expect_error("p = 1\n", "2:5", "parameter 'p' cannot be assigned", "    ^");
  expect_error("p[0] = ballot(f > 0.0)\n", "2:12", "a u64 mask cannot be stored into 'p' (ptr[f32]); take u32(v)",
               "           ^");
  expect_error("x = h(1)\n", "4:5", "'break' outside a loop (a helper cannot leave its caller's loop; return instead)",
               "    ^", "def h(a):\n    for i in range(a):\n        pass\n    break\n    return a\n");
  expect_error("x = h(p)\n", "4:11", "argument 'p' is ptr[f32] but helper parameter 'a' is f32", "          ^",
               "def h(a: f32):\n    return a\n");
  expect_error("x = h(f)\n", "4:11", "helper parameter 'a' is u32 but the argument is f32; convert with u32(x)",
               "          ^", "def h(a: u32):\n    return a\n");
  expect_error("x = h(1)\n", "2:12", "helper 'h' returns u32 but this value is f32; convert with u32(v)",
               "           ^", "def h(a) -> u32:\n    return 1.5\n");
  expect_error("h(1)\n", "3:16", "helper 'h' returns a value here but does not end with 'return <value>'",
               "               ^", "def h(a):\n    if a > 0:\n        return a\n");
  expect_error("x = h(1)\n", "4:9", "this call has no value to assign", "        ^", "def h(a):\n    pass\n");
  expect_error("x = -3000000000\n", "2:9", "-3000000000 does not fit in 32 bits (s32 reaches -2147483648)",
               "        ^");
  expect_error("for i in static_range(4294967290, 4294967290 + 10):\n    pass\n", "2:5", "the static_range counter 'i' "
               "would reach 4294967299, outside 32 bits", "    ^");
  expect_error("x = W\n", "1:5", "a top-level constant must be a compile-time constant", "    ^", "W = n\n");
  expect_error("x = W\n", "1:7", "constant 'W' = 4294967296 does not fit in 32 bits (u32 or s32)", "      ^",
               "W = 1 << 32\n");
}

TEST(DslTyping, KernelSignatureErrors) {
  auto c = run("def k(a, b: u32):\n    pass\n");
  testing::expect_diagnostic(c.sink.format_all(), "1:7", "parameter 'a' of kernel 'k' needs a type: a: u32",
                             "      ^");
  auto d = run("@inline\ndef h(x):\n    return x\n");
  testing::expect_diagnostic(d.sink.format_all(), "2:5", "no kernel in this file", "    ^");
  auto e = run("def k(n: u32) -> f32:\n    pass\n");
  testing::expect_diagnostic(e.sink.format_all(), "1:18", "a kernel returns nothing; remove '-> f32'",
                             "                 ^");
}

TEST(DslTyping, SeveralKernelsAndErrorsInOneFile) {
  auto c = run("def a(n: u32):\n    x = y\ndef b(n: u32):\n    pass\ndef c(n: u32):\n    z = q\n");
  EXPECT_EQ(c.sink.error_count(), 2u) << c.sink.format_all();
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].name, "b");
}

}  // namespace
}  // namespace k100::dsl
