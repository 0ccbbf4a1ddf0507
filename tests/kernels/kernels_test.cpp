// Runs every kernel of the registry on the emulator against its host
// reference, one gtest per kernel, all of its (non-sweep) cases.
#include <gtest/gtest.h>

#include <cstdlib>

#include "k100/base/error.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {
namespace {

// Each test runs in its own process: kernels are built at their first launch
// rather than the whole library once per test.
EmuTestDevice& device() {
  static EmuTestDevice dev(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
  return dev;
}

class Kernel : public ::testing::TestWithParam<std::string> {};

TEST_P(Kernel, MatchesHostReference) {
  const KernelDef* def = registry().find(GetParam());
  ASSERT_NE(def, nullptr);
  auto cases = def->cases(false);
  ASSERT_GE(cases.size(), 3u) << "every kernel is tested at 3 sizes at least";
  for (const Case& c : cases) {
    CaseResult r = def->run(device(), c);
    EXPECT_TRUE(r.pass) << def->lookup << " " << c.describe() << ": " << r.note << " (max abs " << r.max_abs
                        << ", max rel " << r.max_rel << ", tolerance " << def->tolerance.describe() << ")";
    EXPECT_GT(r.compared, 0u) << def->lookup << " " << c.describe() << " compared nothing";
  }
}

std::vector<std::string> lookups() {
  std::vector<std::string> out;
  for (const auto& d : registry().all()) out.push_back(d.lookup);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s;
  for (char c : info.param) s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(All, Kernel, ::testing::ValuesIn(lookups()), test_name);

// The test device takes its checks from the environment like the runtime's
// emulator backend (k100-bench kernels --package runs old packages with
// K100_EMU_CHECK=0 so), and names a value it does not understand.
TEST(EmuTestDeviceOptions, ChecksFollowTheEnvironment) {
  ::setenv("K100_EMU_CHECK", "hazards", 1);
  EmuTestDevice some(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
  EXPECT_TRUE(some.options().checks.hazards);
  EXPECT_FALSE(some.options().checks.waits);
  EXPECT_FALSE(some.options().checks.lds_races);
  ::setenv("K100_EMU_CHECK", "sometimes", 1);
  try {
    EmuTestDevice bad(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
    ADD_FAILURE() << "K100_EMU_CHECK=sometimes was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("K100_EMU_CHECK"), std::string::npos) << e.what();
  }
  ::unsetenv("K100_EMU_CHECK");
  EmuTestDevice all(registry(), std::string(K100_SOURCE_DIR) + "/kernels", EmuTestDevice::OnFirstLaunch{});
  EXPECT_TRUE(all.options().checks.waits && all.options().checks.hazards && all.options().checks.lds_races);
}

// The case tables the registry entries are written with: one case per row,
// dims in column order, the "seed" column (else row i + 1) as the seed.
TEST(CaseTable, RowsBecomeCasesWithTheirSeeds) {
  auto c = case_table({"n", "wg"}, {{7, 64}, {100, 256}});
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1]["n"], 100);
  EXPECT_EQ(c[1]["wg"], 256);
  EXPECT_EQ(c[0].seed, 1u);
  EXPECT_EQ(c[1].seed, 2u);
  auto s = case_table({"n", "seed"}, {{5, 801}});
  EXPECT_EQ(s[0].seed, 801u);
  EXPECT_EQ(s[0].dims.count("seed"), 0u);
  EXPECT_THROW(case_table({"n", "wg"}, {{1, 64}, {2}}), Error);  // row 1 has one value for two columns
}

}  // namespace
}  // namespace k100::kernels
