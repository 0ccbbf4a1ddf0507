#include "generation_queue.h"

#include <cstdio>

namespace k100::server {

std::string Job::take(std::chrono::milliseconds wait, bool& finished) {
  std::unique_lock lock(m_);
  cv_.wait_for(lock, wait, [&] { return done_ || !pending_.empty(); });
  std::string out;
  out.swap(pending_);
  finished = done_;
  return out;
}

const model::CompletionResult& Job::result() {
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return done_; });
  return result_;
}

std::string Job::error() const {
  std::lock_guard lock(m_);
  return error_;
}

void Job::push(const std::string& text) {
  {
    std::lock_guard lock(m_);
    pending_ += text;
  }
  cv_.notify_all();
}

void Job::finish(model::CompletionResult result, std::string error) {
  {
    std::lock_guard lock(m_);
    result_ = std::move(result);
    error_ = std::move(error);
    done_ = true;
  }
  cv_.notify_all();
}

GenerationQueue::GenerationQueue(model::Completer& completer) : completer_(completer) {
  worker_ = std::thread([this] { work(); });
}

GenerationQueue::~GenerationQueue() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
    for (auto& j : queue_) j->cancel();
  }
  cv_.notify_all();
  worker_.join();
}

std::shared_ptr<Job> GenerationQueue::submit(CompletionRequest request) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lock(m_);
    job = std::make_shared<Job>(std::move(request), next_number_++);
    queue_.push_back(job);
  }
  cv_.notify_all();
  return job;
}

size_t GenerationQueue::waiting() const {
  std::lock_guard lock(m_);
  return queue_.size();
}

void GenerationQueue::work() {
  while (true) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = queue_.front();
      queue_.pop_front();
    }
    const auto t0 = std::chrono::steady_clock::now();
    model::CompletionResult result;
    std::string error;
    try {
      model::CompletionHooks hooks;
      hooks.on_text = [&](const std::string& text) {
        job->push(text);
        return true;
      };
      hooks.cancelled = [&] { return job->cancelled(); };
      result = completer_.complete(job->request.prompt, job->request.params, hooks);
    } catch (const std::exception& e) {
      error = e.what();
      result.finish = model::FinishReason::Cancelled;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!error.empty())
      std::fprintf(stderr, "k100-server: request %llu failed: %s\n", (unsigned long long)job->number, error.c_str());
    else
      std::fprintf(stderr,
                   "k100-server: request %llu (%s%s): %zu prompt tokens (%lld reused), %zu generated, %s, %.2f s\n",
                   (unsigned long long)job->number, job->request.chat ? "chat" : "completion",
                   job->request.stream ? ", streamed" : "", job->request.prompt.size(),
                   (long long)result.stats.reused_tokens, result.tokens.size(),
                   result.finish == model::FinishReason::Cancelled ? "client gone, stopped"
                                                                   : model::finish_reason_name(result.finish),
                   seconds);
    job->finish(std::move(result), std::move(error));
  }
}

}  // namespace k100::server
