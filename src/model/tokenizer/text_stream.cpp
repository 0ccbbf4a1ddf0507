#include "k100/model/text_stream.h"

namespace k100::model {
namespace {

// Where a trailing UTF-8 sequence that is still incomplete starts (the
// string's size when there is none to hold back).
size_t complete_prefix(const std::string& s) {
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const uint8_t b = uint8_t(s[s.size() - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t need = (b >= 0xC2 && b <= 0xDF) ? 2 : (b >= 0xE0 && b <= 0xEF) ? 3 : (b >= 0xF0 && b <= 0xF4) ? 4 : 1;
    return need > back ? s.size() - back : s.size();
  }
  return s.size();
}

}  // namespace

TextStream::TextStream(const Tokenizer& tokenizer, bool special) : tokenizer_(tokenizer), special_(special) {}

std::string TextStream::push(TokenId id) {
  pending_ += tokenizer_.token_to_piece(id, special_);
  const size_t n = complete_prefix(pending_);
  std::string out = pending_.substr(0, n);
  pending_.erase(0, n);
  return out;
}

std::string TextStream::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace k100::model
