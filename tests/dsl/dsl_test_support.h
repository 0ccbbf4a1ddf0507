// Shared by the dsl tests: run a step on a string and look at its diagnostics.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "k100/base/diagnostic.h"

namespace k100::dsl::testing {

// Asserts that `all` (formatted diagnostics of t.kkl) holds an error at
// `where` ("line:col") whose message contains `message`, with the caret line
// `caret` (spaces then '^') under the quoted source line.
inline void expect_diagnostic(const std::string& all, const std::string& where, const std::string& message,
                              const std::string& caret) {
  std::string head = "t.kkl:" + where + ": error: ";
  size_t at = all.find(head);
  ASSERT_NE(at, std::string::npos) << "no error at " << where << " in:\n" << all;
  size_t eol = all.find('\n', at);
  std::string line = all.substr(at, eol - at);
  EXPECT_NE(line.find(message), std::string::npos) << "message at " << where << " is: " << line;
  size_t eol2 = all.find('\n', eol + 1);
  std::string caret_line = all.substr(eol2 + 1, all.find('\n', eol2 + 1) - eol2 - 1);
  EXPECT_EQ(caret_line, caret) << all;
}

// `stmts` with every line indented by four spaces (a kernel body).
inline std::string indent(std::string_view stmts) {
  std::string out, line;
  for (char c : stmts) {
    line += c;
    if (c == '\n') {
      out += "    " + line;
      line.clear();
    }
  }
  if (!line.empty()) out += "    " + line + "\n";
  return out;
}

}  // namespace k100::dsl::testing
