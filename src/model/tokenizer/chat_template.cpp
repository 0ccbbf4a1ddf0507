#include "k100/model/chat_template.h"

#include <algorithm>
#include <cctype>

#include "k100/base/closest_match.h"
#include "k100/base/error.h"

namespace k100::model {
namespace {

// ---------------------------------------------------------------- formats

// Most formats wrap each message in text chosen by its role: `before`, the
// content (trimmed when `trim`), `after`. In `before`, {role} is the role,
// {Role} the role with its first letter capitalised, {ROLE} in capitals. The
// first row whose role matches is used ("*" matches any role); a message no
// row matches is left out.
struct RoleText {
  const char* role;
  const char* before;
  const char* after;
  bool trim = false;
};

// A few formats are built per turn rather than per message.
enum class Shape {
  Rows,     // rows only
  Llama2,   // [INST] ... [/INST] turns, the system text inside the first
  Mistral,  // [INST] turns with the system text before the user's
  Gemma,    // system text merged into the next user turn, assistant is "model"
  Orion,    // system text merged into the next user turn, "Human: ... Assistant: </s>"
};

struct Format {
  const char* name;
  Shape shape;
  std::vector<RoleText> rows;
  const char* generation = "";  // after the messages, with add_assistant
  const char* start = "";       // before the first message
  // Llama2: <<SYS>> tags (else the system text is a plain line), "<s>" before
  // every turn after the first, message contents trimmed.
  // Mistral: a space before "[INST]" and "[/INST]", a space after "[INST]"
  // and before an answer, answers trimmed.
  bool flag_a = false, flag_b = false, flag_c = false;
  // The first message's `before` loses this prefix (a BOS the format puts
  // before every message but the first).
  const char* first_without = "";
};

const std::vector<Format>& formats() {
  static const std::vector<Format> f = {
      {"chatml", Shape::Rows, {{"*", "<|im_start|>{role}\n", "<|im_end|>\n"}}, "<|im_start|>assistant\n"},
      {"llama2", Shape::Llama2, {}, "", "", false, false, false},
      {"llama2-sys", Shape::Llama2, {}, "", "", true, false, false},
      {"llama2-sys-bos", Shape::Llama2, {}, "", "", true, true, false},
      {"llama2-sys-strip", Shape::Llama2, {}, "", "", true, false, true},
      {"mistral-v1", Shape::Mistral, {}, "", "", true, true, false},
      {"mistral-v3", Shape::Mistral, {}, "", "", false, true, true},
      {"mistral-v3-tekken", Shape::Mistral, {}, "", "", false, false, false},
      {"mistral-v7", Shape::Rows,
       {{"system", "[SYSTEM_PROMPT] ", "[/SYSTEM_PROMPT]"}, {"user", "[INST] ", "[/INST]"}, {"*", " ", "</s>"}}},
      {"mistral-v7-tekken", Shape::Rows,
       {{"system", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"}, {"user", "[INST]", "[/INST]"}, {"*", "", "</s>"}}},
      {"phi3", Shape::Rows, {{"*", "<|{role}|>\n", "<|end|>\n"}}, "<|assistant|>\n"},
      {"phi4", Shape::Rows, {{"*", "<|im_start|>{role}<|im_sep|>", "<|im_end|>"}}, "<|im_start|>assistant<|im_sep|>"},
      {"falcon3", Shape::Rows, {{"*", "<|{role}|>\n", "\n"}}, "<|assistant|>\n"},
      {"zephyr", Shape::Rows, {{"*", "<|{role}|>\n", "<|endoftext|>\n"}}, "<|assistant|>\n"},
      {"monarch", Shape::Rows, {{"*", "<s>{role}\n", "</s>\n"}}, "<s>assistant\n", "", false, false, false, "<s>"},
      {"gemma", Shape::Gemma, {}, "<start_of_turn>model\n"},
      {"orion", Shape::Orion, {}},
      {"openchat", Shape::Rows,
       {{"system", "", "<|end_of_turn|>"}, {"*", "GPT4 Correct {Role}: ", "<|end_of_turn|>"}},
       "GPT4 Correct Assistant:"},
      {"vicuna", Shape::Rows,
       {{"system", "", "\n\n"}, {"user", "USER: ", "\n"}, {"assistant", "ASSISTANT: ", "</s>\n"}}, "ASSISTANT:"},
      {"vicuna-orca", Shape::Rows,
       {{"system", "SYSTEM: ", "\n"}, {"user", "USER: ", "\n"}, {"assistant", "ASSISTANT: ", "</s>\n"}}, "ASSISTANT:"},
      {"deepseek", Shape::Rows,
       {{"system", "", ""}, {"user", "### Instruction:\n", "\n"}, {"assistant", "### Response:\n", "\n<|EOT|>\n"}},
       "### Response:\n"},
      {"deepseek2", Shape::Rows,
       {{"system", "", "\n\n"}, {"user", "User: ", "\n\n"},
        {"assistant", "Assistant: ", "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}},
       "Assistant:"},
      {"deepseek3", Shape::Rows,
       {{"system", "", "\n\n"}, {"user", "<\xEF\xBD\x9CUser\xEF\xBD\x9C>", ""},
        {"assistant", "<\xEF\xBD\x9C" "Assistant\xEF\xBD\x9C>",
         "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}},
       "<\xEF\xBD\x9C" "Assistant\xEF\xBD\x9C>"},
      {"deepseek-ocr", Shape::Rows, {{"*", "", ""}}},
      {"command-r", Shape::Rows,
       {{"system", "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>", "<|END_OF_TURN_TOKEN|>", true},
        {"user", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "<|END_OF_TURN_TOKEN|>", true},
        {"assistant", "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>", true}},
       "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"},
      {"llama3", Shape::Rows, {{"*", "<|start_header_id|>{role}<|end_header_id|>\n\n", "<|eot_id|>", true}},
       "<|start_header_id|>assistant<|end_header_id|>\n\n"},
      {"llama4", Shape::Rows, {{"*", "<|header_start|>{role}<|header_end|>\n\n", "<|eot|>", true}},
       "<|header_start|>assistant<|header_end|>\n\n"},
      {"chatglm3", Shape::Rows, {{"*", "<|{role}|>\n ", ""}}, "<|assistant|>", "[gMASK]sop"},
      {"chatglm4", Shape::Rows, {{"*", "<|{role}|>\n", ""}}, "<|assistant|>\n", "[gMASK]<sop>"},
      {"glmedge", Shape::Rows, {{"*", "<|{role}|>\n", ""}}, "<|assistant|>"},
      {"minicpm", Shape::Rows, {{"user", "<\xE7\x94\xA8\xE6\x88\xB7>", "<AI>", true}, {"*", "", "", true}}},
      {"exaone3", Shape::Rows,
       {{"system", "[|system|]", "[|endofturn|]\n", true}, {"user", "[|user|]", "\n", true},
        {"assistant", "[|assistant|]", "[|endofturn|]\n", true}},
       "[|assistant|]"},
      {"exaone4", Shape::Rows,
       {{"system", "[|system|]", "[|endofturn|]\n", true}, {"user", "[|user|]", "\n", true},
        {"assistant", "[|assistant|]", "[|endofturn|]\n", true}, {"tool", "[|tool|]", "[|endofturn|]\n", true}},
       "[|assistant|]"},
      {"exaone-moe", Shape::Rows,
       {{"system", "<|system|>\n", "<|endofturn|>\n", true}, {"user", "<|user|>\n", "<|endofturn|>\n", true},
        {"assistant", "<|assistant|>\n", "<|endofturn|>\n", true}, {"tool", "<|tool|>\n", "<|endofturn|>\n", true}},
       "<|assistant|>\n"},
      {"granite", Shape::Rows,
       {{"assistant_tool_call", "<|start_of_role|>assistant_tool_call<|end_of_role|><|tool_call|>", "<|end_of_text|>\n"},
        {"*", "<|start_of_role|>{role}<|end_of_role|>", "<|end_of_text|>\n"}},
       "<|start_of_role|>assistant<|end_of_role|>"},
      {"granite-4.0", Shape::Rows,
       {{"assistant_tool_call", "<|start_of_role|>assistant<|end_of_role|><|tool_call|>", "<|end_of_text|>\n"},
        {"*", "<|start_of_role|>{role}<|end_of_role|>", "<|end_of_text|>\n"}},
       "<|start_of_role|>assistant<|end_of_role|>"},
      {"granite-4.1", Shape::Rows,
       {{"assistant_tool_call", "<|start_of_role|>assistant<|end_of_role|><|tool_call|>", "<|end_of_text|>\n"},
        {"*", "<|start_of_role|>{role}<|end_of_role|>", "<|end_of_text|>\n"}},
       "<|start_of_role|>assistant<|end_of_role|>"},
      {"megrez", Shape::Rows, {{"*", "<|role_start|>{role}<|role_end|>", "<|turn_end|>"}},
       "<|role_start|>assistant<|role_end|>"},
      {"yandex", Shape::Rows,
       {{"user", " \xD0\x9F\xD0\xBE\xD0\xBB\xD1\x8C\xD0\xB7\xD0\xBE\xD0\xB2\xD0\xB0\xD1\x82\xD0\xB5\xD0\xBB\xD1\x8C: ",
         "\n\n"},
        {"assistant", " \xD0\x90\xD1\x81\xD1\x81\xD0\xB8\xD1\x81\xD1\x82\xD0\xB5\xD0\xBD\xD1\x82: ", "\n\n"}},
       " \xD0\x90\xD1\x81\xD1\x81\xD0\xB8\xD1\x81\xD1\x82\xD0\xB5\xD0\xBD\xD1\x82:[SEP]"},
      {"bailing", Shape::Rows, {{"user", "<role>HUMAN</role>", ""}, {"*", "<role>{ROLE}</role>", ""}},
       "<role>ASSISTANT</role>"},
      {"bailing-think", Shape::Rows, {{"user", "<role>HUMAN</role>", ""}, {"*", "<role>{ROLE}</role>", ""}},
       "<role>ASSISTANT</role><think>"},
      {"smolvlm", Shape::Rows,
       {{"system", "", "\n\n"}, {"user", "User: ", "<end_of_utterance>\n"}, {"*", "Assistant: ", "<end_of_utterance>\n"}},
       "Assistant:", "<|im_start|>"},
      {"dots1", Shape::Rows,
       {{"system", "<|system|>", "<|endofsystem|>"}, {"user", "<|userprompt|>", "<|endofuserprompt|>"},
        {"*", "<|response|>", "<|endofresponse|>"}},
       "<|response|>"},
      {"hunyuan-moe", Shape::Rows,
       {{"system", "<|startoftext|>", "<|extra_4|>"}, {"assistant", "", "<|eos|>"},
        {"*", "<|startoftext|>", "<|extra_0|>"}}},
      {"gpt-oss", Shape::Rows,
       {{"assistant", "<|start|>assistant<|message|>", "<|return|>"}, {"*", "<|start|>{role}<|message|>", "<|end|>"}},
       "<|start|>assistant"},
      {"kimi-k2", Shape::Rows,
       {{"system", "<|im_system|>system<|im_middle|>", "<|im_end|>"},
        {"user", "<|im_user|>user<|im_middle|>", "<|im_end|>"},
        {"assistant", "<|im_assistant|>assistant<|im_middle|>", "<|im_end|>"},
        {"tool", "<|im_system|>tool<|im_middle|>", "<|im_end|>"},
        {"*", "", "<|im_end|>"}},
       "<|im_assistant|>assistant<|im_middle|>"},
      {"seed_oss", Shape::Rows,
       {{"assistant", "<seed:bos>assistant\n", "<seed:eos>", true}, {"*", "<seed:bos>{role}\n", "<seed:eos>"}},
       "<seed:bos>assistant\n"},
      {"grok-2", Shape::Rows,
       {{"system", "System: ", "<|separator|>\n\n", true}, {"user", "Human: ", "<|separator|>\n\n", true},
        {"assistant", "Assistant: ", "<|separator|>\n\n"}},
       "Assistant:"},
      {"solar-open", Shape::Rows, {{"*", "<|begin|>{role}<|content|>", "<|end|>"}}, "<|begin|>assistant"},
  };
  return f;
}

// Families llama.cpp recognises whose formats are not rendered here: they are
// recognised (so a file is never read as another family) and refused by name.
const std::vector<std::string>& recognised_only() {
  static const std::vector<std::string> n = {"rwkv-world", "gigachat",      "bailing2",
                                             "hunyuan-vl", "hunyuan-dense", "pangu-embedded"};
  return n;
}

// ---------------------------------------------------------------- detection

// A family is recognised when every group has one of its strings in the
// template text ("^x": the text starts with x). The first matching rule in
// this order wins; the order and the strings are llama.cpp's, so a
// template is read as the same family by both.
struct Rule {
  const char* family;
  std::vector<std::vector<const char*>> all_of_any;
};

const std::vector<Rule>& rules() {
  static const char* kMistralish[] = {"^mistral", "[INST]"};
  const std::vector<const char*> mistral(std::begin(kMistralish), std::end(kMistralish));
  const std::vector<const char*> official = {"' [INST] ' + system_message", "[AVAILABLE_TOOLS]"};
  static const std::vector<Rule> r = {
      {"phi4", {{"<|im_start|>"}, {"<|im_sep|>"}}},
      {"smolvlm", {{"<|im_start|>"}, {"<end_of_utterance>"}}},
      {"chatml", {{"<|im_start|>"}}},
      {"mistral-v7", {mistral, {"[SYSTEM_PROMPT]"}}},
      {"mistral-v1", {mistral, official, {" [INST]"}}},
      {"mistral-v3-tekken", {mistral, official, {"\"[INST]\""}}},
      {"mistral-v3", {mistral, official}},
      {"llama2-sys-strip", {mistral, {"content.strip()"}}},
      {"llama2-sys-bos", {mistral, {"bos_token + '[INST]"}}},
      {"llama2-sys", {mistral, {"<<SYS>>"}}},
      {"llama2", {mistral}},
      {"phi3", {{"<|assistant|>"}, {"<|end|>"}}},
      {"chatglm4", {{"[gMASK]<sop>"}}},
      {"exaone-moe", {{"<|assistant|>"}, {"<|user|>"}, {"<|tool_declare|>"}}},
      {"falcon3", {{"<|assistant|>"}, {"<|user|>"}, {"</s>"}}},
      {"glmedge", {{"<|assistant|>"}, {"<|user|>"}}},
      {"glmedge", {{"<|{{ item['role'] }}|>"}, {"<|begin_of_image|>"}}},
      {"zephyr", {{"<|user|>"}, {"<|endoftext|>"}}},
      {"monarch", {{"bos_token + message['role']"}}},
      {"gemma", {{"<start_of_turn>"}}},
      {"orion", {{"'\\n\\nAssistant: ' + eos_token"}}},
      {"openchat", {{"GPT4 Correct "}}},
      {"vicuna-orca", {{"USER: "}, {"ASSISTANT: "}, {"SYSTEM: "}}},
      {"vicuna", {{"USER: "}, {"ASSISTANT: "}}},
      {"deepseek", {{"### Instruction:"}, {"<|EOT|>"}}},
      {"command-r", {{"<|START_OF_TURN_TOKEN|>"}, {"<|USER_TOKEN|>"}}},
      {"llama3", {{"<|start_header_id|>"}, {"<|end_header_id|>"}}},
      {"chatglm3", {{"[gMASK]sop"}}},
      {"minicpm", {{"<\xE7\x94\xA8\xE6\x88\xB7>"}}},
      {"deepseek2", {{"'Assistant: ' + message['content'] + eos_token"}}},
      {"deepseek3",
       {{"<\xEF\xBD\x9C" "Assistant\xEF\xBD\x9C>"}, {"<\xEF\xBD\x9CUser\xEF\xBD\x9C>"},
        {"<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}}},
      {"exaone4", {{"[|system|]"}, {"[|assistant|]"}, {"[|endofturn|]"}, {"[|tool|]"}}},
      {"exaone3", {{"[|system|]"}, {"[|assistant|]"}, {"[|endofturn|]"}}},
      {"rwkv-world", {{"rwkv-world", "{{- 'User: ' + message['content']|trim + '\\n\\n' -}}"}}},
      {"granite-4.0", {{"<|start_of_role|>"}, {"<tool_call>", "<tools>"}, {"g4_default_system_message"}}},
      {"granite-4.1", {{"<|start_of_role|>"}, {"<tool_call>", "<tools>"}}},
      {"granite", {{"<|start_of_role|>"}}},
      {"gigachat",
       {{"message['role'] + additional_special_tokens[0] + message['content'] + additional_special_tokens[1]"}}},
      {"megrez", {{"<|role_start|>"}}},
      {"yandex", {{" \xD0\x90\xD1\x81\xD1\x81\xD0\xB8\xD1\x81\xD1\x82\xD0\xB5\xD0\xBD\xD1\x82:"}}},
      {"bailing", {{"<role>ASSISTANT</role>"}, {"'HUMAN'"}}},
      {"bailing-think", {{"<role>ASSISTANT</role>"}, {"\"HUMAN\""}, {"<think>"}}},
      {"bailing2", {{"<role>ASSISTANT</role>"}, {"<role>HUMAN</role>"}, {"<|role_end|>"}}},
      {"llama4", {{"<|header_start|>"}, {"<|header_end|>"}}},
      {"dots1", {{"<|endofuserprompt|>"}}},
      {"hunyuan-moe", {{"<|extra_0|>"}, {"<|extra_4|>"}}},
      {"gpt-oss", {{"<|start|>"}, {"<|channel|>"}}},
      {"hunyuan-vl", {{"<\xEF\xBD\x9Chy_Assistant\xEF\xBD\x9C>"}, {"<\xEF\xBD\x9Chy_begin\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}}},
      {"hunyuan-dense", {{"<\xEF\xBD\x9Chy_Assistant\xEF\xBD\x9C>"}, {"<\xEF\xBD\x9Chy_place\xE2\x96\x81holder\xE2\x96\x81no\xE2\x96\x81" "3\xEF\xBD\x9C>"}}},
      {"kimi-k2", {{"<|im_assistant|>assistant<|im_middle|>"}}},
      {"seed_oss", {{"<seed:bos>"}}},
      {"grok-2", {{"'Assistant: '  + message['content'] + '<|separator|>"}}},
      {"pangu-embedded", {{"[unused9]\xE7\xB3\xBB\xE7\xBB\x9F\xEF\xBC\x9A[unused10]"}}},
      {"solar-open", {{"<|begin|>"}, {"<|end|>"}, {"<|content|>"}}},
  };
  return r;
}

bool matches(const std::string& text, const Rule& rule) {
  for (const auto& group : rule.all_of_any) {
    bool any = false;
    for (const char* s : group) {
      const std::string_view needle(s);
      if (needle.starts_with('^') ? text.starts_with(needle.substr(1)) : text.find(needle) != std::string::npos) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

int index_of(const std::string& name) {
  const auto& f = formats();
  for (size_t i = 0; i < f.size(); ++i)
    if (name == f[i].name) return int(i);
  return -1;
}

std::string joined_names() {
  std::string out;
  for (const auto& f : formats()) out += std::string(out.empty() ? "" : ", ") + f.name;
  return out;
}

// ---------------------------------------------------------------- rendering

// llama.cpp trims with isspace (space, \t, \n, \v, \f, \r), byte by byte.
std::string trimmed(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string substituted(std::string text, const std::string& role) {
  auto replace = [&](const std::string& key, const std::string& by) {
    for (size_t p = text.find(key); p != std::string::npos; p = text.find(key, p + by.size()))
      text.replace(p, key.size(), by);
  };
  std::string capital = role, upper = role;
  if (!capital.empty()) capital[0] = char(std::toupper(static_cast<unsigned char>(capital[0])));
  for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  replace("{role}", role);
  replace("{Role}", capital);
  replace("{ROLE}", upper);
  return text;
}

void render_rows(const Format& f, const std::vector<ChatMessage>& msgs, bool add_assistant, std::string& out) {
  out += f.start;
  for (size_t i = 0; i < msgs.size(); ++i) {
    const ChatMessage& m = msgs[i];
    const auto row = std::find_if(f.rows.begin(), f.rows.end(),
                                  [&](const RoleText& r) { return std::string_view(r.role) == "*" || m.role == r.role; });
    if (row == f.rows.end()) continue;
    std::string before = substituted(row->before, m.role);
    if (i == 0 && *f.first_without && before.starts_with(f.first_without))
      before.erase(0, std::string_view(f.first_without).size());
    out += before + (row->trim ? trimmed(m.content) : m.content) + row->after;
  }
  if (add_assistant) out += f.generation;
}

// [INST] turns: the first opens without a BOS; a system message goes inside
// the turn (in <<SYS>> tags, or as a plain line); an answer closes the turn.
void render_llama2(const Format& f, const std::vector<ChatMessage>& msgs, std::string& out) {
  const bool sys_tags = f.flag_a, bos_in_history = f.flag_b, strip = f.flag_c;
  bool in_turn = true;
  out += "[INST] ";
  for (const ChatMessage& m : msgs) {
    const std::string content = strip ? trimmed(m.content) : m.content;
    if (!in_turn) {
      in_turn = true;
      out += bos_in_history ? "<s>[INST] " : "[INST] ";
    }
    if (m.role == "system") out += sys_tags ? "<<SYS>>\n" + content + "\n<</SYS>>\n\n" : content + "\n";
    else if (m.role == "user") out += content + " [/INST]";
    else {
      out += content + "</s>";
      in_turn = false;
    }
  }
}

void render_mistral(const Format& f, const std::vector<ChatMessage>& msgs, std::string& out) {
  const std::string lead = f.flag_a ? " " : "", trail = f.flag_b ? " " : "";
  const bool trim_answers = f.flag_c;
  bool in_turn = false;
  for (const ChatMessage& m : msgs) {
    if (!in_turn) {
      out += lead + "[INST]" + trail;
      in_turn = true;
    }
    if (m.role == "system") out += m.content + "\n\n";
    else if (m.role == "user") out += m.content + lead + "[/INST]";
    else {
      out += trail + (trim_answers ? trimmed(m.content) : m.content) + "</s>";
      in_turn = false;
    }
  }
}

// Formats without a system role: system texts are kept and put at the start
// of the next turn that is not the assistant's.
void render_merged_system(const Format& f, const std::vector<ChatMessage>& msgs, bool add_assistant,
                          std::string& out) {
  std::string system;
  for (const ChatMessage& m : msgs) {
    if (m.role == "system") {
      system += f.shape == Shape::Gemma ? trimmed(m.content) : m.content;
      continue;
    }
    if (f.shape == Shape::Gemma) {
      const std::string role = m.role == "assistant" ? "model" : m.role;
      out += "<start_of_turn>" + role + "\n";
      if (!system.empty() && role != "model") {
        out += system + "\n\n";
        system.clear();
      }
      out += trimmed(m.content) + "<end_of_turn>\n";
    } else if (m.role == "user") {  // Orion
      out += "Human: ";
      if (!system.empty()) {
        out += system + "\n\n";
        system.clear();
      }
      out += m.content + "\n\nAssistant: </s>";
    } else {
      out += m.content + "</s>";
    }
  }
  if (add_assistant) out += f.generation;
}

}  // namespace

ChatTemplate::ChatTemplate(int index) : index_(index), name_(formats()[size_t(index)].name) {}

std::vector<std::string> ChatTemplate::names() {
  std::vector<std::string> out;
  for (const auto& f : formats()) out.push_back(f.name);
  return out;
}

ChatTemplate ChatTemplate::from_name(const std::string& name) {
  const int i = index_of(name);
  if (i >= 0) return ChatTemplate(i);
  if (std::find(recognised_only().begin(), recognised_only().end(), name) != recognised_only().end())
    throw Error("chat template '" + name + "' is not rendered by k100lc; the templates are: " + joined_names());
  std::string msg = "unknown chat template '" + name + "'";
  const std::string near = closest_match(name, names());
  if (!near.empty()) msg += "; did you mean '" + near + "'?";
  throw Error(msg + " (the templates are: " + joined_names() + ")");
}

std::string ChatTemplate::family_of(const std::string& text) {
  if (index_of(text) >= 0) return text;
  for (const Rule& r : rules())
    if (matches(text, r)) return r.family;
  return "";
}

ChatTemplate ChatTemplate::detect(const std::string& text, const std::string& key) {
  const std::string family = family_of(text);
  if (family.empty()) {
    std::string start = text.substr(0, 60);
    for (char& c : start)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    throw Error(key + " is not a chat template k100lc recognises (it starts \"" + start +
                (text.size() > 60 ? "...\"" : "\"") + "); give --chat-template NAME, one of: " + joined_names());
  }
  const int i = index_of(family);
  if (i < 0)
    throw Error(key + " is the '" + family +
                "' format, which k100lc does not render; give --chat-template NAME, one of: " + joined_names());
  return ChatTemplate(i);
}

ChatTemplate ChatTemplate::for_model(const ChatTemplateSource& source, const std::string& name) {
  if (!name.empty()) return from_name(name);
  if (!source.text)
    throw Error(source.file + ": the model has no " + source.key + "; give --chat-template NAME, one of: " +
                joined_names());
  try {
    return detect(*source.text, source.key);
  } catch (const Error& e) {
    throw Error(source.file + ": " + e.what());
  }
}

ChatTemplateSource ChatTemplate::source_of(const quant::GgufFile& file) {
  ChatTemplateSource s{file.path(), "tokenizer.chat_template", std::nullopt};
  if (const quant::Value* v = file.find(s.key); v && v->type() == quant::ValueType::String) s.text = v->as_string();
  return s;
}

ChatTemplate ChatTemplate::for_model(const quant::GgufFile& file, const std::string& name) {
  return for_model(source_of(file), name);
}

std::string ChatTemplate::apply(const std::vector<ChatMessage>& messages, bool add_assistant) const {
  const Format& f = formats()[size_t(index_)];
  std::string out;
  switch (f.shape) {
    case Shape::Rows: render_rows(f, messages, add_assistant, out); break;
    case Shape::Llama2: render_llama2(f, messages, out); break;
    case Shape::Mistral: render_mistral(f, messages, out); break;
    case Shape::Gemma:
    case Shape::Orion: render_merged_system(f, messages, add_assistant, out); break;
  }
  return out;
}

}  // namespace k100::model
