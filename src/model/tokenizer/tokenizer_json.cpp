// tokenizer.json -> VocabularyData: the byte-level BPE vocabularies whose
// rules are those of an existing pre-tokenizer (pre_tokenizer.cpp).
#include "k100/model/tokenizer_json.h"

#include <filesystem>
#include <map>

#include "k100/base/error.h"
#include "k100/quant/json_document.h"

namespace k100::model {

namespace {

using quant::Json;
using quant::JsonObject;

// The split expressions of the families k100lc tokenizes, as tokenizer.json
// files spell them, and the pre-tokenizer with the same rules.
struct KnownSplit {
  const char* regex;
  const char* pre;
};
constexpr KnownSplit kSplits[] = {
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     "llama-bpe"},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     "qwen2"},
    {R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", "gpt-2"},
};

void check_byte_level(const JsonObject& b, bool use_regex_expected) {
  if (b.optional_boolean("add_prefix_space").value_or(false))
    b.fail("add_prefix_space", "is true; a prefix space is not supported");
  const bool use_regex = b.optional_boolean("use_regex").value_or(true);
  if (use_regex != use_regex_expected)
    b.fail("use_regex", use_regex ? "is true after a Split (the text would be split twice)"
                                  : "is false without a Split before it");
}

// The pre-tokenizer name of the file's pre_tokenizer.
std::string pre_tokenizer_of(const JsonObject& top) {
  const JsonObject p = top.object("pre_tokenizer");
  const std::string type = p.string("type");
  if (type == "ByteLevel") {
    check_byte_level(p, true);
    return "gpt-2";
  }
  if (type != "Sequence") p.fail("type", "is '" + type + "'; supported: ByteLevel, Sequence [Split, ByteLevel]");
  const Json& steps = p.at("pretokenizers");
  if (!steps.is_array() || steps.size() != 2)
    p.fail("pretokenizers", "must be two steps: a Split by a known expression, then ByteLevel");
  const JsonObject split(steps[0], top.where(), "pre_tokenizer.pretokenizers[0]");
  const JsonObject byte_level(steps[1], top.where(), "pre_tokenizer.pretokenizers[1]");
  if (split.string("type") != "Split") split.fail("type", "must be 'Split'");
  if (byte_level.string("type") != "ByteLevel") byte_level.fail("type", "must be 'ByteLevel'");
  check_byte_level(byte_level, false);
  const std::string behavior = split.string("behavior");
  if (behavior != "Isolated") split.fail("behavior", "is '" + behavior + "'; supported: Isolated");
  if (split.optional_boolean("invert").value_or(false)) split.fail("invert", "is true, which is not supported");
  const JsonObject pattern = split.object("pattern");
  const std::string regex = pattern.has("Regex") ? pattern.string("Regex") : pattern.string("String");
  for (const KnownSplit& k : kSplits)
    if (regex == k.regex) return k.pre;
  pattern.fail("Regex", "is an expression whose rules k100lc does not implement: " + regex);
}

// The content of a special-token entry of tokenizer_config.json: a string
// or {"content": ...}.
std::optional<std::string> token_content(const JsonObject& o, const char* key) {
  const Json* v = o.find(key);
  if (!v) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  return JsonObject(*v, o.where(), key).string("content");
}

}  // namespace

