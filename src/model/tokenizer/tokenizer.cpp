#include "k100/model/tokenizer.h"

#include <algorithm>

#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "pre_tokenizer.h"
#include "tokenizer_state.h"
#include "unicode.h"

namespace k100::model {

Tokenizer::Tokenizer(VocabularyData data) : s_(build_state(std::move(data))) {}

Tokenizer Tokenizer::from_gguf(const quant::GgufFile& file) { return Tokenizer(read_vocabulary(file)); }

Tokenizer Tokenizer::from_file(const std::string& path) { return from_gguf(quant::GgufFile::open(path)); }

std::vector<TokenId> Tokenizer::encode(std::string_view text, EncodeOptions options) const {
  const State& s = *s_;
  std::vector<TokenId> out;
  if (options.add_special && s.add_bos) {
    if (s.bos == kNoToken)
      throw Error(s.source + ": tokenizer.ggml.add_bos_token is on but the vocabulary has no BOS token");
    out.push_back(s.bos);
  }
  const std::vector<Fragment> frags = split_special(s, text, options.parse_special);
  if (s.kind == VocabKind::SentencePiece) {
    // a space goes in front of the text and after every special token
    bool after_special = true;
    std::string buf;
    for (const Fragment& f : frags) {
      if (f.token != kNoToken) {
        out.push_back(f.token);
        after_special = true;
        continue;
      }
      buf.clear();
      if (s.add_space_prefix && after_special) buf += "\xE2\x96\x81";
      for (char c : text.substr(f.offset, f.length)) {
        if (c == ' ') buf += "\xE2\x96\x81";
        else buf += c;
      }
      encode_spm(s, buf, out);
      after_special = false;
    }
  } else {
    for (const Fragment& f : frags) {
      if (f.token != kNoToken) out.push_back(f.token);
      else encode_bpe(s, text.substr(f.offset, f.length), out);
    }
  }
  if (options.add_special && s.add_eos) {
    if (s.eos == kNoToken)
      throw Error(s.source + ": tokenizer.ggml.add_eos_token is on but the vocabulary has no EOS token");
    out.push_back(s.eos);
  }
  return out;
}

VocabKind Tokenizer::kind() const { return s_->kind; }
const std::string& Tokenizer::pre_tokenizer() const { return s_->pre_name; }
size_t Tokenizer::size() const { return s_->text.size(); }

namespace {
void check_id(const Tokenizer::State& s, TokenId id) {
  if (id < 0 || size_t(id) >= s.text.size())
    throw Error(s.source + ": token id " + std::to_string(id) + " is outside the vocabulary of " +
                std::to_string(s.text.size()));
}
}  // namespace

const std::string& Tokenizer::token_text(TokenId id) const {
  check_id(*s_, id);
  return s_->text[id];
}
float Tokenizer::token_score(TokenId id) const {
  check_id(*s_, id);
  return s_->score[id];
}
TokenType Tokenizer::token_type(TokenId id) const {
  check_id(*s_, id);
  return s_->type[id];
}
bool Tokenizer::is_control(TokenId id) const {
  check_id(*s_, id);
  return s_->attr[id] & kAttrControl;
}
bool Tokenizer::is_byte(TokenId id) const {
  check_id(*s_, id);
  return s_->attr[id] & kAttrByte;
}
bool Tokenizer::is_end_of_generation(TokenId id) const {
  return std::binary_search(s_->end_of_generation.begin(), s_->end_of_generation.end(), id);
}
std::vector<TokenId> Tokenizer::end_of_generation_ids() const { return s_->end_of_generation; }
TokenId Tokenizer::find(std::string_view text) const { return s_->lookup(text); }

TokenId Tokenizer::bos() const { return s_->bos; }
TokenId Tokenizer::eos() const { return s_->eos; }
TokenId Tokenizer::unknown() const { return s_->unk; }
TokenId Tokenizer::padding() const { return s_->pad; }
bool Tokenizer::add_bos() const { return s_->add_bos; }
bool Tokenizer::add_eos() const { return s_->add_eos; }
bool Tokenizer::add_space_prefix() const { return s_->add_space_prefix; }

std::vector<std::string> Tokenizer::supported_pre_tokenizers() { return PreTokenizer::supported_names(); }
std::vector<std::string> Tokenizer::unsupported_pre_tokenizers() { return PreTokenizer::unsupported_names(); }
const char* Tokenizer::unicode_version() { return unicode::tables_version(); }

}  // namespace k100::model
