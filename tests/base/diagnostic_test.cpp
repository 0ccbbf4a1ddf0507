#include <gtest/gtest.h>

#include "k100/base/closest_match.h"
#include "k100/base/diagnostic.h"

namespace k100 {
namespace {

TEST(Diagnostic, FormatsLocationMessageAndCaret) {
  Diagnostic d{Severity::Error, {"k.s", 3, 5}, "unknown mnemonic", "\tv_ad v0, v1"};
  EXPECT_EQ(d.format(), "k.s:3:5: error: unknown mnemonic\n\tv_ad v0, v1\n\t   ^\n");
}

TEST(DiagnosticSink, CountsErrorsAndStopsAtLimit) {
  DiagnosticSink sink(2);
  sink.warning({"a", 1, 1}, "w");
  EXPECT_FALSE(sink.has_errors());
  sink.error({"a", 2, 1}, "e1");
  EXPECT_FALSE(sink.limit_reached());
  sink.error({"a", 3, 1}, "e2");
  EXPECT_TRUE(sink.limit_reached());
  EXPECT_EQ(sink.error_count(), 2u);
  EXPECT_EQ(sink.diagnostics().size(), 3u);
}

TEST(ClosestMatch, SuggestsNearestAndRejectsFarWords) {
  std::vector<std::string> words = {"v_add_f32", "v_add_u32", "s_endpgm"};
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(closest_match("v_add_f23", words), "v_add_f32");
  EXPECT_EQ(closest_match("s_endpg", words), "s_endpgm");
  EXPECT_EQ(closest_match("completely_different", words), "");
}

}  // namespace
}  // namespace k100
