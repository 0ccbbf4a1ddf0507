// SentencePiece-style encoding of one text fragment (spaces already shown
// as U+2581): start from one symbol per UTF-8 sequence, repeatedly merge the
// adjacent pair whose concatenation is the highest-scoring token (the
// leftmost pair on equal scores), and spell whatever is left without a
// token in byte tokens.
#include <cstdio>
#include <queue>
#include <string>

#include "k100/base/error.h"
#include "tokenizer_state.h"
#include "unicode.h"

namespace k100::model {
namespace {

struct Symbol {
  size_t offset, length;  // bytes of the fragment; length 0 once merged away
  int prev, next;         // neighbours, -1 at the ends
};

struct Candidate {
  float score;
  int left, right;
  size_t length;  // bytes of the merged pair, to notice a stale candidate
};

struct LowerPriority {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

}  // namespace

void encode_spm(const Tokenizer::State& s, std::string_view text, std::vector<TokenId>& out) {
  std::vector<Symbol> sym;
  for (size_t off = 0; off < text.size();) {
    // the lead byte alone decides the length (no validation)
    const size_t len = std::min(unicode::sequence_length(uint8_t(text[off])), text.size() - off);
    const int i = int(sym.size());
    sym.push_back({off, len, i - 1, off + len == text.size() ? -1 : i + 1});
    off += len;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue;
  auto consider = [&](int l, int r) {
    if (l < 0 || r < 0) return;
    const size_t len = sym[l].length + sym[r].length;
    const TokenId id = s.lookup(text.substr(sym[l].offset, len));
    if (id == kNoToken) return;
    queue.push({s.score[id], l, r, len});
  };
  for (int i = 1; i < int(sym.size()); ++i) consider(i - 1, i);

  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& l = sym[c.left];
    Symbol& r = sym[c.right];
    if (l.length == 0 || r.length == 0 || l.length + r.length != c.length) continue;
    l.length += r.length;
    r.length = 0;
    l.next = r.next;
    if (r.next >= 0) sym[r.next].prev = c.left;
    consider(l.prev, c.left);
    consider(c.left, l.next);
  }

  for (int i = sym.empty() ? -1 : 0; i != -1; i = sym[i].next) {
    const std::string_view piece = text.substr(sym[i].offset, sym[i].length);
    if (const TokenId id = s.lookup(piece); id != kNoToken) {
      out.push_back(id);
      continue;
    }
    for (char ch : piece) {
      const TokenId b = s.byte_token[uint8_t(ch)];
      if (b == kNoToken) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", unsigned(uint8_t(ch)));
        throw Error(s.source + ": the text needs byte " + hex + " but the vocabulary has no byte token <" + hex +
                    "> for it");
      }
      out.push_back(b);
    }
  }
}

}  // namespace k100::model
