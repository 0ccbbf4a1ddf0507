// Byte-level BPE encoding of one text fragment: the pre-tokenizer splits it
// into words; each word's UTF-8 is spelled in the byte-level alphabet, one
// symbol per character; the adjacent pair with the lowest merge rank merges
// (the leftmost on equal ranks) until no pair has a rank. A final symbol that
// is not a token (a merge whose result the vocabulary lacks) falls back to
// the one-byte tokens of its bytes, skipping bytes that have none.
#include <queue>
#include <string>

#include "pre_tokenizer.h"
#include "tokenizer_state.h"
#include "unicode.h"

namespace k100::model {
namespace {

struct Symbol {
  size_t offset, length;  // bytes of the word; length 0 once merged away
  int prev, next;
};

struct Candidate {
  int32_t rank;
  int left, right;
  size_t left_length, right_length;  // to notice a stale candidate
};

struct LowerPriority {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
  }
};

class WordMerger {
 public:
  explicit WordMerger(const Tokenizer::State& s) : s_(s) {}

  void encode(std::string_view word, std::vector<TokenId>& out) {
    if (s_.ignore_merges) {
      if (const TokenId id = s_.lookup(word); id != kNoToken) {
        out.push_back(id);
        return;
      }
    }
    sym_.clear();
    for (size_t off = 0; off < word.size();) {
      const size_t len = std::min(unicode::sequence_length(uint8_t(word[off])), word.size() - off);
      const int i = int(sym_.size());
      sym_.push_back({off, len, i - 1, off + len == word.size() ? -1 : i + 1});
      off += len;
    }
    queue_ = {};
    for (int i = 1; i < int(sym_.size()); ++i) consider(word, i - 1, i);
    while (!queue_.empty()) {
      const Candidate c = queue_.top();
      queue_.pop();
      Symbol& l = sym_[c.left];
      Symbol& r = sym_[c.right];
      if (l.length != c.left_length || r.length != c.right_length || r.length == 0) continue;
      l.length += r.length;
      r.length = 0;
      l.next = r.next;
      if (r.next >= 0) sym_[r.next].prev = c.left;
      consider(word, l.prev, c.left);
      consider(word, c.left, l.next);
    }
    for (const Symbol& sy : sym_) {
      if (sy.length == 0) continue;
      const std::string_view piece = word.substr(sy.offset, sy.length);
      if (const TokenId id = s_.lookup(piece); id != kNoToken) {
        out.push_back(id);
        continue;
      }
      for (char ch : piece)
        if (const TokenId id = s_.lookup(std::string_view(&ch, 1)); id != kNoToken) out.push_back(id);
    }
  }

 private:
  void consider(std::string_view word, int l, int r) {
    if (l < 0 || r < 0) return;
    merge_key(key_, word.substr(sym_[l].offset, sym_[l].length), word.substr(sym_[r].offset, sym_[r].length));
    auto it = s_.merge_rank.find(key_);
    if (it == s_.merge_rank.end()) return;
    queue_.push({it->second, l, r, sym_[l].length, sym_[r].length});
  }

  const Tokenizer::State& s_;
  std::vector<Symbol> sym_;
  std::priority_queue<Candidate, std::vector<Candidate>, LowerPriority> queue_;
  std::string key_;
};

}  // namespace

void encode_bpe(const Tokenizer::State& s, std::string_view text, std::vector<TokenId>& out) {
  const std::vector<uint32_t> cps = unicode::decode_lenient(text);
  const std::vector<size_t> pieces = s.pre->split(cps);
  WordMerger merger(s);
  std::string word;
  size_t at = 0;
  for (size_t len : pieces) {
    word.clear();
    std::string utf8;
    for (size_t i = at; i < at + len; ++i) unicode::append_utf8(utf8, cps[i]);
    for (char b : utf8) unicode::append_utf8(word, unicode::byte_to_codepoint(uint8_t(b)));
    merger.encode(word, out);
    at += len;
  }
}

}  // namespace k100::model
