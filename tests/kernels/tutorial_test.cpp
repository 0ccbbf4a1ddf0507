// The tutorial's kernel (docs/WRITING_KERNELS.md), extracted from the
// document at configure time: it builds, and passes its cases on the
// emulator with every check on and the waves in a random order.
#include <gtest/gtest.h>

#include "k100/kernels/emu_test_device.h"
#include "tutorial_kernel.inc"

namespace {

TEST(Tutorial, TheTutorialKernelBuildsAndPassesItsCases) {
  k100::kernels::Registry r;
  register_leaky_rows(r);
  ASSERT_EQ(r.all().size(), 1u);
  k100::kernels::EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  dev.options().checks = {};
  dev.options().schedule = {k100::emu::Schedule::Random, 7};
  const auto& def = r.all()[0];
  for (const auto& c : def.cases(false)) {
    auto res = def.run(dev, c);
    EXPECT_TRUE(res.pass) << c.describe() << ": " << res.note;
    EXPECT_GT(res.compared, 0u);
  }
}

}  // namespace
