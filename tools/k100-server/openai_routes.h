// k100-server: the HTTP endpoints (llama-server's OpenAI-compatible API):
//   GET  /health                 {"status": "ok"}
//   GET  /v1/models              the one model served
//   POST /v1/completions         text completion (OpenAI request/response shapes)
//   POST /v1/chat/completions    chat completion through the model's chat template
// "stream": true answers with server-sent events ("data: {chunk}" lines and a
// last "data: [DONE]"). Every error is a JSON body {"error": {...}} with a
// 4xx status for a bad request (malformed JSON, a field of the wrong type or
// range, an unknown path) and 5xx for a failure of the model.
#pragma once

#include <httplib.h>

#include "generation_queue.h"
#include "openai_request.h"

namespace k100::server {

void add_openai_routes(httplib::Server& http, const ServedModel& model, GenerationQueue& queue);

}  // namespace k100::server
