// Writes the GGUF files the Python, tool and fuzz tests start from:
//
//   gguf_write_samples DIR
//
//   DIR/all_types.gguf     every codec type, every metadata value type, nested arrays
//   DIR/weights.gguf       tensor w.<type> for each codec type, quantised by our
//                          codecs from the values in DIR/w.<type>.npy (shape [rows, row])
//   DIR/seed_*.gguf        small files (< 4 KiB) for the fuzzer's corpus
#include <cstdio>
#include <filesystem>
#include <string>

#include "gguf_sample.h"
#include "k100/base/error.h"
#include "k100/quant/npy.h"

namespace {

using namespace k100::quant;

void write_weights(const std::string& dir) {
  GgufWriter w;
  w.add("general.architecture", Value::string("test"));
  w.add("general.name", Value::string("weights for the Python tests"));
  uint32_t seed = 500;
  for (TensorType t : host_codec_types()) {
    const uint64_t row = traits(t).block_elems == 1 ? 80 : 2 * traits(t).block_elems, rows = 3;
    const auto x = k100::test::weight_like(rows, row, seed++, false);
    const std::string name = "w." + type_name(t);
    w.add_tensor_from_f32(name, t, {row, rows}, x);
    const uint64_t shape[2] = {rows, row};
    write_npy_f32(dir + "/" + name + ".npy", x, shape);
  }
  w.write(dir + "/weights.gguf");
}

void write_seeds(const std::string& dir) {
  for (TensorType t : host_codec_types()) {
    GgufWriter w(t == TensorType::Q4_K ? 2 : 3);
    w.add("general.architecture", Value::string("llama"));
    w.add("llama.block_count", Value::of(uint32_t(1)));
    const uint64_t n = traits(t).block_elems == 1 ? 16 : traits(t).block_elems;
    w.add_tensor_from_f32("t", t, {n}, k100::test::weight_like(1, n, uint32_t(t)));
    w.write(dir + "/seed_" + type_name(t) + ".gguf");
  }
  GgufWriter meta;
  meta.set_alignment(8);
  const std::vector<float> scores = {0.5f, -1.0f};
  const std::vector<uint16_t> a = {1, 2};
  meta.add("tokenizer.ggml.tokens", Value::string_array({"<s>", "</s>"}));
  meta.add("tokenizer.ggml.scores", Value::array(std::span<const float>(scores)));
  meta.add("nested", Value::array_of({Value::array(std::span<const uint16_t>(a)), Value::string_array({"x"})}));
  meta.add("flag", Value::of(false));
  meta.add("f64", Value::of(1.25));
  meta.add_tensor("a", TensorType::F32, {2, 2}, std::vector<uint8_t>(16, 0));
  meta.add_tensor("b", TensorType::Q8_0, {32}, std::vector<uint8_t>(34, 0));
  meta.write(dir + "/seed_metadata.gguf");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gguf_write_samples DIR\n");
    return 2;
  }
  try {
    const std::string dir = argv[1];
    std::filesystem::create_directories(dir);
    k100::test::make_sample(3, 32, true).writer.write(dir + "/all_types.gguf");
    write_weights(dir);
    write_seeds(dir);
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "gguf_write_samples: %s\n", e.what());
    return 1;
  }
  return 0;
}
