// One parameterized test per VALU row of the ISA table: runs the registered
// checks of that row (see harness.h), or fails when an implemented row has
// none. Unsupported rows are skipped with their reason.
#include "harness.h"

namespace k100::emu::valu_test {
namespace {

std::vector<std::string> vop_rows() {
  std::vector<std::string> names;
  for (const auto& d : isa::instructions())
    if (d.is_vop()) names.push_back(d.name);
  return names;
}

class ValuRow : public ::testing::TestWithParam<std::string> {};

TEST_P(ValuRow, MatchesHostReference) {
  const std::string& row = GetParam();
  const isa::InstDesc* d = isa::find_instruction(row);
  ASSERT_NE(d, nullptr);
  for (const Unsupported& u : valu_unsupported())
    if (u.id == d->id) GTEST_SKIP() << "unsupported: " << u.reason;
  const std::vector<RowCheck>* checks = row_checks(row);
  ASSERT_NE(checks, nullptr) << "no unit test registered for implemented row " << row;
  for (RowCheck c : *checks) c(row);
}

INSTANTIATE_TEST_SUITE_P(All, ValuRow, ::testing::ValuesIn(vop_rows()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace k100::emu::valu_test
