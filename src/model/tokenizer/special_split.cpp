// Special tokens are found in the raw text before any other tokenization:
// one token at a time, longest text first, each occurrence (leftmost,
// non-overlapping) cut out of the text fragments that are still text. So a
// longer special token wins over a shorter one it contains, and a special
// token is never found across a boundary an earlier one made.
#include <string_view>

#include "tokenizer_state.h"

namespace k100::model {

std::vector<Fragment> split_special(const Tokenizer::State& s, std::string_view text, bool parse_special) {
  std::vector<Fragment> frags;
  if (text.empty()) return frags;
  frags.push_back({kNoToken, 0, text.size()});
  std::vector<Fragment> next;
  for (TokenId id : s.specials) {
    // user-defined tokens are always split out; control and unknown ones only on request
    if (!parse_special && (s.attr[id] & (kAttrControl | kAttrUnknown))) continue;
    const std::string_view t = s.text[id];
    next.clear();
    for (const Fragment& f : frags) {
      if (f.token != kNoToken) {
        next.push_back(f);
        continue;
      }
      const size_t end = f.offset + f.length;
      const std::string_view window = text.substr(0, end);
      size_t pos = f.offset;
      for (size_t m = window.find(t, pos); m != std::string_view::npos; m = window.find(t, pos)) {
        if (m > pos) next.push_back({kNoToken, pos, m - pos});
        next.push_back({id, m, t.size()});
        pos = m + t.size();
      }
      if (pos < end) next.push_back({kNoToken, pos, end - pos});
    }
    frags.swap(next);
  }
  return frags;
}

}  // namespace k100::model
