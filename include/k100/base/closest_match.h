// k100lc base: "did you mean" suggestions.
//
// Unknown mnemonics, kernel names and directive keys are answered with the
// closest known spelling, by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace k100 {

// Levenshtein distance between a and b (case-sensitive).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is reasonably close
// (distance greater than max(2, word.size()/3)).
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace k100
