// Writes the seed corpora of the safetensors and JSON fuzzers into DIR:
// DIR/safetensors/seed_*.safetensors (valid files of several dtypes) and
// DIR/json/seed_* (one valid document per reader of hf_json_fuzz, its
// selector byte first).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "k100/quant/safetensors_writer.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using namespace k100::quant;
  if (argc != 2) {
    std::fprintf(stderr, "usage: hf_fuzz_seeds DIR\n");
    return 2;
  }
  const fs::path dir(argv[1]);
  fs::create_directories(dir / "safetensors");
  fs::create_directories(dir / "json");
  const std::vector<uint8_t> bytes(64, 0x3c);
  SafetensorsWriter a;
  a.add("w", SafetensorsDtype::BF16, {4, 4}, std::span(bytes).first(32));
  a.add("b", SafetensorsDtype::F32, {2}, std::span(bytes).first(8));
  a.add("s", SafetensorsDtype::F8_E4M3, {2, 2}, std::span(bytes).first(4));
  a.add_metadata("format", "pt");
  a.write((dir / "safetensors" / "seed_mixed.safetensors").string());
  SafetensorsWriter b;
  b.add("l.weight_packed", SafetensorsDtype::I32, {1, 16}, bytes);
  b.add("l.weight_shape", SafetensorsDtype::I64, {2}, std::span(bytes).first(16));
  b.write((dir / "safetensors" / "seed_int4.safetensors").string());
  const char* docs[] = {
      R"({"architectures":["Qwen3ForCausalLM"],"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":2,)"
      R"("num_key_value_heads":1,"head_dim":32,"intermediate_size":128,"vocab_size":300,"rms_norm_eps":1e-6,)"
      R"("rope_theta":1000000,"tie_word_embeddings":true,"rope_scaling":null})",
      R"({"bos_token_id":1,"eos_token_id":[2,3],"temperature":0.6,"top_k":20,"top_p":0.95})",
      R"({"version":"1.0","added_tokens":[{"id":5,"content":"<|x|>","special":true}],"normalizer":null,)"
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},"post_processor":null,)"
      R"("model":{"type":"BPE","vocab":{"H":0,"e":1,"l":2,"o":3,"He":4},"merges":["H e"]}})",
      R"({"format":"RT4-v1","group":128,"tensors":[{"name":"a","kind":"i4","shape":[1,128],"q_off":0,"s_off":64}]})",
      R"({"quant_method":"compressed-tensors","format":"pack-quantized","config_groups":{"g":{"weights":)"
      R"({"num_bits":4,"type":"int","symmetric":true,"group_size":128,"strategy":"group"}}}})",
      R"({"metadata":{},"weight_map":{"a":"model-00001-of-00001.safetensors"}})",
  };
  for (int i = 0; i < 6; ++i) {
    const std::string text = std::string(1, char(i)) + docs[i];
    std::FILE* f = std::fopen((dir / "json" / ("seed_" + std::to_string(i))).c_str(), "wb");
    if (!f) return 1;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  return 0;
}
