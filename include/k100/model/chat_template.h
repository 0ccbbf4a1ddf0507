// k100lc model: chat templates (a conversation -> the prompt text a chat
// model was trained on).
//
// A GGUF chat model stores its template as Jinja text in
// tokenizer.chat_template, a Hugging Face directory in tokenizer_config.json's
// chat_template (ModelFiles::chat_template_source reads either). k100lc does
// not run Jinja: it recognises the template's family by the distinctive
// strings in it (the same ones llama.cpp's llama_chat_apply_template looks
// for, in the same order, so a file is read as the same family by both) and
// renders that family's format natively. `--chat-template NAME` names a family directly (chatml, llama3,
// mistral-v7, gemma, phi3, deepseek3, ...: ChatTemplate::names()).
//
// Rendering follows llama_chat_apply_template's output byte for byte (the
// tests compare them): no BOS is written unless the format puts one inside
// the text; tokenizing the result with add_special and parse_special adds
// the vocabulary's BOS and matches the control tokens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "k100/quant/gguf_reader.h"

namespace k100::model {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant" (others as each format treats them)
  std::string content;
};

// Where a model keeps its template, as messages name it ("m.gguf" and
// "tokenizer.chat_template"; "DIR/tokenizer_config.json" and
// "chat_template"), and the Jinja text (nullopt when the model has none).
struct ChatTemplateSource {
  std::string file;
  std::string key;
  std::optional<std::string> text;
};

class ChatTemplate {
 public:
  // A family by name (ChatTemplate::names()); k100::Error naming the name and
  // listing the known ones.
  static ChatTemplate from_name(const std::string& name);
  // The family of a Jinja template text (or a name). k100::Error for text no
  // family is recognised in, quoting its start and pointing to
  // --chat-template; and for a family that is recognised but not rendered
  // here (named, with the same way out).
  // `key` names where the text was read in those messages.
  static ChatTemplate detect(const std::string& jinja_text, const std::string& key = "tokenizer.chat_template");
  // The model's template: `name` when not empty, else the source's text.
  // k100::Error naming the file (and key) when it has none or it is not
  // recognised.
  static ChatTemplate for_model(const ChatTemplateSource& source, const std::string& name = "");
  // The same with tokenizer.chat_template of a GGUF file.
  static ChatTemplate for_model(const quant::GgufFile& file, const std::string& name = "");
  static ChatTemplateSource source_of(const quant::GgufFile& file);

  // The families rendered here.
  static std::vector<std::string> names();
  // The family llama.cpp's detection gives for a text (also families not
  // rendered here), "" when none.
  static std::string family_of(const std::string& jinja_text);

  const std::string& name() const { return name_; }
  // The prompt text of the conversation; with add_assistant, followed by the
  // start of the assistant's turn (the generation prompt).
  std::string apply(const std::vector<ChatMessage>& messages, bool add_assistant) const;

 private:
  explicit ChatTemplate(int index);
  int index_;
  std::string name_;
};

}  // namespace k100::model
