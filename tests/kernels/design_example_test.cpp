// The kernel of docs/DESIGN.md ("A complete kernel, from signature to
// registry entry"), extracted from the document at configure time.
#include <gtest/gtest.h>

#include "design_example.inc"
#include "k100/kernels/emu_test_device.h"

namespace {

TEST(DesignExample, TheDocumentedKernelBuildsAndPassesItsCases) {
  k100::kernels::Registry r;
  register_scale(r);
  ASSERT_EQ(r.all().size(), 1u);
  k100::kernels::EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  const auto& def = r.all()[0];
  for (const auto& c : def.cases(false)) {
    auto res = def.run(dev, c);
    EXPECT_TRUE(res.pass) << c.describe() << ": " << res.note;
    EXPECT_GT(res.compared, 0u);
  }
}

}  // namespace
