#include "k100/model/stop_strings.h"

#include <algorithm>

namespace k100::model {

StopStrings::StopStrings(std::vector<std::string> stops, bool show_stop) : show_(show_stop) {
  for (auto& s : stops)
    if (!s.empty()) stops_.push_back(std::move(s));
}

std::string StopStrings::push(const std::string& text) {
  if (stopped()) return "";
  pending_ += text;
  // the earliest stop string wins (the longest where two start at one place)
  size_t at = std::string::npos;
  const std::string* found = nullptr;
  for (const std::string& s : stops_) {
    const size_t p = pending_.find(s);
    if (p != std::string::npos && (p < at || (p == at && s.size() > found->size()))) {
      at = p;
      found = &s;
    }
  }
  if (found) {
    matched_ = *found;
    std::string out = pending_.substr(0, show_ ? at + found->size() : at);
    pending_.clear();
    return out;
  }
  // hold back the longest end of the text that begins some stop string
  size_t hold = 0;
  for (const std::string& s : stops_)
    for (size_t n = std::min(s.size() - 1, pending_.size()); n > hold; --n)
      if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
        hold = n;
        break;
      }
  std::string out = pending_.substr(0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return out;
}

std::string StopStrings::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace k100::model
