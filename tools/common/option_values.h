// Option values as numbers: the whole text must be the number, or the
// option table reports a usage error naming the flag and the text.
#pragma once

#include <string>

#include "option_table.h"

namespace k100::tools {

inline long long integer_value(const std::string& flag, const std::string& text) {
  size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw OptionTable::UsageProblem{flag + ": '" + text + "' is not an integer"};
  return x;
}

inline double number_value(const std::string& flag, const std::string& text) {
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw OptionTable::UsageProblem{flag + ": '" + text + "' is not a number"};
  return x;
}

}  // namespace k100::tools
