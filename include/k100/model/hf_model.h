// k100lc model: Hugging Face model directories, loaded like GGUF files.
//
//   model::HfModelDirectory d = model::HfModelDirectory::open("Qwen3-0.6B/");
//   model::DecoderModel m(dev, d.config(), d.tensors());
//   model::Tokenizer tok = d.tokenizer();
//
// A directory holds config.json (the architecture and hyper-parameters),
// model.safetensors or model.safetensors.index.json with its shards,
// tokenizer.json (with tokenizer_config.json beside it when present: the
// special tokens and the chat template) and generation_config.json
// (optional: the ids that end generation). The
// architectures are those the GGUF path runs: LlamaForCausalLM,
// MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM,
// Qwen3ForCausalLM, Qwen3MoeForCausalLM. Weights in BF16, F16 or F32 are
// read from the mapped files as stored (the GEMVs take all three); the
// tensors are found by their Hugging Face names, mapped onto the GGUF
// loader's table (docs/SAFETENSORS.md lists the names). Llama's RoPE is
// applied in the pairing the Hugging Face weights use (dimension j with
// j + head_dim/2), so no row permutation is needed.
//
// Quantised checkpoints: config.json's quantization_config names
// compressed-tensors INT4 ("pack-quantized") or NVFP4
// ("nvfp4-pack-quantized"); each quantised linear layer is then a W4Weight
// (TensorSource::w4) the loader runs on W4Linear. An RT4 file (model.rt4 in
// the directory, or the one named when opening) takes the place of the
// layers it holds, by their Hugging Face names (`<prefix>.weight`).
//
// Refused by name: another architecture, a config value the decoder does
// not implement (another activation, sliding windows, a RoPE scaling other
// than linear and llama3), another quantisation scheme, and a missing
// tensor, named by its Hugging Face key.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k100/model/chat_template.h"
#include "k100/model/model_config.h"
#include "k100/model/tensor_source.h"
#include "k100/model/tokenizer.h"
#include "k100/quant/compressed_tensors.h"

namespace k100::model {

// What config.json says beyond the hyper-parameters.
struct HfConfig {
  ModelConfig model;
  std::string architecture;        // "Qwen3ForCausalLM"
  bool tie_word_embeddings = false;
  std::vector<float> rope_freq_factors;  // llama3 RoPE scaling: a divisor per frequency, else empty
  std::optional<int64_t> bos_token_id;
  std::vector<int64_t> eos_token_ids;
  std::optional<quant::QuantizationConfig> quantization;  // quantization_config, when present
};

// Reads a config.json; k100::Error naming the file and the key for anything
// unsupported or missing.
HfConfig read_hf_config(const std::string& config_json_path);
// The architectures read_hf_config accepts.
std::vector<std::string> supported_hf_architectures();

// generation_config.json: the ids that end generation and the defaults the
// model's authors suggest for sampling (reported, not applied).
struct HfGenerationConfig {
  std::optional<int64_t> bos_token_id;
  std::vector<int64_t> eos_token_ids;
  std::optional<double> temperature, top_p;
  std::optional<int64_t> top_k;
};
HfGenerationConfig read_generation_config(const std::string& path);

class HfModelDirectory {
 public:
  // A directory with a config.json.
  static bool is_model_directory(const std::string& path);
  // `rt4`: an RT4 file (.rt4 with its manifest) whose i4 tensors replace the
  // checkpoint's layers of the same name; empty: DIR/model.rt4 when present.
  static HfModelDirectory open(const std::string& dir, const std::string& rt4 = "");

  HfModelDirectory(HfModelDirectory&&) noexcept;
  HfModelDirectory& operator=(HfModelDirectory&&) noexcept;
  ~HfModelDirectory();

  const std::string& path() const;
  const std::string& rt4_path() const;  // the RT4 file read, or empty
  const HfConfig& hf_config() const;
  const ModelConfig& config() const { return hf_config().model; }
  const HfGenerationConfig& generation() const;  // empty when the file is absent
  // The weights, by GGUF name on the outside and Hugging Face key inside.
  const TensorSource& tensors() const;
  // tokenizer.json (+ tokenizer_config.json, generation_config.json, and
  // config.json's special ids), padded with unused tokens to the model's
  // vocabulary. k100::Error naming the file when it is missing or unsupported.
  Tokenizer tokenizer() const;
  // tokenizer_config.json's chat_template: a string, or in a list of
  // {name, template} the one named "default". No text when the file or the
  // key is absent; k100::Error naming the file and the key for another form.
  ChatTemplateSource chat_template_source() const;

 private:
  struct State;
  explicit HfModelDirectory(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// A model on disk, whichever its form: a GGUF file or a Hugging Face
// directory. The generate command and the C ABI load through this.
class ModelFiles {
 public:
  // `rt4`: for a directory, HfModelDirectory::open's; a GGUF file takes none.
  static ModelFiles open(const std::string& path, const std::string& rt4 = "");
  ModelFiles(ModelFiles&&) noexcept;
  ModelFiles& operator=(ModelFiles&&) noexcept;
  ~ModelFiles();

  const std::string& path() const;
  const ModelConfig& config() const;
  const TensorSource& tensors() const;
  // What the weights are stored as beyond their tensor types: "" (GGUF or
  // unquantised), else the quantisation scheme and the RT4 file read.
  std::string weight_format() const;
  Tokenizer tokenizer() const;
  // Where the model keeps its chat template (ChatTemplate::for_model).
  ChatTemplateSource chat_template_source() const;

 private:
  struct State;
  explicit ModelFiles(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace k100::model
