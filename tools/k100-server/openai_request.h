// k100-server: the OpenAI requests (/v1/completions, /v1/chat/completions)
// read into a completion the model can run, every field checked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "k100/model/chat_template.h"
#include "k100/model/completion.h"
#include "k100/model/tokenizer.h"

namespace k100::server {

// A request answered with an HTTP error and OpenAI's error object
// ({"error": {"message", "type", "param", "code"}}).
struct ApiError {
  int status = 400;
  std::string message;
  std::string param;                           // the field at fault, "" for none
  std::string code;                            // e.g. "context_length_exceeded"
  std::string type = "invalid_request_error";  // "server_error" for 5xx
};

// What the server knows of its model when it reads a request.
struct ServedModel {
  std::string id;  // the name /v1/models lists and responses carry
  const model::Tokenizer* tokenizer = nullptr;
  std::optional<model::ChatTemplate> chat_template;
  std::string chat_template_problem;  // why there is none (said to a chat request)
  int64_t context = 0;                // tokens the KV cache holds
  int64_t default_max_tokens = -1;    // -n of the server
  uint64_t default_seed = 0;          // -s of the server
};

struct CompletionRequest {
  bool chat = false;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  std::vector<model::TokenId> prompt;
  model::CompletionParams params;
};

// Reads a request body; ApiError naming the field for malformed JSON, a
// value of the wrong type or out of its range, a feature not supported
// (n > 1, logprobs, tools, ...), or a prompt longer than the context.
CompletionRequest read_completion_request(const std::string& body, bool chat, const ServedModel& model);

}  // namespace k100::server
