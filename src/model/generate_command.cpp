// Running `generate`: a prompt continued, a chat, or an interactive session
// (include/k100/model/generate_command.h).
#include "k100/model/generate_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <string>

#include "k100/base/error.h"
#include "k100/model/chat_template.h"
#include "k100/model/completion.h"
#include "k100/model/decoder.h"
#include "k100/model/hf_model.h"
#include "k100/model/profiling_device.h"
#include "k100/model/tokenizer.h"
#include "k100/quant/npy.h"

namespace k100::model {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Ctrl-C: a flag the generation loop polls at every token. The handler is
// installed for the run only (Python's own comes back afterwards) and
// without SA_RESTART, so a read of standard input returns at once.
std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &old_);
  }
  ~InterruptGuard() { sigaction(SIGINT, &old_, nullptr); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_ {};
};

class ProgressBar {
 public:
  ProgressBar(std::FILE* err, std::string what) : err_(err), what_(std::move(what)), tty_(isatty(fileno(err)) == 1) {}
  void update(uint64_t done, uint64_t total) {
    const int pct = total ? int(100.0 * double(done) / double(total)) : 100;
    if (pct == last_ || (!tty_ && pct != 100 && pct / 25 == last_ / 25)) return;  // a pipe gets quarter steps
    last_ = pct;
    const int width = 30, fill = pct * width / 100;
    std::fprintf(err_, "%sloading %s [%s%s] %3d%% %.1f MB%s", tty_ ? "\r" : "", what_.c_str(),
                 std::string(size_t(fill), '#').c_str(), std::string(size_t(width - fill), '.').c_str(), pct,
                 double(total) / 1e6, tty_ && pct < 100 ? "" : "\n");
    std::fflush(err_);
  }

 private:
  std::FILE* err_;
  std::string what_;
  bool tty_;
  int last_ = -1;
};

