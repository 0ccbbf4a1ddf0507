// Ids back to text: each token's printed form, the leading-space removal of
// SentencePiece vocabularies, and the spacing cleanup some BPE vocabularies
// ask for.
#include <cstdio>

#include "k100/base/error.h"
#include "tokenizer_state.h"
#include "unicode.h"

namespace k100::model {
namespace {

constexpr std::string_view kSpaceMark = "\xE2\x96\x81";  // U+2581, SentencePiece's visible space

std::string unescape_spaces(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size();) {
    if (t.substr(i, 3) == kSpaceMark) {
      out += ' ';
      i += 3;
    } else {
      out += t[i++];
    }
  }
  return out;
}

// A byte-level BPE token back to its bytes. A character outside the
// byte-level alphabet cannot be mapped; it is shown as
// "[UNK_BYTE_0x<its UTF-8 in hex><the token text>]", the marker llama.cpp
// prints, so decoded text stays comparable.
std::string bytes_of_bpe_token(std::string_view t) {
  std::string out;
  for (uint32_t cp : unicode::decode_lenient(t)) {
    const int b = unicode::codepoint_to_byte(cp);
    if (b >= 0) {
      out += char(b);
      continue;
    }
    std::string utf8;
    unicode::append_utf8(utf8, cp);
    out += "[UNK_BYTE_0x";
    for (char c : utf8) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%02x", unsigned(uint8_t(c)));
      out += hex;
    }
    out += t;
    out += ']';
  }
  return out;
}

int hex_value(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }

}  // namespace

std::string render_piece(const Tokenizer::State& s, TokenId id) {
  const uint32_t a = s.attr[id];
  const std::string& t = s.text[id];
  if (a & (kAttrUnknown | kAttrControl | kAttrUserDefined)) return t;
  if (a & kAttrNormal) return s.kind == VocabKind::SentencePiece ? unescape_spaces(t) : bytes_of_bpe_token(t);
  if (a & kAttrByte) return std::string(1, char(hex_value(t[3]) * 16 + hex_value(t[4])));  // "<0xHH>", checked when built
  return {};  // unused and undefined tokens print nothing
}

void clean_up_spaces(std::string& text) {
  // Three passes over the buffer in place, as llama.cpp makes them (each pass
  // reads the characters before the cursor from the same buffer it compacts).
  char* t = text.data();
  const int n = int(text.size());
  // " ?", " !", " .", " ,": the space goes
  int total = n ? 1 : 0;
  for (int i = 1; i < n; ++i) {
    const char x = t[i];
    if (t[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) --total;
    t[total++] = x;
  }
  // " ' ": both spaces go (the second is overwritten, so it no longer counts
  // as the space before the next character)
  const int n2 = total;
  total = n2 ? 1 : 0;
  for (int i = 1; i < n2; ++i) {
    const char x = t[i];
    if (x == '\'' && i + 1 < n2 && t[i - 1] == ' ' && t[i + 1] == ' ') {
      --total;
      t[++i] = '\0';
    }
    t[total++] = x;
  }
  // " 's", " 'm", " 're", " 've": the space goes (" 't", " 'd", " 'll" keep it)
  const int n3 = total;
  total = n3 ? 1 : 0;
  for (int i = 1; i < n3; ++i) {
    const char x = t[i];
    if (t[i - 1] == ' ' && x == '\'' && i + 1 < n3) {
      const char x1 = t[i + 1];
      if (x1 == 's' || x1 == 'm') {
        --total;
      } else if (i + 2 < n3) {
        const char x2 = t[i + 2];
        if ((x1 == 'r' || x1 == 'v') && x2 == 'e') --total;
      }
    }
    t[total++] = x;
  }
  text.resize(size_t(total));
}

std::string Tokenizer::token_to_piece(TokenId id, bool special) const {
  if (id < 0 || size_t(id) >= s_->text.size())
    throw Error(s_->source + ": token id " + std::to_string(id) + " is outside the vocabulary of " +
                std::to_string(s_->text.size()));
  if (!special && (s_->attr[id] & (kAttrUnknown | kAttrControl))) return {};
  return s_->piece[id];
}

std::string Tokenizer::decode(std::span<const TokenId> ids, DecodeOptions options) const {
  const State& s = *s_;
  size_t begin = 0, end = ids.size();
  bool strip_space = s.add_space_prefix;
  if (options.remove_special && s.add_bos && end > 0 && ids[0] == s.bos) {
    strip_space = false;
    begin = 1;
  }
  if (options.remove_special && s.add_eos && end > begin && ids[end - 1] == s.eos) --end;
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (ids[i] < 0 || size_t(ids[i]) >= s.text.size())
      throw Error(s.source + ": id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
                  " is outside the vocabulary of " + std::to_string(s.text.size()));
    const bool hidden = !options.unparse_special && (s.attr[ids[i]] & (kAttrUnknown | kAttrControl));
    std::string_view p = hidden ? std::string_view() : std::string_view(s.piece[ids[i]]);
    // the space the encoder put in front of the text
    if (strip_space && !p.empty() && p[0] == ' ') p.remove_prefix(1);
    strip_space = false;
    out += p;
  }
  if (s.clean_spaces) clean_up_spaces(out);
  return out;
}

}  // namespace k100::model
