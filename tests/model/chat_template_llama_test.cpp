// Chat templates against llama.cpp's llama_chat_apply_template: every
// built-in format rendered alike (or refused by name), and template texts
// recognised as the same family.
#include <gtest/gtest.h>

#include <algorithm>

#include "k100/base/error.h"
#include "k100/model/chat_template.h"
#include "llama_oracle.h"

namespace {

using k100::model::ChatMessage;
using k100::model::ChatTemplate;
using Messages = std::vector<std::pair<std::string, std::string>>;

// Conversations that reach every branch of the formats: a lone user turn, a
// system message and several turns with surrounding white space, two system
// messages, and roles beyond the three usual ones.
const std::vector<Messages>& conversations() {
  static const std::vector<Messages> c = {
      {{"user", "Hello"}},
      {{"system", "  You are a helpful assistant.\n"},
       {"user", "Hi there"},
       {"assistant", " Hello! How can I help? "},
       {"user", "Tell me a joke.\n"}},
      {{"system", "first rule"}, {"system", "second rule"}, {"user", "q"}, {"assistant", "a"}, {"user", "again"}},
      {{"user", "call it"}, {"assistant", "calling"}, {"tool", "42"}, {"assistant_tool_call", "[x]"}, {"user", "ok"}},
  };
  return c;
}

std::vector<ChatMessage> ours(const Messages& m) {
  std::vector<ChatMessage> out;
  for (const auto& [role, content] : m) out.push_back({role, content});
  return out;
}

TEST(ChatTemplateLlama, EveryBuiltinFormatRendersAsLlamaCpp) {
  K100_REQUIRE_LLAMA(oracle);
  const std::vector<std::string> names = ChatTemplate::names();
  const std::vector<std::string> builtin = oracle->chat_builtin_templates();
  ASSERT_GT(builtin.size(), 30u);
  int rendered = 0;
  for (const std::string& name : builtin) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      EXPECT_THROW(ChatTemplate::from_name(name), k100::Error) << name << " is neither rendered nor refused";
      continue;
    }
    const ChatTemplate t = ChatTemplate::from_name(name);
    for (const Messages& m : conversations())
      for (bool add : {false, true}) {
        const std::optional<std::string> want = oracle->chat_apply_template(name, m, add);
        ASSERT_TRUE(want.has_value()) << name;
        EXPECT_EQ(t.apply(ours(m), add), *want) << name << ", " << m.size() << " messages, add_assistant " << add;
      }
    ++rendered;
  }
  EXPECT_GE(rendered, 45) << "formats rendered alike";
}

