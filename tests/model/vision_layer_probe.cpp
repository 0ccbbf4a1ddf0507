// Runs one model::VisionLayer on the default device (the emulator here) over
// tensors a test wrote as raw little-endian files, and writes the layer's
// output as out.npy beside them. tests/model/python/test_vision_layer.py
// writes the inputs and compares the output with its float64 NumPy forward.
//
//   vision_layer_probe DIR tokens hidden heads intermediate gelu_exact
//
// DIR holds hpos, wpos (.i32: the patch row and column of each token; the
// rotary tables are model::vision_rope_tables of them), x, norm1_w, norm1_b, qkv_b, proj_b,
// norm2_w, norm2_b, fc1_b, fc2_b (.f32: float32) and qkv_w, proj_w, fc1_w, fc2_w (.f16: IEEE half
// bits), in the layouts of k100/model/vision_layer.h.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/model/vision_layer.h"
#include "k100/quant/npy.h"
#include "k100/runtime/runtime.h"

namespace {

template <class T>
std::vector<T> read_raw(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) throw k100::Error(path + ": cannot be read");
  const auto bytes = size_t(f.tellg());
  if (bytes % sizeof(T))
    throw k100::Error(path + ": " + std::to_string(bytes) + " bytes is not whole elements");
  std::vector<T> v(bytes / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), std::streamsize(bytes));
  return v;
}

int run(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s DIR tokens hidden heads intermediate gelu_exact\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const int64_t tokens = std::stoll(argv[2]);
  k100::model::VisionLayerConfig cfg;
  cfg.hidden = std::stoll(argv[3]);
  cfg.heads = std::stoll(argv[4]);
  cfg.intermediate = std::stoll(argv[5]);
  cfg.gelu_exact = std::stoi(argv[6]) != 0;
  auto f32 = [&](const char* name) { return read_raw<float>(dir + "/" + name + ".f32"); };
  auto f16 = [&](const char* name) { return read_raw<uint16_t>(dir + "/" + name + ".f16"); };
  k100::model::VisionLayerWeights w;
  w.norm1_w = f32("norm1_w");
  w.norm1_b = f32("norm1_b");
  w.qkv_w = f16("qkv_w");
  w.qkv_b = f32("qkv_b");
  w.proj_w = f16("proj_w");
  w.proj_b = f32("proj_b");
  w.norm2_w = f32("norm2_w");
  w.norm2_b = f32("norm2_b");
  w.fc1_w = f16("fc1_w");
  w.fc1_b = f32("fc1_b");
  w.fc2_w = f16("fc2_w");
  w.fc2_b = f32("fc2_b");
  k100::runtime::Runtime rt;
  k100::model::RuntimeDevice dev(rt);
  k100::model::VisionLayer layer(dev, cfg, w);
  const std::vector<int32_t> hpos = read_raw<int32_t>(dir + "/hpos.i32"),
                             wpos = read_raw<int32_t>(dir + "/wpos.i32");
  std::vector<float> cos, sin;
  k100::model::vision_rope_tables(hpos, wpos, cfg.head_dim(), cos, sin);
  const std::vector<float> out = layer.forward(f32("x"), cos, sin, tokens);
  const uint64_t shape[2] = {uint64_t(tokens), uint64_t(cfg.hidden)};
  k100::quant::write_npy_f32(dir + "/out.npy", out, shape);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vision_layer_probe: %s\n", e.what());
    return 1;
  }
}
