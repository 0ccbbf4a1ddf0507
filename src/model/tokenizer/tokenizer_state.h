// The built form of a vocabulary that the encoders and the decoder share.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "k100/model/tokenizer.h"

namespace k100::model {

class PreTokenizer;

// Effective token attributes (a token can carry several: a normal token
// whose text marks the end of a turn is also control).
enum TokenAttr : uint32_t {
  kAttrUnknown = 1u << 0,
  kAttrUnused = 1u << 1,
  kAttrNormal = 1u << 2,
  kAttrControl = 1u << 3,
  kAttrUserDefined = 1u << 4,
  kAttrByte = 1u << 5,
};

// A string-keyed map that looks up string_views without copying them.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

struct Tokenizer::State {
  std::string source;
  VocabKind kind = VocabKind::SentencePiece;
  const PreTokenizer* pre = nullptr;  // BPE only
  std::string pre_name;

  std::vector<std::string> text;
  std::vector<float> score;
  std::vector<TokenType> type;
  std::vector<uint32_t> attr;
  StringMap<TokenId> by_text;
  // BPE merge ranks keyed by merge_key(left, right)
  StringMap<int32_t> merge_rank;
  // SentencePiece: the token of each byte value, <0xHH> (or the byte
  // itself when the vocabulary has no <0xHH>); kNoToken when absent
  std::array<TokenId, 256> byte_token{};
  // control, user-defined and unknown tokens, longest text first
  std::vector<TokenId> specials;
  // token_to_piece(id, special = true) of every token
  std::vector<std::string> piece;

  TokenId bos = kNoToken, eos = kNoToken, eot = kNoToken, eom = kNoToken;
  TokenId unk = kNoToken, pad = kNoToken;
  std::vector<TokenId> end_of_generation;  // sorted
  bool add_bos = false, add_eos = false, add_space_prefix = false;
  bool clean_spaces = false, ignore_merges = false;

  TokenId lookup(std::string_view s) const {
    auto it = by_text.find(s);
    return it == by_text.end() ? kNoToken : it->second;
  }
};

// The key of a merge pair: the pair stays unambiguous whatever bytes (spaces
// included) the two halves hold.
void merge_key(std::string& key, std::string_view left, std::string_view right);

// Builds the state from the file's vocabulary (tokenizer_state.cpp).
std::shared_ptr<const Tokenizer::State> build_state(VocabularyData data);

// One stretch of the input: either text still to tokenize or a special token
// matched in it.
struct Fragment {
  TokenId token = kNoToken;  // kNoToken: text
  size_t offset = 0, length = 0;
};
// Splits the text at special tokens (special_split.cpp).
std::vector<Fragment> split_special(const Tokenizer::State& s, std::string_view text, bool parse_special);

// The encoders append the ids of one text fragment (spm_encoder.cpp, bpe_encoder.cpp).
void encode_spm(const Tokenizer::State& s, std::string_view text, std::vector<TokenId>& out);
void encode_bpe(const Tokenizer::State& s, std::string_view text, std::vector<TokenId>& out);

// The printed form of a token before any caching (detokenizer.cpp).
std::string render_piece(const Tokenizer::State& s, TokenId id);
// The llama.cpp-compatible cleanup of " ." / " 's" spacing (detokenizer.cpp).
void clean_up_spaces(std::string& text);

}  // namespace k100::model
