// Chat templates and stop strings on their own (llama.cpp comparisons are in
// chat_template_llama_test.cpp).
#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/model/chat_template.h"
#include "k100/model/stop_strings.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/gguf_writer.h"

namespace {

using namespace k100::model;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const k100::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ChatTemplate, ChatmlConversation) {
  const ChatTemplate t = ChatTemplate::from_name("chatml");
  EXPECT_EQ(t.apply({{"system", "S"}, {"user", "hi"}}, true),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(t.apply({{"user", "hi"}, {"assistant", "yo"}}, false),
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nyo<|im_end|>\n");
}

TEST(ChatTemplate, UnknownNamesAndTextsAreRefusedWithTheWayOut) {
  const std::string near = error_of([] { ChatTemplate::from_name("chatlm"); });
  EXPECT_NE(near.find("unknown chat template 'chatlm'"), std::string::npos) << near;
  EXPECT_NE(near.find("did you mean 'chatml'"), std::string::npos) << near;
  const std::string text = error_of([] { ChatTemplate::detect("Hello {{ name }} and more"); });
  EXPECT_NE(text.find("starts \"Hello {{ name }}"), std::string::npos) << text;
  EXPECT_NE(text.find("--chat-template NAME"), std::string::npos) << text;
  const std::string unrendered = error_of([] { ChatTemplate::detect("rwkv-world {{ x }}"); });
  EXPECT_NE(unrendered.find("'rwkv-world' format"), std::string::npos) << unrendered;
  EXPECT_EQ(ChatTemplate::family_of("{{ '<|start_header_id|>' }}<|end_header_id|>"), "llama3");
  EXPECT_EQ(ChatTemplate::detect("llama3").name(), "llama3");  // a name is a template too
}

TEST(ChatTemplate, ModelWithoutTemplateNamesFileAndFlag) {
  k100::quant::GgufWriter w;
  w.add("general.architecture", k100::quant::Value::string("llama"));
  const std::string path = testing::TempDir() + "/no_template.gguf";
  w.write(path);
  const auto f = k100::quant::GgufFile::open(path);
  const std::string e = error_of([&] { ChatTemplate::for_model(f); });
  EXPECT_NE(e.find("no_template.gguf: the model has no tokenizer.chat_template"), std::string::npos) << e;
  EXPECT_NE(e.find("--chat-template"), std::string::npos) << e;
  EXPECT_EQ(ChatTemplate::for_model(f, "gemma").name(), "gemma");
}

TEST(StopStrings, HoldsBackAPossibleStartAndCutsTheStop) {
  StopStrings s({"\nUser:", "###"}, false);
  EXPECT_EQ(s.push("Hello\nUs"), "Hello");  // "\nUs" may begin "\nUser:"
  EXPECT_EQ(s.push("ually fine #"), "\nUsually fine ");
  EXPECT_EQ(s.push("## tail"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.matched(), "###");
  EXPECT_EQ(s.push("more"), "");
  StopStrings shown({"END"}, true);
  EXPECT_EQ(shown.push("abcEN"), "abc");
  EXPECT_EQ(shown.push("D and on"), "END");
  StopStrings none({}, false);
  EXPECT_EQ(none.push("x#"), "x#");
  StopStrings open({"zz"}, false);
  EXPECT_EQ(open.push("az"), "a");
  EXPECT_EQ(open.flush(), "z");
  EXPECT_FALSE(open.stopped());
}

}  // namespace