// Template texts (shortened, as the families' files spell them) recognised
// by their strings: our family renders what llama.cpp renders from the same
// text, or is refused by name where llama.cpp knows a format we do not render.
TEST(ChatTemplateLlama, TemplateTextsAreRecognisedAsLlamaCpp) {
  K100_REQUIRE_LLAMA(oracle);
  const std::vector<std::string> texts = {
      "{% for m in messages %}{{'<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n'}}{% endfor %}",
      "{{'<|im_start|>' + m['role'] + '<|im_sep|>' + m['content'] + '<|im_end|>'}}",
      "{{'<|im_start|>User:' + m['content'] + '<end_of_utterance>'}}",
      "{{ bos_token }}{% for m in messages %}{{ '[INST] ' + m['content'] + ' [/INST]' }}{% endfor %}",
      "{{ '[INST] <<SYS>>\\n' + system + '\\n<</SYS>>\\n\\n' }}",
      "{{ bos_token + '[INST] ' + m['content'] }} <<SYS>>",
      "{{ '[INST] ' + m['content'].strip() + ' [/INST]' }} <<SYS>>",
      "{{ bos_token }}{{ ' [INST] ' + system_message + m['content'] + ' [/INST]' }}",
      "{{ '[AVAILABLE_TOOLS]' }}{{ '[INST] ' + m['content'] + '[/INST]' }}",
      "{{ \"[AVAILABLE_TOOLS]\" }}{{ \"[INST]\" + m['content'] + \"[/INST]\" }}",
      "{{ '[SYSTEM_PROMPT]' + system + '[/SYSTEM_PROMPT]' }}{{ '[INST]' + m['content'] + '[/INST]' }}",
      "mistral-like: {{ m['content'] }}",
      "{{ '<|user|>\\n' + m['content'] + '<|end|>\\n<|assistant|>\\n' }}",
      "[gMASK]<sop>{% for m in messages %}<|{{ m['role'] }}|>{% endfor %}",
      "{{ '<|user|>\\n' + m['content'] }}{{ '<|assistant|>\\n' + m['content'] + '</s>' }}",
      "{{ '<|user|>\\n' + m['content'] }}{{ '<|assistant|>' }}",
      "{{ '<|user|>\\n' + m['content'] + '<|endoftext|>' }}",
      "{{ bos_token + message['role'] + '\\n' + message['content'] + eos_token }}",
      "{{ '<start_of_turn>' + role + '\\n' + m['content'] | trim + '<end_of_turn>\\n' }}",
      "{{ 'Human: ' + m['content'] + '\\n\\nAssistant: ' + eos_token }}",
      "{{ 'GPT4 Correct ' + m['role'] | title + ': ' + m['content'] + '<|end_of_turn|>' }}",
      "{{ 'USER: ' + m['content'] + ' ASSISTANT: ' }}",
      "{{ 'SYSTEM: ' + s }}{{ 'USER: ' + m['content'] + ' ASSISTANT: ' }}",
      "{{ '### Instruction:\\n' + m['content'] + '\\n### Response:\\n' + a + '\\n<|EOT|>\\n' }}",
      "{{ '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>' + m['content'] + '<|END_OF_TURN_TOKEN|>' }}",
      "{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' + m['content'] | trim + '<|eot_id|>' }}",
      "[gMASK]sop{{ '<|' + m['role'] + '|>\\n ' + m['content'] }}",
      "{{ '<\xE7\x94\xA8\xE6\x88\xB7>' + m['content'] + '<AI>' }}",
      "{{ 'User: ' + m['content'] + '\\n\\n' }}{{ 'Assistant: ' + message['content'] + eos_token }}",
      "{{ '<\xEF\xBD\x9CUser\xEF\xBD\x9C>' + c }}{{ '<\xEF\xBD\x9C" "Assistant\xEF\xBD\x9C>' + c + "
      "'<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>' }}",
      "{{ '[|system|]' + s + '[|endofturn|]\\n' }}{{ '[|assistant|]' }}",
      "{{ '[|system|]' + s + '[|endofturn|]\\n' }}{{ '[|assistant|]' }}{{ '[|tool|]' }}",
      "{{ '<|start_of_role|>' + m['role'] + '<|end_of_role|>' + m['content'] + '<|end_of_text|>\\n' }}",
      "{{ '<|start_of_role|>' }}<tools>{{ g4_default_system_message }}",
      "{{ '<|start_of_role|>' }}<tool_call>",
      "{{ '<|role_start|>' + m['role'] + '<|role_end|>' + m['content'] + '<|turn_end|>' }}",
      "{{ '<role>' + r + '</role>' }}<role>ASSISTANT</role>{{ 'HUMAN' if x else y }} 'HUMAN'",
      "{{ '<|header_start|>' + m['role'] + '<|header_end|>\\n\\n' + m['content'] | trim + '<|eot|>' }}",
      "<|userprompt|>{{ c }}<|endofuserprompt|>",
      "<|startoftext|>{{ c }}<|extra_4|><|extra_0|>",
      "{{ '<|start|>' + m['role'] + '<|channel|>' + c }}",
      "<|im_assistant|>assistant<|im_middle|>{{ c }}<|im_end|>",
      "<seed:bos>{{ m['role'] }}<seed:eos>",
      "{{ 'Assistant: '  + message['content'] + '<|separator|>\\n\\n' }}",
      "<|begin|>{{ r }}<|content|>{{ c }}<|end|>",
      "rwkv-world {{ c }}",
      "{{ message['role'] + additional_special_tokens[0] + message['content'] + additional_special_tokens[1] }}",
      "{% for m in messages %}{{ m['content'] }}{% endfor %}",  // no family
      "Hello {{ name }}",                                         // no family
  };
  int compared = 0, refused = 0;
  for (const std::string& text : texts) {
    const std::string family = ChatTemplate::family_of(text);
    for (const Messages& m : conversations()) {
      const std::optional<std::string> want = oracle->chat_apply_template(text, m, true);
      if (family.empty()) {
        EXPECT_FALSE(want.has_value()) << "llama.cpp recognises a family in: " << text;
        EXPECT_THROW(ChatTemplate::detect(text), k100::Error);
        continue;
      }
      ASSERT_TRUE(want.has_value()) << "llama.cpp recognises no family in: " << text << " (ours: " << family << ")";
      const std::vector<std::string> names = ChatTemplate::names();
      if (std::find(names.begin(), names.end(), family) == names.end()) {
        try {
          ChatTemplate::detect(text);
          ADD_FAILURE() << family << " is not rendered, yet accepted";
        } catch (const k100::Error& e) {
          EXPECT_NE(std::string(e.what()).find("'" + family + "'"), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find("--chat-template"), std::string::npos) << e.what();
        }
        // the family named is the one llama.cpp renders this text as
        if (const auto by_name = oracle->chat_apply_template(family, m, true)) {
          EXPECT_EQ(*by_name, *want) << text;
        }
        ++refused;
        continue;
      }
      EXPECT_EQ(ChatTemplate::detect(text).apply(ours(m), true), *want) << text << " (ours: " << family << ")";
      ++compared;
    }
  }
  EXPECT_GE(compared, 4 * 40);
  EXPECT_GE(refused, 4);
}

}  // namespace
