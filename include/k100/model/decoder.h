// k100lc model: a decoder language model from a GGUF file, on the device.
//
//   quant::GgufFile f = quant::GgufFile::open("model.gguf");
//   model::DecoderModel m(dev, f, {.context = 512});
//   for (int64_t pos = 0; pos < n; ++pos) m.forward(tokens[pos], pos);  // enqueued, no sync
//   std::vector<float> logits = m.logits();                             // one sync
//
// Loading reads the hyper-parameters (ModelConfig) and every tensor the
// architecture needs, checks names and shapes against them (a k100::Error
// names the tensor, its shape and the expected one; a tensor of the file the
// architecture does not use is an error too, unless allowed), and uploads the weights
// in their stored types (f32, f16, bf16 or any of the eleven block types,
// per tensor); Q|K|V, and gate|up, of one type share one buffer and run as
// one GEMV. Without output.weight the output projection reads the token
// embedding (tied embeddings).
//
// forward() enqueues one token's whole pass: the embedding row, per layer
// RMSNorm, the Q|K|V projection, bias / q-k norm / RoPE / KV append in one
// kernel, split grouped-query attention (part + combine), the output
// projection added to the residual, RMSNorm, the gated FFN (or the routed
// experts) added to the residual; the final RMSNorm and the output head.
// Nothing waits for the device: the caller syncs once (logits() does).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "k100/model/device.h"
#include "k100/model/model_config.h"
#include "k100/model/tensor_source.h"
#include "k100/model/w4_weight.h"
#include "k100/quant/gguf_reader.h"

namespace k100::model {

struct LoadOptions {
  // Tokens the KV cache holds (0: the training context, at most 4096).
  int64_t context = 0;
  // Called while weights upload: bytes done, bytes in all.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Dense block-type weights repacked at load for the fast decode GEMVs
  // (<type>_gemv_k); false, or K100_MODEL_LINEAR=dot in the environment,
  // keeps the GGUF layout and the <type>_dot_k + reduce_blocks_k path.
  bool fast_gemv = true;
  // An f16 KV cache (half the bytes attention reads each token) where the
  // one-launch attention supports it (head size 128, up to 8 query heads per
  // KV head); otherwise, and by default, f32.
  bool kv_f16 = false;
  // Tensors of the file the architecture does not use are skipped (and
  // listed by DecoderModel::skipped_tensors) instead of stopping the load.
  bool allow_unused = false;
  // The activations of 4-bit weights (a Hugging Face directory's
  // compressed-tensors INT4, NVFP4 or RT4 layers; `--act`): Default takes
  // each format's own (INT4 a16, NVFP4 and RT4 a8); a path the format does
  // not have is refused naming both (w4_linear.h).
  W4Activations w4_act = W4Activations::Default;
};

class DecoderModel {
 public:
  DecoderModel(Device& dev, const quant::GgufFile& file, LoadOptions options = {});
  // From hyper-parameters and another source of tensors (shapes only: k100-bench model).
  DecoderModel(Device& dev, const ModelConfig& config, const TensorSource& source, LoadOptions options = {});
  ~DecoderModel();
  DecoderModel(const DecoderModel&) = delete;
  DecoderModel& operator=(const DecoderModel&) = delete;

  const ModelConfig& config() const;
  int64_t context() const;
  Device& device() const;

  // Enqueues the pass of `token` at position `pos` (0, 1, 2, ... in order;
  // pos 0 starts a new sequence) and returns the device pointer of its
  // logits [n_vocab] f32 (overwritten by the next forward). k100::Error for a
  // token outside the vocabulary or a position past the context.
  uint64_t forward(int32_t token, int64_t pos);
  // The last forward's logits (waits for the device).
  std::vector<float> logits();
  // Forgets the sequence (the next forward must be at pos 0).
  void reset();
  // The next forward continues at `pos` with whatever the cache rows before
  // it hold: what a benchmark times at a context length without running
  // the tokens before it. A hybrid model's recurrent state holds the
  // sequence up to position(), not before: going back is a k100::Error
  // (rewinds() is false; reset() and run the prefix again).
  void set_position(int64_t pos);
  // Whether set_position may go back to a prefix of the sequence (false for
  // the hybrids, whose Gated DeltaNet state cannot be rewound).
  bool rewinds() const;
  int64_t position() const;  // positions filled so far

  uint64_t weight_bytes() const;  // device bytes of the weights
  // The activations the 4-bit layers run with (Default: the model has none).
  W4Activations w4_activations() const;
  int kv_element_bytes() const;    // 4 (f32 KV cache) or 2 (f16)
  // The stored type of every weight tensor used, by name.
  std::vector<std::pair<std::string, quant::TensorType>> tensor_types() const;
  // The file's tensors the load skipped (LoadOptions::allow_unused), in file order.
  const std::vector<std::string>& skipped_tensors() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace k100::model