VocabularyData read_tokenizer_json(const std::string& path, const TokenizerJsonOptions& options) {
  const Json doc = quant::read_json_file(path);
  const JsonObject top(doc, path);
  VocabularyData v;
  v.source = path;
  v.model = "gpt2";

  const JsonObject model = top.object("model");
  const std::string type = model.string("type");
  if (type != "BPE")
    model.fail("type", "is '" + type + "'; only byte-level BPE tokenizers are supported");
  if (model.optional_boolean("byte_fallback").value_or(false))
    model.fail("byte_fallback", "is true: a SentencePiece-style BPE, which is not supported from tokenizer.json");
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const auto s = model.optional_string(k); s && !s->empty()) model.fail(k, "is set, which is not supported");
  if (const Json* d = model.find("dropout"); d && !(d->is_number() && d->get<double>() == 0.0))
    model.fail("dropout", "is set; BPE dropout is not supported");
  v.pre = pre_tokenizer_of(top);
  if (const auto n = top.optional_object("normalizer")) {
    const std::string t = n->string("type");
    // NFC leaves already-composed text unchanged; llama.cpp does not apply it either
    if (t != "NFC") n->fail("type", "is '" + t + "'; only NFC (or none) is supported");
  }
  // the families' merge rule: llama-bpe emits a word that is a token whole
  const bool ignore_merges = model.optional_boolean("ignore_merges").value_or(false);
  if (ignore_merges != (*v.pre == "llama-bpe"))
    model.fail("ignore_merges", std::string("is ") + (ignore_merges ? "true" : "false") + ", which the " + *v.pre +
                                    " rules do not use");

  // Tokens by id: the vocabulary, then the added tokens over it.
  std::map<int64_t, std::string> by_id;
  const JsonObject vocab = model.object("vocab");
  for (auto it = vocab.json().begin(); it != vocab.json().end(); ++it) {
    const int64_t id = quant::json_integer(*it, path + ": " + vocab.name(it.key()));
    if (id < 0 || id >= INT32_MAX) vocab.fail(it.key(), "has the id " + std::to_string(id) + ", out of range");
    if (!by_id.emplace(id, it.key()).second)
      vocab.fail(it.key(), "has the id " + std::to_string(id) + ", which '" + by_id[id] + "' has too");
  }
  std::map<int64_t, TokenType> added_type;
  if (const Json* added = top.find("added_tokens")) {
    if (!added->is_array()) top.fail("added_tokens", "must be an array");
    for (size_t i = 0; i < added->size(); ++i) {
      const JsonObject a((*added)[i], path, "added_tokens[" + std::to_string(i) + "]");
      const int64_t id = a.integer("id");
      const std::string content = a.string("content");
      if (id < 0 || id >= INT32_MAX) a.fail("id", "is out of range");
      for (const char* k : {"lstrip", "rstrip", "single_word"})
        if (a.optional_boolean(k).value_or(false)) a.fail(k, "is true, which is not supported");
      auto [it, fresh] = by_id.emplace(id, content);
      if (!fresh && it->second != content)
        a.fail("content", "'" + content + "' differs from the vocabulary's token " + std::to_string(id) + " '" +
                              it->second + "'");
      added_type[id] = a.optional_boolean("special").value_or(false) ? TokenType::Control : TokenType::UserDefined;
    }
  }
  if (by_id.empty()) model.fail("vocab", "is empty");
  int64_t n = by_id.rbegin()->first + 1;
  if (options.vocab_size) {
    if (options.vocab_size < n)
      throw Error(path + ": the tokenizer has token ids up to " + std::to_string(n - 1) +
                  ", past the model's vocabulary of " + std::to_string(options.vocab_size));
    n = options.vocab_size;
  }
  v.tokens.resize(size_t(n));
  v.token_types.assign(size_t(n), int32_t(TokenType::Normal));
  for (int64_t i = 0; i < n; ++i) {
    auto it = by_id.find(i);
    if (it == by_id.end()) {
      v.tokens[size_t(i)] = "[PAD" + std::to_string(i) + "]";
      v.token_types[size_t(i)] = int32_t(TokenType::Unused);
    } else {
      v.tokens[size_t(i)] = it->second;
      if (auto t = added_type.find(i); t != added_type.end()) v.token_types[size_t(i)] = int32_t(t->second);
    }
  }

  const Json& merges = model.at("merges");
  if (!merges.is_array()) model.fail("merges", "must be an array");
  v.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const Json& m = merges[i];
    if (m.is_string()) {
      v.merges.push_back(m.get<std::string>());
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      v.merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
    } else {
      model.fail("merges", "element " + std::to_string(i) + " is neither \"a b\" nor [\"a\", \"b\"]");
    }
  }

  const auto id_of = [&](const std::string& text, const std::string& what) -> uint32_t {
    for (const auto& [id, t] : by_id)
      if (t == text) return uint32_t(id);
    throw Error(path + ": " + what + " '" + text + "' is not a token");
  };
  // The post-processor: a template that puts special tokens before (BOS)
  // or after (EOS) the single sequence.
  v.add_bos = false;
  v.add_eos = false;
  if (const auto pp = top.optional_object("post_processor")) {
    const std::string t = pp->string("type");
    const auto read_template = [&](const JsonObject& tp) {
      const Json& single = tp.at("single");
      if (!single.is_array()) tp.fail("single", "must be an array");
      bool seen_sequence = false;
      for (size_t i = 0; i < single.size(); ++i) {
        const JsonObject piece(single[i], path, tp.path() + ".single[" + std::to_string(i) + "]");
        if (piece.has("Sequence")) {
          seen_sequence = true;
          continue;
        }
        const std::string id = piece.object("SpecialToken").string("id");
        const uint32_t tok = id_of(id, tp.path() + " special token");
        if (seen_sequence) {
          v.add_eos = true;
          v.eos = tok;
        } else {
          v.add_bos = true;
          v.bos = tok;
        }
      }
    };
    if (t == "TemplateProcessing") {
      read_template(*pp);
    } else if (t == "Sequence") {
      const Json& list = pp->at("processors");
      if (!list.is_array()) pp->fail("processors", "must be an array");
      for (size_t i = 0; i < list.size(); ++i) {
        const JsonObject p(list[i], path, "post_processor.processors[" + std::to_string(i) + "]");
        const std::string pt = p.string("type");
        if (pt == "TemplateProcessing") read_template(p);
        else if (pt != "ByteLevel") p.fail("type", "is '" + pt + "'; supported: ByteLevel, TemplateProcessing");
      }
    } else if (t != "ByteLevel") {
      pp->fail("type", "is '" + t + "'; supported: ByteLevel, TemplateProcessing, Sequence of them");
    }
  }

  // tokenizer_config.json: the special tokens by text and the add flags.
  namespace fs = std::filesystem;
  std::string config = options.tokenizer_config;
  std::error_code ec;
  if (config.empty()) {
    const fs::path beside = fs::path(path).parent_path() / "tokenizer_config.json";
    if (fs::exists(beside, ec)) config = beside.string();
  }
  if (!config.empty()) {
    const Json cdoc = quant::read_json_file(config);
    const JsonObject c(cdoc, config);
    if (const auto t = token_content(c, "bos_token")) v.bos = id_of(*t, config + " bos_token");
    if (const auto t = token_content(c, "eos_token")) v.eos = id_of(*t, config + " eos_token");
    if (const auto t = token_content(c, "unk_token")) v.unknown = id_of(*t, config + " unk_token");
    if (const auto t = token_content(c, "pad_token")) v.padding = id_of(*t, config + " pad_token");
    if (const auto b = c.optional_boolean("add_bos_token")) v.add_bos = *b;
    if (const auto b = c.optional_boolean("add_eos_token")) v.add_eos = *b;
  }
  return v;
}

}  // namespace k100::model
