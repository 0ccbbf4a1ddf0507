#include "k100/base/closest_match.h"

#include <algorithm>

namespace k100 {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  size_t best = SIZE_MAX;
  const std::string* pick = nullptr;
  for (const auto& c : candidates) {
    // Cheap length filter first: the distance is at least the length difference.
    size_t diff = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (diff >= best) continue;
    size_t d = edit_distance(word, c);
    if (d < best) {
      best = d;
      pick = &c;
    }
  }
  size_t limit = std::max<size_t>(2, word.size() / 3);
  if (!pick || best > limit) return {};
  return *pick;
}

}  // namespace k100
