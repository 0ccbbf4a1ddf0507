// Every vector ALU row of the ISA table has semantics or an explicit
// "unsupported" entry, never both.
#include <cstdio>
#include <set>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

TEST(ValuCoverage, EveryVopRowHasSemanticsOrIsListedUnsupported) {
  const auto& rows = isa::instructions();
  const auto& fns = valu_semantics();
  ASSERT_EQ(fns.size(), rows.size());
  std::set<uint16_t> unsupported;
  for (const Unsupported& u : valu_unsupported()) {
    EXPECT_TRUE(rows[u.id].is_vop()) << rows[u.id].name;
    EXPECT_FALSE(u.reason.empty()) << rows[u.id].name;
    EXPECT_TRUE(unsupported.insert(u.id).second) << "listed twice: " << rows[u.id].name;
  }
  size_t vop = 0, implemented = 0;
  for (const auto& d : rows) {
    if (!d.is_vop()) {
      EXPECT_EQ(fns[d.id], nullptr) << "VALU semantics on a non-VOP row " << d.name;
      continue;
    }
    ++vop;
    bool has = fns[d.id] != nullptr, listed = unsupported.count(d.id) != 0;
    EXPECT_NE(has, listed) << d.name << (has ? ": implemented and listed unsupported" : ": neither implemented nor listed");
    if (has) ++implemented;
  }
  std::printf("VALU rows: %zu; with semantics: %zu; unsupported: %zu\n", vop, implemented, unsupported.size());
  for (const Unsupported& u : valu_unsupported()) std::printf("  unsupported %s: %s\n", rows[u.id].name.c_str(), u.reason.c_str());
  EXPECT_EQ(vop, implemented + unsupported.size());
}

}  // namespace
}  // namespace k100::emu::valu_test
