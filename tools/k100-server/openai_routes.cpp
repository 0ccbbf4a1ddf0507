#include "openai_routes.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <random>

namespace k100::server {
namespace {

using nlohmann::json;

// Generated text can hold bytes that are not UTF-8 (a model may emit any
// byte); JSON cannot, so they go out as U+FFFD.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json error_body(const ApiError& e) {
  return json{{"error",
               {{"message", e.message},
                {"type", e.type},
                {"param", e.param.empty() ? json(nullptr) : json(e.param)},
                {"code", e.code.empty() ? json(nullptr) : json(e.code)}}}};
}

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  res.set_content(dump(error_body(e)), "application/json");
}

ApiError server_error(const std::string& message) {
  ApiError e;
  e.status = 500;
  e.message = message;
  e.type = "server_error";
  return e;
}

int64_t unix_time() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string new_id(const char* prefix) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%04llx", (unsigned long long)salt,
                (unsigned long long)(counter.fetch_add(1) & 0xffff));
  return prefix + std::string(buf);
}

json usage(const Job& job, const model::CompletionResult& r) {
  const int64_t prompt = int64_t(job.request.prompt.size()), completion = int64_t(r.tokens.size());
  return json{{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

// The envelope every response and chunk shares.
json envelope(const std::string& id, const char* object, int64_t created, const ServedModel& model) {
  return json{{"id", id}, {"object", object}, {"created", created}, {"model", model.id}};
}

json finish_of(const model::CompletionResult& r) { return json(model::finish_reason_name(r.finish)); }

json complete_body(const std::string& id, int64_t created, const ServedModel& model, const Job& job,
                   const model::CompletionResult& r) {
  const bool chat = job.request.chat;
  json body = envelope(id, chat ? "chat.completion" : "text_completion", created, model);
  json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish_of(r)}};
  if (chat) choice["message"] = {{"role", "assistant"}, {"content", r.text}};
  else choice["text"] = r.text;
  body["choices"] = json::array({choice});
  body["usage"] = usage(job, r);
  return body;
}

// One streamed chunk: text (or, with `finish`, the last one).
json chunk(const std::string& id, int64_t created, const ServedModel& model, bool chat, const std::string& text,
           const json& finish) {
  json body = envelope(id, chat ? "chat.completion.chunk" : "text_completion", created, model);
  json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish}};
  if (chat) choice["delta"] = finish.is_null() ? json{{"content", text}} : json::object();
  else choice["text"] = text;
  body["choices"] = json::array({choice});
  return body;
}

void stream(httplib::Response& res, const std::shared_ptr<Job>& job, const ServedModel& model) {
  const std::string id = new_id(job->request.chat ? "chatcmpl-" : "cmpl-");
  const int64_t created = unix_time();
  res.set_header("Cache-Control", "no-cache");
  bool started = false;
  res.set_chunked_content_provider(
      "text/event-stream",
      [job, id, created, &model, started](size_t, httplib::DataSink& sink) mutable {
        auto send = [&](const std::string& data) {
          const std::string event = "data: " + data + "\n\n";
          return sink.write(event.data(), event.size());
        };
        auto gone = [&] {  // the client went away: stop its generation at the next token
          job->cancel();
          return false;
        };
        const bool chat = job->request.chat;
        if (!started) {  // OpenAI's first chat chunk names the role
          started = true;
          if (chat) {
            json first = chunk(id, created, model, true, "", nullptr);
            first["choices"][0]["delta"] = {{"role", "assistant"}, {"content", ""}};
            if (!send(dump(first))) return gone();
          }
        }
        bool finished = false;
        const std::string text = job->take(std::chrono::milliseconds(200), finished);
        if (!text.empty() && !send(dump(chunk(id, created, model, chat, text, nullptr)))) return gone();
        if (!finished) {
          if (!sink.is_writable()) return gone();
          return true;
        }
        const model::CompletionResult& r = job->result();
        if (!job->error().empty()) {
          send(dump(error_body(server_error(job->error()))));
        } else {
          send(dump(chunk(id, created, model, chat, "", finish_of(r))));
          if (job->request.include_usage) {
            json last = envelope(id, chat ? "chat.completion.chunk" : "text_completion", created, model);
            last["choices"] = json::array();
            last["usage"] = usage(*job, r);
            send(dump(last));
          }
        }
        send("[DONE]");
        sink.done();
        return true;
      },
      [job](bool success) {
        if (!success) job->cancel();  // the client went away
      });
}

}  // namespace

void add_openai_routes(httplib::Server& http, const ServedModel& model, GenerationQueue& queue) {
  const int64_t started = unix_time();
  http.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status": "ok"})", "application/json");
  });
  auto models = [&model, started](const httplib::Request&, httplib::Response& res) {
    json entry = {{"id", model.id},
                  {"object", "model"},
                  {"created", started},
                  {"owned_by", "k100lc"},
                  {"meta", {{"n_ctx", model.context}, {"n_vocab", model.tokenizer->size()}}}};
    res.set_content(dump(json{{"object", "list"}, {"data", json::array({entry})}}), "application/json");
  };
  http.Get("/v1/models", models);
  http.Get("/models", models);

  for (const bool chat : {false, true}) {
    auto handler = [&model, &queue, chat](const httplib::Request& req, httplib::Response& res) {
      CompletionRequest request;
      try {
        request = read_completion_request(req.body, chat, model);
      } catch (const ApiError& e) {
        send_error(res, e);
        return;
      }
      const std::shared_ptr<Job> job = queue.submit(std::move(request));
      if (job->request.stream) return stream(res, job, model);
      const model::CompletionResult& r = job->result();
      if (!job->error().empty()) return send_error(res, server_error(job->error()));
      const std::string id = new_id(chat ? "chatcmpl-" : "cmpl-");
      res.set_content(dump(complete_body(id, unix_time(), model, *job, r)), "application/json");
    };
    const char* path = chat ? "/v1/chat/completions" : "/v1/completions";
    http.Post(path, handler);
    http.Post(chat ? "/chat/completions" : "/completions", handler);
    http.Get(path, [path](const httplib::Request&, httplib::Response& res) {
      ApiError e;
      e.status = 405;
      e.message = std::string(path) + " takes POST with a JSON body";
      send_error(res, e);
    });
  }

  // Anything else (an unknown path, a body over the size limit) is a JSON error too.
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    ApiError e;
    e.status = res.status;
    e.message = res.status == 404 ? "no endpoint " + req.method + " " + req.path +
                                        " (the endpoints: /health, /v1/models, /v1/completions, /v1/chat/completions)"
                                  : "HTTP " + std::to_string(res.status);
    e.type = res.status >= 500 ? "server_error" : "invalid_request_error";
    res.set_content(dump(error_body(e)), "application/json");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown failure";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send_error(res, server_error(what));
  });
}

}  // namespace k100::server
