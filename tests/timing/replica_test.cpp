// The validation replicas of `k100-bench validate`: each computes its result
// (checked by its runner against a host reference), and the timing model
// sees the structure the description gives it: the dependent round trips of
// the longest wave follow from the loads per wait, the tail path, the passes
// and the per-store waits. Also the scalar cache's one request per line of
// host memory. Model outputs only, no wall-clock time.
#include <gtest/gtest.h>

#include "k100/timing/simulator.h"
#include "probe_runs.h"
#include "validate/replica_runs.h"

namespace k100::timing {
namespace {

using bench::calibrate::ProbeDevice;
namespace validate = bench::validate;

const DispatchTiming& first(const Timing& t) { return t.dispatches.at(0); }

uint32_t round_trips(const validate::ReplicaRun& r) { return first(r.model(k100_lc())).longest_wave_round_trips; }

// Statistics: dim / (64 loads) batches; output: dim / (64 loads / 2) batches;
// each remainder one element per wait, 64 lanes wide.
uint32_t rms_round_trips(uint32_t loads, uint32_t dim) {
  const uint32_t stats = 64 * loads, out = 32 * loads;
  auto tail = [](uint32_t rest) { return (rest + 63) / 64; };
  return dim / stats + tail(dim % stats) + dim / out + tail(dim % out);
}

TEST(Replica, RmsnormRoundTripsFollowLoadsPerWaitAndTheTail) {
  ProbeDevice dev;
  for (uint32_t dim : {128u, 512u, 1024u, 1088u, 2560u}) {
    for (int loads : {4, 16}) {
      auto r = validate::run_rmsnorm(dev, loads, dim);
      ASSERT_TRUE(r.pass) << r.check;
      EXPECT_EQ(round_trips(r), rms_round_trips(uint32_t(loads), dim)) << loads << " loads per wait, dim " << dim;
    }
  }
}

TEST(Replica, SixteenLoadsPerWaitIsSlowerWhereTheTailTakesTheRow) {
  // At dim 512 the 16-loads kernel has no whole batch in its statistics
  // pass (8 one-element waits), the 4-loads kernel two batches.
  ProbeDevice dev;
  auto four = validate::run_rmsnorm(dev, 4, 512), sixteen = validate::run_rmsnorm(dev, 16, 512);
  EXPECT_GT(sixteen.model(k100_lc()).total_s, four.model(k100_lc()).total_s);
  // At dim 10240 both have whole batches only: 16 loads per wait is faster.
  auto four_l = validate::run_rmsnorm(dev, 4, 10240), sixteen_l = validate::run_rmsnorm(dev, 16, 10240);
  EXPECT_LT(sixteen_l.model(k100_lc()).total_s, four_l.model(k100_lc()).total_s);
}

TEST(Replica, SoftmaxWaitsOncePerStepAndAfterEveryStore) {
  // Three passes of cols / (64 x columns per lane) steps: the max pass waits
  // once per step, the other two once for the load and once for the store.
  ProbeDevice dev;
  for (int c : {1, 4}) {
    for (uint32_t cols : {1024u, 4096u}) {
      auto r = validate::run_softmax(dev, c, cols);
      ASSERT_TRUE(r.pass) << r.check;
      EXPECT_EQ(round_trips(r), 5 * cols / (64 * uint32_t(c))) << c << " columns per lane, " << cols << " columns";
    }
  }
}

TEST(Replica, PartKernelMakesTheStatedRoundTripsPerSixtyFourRows) {
  // Section 15: ~48 serial round trips per 64 rows at head_dim 64, batches
  // of 4 (16 in the score pass, 32 in the output pass).
  ProbeDevice dev;
  validate::AttentionShape s{8, 64, 512, 0, 4, true, false};
  auto r = validate::run_attention(dev, s);
  ASSERT_TRUE(r.pass) << r.check;
  EXPECT_EQ(r.timed.size(), 1u);
  EXPECT_EQ(round_trips(r), 48u * 512 / 64);
  // Batches of 8 halve both loops.
  s.batch = 8;
  auto wide = validate::run_attention(dev, s);
  ASSERT_TRUE(wide.pass) << wide.check;
  EXPECT_EQ(round_trips(wide), 24u * 512 / 64);
  EXPECT_LT(wide.model(k100_lc()).total_s, r.model(k100_lc()).total_s);
}

TEST(Replica, CombineWaitsOncePerFourSplitsInEachPass) {
  ProbeDevice dev;
  for (uint32_t cshift : {0u, 2u, 3u, 5u}) {
    const uint32_t nsplit = 1u << cshift;
    validate::AttentionShape s{8, 128, 64 * nsplit, cshift, 4, false, true};
    auto r = validate::run_attention(dev, s);
    ASSERT_TRUE(r.pass) << r.check;
    const uint32_t per_pass = nsplit / 4 + nsplit % 4;
    EXPECT_EQ(round_trips(r), 2 * per_pass) << "nsplit " << nsplit;
  }
}

TEST(HostLink, LoadsOfOneLineShareARequest) {
  // The read probe loads its arguments with s_load_dwordx8 at 0 and
  // s_load_dword at 32: one 64-byte line, one request per wave.
  ProbeDevice dev;
  auto rec = test::run_read(dev, bench::calibrate::ReadProbe{1, true, 0}, 4, 128, 2);
  const DispatchTiming& d = test::only(simulate(rec.sequence(), k100_lc()));
  EXPECT_EQ(d.host_requests, d.waves);
  // The part replica's arguments span two lines (80 bytes): two requests.
  validate::AttentionShape s{8, 64, 512, 1, 4, true, false};
  auto part = validate::run_attention(dev, s);
  const DispatchTiming& p = first(part.model(k100_lc()));
  EXPECT_EQ(p.host_requests, 2 * p.waves);
}

}  // namespace
}  // namespace k100::timing
