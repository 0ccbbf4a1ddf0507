// From a file's vocabulary to the tokenizer state: token attributes, the
// lookup maps, the special-token list, the special ids and flags with the
// defaults each vocabulary kind has when the file leaves a key out.
#include <algorithm>
#include <cstdio>

#include "k100/base/error.h"
#include "pre_tokenizer.h"
#include "tokenizer_state.h"

namespace k100::model {
namespace {

uint32_t attr_of(int32_t type) {
  switch (TokenType(type)) {
    case TokenType::Normal: return kAttrNormal;
    case TokenType::Unknown: return kAttrUnknown;
    case TokenType::Control: return kAttrControl;
    case TokenType::UserDefined: return kAttrUserDefined;
    case TokenType::Unused: return kAttrUnused;
    case TokenType::Byte: return kAttrByte;
    default: return 0;  // undefined: prints nothing, never matched as special
  }
}

// Token texts that end a turn in the chat formats of common model families.
// Vocabularies often store them as normal tokens; they are treated as
// control tokens and end generation (as llama.cpp does).
constexpr std::string_view kEndOfTurnTexts[] = {
    "<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "<|endoftext|>", "<|end_of_text|>", "<end_of_turn>", "</s>",
};
// Fill-in-the-middle markers of the Qwen family: control tokens; the last
// three also end generation.
constexpr std::string_view kFimTexts[] = {"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"};
constexpr std::string_view kFimEndTexts[] = {"<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte of a "<0xHH>" token text, or -1.
int byte_of_hex_token(std::string_view t) {
  if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
  const int hi = hex_digit(t[3]), lo = hex_digit(t[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::string hex_token(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  return buf;
}

// A special id from the file, or the kind's default. An id past the
// vocabulary is ignored (the default stays), as llama.cpp does.
TokenId special_id(const std::optional<uint32_t>& from_file, TokenId fallback, size_t n) {
  if (fallback != kNoToken && size_t(fallback) >= n) fallback = kNoToken;
  if (from_file && *from_file < n) return TokenId(*from_file);
  return fallback;
}

}  // namespace

void merge_key(std::string& key, std::string_view left, std::string_view right) {
  const uint32_t len = uint32_t(left.size());
  key.assign(reinterpret_cast<const char*>(&len), sizeof len);
  key.append(left);
  key.append(right);
}

std::shared_ptr<const Tokenizer::State> build_state(VocabularyData d) {
  auto s = std::make_shared<Tokenizer::State>();
  s->source = d.source.empty() ? "vocabulary" : d.source;
  const std::string& where = s->source;

  if (d.model == "llama") {
    s->kind = VocabKind::SentencePiece;
  } else if (d.model == "gpt2") {
    s->kind = VocabKind::BytePairGpt2;
  } else {
    static const char* known[] = {"bert", "t5", "rwkv", "plamo2", "gemma4", "hybriddna", "whitespace", "no_vocab", "none"};
    const bool is_known = std::find(std::begin(known), std::end(known), d.model) != std::end(known);
    throw Error(where + ": tokenizer.ggml.model '" + d.model + "' " +
                (is_known ? "is not supported" : "is unknown") + " (supported: llama, gpt2)");
  }

  const size_t n = d.tokens.size();
  if (n == 0) throw Error(where + ": tokenizer.ggml.tokens is empty");
  if (n > size_t(INT32_MAX)) throw Error(where + ": tokenizer.ggml.tokens has more than 2^31-1 entries");
  if (!d.scores.empty() && d.scores.size() != n)
    throw Error(where + ": tokenizer.ggml.scores has " + std::to_string(d.scores.size()) + " entries for " +
                std::to_string(n) + " tokens");
  if (!d.token_types.empty() && d.token_types.size() != n)
    throw Error(where + ": tokenizer.ggml.token_type has " + std::to_string(d.token_types.size()) +
                " entries for " + std::to_string(n) + " tokens");

  s->text = std::move(d.tokens);
  s->score = d.scores.empty() ? std::vector<float>(n, 0.0f) : std::move(d.scores);
  s->type.resize(n, TokenType::Normal);
  s->attr.resize(n, kAttrNormal);
  s->by_text.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // an empty token would match everywhere; it gets a unique placeholder
    if (s->text[i].empty()) s->text[i] = "[EMPTY_" + std::to_string(i) + "]";
    if (!d.token_types.empty()) {
      s->type[i] = TokenType(d.token_types[i]);
      s->attr[i] = attr_of(d.token_types[i]);
    }
    auto [it, fresh] = s->by_text.emplace(s->text[i], TokenId(i));
    if (!fresh)
      throw Error(where + ": tokenizer.ggml.tokens: token " + std::to_string(i) + " repeats token " +
                  std::to_string(it->second) + " (\"" + s->text[i] + "\")");
  }

  // Kind-specific defaults, then what the file says.
  TokenId bos = kNoToken, eos = kNoToken, unk = kNoToken;
  if (s->kind == VocabKind::SentencePiece) {
    bos = 1, eos = 2, unk = 0;
    s->add_bos = true;
    s->add_space_prefix = true;
    s->clean_spaces = false;
  } else {
    s->pre_name = d.pre.value_or("default");
    s->pre = &PreTokenizer::for_name(s->pre_name, where);
    // the BPE defaults of GGUF vocabularies written without these keys
    bos = 11, eos = 11;
    if (s->pre->no_default_bos()) bos = kNoToken;
    s->add_bos = s->pre->default_add_bos();
    s->clean_spaces = s->pre->clean_spaces();
    s->ignore_merges = s->pre->ignore_merges();
    s->merge_rank.reserve(d.merges.size());
    std::string key;
    for (size_t i = 0; i < d.merges.size(); ++i) {
      const std::string& m = d.merges[i];
      // split at the first space after the first byte (a left half may be a space)
      const size_t at = m.find(' ', 1);
      if (at == std::string::npos) continue;
      merge_key(key, std::string_view(m).substr(0, at), std::string_view(m).substr(at + 1));
      s->merge_rank.emplace(key, int32_t(i));  // a repeated pair keeps its first rank
    }
  }
  if (d.add_space_prefix) s->add_space_prefix = *d.add_space_prefix;
  if (d.add_bos) s->add_bos = *d.add_bos;
  if (d.add_eos) s->add_eos = *d.add_eos;
  s->bos = special_id(d.bos, bos, n);
  s->eos = special_id(d.eos, eos, n);
  s->unk = special_id(d.unknown, unk, n);
  s->eot = special_id(d.eot, kNoToken, n);
  s->eom = special_id(d.eom, kNoToken, n);
  s->pad = special_id(d.padding, kNoToken, n);

  // End-of-turn and fill-in-the-middle texts become control tokens.
  std::vector<TokenId> eog;
  auto mark = [&](std::string_view t, bool ends) {
    if (TokenId id = s->lookup(t); id != kNoToken) {
      s->attr[id] |= kAttrControl;
      if (ends) eog.push_back(id);
    }
  };
  for (auto t : kEndOfTurnTexts) mark(t, true);
  for (auto t : kFimTexts) mark(t, false);
  for (auto t : kFimEndTexts) mark(t, true);
  for (TokenId id : {s->eos, s->eot, s->eom})
    if (id != kNoToken) eog.push_back(id);
  for (uint32_t id : d.end_of_generation)
    if (id < n) eog.push_back(TokenId(id));
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
  s->end_of_generation = std::move(eog);

  // Byte tokens: every byte-typed token must spell its byte.
  s->byte_token.fill(kNoToken);
  for (size_t i = 0; i < n; ++i) {
    if (!(s->attr[i] & kAttrByte)) continue;
    if (byte_of_hex_token(s->text[i]) < 0)
      throw Error(where + ": token " + std::to_string(i) + " (\"" + s->text[i] +
                  "\") has type byte but is not of the form <0xHH>");
  }
  if (s->kind == VocabKind::SentencePiece) {
    for (int b = 0; b < 256; ++b) {
      TokenId id = s->lookup(hex_token(uint8_t(b)));
      if (id == kNoToken) id = s->lookup(std::string(1, char(b)));  // vocabularies without byte tokens
      s->byte_token[b] = id;
    }
  }

  // Special tokens, longest first; equal lengths by id, so the order is fixed.
  for (size_t i = 0; i < n; ++i)
    if (s->attr[i] & (kAttrControl | kAttrUserDefined | kAttrUnknown)) s->specials.push_back(TokenId(i));
  std::stable_sort(s->specials.begin(), s->specials.end(),
                   [&](TokenId a, TokenId b) { return s->text[a].size() > s->text[b].size(); });

  s->piece.resize(n);
  for (size_t i = 0; i < n; ++i) s->piece[i] = render_piece(*s, TokenId(i));
  return s;
}

}  // namespace k100::model
