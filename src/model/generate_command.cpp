#include "k100/model/generate_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "k100/base/error.h"
#include "k100/model/decoder.h"
#include "k100/model/generator.h"
#include "k100/model/hf_model.h"
#include "k100/model/profiling_device.h"
#include "k100/model/text_stream.h"
#include "k100/model/tokenizer.h"
#include "k100/quant/npy.h"

namespace k100::model {

std::vector<int32_t> parse_token_list(const std::string& text) {
  std::vector<int32_t> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.erase(0, 1);
    while (!item.empty() && item.back() == ' ') item.pop_back();
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (item.empty() || used != item.size() || v < 0 || v > INT32_MAX)
      throw Error("--tokens: '" + item + "' (item " + std::to_string(ids.size() + 1) + ") is not a token id");
    ids.push_back(int32_t(v));
    start = end + 1;
  }
  return ids;
}

std::vector<std::pair<std::string, std::string>> generate_flags() {
  return {{"--prompt TEXT", "the text to continue (encoded with the model's tokenizer)"},
          {"--tokens ID,ID,...", "the prompt as token ids"},
          {"-n N", "tokens to generate (default 32)"},
          {"--temp T", "temperature; 0 is greedy (default 0.8)"},
          {"--top-k K", "keep the K most likely tokens, 0 = all (default 40)"},
          {"--top-p P", "nucleus sampling mass (default 0.95)"},
          {"--seed S", "random seed of the sampler (default 0)"},
          {"--logits FILE.npy", "write float32 [n, vocab]: row i holds the logits token i was chosen from"},
          {"--ids", "print the generated ids on a last line 'ids: ...'"},
          {"--ignore-eos", "keep generating after an end-of-generation token"},
          {"--ctx N", "KV cache length (default: prompt + n)"},
          {"--allow-unused", "skip (and list) tensors of the file the architecture does not use"}};
}

namespace {

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

std::string base_name(const std::string& p) {
  const size_t s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

int generate(Device& base, const GenerateRequest& r, std::FILE* out, std::FILE* err) {
  const ModelFiles files = ModelFiles::open(r.model_path);  // a GGUF file or a Hugging Face directory
  const ModelConfig& cfg = files.config();
  std::optional<Tokenizer> tok;
  std::string tok_error;
  try {
    tok.emplace(files.tokenizer());
  } catch (const Error& e) {
    tok_error = e.what();
  }
  std::vector<int32_t> prompt;
  if (r.prompt) {
    if (!tok) throw Error("--prompt needs the model's tokenizer, which cannot be read: " + tok_error +
                          " (give --tokens instead)");
    prompt = tok->encode(*r.prompt);
  } else {
    prompt = r.tokens;
  }
  if (prompt.empty()) throw Error("the prompt is empty (give --prompt TEXT or --tokens ID,...)");
  if (r.n < 1) throw Error("-n must be at least 1");
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] >= cfg.n_vocab)
      throw Error("prompt token " + std::to_string(i) + " (" + std::to_string(prompt[i]) +
                  ") is outside the vocabulary of " + std::to_string(cfg.n_vocab));

  ProfilingDevice dev(base);
  LoadOptions lo;
  lo.context = r.context ? r.context : int64_t(prompt.size()) + r.n;
  ProgressBar bar(err, base_name(r.model_path));
  lo.progress = [&](uint64_t done, uint64_t total) { bar.update(done, total); };
  lo.allow_unused = r.allow_unused;
  DecoderModel model(dev, cfg, files.tensors(), lo);
  if (const auto& skipped = model.skipped_tensors(); !skipped.empty()) {
    std::string list;
    for (const auto& n : skipped) list += " " + n;
    std::fprintf(err, "skipped %zu unused tensor%s:%s\n", skipped.size(), skipped.size() == 1 ? "" : "s", list.c_str());
  }
  std::fprintf(err, "%s on %s, context %lld\n", cfg.describe().c_str(), base.backend().c_str(),
               (long long)model.context());

  Sampler sampler(r.sampler);
  for (int32_t t : prompt) sampler.accept(t);
  std::optional<TextStream> stream;
  if (tok) stream.emplace(*tok);
  std::vector<float> logit_rows;
  GenerationCallbacks cb;
  cb.choose = [&](std::span<const float> l) { return sampler.next(l); };
  cb.on_logits = [&](std::span<const float> l) {
    if (!r.logits_path.empty()) logit_rows.insert(logit_rows.end(), l.begin(), l.end());
  };
  cb.on_token = [&](int32_t t) {
    if (stream) std::fputs(stream->push(t).c_str(), out);
    else std::fprintf(out, "[%d]", t);
    std::fflush(out);
    return r.ignore_eos || !tok || !tok->is_end_of_generation(t);
  };
  if (stream) std::fputs(tok->decode(prompt).c_str(), out);
  Generator gen(model, &dev);
  const std::vector<int32_t> ids = gen.run(prompt, r.n, cb);
  if (stream) std::fputs(stream->flush().c_str(), out);
  std::fputs("\n", out);

  const GenerationStats& st = gen.stats();
  std::fprintf(out, "%lld tokens: %.2f tokens/s (%lld decode passes in %.3f s; prompt of %lld tokens in %.3f s), "
               "%llu launches per token, on %s\n",
               (long long)st.generated, st.tokens_per_second(), (long long)st.decode_passes, st.decode_seconds,
               (long long)st.prompt_tokens, st.prompt_seconds, (unsigned long long)st.launches_per_token,
               base.backend().c_str());
  if (!st.families.empty()) {
    double total = 0;
    for (const auto& f : st.families) total += f.ms;
    std::fprintf(out, "device time per kernel family (decode passes, between queue markers):\n");
    for (const auto& f : st.families)
      std::fprintf(out, "  %-15s %9.3f ms  %5.1f%%  %6llu launches\n", f.family.c_str(), f.ms,
                   total > 0 ? 100.0 * f.ms / total : 0.0, (unsigned long long)f.launches);
  }
  if (!r.logits_path.empty()) {
    const uint64_t shape[] = {uint64_t(ids.size()), uint64_t(cfg.n_vocab)};
    quant::write_npy_f32(r.logits_path, logit_rows, shape);
  }
  if (r.print_ids) {
    std::string line = "ids:";
    for (int32_t t : ids) line += " " + std::to_string(t);
    std::fprintf(out, "%s\n", line.c_str());
  }
  std::fflush(out);
  return 0;
}

}  // namespace

int run_generate(Device& dev, const GenerateRequest& r, std::FILE* out, std::FILE* err) {
  try {
    return generate(dev, r, out, err);
  } catch (const std::exception& e) {
    std::fflush(out);
    std::fprintf(err, "error: %s\n", e.what());
    return 1;
  }
}

}  // namespace k100::model