// The last part of a path ("Qwen3-0.6B" of "models/Qwen3-0.6B/" too).
std::string base_name(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// One line of `in` without its newline; false at the end of input or on Ctrl-C.
bool read_line(std::FILE* in, std::string& line) {
  line.clear();
  char buf[4096];
  while (!g_interrupted.load()) {
    if (!std::fgets(buf, sizeof buf, in)) {
      if (std::ferror(in) && errno == EINTR && !g_interrupted.load()) {
        std::clearerr(in);
        continue;
      }
      return !line.empty();
    }
    line += buf;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
  }
  return false;
}

// Totals over every answer, printed at the end as llama.cpp prints its timings.
struct Totals {
  double load_seconds = 0, prompt_seconds = 0, decode_seconds = 0, sample_seconds = 0;
  int64_t prompt_tokens = 0, reused_tokens = 0, decode_passes = 0, generated = 0;
  uint64_t launches_per_token = 0;
  std::map<std::string, ProfilingDevice::FamilyTime> families;

  void add(const CompletionResult& r) {
    prompt_seconds += r.stats.prompt_seconds;
    decode_seconds += r.stats.decode_seconds;
    sample_seconds += r.sample_seconds;
    prompt_tokens += r.stats.prompt_tokens;
    reused_tokens += r.stats.reused_tokens;
    decode_passes += r.stats.decode_passes;
    generated += int64_t(r.tokens.size());
    if (r.stats.launches_per_token) launches_per_token = r.stats.launches_per_token;
    for (const auto& f : r.stats.families) {
      auto& t = families[f.family];
      t.family = f.family;
      t.ms += f.ms;
      t.launches += f.launches;
    }
  }

  void print(std::FILE* err, double total_seconds, const std::string& backend) const {
    auto per = [&](const char* what, double s, int64_t n, const char* unit) {
      std::fprintf(err, "k100_perf: %16s = %10.2f ms / %5lld %-6s (%8.2f ms per token, %8.2f tokens per second)\n",
                   what, s * 1e3, (long long)n, unit, n ? s * 1e3 / double(n) : 0.0, s > 0 ? double(n) / s : 0.0);
    };
    std::fprintf(err, "k100_perf: %16s = %10.2f ms\n", "load time", load_seconds * 1e3);
    per("prompt eval time", prompt_seconds, prompt_tokens, "tokens");
    per("eval time", decode_seconds, decode_passes, "runs");
    per("sampling time", sample_seconds, generated, "runs");
    std::fprintf(err, "k100_perf: %16s = %10.2f ms / %5lld tokens\n", "total time", total_seconds * 1e3,
                 (long long)(prompt_tokens + generated));
    if (reused_tokens)
      std::fprintf(err, "k100_perf: %lld prompt tokens reused from the KV cache\n", (long long)reused_tokens);
    std::fprintf(err, "k100_perf: %llu launches per token, on %s\n", (unsigned long long)launches_per_token,
                 backend.c_str());
    if (families.empty()) return;
    double total = 0;
    for (const auto& [name, f] : families) total += f.ms;
    std::fprintf(err, "k100_perf: device time per kernel family (decode passes, between queue markers):\n");
    for (const auto& [name, f] : families)
      std::fprintf(err, "  %-15s %9.3f ms  %5.1f%%  %6llu launches\n", name.c_str(), f.ms,
                   total > 0 ? 100.0 * f.ms / total : 0.0, (unsigned long long)f.launches);
  }
};

void print_prompt_tokens(std::FILE* err, const Tokenizer* tok, const std::string* text,
                         const std::vector<TokenId>& ids) {
  if (text) std::fprintf(err, "prompt: '%s'\n", text->c_str());
  std::fprintf(err, "number of tokens in prompt = %zu\n", ids.size());
  std::string line = "prompt ids:";
  for (TokenId id : ids) line += " " + std::to_string(id);
  std::fprintf(err, "%s\n", line.c_str());
  for (TokenId id : ids)
    std::fprintf(err, "%6d -> '%s'\n", id, tok ? tok->token_to_piece(id, true).c_str() : "");
}

void print_ids(std::FILE* err, const std::vector<TokenId>& ids) {
  std::string line = "ids:";
  for (TokenId t : ids) line += " " + std::to_string(t);
  std::fprintf(err, "%s\n", line.c_str());
}

// The tokens a reply leaves in the history: an end-of-generation token is not part of it.
std::vector<TokenId> without_end(const Tokenizer* tok, std::vector<TokenId> ids) {
  if (tok && !ids.empty() && tok->is_end_of_generation(ids.back())) ids.pop_back();
  return ids;
}

int generate(Device& base, const GenerateRequest& r, std::FILE* in, std::FILE* out, std::FILE* err) {
  const double t_start = now();
  const ModelFiles files = ModelFiles::open(r.model_path, r.rt4_path);  // a GGUF file or a Hugging Face directory
  const ModelConfig& cfg = files.config();
  std::optional<Tokenizer> tok;
  std::string tok_error;
  try {
    tok.emplace(files.tokenizer());
  } catch (const Error& e) {
    tok_error = e.what();
  }
  const bool chat = r.conversation || r.system_prompt.has_value();
  if (!tok && (r.prompt || chat || r.interactive))
    throw Error("the model's tokenizer cannot be read: " + tok_error + " (give --tokens instead)");
  std::optional<ChatTemplate> tmpl;
  if (chat) tmpl.emplace(ChatTemplate::for_model(files.chat_template_source(), r.chat_template));
  else if (!r.chat_template.empty()) ChatTemplate::from_name(r.chat_template);  // a bad name is still an error

  // The first prompt (a chat renders its turns later).
  std::vector<TokenId> prompt;
  if (!chat) {
    prompt = r.prompt ? tok->encode(*r.prompt, {.add_special = true, .parse_special = true}) : r.tokens;
    if (prompt.empty()) throw Error("the prompt is empty (give -p TEXT, -f FILE or --tokens ID,...)");
    for (size_t i = 0; i < prompt.size(); ++i)
      if (prompt[i] >= cfg.n_vocab)
        throw Error("prompt token " + std::to_string(i) + " (" + std::to_string(prompt[i]) +
                    ") is outside the vocabulary of " + std::to_string(cfg.n_vocab));
  }

  ProfilingDevice dev(base);
  LoadOptions lo;
  if (r.context >= 0) lo.context = r.context;
  else if (!chat && !r.interactive && r.n >= 0) lo.context = int64_t(prompt.size()) + std::max<int64_t>(r.n, 1);
  lo.kv_f16 = r.kv_f16;
  ProgressBar bar(err, base_name(r.model_path));
  lo.progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };
  lo.allow_unused = r.allow_unused;
  lo.w4_act = r.w4_act;
  DecoderModel model(dev, cfg, files.tensors(), lo);
  if (const auto& skipped = model.skipped_tensors(); !skipped.empty()) {
    std::string list;
    for (const auto& name : skipped) list += " " + name;
    std::fprintf(err, "skipped %zu unused tensor%s:%s\n", skipped.size(), skipped.size() == 1 ? "" : "s", list.c_str());
  }
  const double load_seconds = now() - t_start;
  const int64_t ctx = model.context();
  std::fprintf(err, "%s on %s, context %lld%s\n", cfg.describe().c_str(), base.backend().c_str(), (long long)ctx,
               tmpl ? (", chat template " + tmpl->name()).c_str() : "");
  if (const std::string wf = files.weight_format(); !wf.empty())
    std::fprintf(err, "weights: %s, activations %s\n", wf.c_str(), w4_activations_name(model.w4_activations()));
  if (r.kv_f16 && model.kv_element_bytes() != 2)
    std::fprintf(err, "warning: --cache-type f16: this model's attention (head size %lld, %lld query heads per KV "
                      "head) has no f16 KV cache path; the cache is f32\n",
                 (long long)cfg.head_dim, (long long)(cfg.n_head / std::max<int64_t>(cfg.n_head_kv, 1)));
  if (cfg.n_ctx_train > 0 && ctx > cfg.n_ctx_train)
    std::fprintf(err, "warning: -c %lld is longer than the %lld tokens the model was trained on\n", (long long)ctx,
                 (long long)cfg.n_ctx_train);
  if (!chat && r.n > 0 && int64_t(prompt.size()) + r.n > ctx + 1)
    std::fprintf(err, "warning: -n %lld: the context holds %lld tokens and the prompt takes %zu, so at most %lld "
                      "are generated (raise -c)\n",
                 (long long)r.n, (long long)ctx, prompt.size(), (long long)(ctx - int64_t(prompt.size()) + 1));

  InterruptGuard interrupt;
  Completer completer(model, tok ? &*tok : nullptr, &dev);
  CompletionParams params;
  params.max_tokens = r.n;
  params.sampler = r.sampler;
  params.stop = r.reverse_prompts;
  params.show_stop = true;
  params.ignore_eos = r.ignore_eos;
  std::vector<float> logit_rows;
  std::vector<TokenId> all_ids;
  CompletionHooks hooks;
  hooks.on_text = [&](const std::string& text) {
    std::fputs(text.c_str(), out);
    std::fflush(out);
    return true;
  };
  hooks.cancelled = [] { return g_interrupted.load(); };
  if (!tok)
    hooks.on_token = [&](TokenId id) {
      std::fprintf(out, "[%d]", id);
      std::fflush(out);
    };
  if (!r.logits_path.empty())
    hooks.on_logits = [&](std::span<const float> l) { logit_rows.insert(logit_rows.end(), l.begin(), l.end()); };
  Totals totals;
  totals.load_seconds = load_seconds;
  bool context_full = false;
  auto answer = [&](const std::vector<TokenId>& ids, const std::string* text) {
    if (r.verbose_prompt) print_prompt_tokens(err, tok ? &*tok : nullptr, text, ids);
    if (int64_t(ids.size()) > ctx) {
      context_full = true;
      std::fprintf(err, "\nthe context is full: the prompt has %zu tokens, the context holds %lld (raise -c)\n",
                   ids.size(), (long long)ctx);
      CompletionResult none;
      none.finish = FinishReason::ContextFull;
      return none;
    }
    CompletionResult res = completer.complete(ids, params, hooks);
    totals.add(res);
    all_ids.insert(all_ids.end(), res.tokens.begin(), res.tokens.end());
    if (r.print_ids) {
      std::fflush(out);
      print_ids(err, res.tokens);
    }
    if (res.finish == FinishReason::ContextFull) {
      context_full = true;
      std::fprintf(err, "\nthe context of %lld tokens is full\n", (long long)ctx);
    }
    return res;
  };
  const bool terminal = isatty(fileno(in)) == 1;
  auto ask = [&](std::string& line) {
    while (true) {
      if (terminal) {
        std::fputs("\n> ", out);
        std::fflush(out);
      }
      if (!read_line(in, line)) return false;
      if (!line.empty()) return true;  // an empty line asks again
    }
  };

  if (chat) {
    std::vector<ChatMessage> messages;
    if (r.system_prompt) messages.push_back({"system", *r.system_prompt});
    std::string line;
    bool first = true;
    while (!g_interrupted.load() && !context_full) {
      if (first && r.prompt) line = *r.prompt;
      else if (!r.conversation && !first) break;
      else if (!ask(line)) break;
      first = false;
      messages.push_back({"user", line});
      const std::string text = tmpl->apply(messages, true);
      const CompletionResult res =
          answer(tok->encode(text, {.add_special = true, .parse_special = true}), &text);
      std::fputs("\n", out);
      std::fflush(out);
      messages.push_back({"assistant", res.text});
    }
  } else {
    if (r.display_prompt && tok) {
      std::fputs(tok->decode(prompt).c_str(), out);
      std::fflush(out);
    }
    std::vector<TokenId> history = prompt;
    CompletionResult res = answer(history, nullptr);
    std::string line;
    while (r.interactive && !g_interrupted.load() && !context_full && ask(line)) {
      const std::vector<TokenId> reply = without_end(tok ? &*tok : nullptr, res.tokens);
      history.insert(history.end(), reply.begin(), reply.end());
      const std::vector<TokenId> more = tok->encode(line + "\n", {.add_special = false, .parse_special = false});
      history.insert(history.end(), more.begin(), more.end());
      res = answer(history, nullptr);
    }
    std::fputs("\n", out);
  }
  std::fflush(out);

  if (g_interrupted.load()) std::fprintf(err, "\ninterrupted\n");
  totals.print(err, now() - t_start, base.backend());
  if (!r.logits_path.empty()) {
    const uint64_t shape[] = {uint64_t(all_ids.size()), uint64_t(cfg.n_vocab)};
    quant::write_npy_f32(r.logits_path, logit_rows, shape);
  }
  return g_interrupted.load() ? 130 : 0;
}

}  // namespace

int run_generate(Device& dev, const GenerateRequest& r, std::FILE* in, std::FILE* out, std::FILE* err) {
  try {
    return generate(dev, r, in, out, err);
  } catch (const std::exception& e) {
    std::fflush(out);
    std::fprintf(err, "error: %s\n", e.what());
    return g_interrupted.load() ? 130 : 1;
  }
}

}  // namespace k100::model
