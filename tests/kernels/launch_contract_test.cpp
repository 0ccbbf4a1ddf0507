// The launch contract: its reader and evaluator, the refusal of a bad one
// naming the kernel, the fast GEMVs' contracts (the one statement of their
// workspace), and the self-test following a changed contract.
#include "k100/kernels/launch_contract.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/lookup_list.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/gemv_tile_shares.h"

namespace k100::kernels {
namespace {

const char* kGemvLike =
    "sizes n k m groups\n"
    "choose wg = 256\n"
    "choose split = 1\n"
    "let tiles = ceil_div(n, 64)\n"
    "workgroup = max(wg, 64 * split)\n"
    "let per = max(1, workgroup / 64 / split)\n"
    "choose parts = select(per == 1, tile_share_parts(tiles), 1)\n"
    "choose shared = select(parts > 1, tile_share_tiles(tiles), 0)\n"
    "grid = ceil_div(tiles, per) + select(per == 1, shared * (parts - 1), 0), groups\n"
    "arg split = split + select(parts > 1, 256 * parts + 65536 * shared, 0)\n"
    "workspace ws = select(parts > 1, groups * shared * (parts * 1024 + 64), 0)\n"
    "arg n = n; arg k = k; arg m = m";
const std::vector<std::string> kArgs = {"w", "x", "y", "n", "k", "m", "split", "ws"};

// The message of the k100::Error `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchContract, EvaluatesGeometryDerivedArgumentsAndWorkspace) {
  const LaunchContract c = LaunchContract::parse(kGemvLike, "gemv_like_k", kArgs);
  // 4 tiles, 4 per workgroup: one workgroup of 256, no shares (fewer tiles than CUs)
  Launch l = c.evaluate({{"n", 200}, {"k", 64}, {"m", 2}, {"groups", 3}});
  EXPECT_EQ(l.workgroup, 256u);
  EXPECT_EQ(l.grid[0], 1u);
  EXPECT_EQ(l.grid[1], 3u);
  EXPECT_EQ(l.args.at("split"), 1u);
  EXPECT_EQ(l.args.at("m"), 2u);
  EXPECT_EQ(l.workspace("ws"), 0u);
  // the benchmark matrix, one tile per workgroup: the shares the planner gives
  const quant::GemvTileShares s = quant::gemv_tile_shares(272, quant::kGemvComputeUnits);
  ASSERT_FALSE(s.none());
  l = c.evaluate({{"n", 17408}, {"k", 5120}, {"m", 1}, {"groups", 1}}, {{"wg", 64}});
  EXPECT_EQ(l.workgroup, 64u);
  EXPECT_EQ(l.grid[0], s.workgroups(272));
  EXPECT_EQ(l.args.at("split"), s.split_arg(1));
  EXPECT_EQ(l.workspace("ws"), s.workspace_bytes(1));
  // choices set by the caller: the workgroup follows the split (one tile per
  // workgroup again: shares), and no shares
  l = c.evaluate({{"n", 17408}, {"k", 5120}, {"m", 1}, {"groups", 1}}, {{"split", 8}});
  EXPECT_EQ(l.workgroup, 512u);
  EXPECT_EQ(l.grid[0], s.workgroups(272));
  EXPECT_EQ(l.args.at("split"), s.split_arg(8));
  l = c.evaluate({{"n", 17408}, {"k", 5120}, {"m", 1}, {"groups", 1}}, {{"split", 8}, {"parts", 1}});
  EXPECT_EQ(l.workgroup, 512u);
  EXPECT_EQ(l.grid[0], 272u);
  EXPECT_EQ(l.args.at("split"), 8u);
  EXPECT_EQ(l.workspace("ws"), 0u);
  // argv in argument order: derived ones, then the given
  const std::vector<uint64_t> argv = c.argv(l, {{"w", 10}, {"x", 11}, {"y", 12}, {"ws", 0}});
  EXPECT_EQ(argv, (std::vector<uint64_t>{10, 11, 12, 17408, 5120, 1, 8, 0}));
  // the canonical text reads back to the same contract
  const LaunchContract again = LaunchContract::from_lines(c.text_lines(), "gemv_like_k");
  EXPECT_EQ(again.text_lines(), c.text_lines());
  EXPECT_EQ(again.args(), kArgs);
}

TEST(LaunchContract, ExpressionOperators) {
  const LaunchContract c = LaunchContract::parse(
      "sizes a b\nlet q = a / b\nlet r = a % b\nlet neg = -a + 2 * (b - 1)\nlet lt = (a < b) + 10 * (a >= b)\n"
      "let p = pow2_floor(a)\nlet mn = min(a, b, 3)\nworkgroup = 64\ngrid = 1",
      "ops_k", {});
  const Launch l = c.evaluate({{"a", 13}, {"b", 4}});
  EXPECT_EQ(l.values.at("q"), 3);
  EXPECT_EQ(l.values.at("r"), 1);
  EXPECT_EQ(l.values.at("neg"), -7);
  EXPECT_EQ(l.values.at("lt"), 10);
  EXPECT_EQ(l.values.at("p"), 8);
  EXPECT_EQ(l.values.at("mn"), 3);
}

TEST(LaunchContract, ShiftsForPowerOfTwoCounts) {
  // a kernel that takes a power-of-two split count as its shift, its grid as splits << shift
  const LaunchContract c = LaunchContract::parse(
      "sizes n splits\nlet sh = log2_ceil(splits)\nworkgroup = 64\ngrid = shl(ceil_div(n, 8), sh)\narg cshift = sh",
      "shift_k", {"y", "cshift"});
  const Launch l = c.evaluate({{"n", 24}, {"splits", 16}});
  EXPECT_EQ(l.args.at("cshift"), 4u);
  EXPECT_EQ(l.grid[0], 48u);
  EXPECT_EQ(c.evaluate({{"n", 8}, {"splits", 1}}).args.at("cshift"), 0u);
  EXPECT_EQ(c.evaluate({{"n", 8}, {"splits", 5}}).args.at("cshift"), 3u);  // rounds up
  std::string e = error_of([&] { c.evaluate({{"n", 8}, {"splits", 0}}); });
  EXPECT_NE(e.find("log2_ceil of 0"), std::string::npos) << e;
  EXPECT_NE(e.find("kernel 'shift_k'"), std::string::npos) << e;
  const LaunchContract big = LaunchContract::parse("sizes a b\nworkgroup = 64\ngrid = 1\nlet s = shl(a, b)", "shl_k", {});
  e = error_of([&] { big.evaluate({{"a", 1}, {"b", 63}}); });
  EXPECT_NE(e.find("shl by 63"), std::string::npos) << e;
  e = error_of([&] { big.evaluate({{"a", int64_t(1) << 40}, {"b", 30}}); });
  EXPECT_NE(e.find("overflows"), std::string::npos) << e;
}

TEST(LaunchContract, BadContractsAreRefusedNamingKernelAndExpression) {
  auto parse = [](const char* text) {
    return error_of([&] { LaunchContract::parse(text, "bad_k", {"y", "n"}); });
  };
  std::string e = parse("sizes n\nworkgroup = 64\ngrid = ceil_div(nn, 64)");
  EXPECT_NE(e.find("kernel 'bad_k'"), std::string::npos) << e;
  EXPECT_NE(e.find("'ceil_div(nn, 64)'"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown name 'nn'"), std::string::npos) << e;
  e = parse("sizes n\nworkgroup = 64\ngrid = ceil_dv(n, 64)");
  EXPECT_NE(e.find("unknown function 'ceil_dv'"), std::string::npos) << e;
  e = parse("sizes n\nworkgroup = 64\ngrid = ceil_div(n)");
  EXPECT_NE(e.find("ceil_div takes 2 arguments, not 1"), std::string::npos) << e;
  e = parse("sizes n\nworkgroup = 64 +\ngrid = n");
  EXPECT_NE(e.find("expression ends early"), std::string::npos) << e;
  e = parse("sizes n\nworkgroup = 64\ngrid = n\narg count = n");
  EXPECT_NE(e.find("no argument 'count'"), std::string::npos) << e;
  e = parse("sizes n\nworkgroup = 64");
  EXPECT_NE(e.find("no grid declared"), std::string::npos) << e;
  e = parse("sizes n\nthreads = 64\ngrid = n");
  EXPECT_NE(e.find("unknown declaration 'threads'"), std::string::npos) << e;
  // at evaluation: a division by zero, a missing size, an unknown choice, a grid of 0
  const LaunchContract c = LaunchContract::parse("sizes n\nchoose d = 1\nworkgroup = 64\ngrid = n / d", "eval_k", {});
  e = error_of([&] { c.evaluate({{"n", 5}}, {{"d", 0}}); });
  EXPECT_NE(e.find("kernel 'eval_k', grid, expression 'n / d': division by zero"), std::string::npos) << e;
  e = error_of([&] { c.evaluate({}); });
  EXPECT_NE(e.find("size 'n' not given"), std::string::npos) << e;
  e = error_of([&] { c.evaluate({{"n", 5}}, {{"split", 2}}); });
  EXPECT_NE(e.find("no choice 'split'"), std::string::npos) << e;
  e = error_of([&] { c.evaluate({{"n", 0}}); });
  EXPECT_NE(e.find("0 is not a count of 1 or more"), std::string::npos) << e;
}

TEST(LaunchContract, RegistryRefusesABadContractNamingTheKernel) {
  KernelDef d = *registry().find("q4_0_gemv_k");
  d.launch = "sizes n k m groups\nworkgroup = 256\ngrid = ceil_div(n, 64) * groupz";
  Registry r;
  const std::string e = error_of([&] { r.add(d); });
  EXPECT_NE(e.find("kernel 'q4_0_gemv_k'"), std::string::npos) << e;
  EXPECT_NE(e.find("'ceil_div(n, 64) * groupz'"), std::string::npos) << e;
  EXPECT_TRUE(r.all().empty());
}

// Every fast GEMV declares a contract; it has the workspace `ws` exactly when
// its signature takes one (both from the decoder's shares_tiles).
TEST(LaunchContract, EveryFastGemvHasOne) {
  int gemvs = 0, sharing = 0;
  for (const KernelDef& d : registry().all()) {
    if (d.lookup.find("_gemv_") == std::string::npos || d.family != "gguf" || !d.signature) continue;
    if (d.lookup.find("repack") != std::string::npos) continue;
    ASSERT_FALSE(d.launch.empty()) << d.lookup;
    const LaunchContract c = d.contract();
    bool takes_ws = false;
    for (const auto& p : d.signature->params()) takes_ws |= p.name == "ws";
    EXPECT_EQ(c.has_workspace("ws"), takes_ws) << d.lookup;
    const Launch l = c.evaluate({{"n", 17408}, {"k", 5120}, {"m", 1}, {"groups", 1}});
    EXPECT_GE(l.workgroup, 64u) << d.lookup;
    ++gemvs;
    sharing += takes_ws;
  }
  EXPECT_EQ(gemvs, 22 * 4);
  EXPECT_GT(sharing, 0);
}

// A TestDevice that records the geometry of each launch.
class RecordingDevice final : public TestDevice {
 public:
  explicit RecordingDevice(EmuTestDevice& inner) : inner_(inner) {}
  uint64_t alloc(size_t bytes) override { return inner_.alloc(bytes); }
  void free(uint64_t a) override { inner_.free(a); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { inner_.download(dst, src, bytes); }
  void fill(uint64_t dst, uint8_t v, size_t bytes) override { inner_.fill(dst, v, bytes); }
  void launch(const std::string& lookup, Dim3 grid, Dim3 wg, const std::vector<uint64_t>& argv) override {
    grids.push_back(grid);
    workgroups.push_back(wg.x);
    inner_.launch(lookup, grid, wg, argv);
  }
  std::string backend() const override { return inner_.backend(); }
  LaunchContract launch_contract(const std::string& lookup) override { return inner_.launch_contract(lookup); }
  std::vector<Dim3> grids;
  std::vector<uint32_t> workgroups;

 private:
  EmuTestDevice& inner_;
};

// Only the contract of q4_0_gemv_k changes (default workgroup 128, split 2
// instead of 256, 1): the self-test's case at the default geometry is
// launched as the package's contract now says, and still passes.
TEST(LaunchContract, SelfTestFollowsTheContract) {
  const KernelDef& lib = *registry().find("q4_0_gemv_k");
  const Case c = make_case({{"n", 200}, {"k", 64}, {"m", 1}});  // no "wg": the contract's defaults
  for (bool changed : {false, true}) {
    KernelDef d = lib;
    if (changed) {
      const size_t at = d.launch.find("choose wg = 256\nchoose split = 1\n");
      ASSERT_NE(at, std::string::npos) << d.launch;
      d.launch.replace(at, 33, "choose wg = 128\nchoose split = 2\n");
    }
    Registry r;
    r.add(d);
    EmuTestDevice emu(r, K100_SOURCE_DIR "/kernels", EmuTestDevice::OnFirstLaunch{});
    RecordingDevice dev(emu);
    const CaseResult res = d.run(dev, c);
    EXPECT_TRUE(res.pass) << res.note;
    ASSERT_EQ(dev.workgroups.size(), 1u);
    // 4 tiles: 256 threads hold 4 of them (one workgroup); 128 threads at split 2 hold one
    EXPECT_EQ(dev.workgroups[0], changed ? 128u : 256u);
    EXPECT_EQ(dev.grids[0].x, changed ? 4u : 1u);
  }
}

}  // namespace
}  // namespace k100::kernels

namespace k100::kernels {
namespace {

TEST(LookupList, CommasInsideTemplateArgumentsStayInTheName) {
  EXPECT_EQ(split_lookup_list("gemv_w4a8<1,false,1>,fill_k"),
            (std::vector<std::string>{"gemv_w4a8<1,false,1>", "fill_k"}));
  EXPECT_EQ(split_lookup_list(",a,,b,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_lookup_list("x<1,2"), (std::vector<std::string>{"x<1,2"}));
}

}  // namespace
}  // namespace k100::kernels

namespace k100::kernels {
namespace {

// Code built for at most 256 work-items (the layer's default) is refused a
// larger workgroup by the emulator, naming the limit, before it runs.
TEST(WorkgroupLimit, ALargerWorkgroupThanTheCodeWasBuiltForIsRefused) {
  Registry r;
  r.add(*registry().find("gemv_f32_warp_k"));
  EmuTestDevice emu(r, K100_SOURCE_DIR "/kernels", EmuTestDevice::OnFirstLaunch{});
  try {
    emu.launch("gemv_f32_warp_k", {1, 1, 1}, {512, 1, 1}, {0, 0, 0, 1, 64, 512});
    FAIL() << "a 512-wide workgroup was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the 256 its code was built for"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace k100::kernels
