// k100-server: one model on one device, so requests take turns. A worker
// thread owns the Completer and runs the queued requests in order; each
// request's text reaches its HTTP thread piece by piece, and a request whose
// client has gone is cancelled at its next token (or skipped if it has not
// started).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "k100/model/completion.h"
#include "openai_request.h"

namespace k100::server {

class Job {
 public:
  explicit Job(CompletionRequest request, uint64_t number) : request(std::move(request)), number(number) {}
  const CompletionRequest request;
  const uint64_t number;  // in arrival order, for the log

  // The text released since the last call (waits up to `wait` for some);
  // `finished` is set once the result is final.
  std::string take(std::chrono::milliseconds wait, bool& finished);
  // Waits for the result.
  const model::CompletionResult& result();
  // The failure of the run, "" when it ran.
  std::string error() const;
  // Stops the job at its next token (the client is gone).
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  friend class GenerationQueue;
  void push(const std::string& text);
  void finish(model::CompletionResult result, std::string error);

  mutable std::mutex m_;
  std::condition_variable cv_;
  std::string pending_;
  bool done_ = false;
  model::CompletionResult result_;
  std::string error_;
  std::atomic<bool> cancelled_{false};
};

class GenerationQueue {
 public:
  explicit GenerationQueue(model::Completer& completer);
  ~GenerationQueue();
  GenerationQueue(const GenerationQueue&) = delete;
  GenerationQueue& operator=(const GenerationQueue&) = delete;

  std::shared_ptr<Job> submit(CompletionRequest request);
  size_t waiting() const;  // jobs not yet started

 private:
  void work();

  model::Completer& completer_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  uint64_t next_number_ = 1;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace k100::server
