#include "openai_request.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <random>

namespace k100::server {
namespace {

using nlohmann::json;

ApiError bad(const std::string& param, const std::string& message) {
  ApiError e;
  e.param = param;
  e.message = param.empty() ? message : param + ": " + message;
  return e;
}

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

// The field when present and not null.
const json* field(const json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number(const json& body, const char* name, double fallback) {
  const json* v = field(body, name);
  if (!v) return fallback;
  if (!v->is_number()) throw bad(name, std::string("expected a number, got ") + type_name(*v));
  return v->get<double>();
}

int64_t integer(const json& body, const char* name, int64_t fallback) {
  const json* v = field(body, name);
  if (!v) return fallback;
  if (!v->is_number_integer()) throw bad(name, std::string("expected an integer, got ") + type_name(*v));
  return v->get<int64_t>();
}

bool boolean(const json& body, const char* name, bool fallback) {
  const json* v = field(body, name);
  if (!v) return fallback;
  if (!v->is_boolean()) throw bad(name, std::string("expected true or false, got ") + type_name(*v));
  return v->get<bool>();
}

double sampling(const json& body, const char* name, double fallback, model::SamplerField f) {
  const double v = number(body, name, fallback);
  const std::string rule = model::sampler_rule_broken(f, v);
  if (!rule.empty()) throw bad(name, field(body, name)->dump() + " " + rule);
  return v;
}

// A feature the server does not offer: refused unless absent or at its
// neutral value, so a request is never answered as if it had been used.
void refuse_unless(const json& body, const char* name, const std::function<bool(const json&)>& neutral,
                   const std::string& why) {
  const json* v = field(body, name);
  if (v && !neutral(*v)) throw bad(name, why);
}

std::string text_content(const json& content, size_t index) {
  const std::string where = "messages[" + std::to_string(index) + "].content";
  if (content.is_null()) return "";
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) throw bad(where, std::string("expected a string or an array of parts, got ") + type_name(content));
  std::string text;
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
      throw bad(at, "expected an object with a \"type\"");
    if (part["type"] != "text") throw bad(at, "only text parts are supported, not \"" + part["type"].get<std::string>() + "\"");
    if (!part.contains("text") || !part["text"].is_string()) throw bad(at + ".text", "expected a string");
    text += part["text"].get<std::string>();
  }
  return text;
}

std::vector<model::ChatMessage> read_messages(const json& body) {
  const json* m = field(body, "messages");
  if (!m) throw bad("messages", "required");
  if (!m->is_array() || m->empty()) throw bad("messages", "expected a non-empty array of messages");
  std::vector<model::ChatMessage> out;
  for (size_t i = 0; i < m->size(); ++i) {
    const json& msg = (*m)[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!msg.is_object()) throw bad(at, std::string("expected an object, got ") + type_name(msg));
    if (!msg.contains("role") || !msg["role"].is_string()) throw bad(at + ".role", "expected a string");
    std::string role = msg["role"].get<std::string>();
    if (role == "developer") role = "system";  // OpenAI's newer name for the system message
    if (role != "system" && role != "user" && role != "assistant" && role != "tool")
      throw bad(at + ".role", "\"" + role + "\" is not one of system, developer, user, assistant, tool");
    if (!msg.contains("content") && role != "assistant") throw bad(at + ".content", "required");
    out.push_back({role, text_content(msg.contains("content") ? msg["content"] : json(), i)});
  }
  return out;
}

std::vector<model::TokenId> read_prompt(const json& body, const ServedModel& m) {
  const json* p = field(body, "prompt");
  if (!p) throw bad("prompt", "required");
  const model::EncodeOptions special{.add_special = true, .parse_special = true};
  if (p->is_string()) return m.tokenizer->encode(p->get<std::string>(), special);
  if (p->is_array() && p->size() == 1 && (*p)[0].is_string())
    return m.tokenizer->encode((*p)[0].get<std::string>(), special);
  if (p->is_array() && !p->empty() && (*p)[0].is_number_integer()) {  // token ids
    std::vector<model::TokenId> ids;
    for (size_t i = 0; i < p->size(); ++i) {
      const json& t = (*p)[i];
      if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= int64_t(m.tokenizer->size()))
        throw bad("prompt[" + std::to_string(i) + "]", "not a token id of the vocabulary of " +
                                                           std::to_string(m.tokenizer->size()));
      ids.push_back(model::TokenId(t.get<int64_t>()));
    }
    return ids;
  }
  if (p->is_array() && p->size() > 1 && (*p)[0].is_string())
    throw bad("prompt", "one prompt per request (this server answers with one choice)");
  throw bad("prompt", std::string("expected a string or an array of token ids, got ") + type_name(*p));
}

std::vector<std::string> read_stop(const json& body) {
  const json* s = field(body, "stop");
  if (!s) return {};
  if (s->is_string()) return {s->get<std::string>()};
  if (!s->is_array()) throw bad("stop", std::string("expected a string or an array of strings, got ") + type_name(*s));
  std::vector<std::string> out;
  for (size_t i = 0; i < s->size(); ++i) {
    if (!(*s)[i].is_string()) throw bad("stop[" + std::to_string(i) + "]", "expected a string");
    out.push_back((*s)[i].get<std::string>());
  }
  return out;
}

}  // namespace

CompletionRequest read_completion_request(const std::string& text, bool chat, const ServedModel& m) {
  json body;
  try {
    body = json::parse(text);
  } catch (const json::parse_error& e) {
    ApiError err;
    err.message = std::string("the request body is not valid JSON: ") + e.what();
    throw err;
  }
  if (!body.is_object()) throw bad("", std::string("the request body must be a JSON object, not ") + type_name(body));

  CompletionRequest r;
  r.chat = chat;
  r.stream = boolean(body, "stream", false);
  if (const json* so = field(body, "stream_options")) {
    if (!so->is_object()) throw bad("stream_options", "expected an object");
    r.include_usage = boolean(*so, "include_usage", false);
  }
  refuse_unless(body, "n", [](const json& v) { return v == 1; }, "only n = 1 is supported");
  refuse_unless(body, "best_of", [](const json& v) { return v == 1; }, "only best_of = 1 is supported");
  refuse_unless(body, "echo", [](const json& v) { return v == false; }, "echo is not supported");
  refuse_unless(body, "suffix", [](const json& v) { return v == ""; }, "suffix is not supported");
  refuse_unless(body, "logprobs", [](const json& v) { return v == false; }, "logprobs are not supported");
  refuse_unless(body, "top_logprobs", [](const json& v) { return v == 0; }, "logprobs are not supported");
  refuse_unless(body, "logit_bias", [](const json& v) { return v.is_object() && v.empty(); },
                "logit_bias is not supported");
  refuse_unless(body, "tools", [](const json& v) { return v.is_array() && v.empty(); }, "tools are not supported");
  refuse_unless(body, "functions", [](const json& v) { return v.is_array() && v.empty(); },
                "functions are not supported");
  refuse_unless(body, "response_format", [](const json& v) { return v.is_object() && v.value("type", "") == "text"; },
                "only the \"text\" response format is supported");

  model::CompletionParams& p = r.params;
  const int64_t max_tokens = integer(body, "max_tokens", integer(body, "max_completion_tokens", m.default_max_tokens));
  if (max_tokens < -1) throw bad("max_tokens", std::to_string(max_tokens) + " must be 0 or more (-1: no limit)");
  p.max_tokens = max_tokens;
  using F = model::SamplerField;
  p.sampler.temperature = float(sampling(body, "temperature", 0.8, F::Temperature));
  p.sampler.top_p = float(sampling(body, "top_p", 0.95, F::TopP));
  if (const json* k = field(body, "top_k"); k && !k->is_number_integer())
    throw bad("top_k", std::string("expected an integer, got ") + type_name(*k));
  p.sampler.top_k = int32_t(sampling(body, "top_k", 40, F::TopK));
  p.sampler.min_p = float(sampling(body, "min_p", 0.05, F::MinP));
  p.sampler.repeat_penalty = float(sampling(body, "repeat_penalty", 1.0, F::RepeatPenalty));
  p.sampler.repeat_last_n = int32_t(sampling(body, "repeat_last_n", 64, F::RepeatLastN));
  p.sampler.presence_penalty = float(sampling(body, "presence_penalty", 0.0, F::PresencePenalty));
  p.sampler.frequency_penalty = float(sampling(body, "frequency_penalty", 0.0, F::FrequencyPenalty));
  const int64_t seed = integer(body, "seed", int64_t(m.default_seed));
  if (seed < -1) throw bad("seed", std::to_string(seed) + " must be -1 (random) or 0 or more");
  p.sampler.seed = seed == -1 ? (uint64_t(std::random_device{}()) << 32 | std::random_device{}()) : uint64_t(seed);
  p.ignore_eos = boolean(body, "ignore_eos", false);
  p.stop = read_stop(body);
  p.show_stop = false;

  if (chat) {
    const std::vector<model::ChatMessage> messages = read_messages(body);
    if (!m.chat_template) {
      ApiError e = bad("messages", m.chat_template_problem);
      throw e;
    }
    const std::string prompt = m.chat_template->apply(messages, true);
    r.prompt = m.tokenizer->encode(prompt, {.add_special = true, .parse_special = true});
  } else {
    r.prompt = read_prompt(body, m);
  }
  if (r.prompt.empty()) throw bad(chat ? "messages" : "prompt", "the prompt is empty");
  if (int64_t(r.prompt.size()) > m.context) {
    ApiError e = bad(chat ? "messages" : "prompt", "the prompt has " + std::to_string(r.prompt.size()) +
                                                       " tokens; the context holds " + std::to_string(m.context) +
                                                       " (start the server with a larger -c)");
    e.code = "context_length_exceeded";
    throw e;
  }
  return r;
}

}  // namespace k100::server
