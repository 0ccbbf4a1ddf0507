// k100-bench model: MODELED K100_LC decode speed of whole dense models, one
// token at a full context, beside the bandwidth bound.
//
// The model is the decoder of src/model (k100-generate's), built from the
// shape's hyper-parameters with weights of one type and no contents
// (ShapeTensorSource), with two layers: the first layer's norm is a launch of
// its own, while every later layer takes its norm inside the QKV GEMV from
// the row the previous layer's last GEMV wrote, so the dispatches repeat from
// the first layer's RoPE to the second's. The token's time is the embedding,
// the first layer up to its RoPE, n - 1 times that repeating cycle (a whole
// layer: attention, output projection, FFN, the next layer's QKV and RoPE),
// and the last layer's rest with the head. The dispatches of one token at position ctx - 1 run on
// the emulator with the timing model's recorder attached and are scheduled
// by the timing model (k100/timing, calibrated: k100-bench calibrate); the
// times are MODELED, not measured. Launches per token are counted from the
// same pass. The bound is the bytes one token must read (every weight once:
// the layers and the head; the KV cache rows of every layer) over 896 GB/s.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/base/error.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/model/decoder.h"
#include "k100/model/device.h"
#include "k100/model/tensor_source.h"
#include "k100/model/w4_weight.h"
#include "k100/runtime/package_path.h"
#include "k100/timing/machine.h"
#include "k100/timing/simulator.h"
#include "k100/timing/trace.h"
#include "kernel_measure.h"
#include "parameter_override.h"

namespace {

using namespace k100;

struct Shape {
  const char* key;
  const char* name;
  model::Architecture arch;
  int64_t n_embd, n_layer, n_ff, n_head, n_head_kv, head_dim, n_vocab, ctx;
};

// The shapes the requirement names: a 27B-class dense model (hidden 5120, 64
// layers, FFN 17408, 40 query / 8 KV heads of 128, vocab 151936, context
// 4096) and an 8B-class one (Llama-3-8B's: hidden 4096, 32 layers, FFN 14336,
// 32 / 8 heads of 128, vocab 128256). "q35-27b" is Qwen3.5-27B's config
// (hidden 5120, 64 layers, FFN 17408, its full-attention layers' 24 query /
// 4 KV heads of 256, vocab 248320) with full attention in every layer: it
// stands for the model's weights and attention, not its recurrence;
// "qwen3.5-27b" is the hybrid model itself (run_hybrid below).
const Shape kShapes[] = {
    {"27b", "27B-class dense", model::Architecture::Qwen3, 5120, 64, 17408, 40, 8, 128, 151936, 4096},
    {"q35-27b", "Qwen3.5-27B-like dense (all layers full attention)", model::Architecture::Qwen3, 5120, 64, 17408, 24,
     4, 256, 248320, 4096},
    {"8b", "8B-class dense", model::Architecture::Llama, 4096, 32, 14336, 32, 8, 128, 128256, 4096},
};

// A model::Device on the emulator that records each launch's per-wave
// traces for the timing model. Launches run at once (the emulator is
// synchronous here), so sync and downloads need no waiting.
class TracingDevice final : public model::Device {
 public:
  explicit TracingDevice(kernels::EmuTestDevice& emu) : emu_(emu) {
    emu_.options().observer = &recorder_;
    emu_.options().checks = emu::CheckOptions::none();  // timing only; the kernels' tests run the checks
  }
  ~TracingDevice() override { emu_.options().observer = nullptr; }

  struct Recorded {
    std::string kernel;
    uint32_t grid = 0, workgroup = 0;
    std::vector<std::unique_ptr<timing::DispatchTrace>> traces;
  };
  std::vector<Recorded> launches;

  std::string backend() const override { return "emu"; }
  uint64_t alloc(size_t bytes) override { return emu_.alloc(bytes ? bytes : 1); }
  void free(uint64_t p) override { emu_.free(p); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { emu_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { emu_.download(dst, src, bytes); }
  void copy(uint64_t dst, uint64_t src, size_t bytes) override {
    std::vector<uint8_t> tmp(bytes);
    emu_.download(tmp.data(), src, bytes);
    emu_.upload(dst, tmp.data(), bytes);
  }
  void memset(uint64_t dst, int value, size_t bytes) override { emu_.fill(dst, uint8_t(value), bytes); }
  int kernel_id(std::string_view lookup) const override {
    const std::string name(lookup);
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    // a name the package lacks is -1, not an error: the model asks has() before choosing a kernel
    try {
      if (!emu_.program().find_kernel(emu_.symbol_for(name))) return -1;
    } catch (const Error&) {
      return -1;
    }
    names_.push_back(name);
    return ids_[name] = int(names_.size() - 1);
  }
  std::vector<std::string> launch_contract(int kernel) const override {
    return emu_.launch_contract(names_.at(size_t(kernel))).text_lines();
  }
  void launch(int kernel, uint32_t grid, uint32_t workgroup, std::span<const uint64_t> argv) override {
    recorder_.clear();
    emu_.launch(names_.at(size_t(kernel)), {grid, 1, 1}, {workgroup, 1, 1}, std::vector<uint64_t>(argv.begin(), argv.end()));
    launches.push_back({names_[size_t(kernel)], grid, workgroup, recorder_.take()});
  }
  bool launches_2d() const override { return true; }
  void launch_2d(int kernel, uint32_t grid_x, uint32_t grid_y, uint32_t workgroup,
                 std::span<const uint64_t> argv) override {
    recorder_.clear();
    emu_.launch(names_.at(size_t(kernel)), {grid_x, grid_y, 1}, {workgroup, 1, 1},
                std::vector<uint64_t>(argv.begin(), argv.end()));
    launches.push_back({names_[size_t(kernel)], grid_x * grid_y, workgroup, recorder_.take()});
  }
  void sync() override {}
  int record_event() override { return 0; }
  double elapsed_ms(int, int) override { return 0; }
  void release_event(int) override {}
  using Device::launch;
  using Device::launch_2d;

 private:
  kernels::EmuTestDevice& emu_;
  timing::TraceRecorder recorder_;
  mutable std::map<std::string, int> ids_;
  mutable std::vector<std::string> names_;
};

model::ModelConfig config_of(const Shape& s) {
  model::ModelConfig c;
  c.arch = s.arch;
  c.arch_name = model::architecture_name(s.arch);
  c.name = s.name;
  c.n_vocab = s.n_vocab;
  c.n_ctx_train = s.ctx;
  c.n_embd = s.n_embd;
  c.n_layer = 2;  // the second layer is the repeating one (see the top); the token has n_layer
  c.n_ff = s.n_ff;
  c.n_head = s.n_head;
  c.n_head_kv = s.n_head_kv;
  c.head_dim = c.n_rot = s.head_dim;
  c.rope_type = s.arch == model::Architecture::Llama ? model::RopeType::Norm : model::RopeType::Neox;
  c.rms_eps = 1e-6f;
  return c;
}

struct Part {
  double seconds = 0;
  timing::Timing timing;
};

Part simulate(const std::vector<const TracingDevice::Recorded*>& ds, const timing::MachineParams& m) {
  std::vector<const timing::DispatchTrace*> seq;
  for (const auto* d : ds)
    for (const auto& t : d->traces) seq.push_back(t.get());
  Part p;
  if (seq.empty()) return p;
  p.timing = timing::simulate(seq, m);
  p.seconds = p.timing.total_s;
  return p;
}

// The weights of a case: one tensor type for every matrix, or (w4a16, w4a8,
// w4a4, nvfp4) the seven linear layers of each block in 4 bits with the
// embedding and head in bf16, as compressed-tensors checkpoints store them
// (lm_head left unquantised).
struct Weights {
  std::string label;
  quant::TensorType type = quant::TensorType::Q4_K;  // the matrices, or (4-bit) the embedding and head
  bool w4 = false;
  model::W4Kind kind = model::W4Kind::CompressedInt4;
  model::W4Activations act = model::W4Activations::Default;
};

Weights weights_of(const std::string& name) {
  if (name == "w4a16" || name == "w4a8" || name == "w4a4")
    return {name + " (compressed-tensors INT4, bf16 embedding and head)", quant::TensorType::BF16, true,
            model::W4Kind::CompressedInt4, model::parse_w4_activations(name.substr(2), "--type")};
  if (name == "nvfp4")
    return {"nvfp4 a8 (bf16 embedding and head)", quant::TensorType::BF16, true, model::W4Kind::Nvfp4,
            model::W4Activations::A8};
  auto t = quant::type_from_name(name);
  if (!t) throw Error("--type: unknown weights '" + name + "' (a tensor type, w4a16, w4a8, w4a4 or nvfp4)");
  return {quant::type_name(*t), *t};
}

bool is_block_linear(const std::string& name) {
  for (const char* tail : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_gate.weight",
                           "ffn_up.weight", "ffn_down.weight"})
    if (name.starts_with("blk.") && name.ends_with(tail)) return true;
  return false;
}

int run_shape(const Shape& s, const Weights& wt, kernels::EmuTestDevice& emu, const timing::MachineParams& m,
              bool kv_f16) {
  TracingDevice dev(emu);
  const model::ModelConfig cfg = config_of(s);
  const quant::TensorType type = wt.type;
  const model::ShapeTensorSource source(
      [type](const std::string&) { return type; }, std::string(s.name) + " " + wt.label,
      [&wt](const std::string& name, model::W4Kind* kind) {
        *kind = wt.kind;
        return wt.w4 && is_block_linear(name);
      });
  model::DecoderModel model(dev, cfg, source,
                            model::LoadOptions{.context = s.ctx, .progress = {}, .kv_f16 = kv_f16, .w4_act = wt.act});
  model.set_position(s.ctx - 1);
  dev.launches.clear();
  model.forward(1, s.ctx - 1);
  // launch 0 is the embedding row; each layer has one RoPE launch (its own, or the attention that takes it)
  std::vector<size_t> ropes;
  for (size_t i = 0; i < dev.launches.size(); ++i)
    if (dev.launches[i].kernel == "qkv_rope_append_k" || dev.launches[i].kernel.starts_with("flash_dec_gqa_rope"))
      ropes.push_back(i);
  if (ropes.size() != 2) throw Error("k100-bench model: expected one RoPE launch in each of the 2 layers");
  std::vector<const TracingDevice::Recorded*> embed, first, layer, head;
  for (size_t i = 0; i < dev.launches.size(); ++i)
    (i == 0 ? embed : i <= ropes[0] ? first : i <= ropes[1] ? layer : head).push_back(&dev.launches[i]);
  const Part pe = simulate(embed, m), pf = simulate(first, m), pl = simulate(layer, m), ph = simulate(head, m);
  const double token_s = pe.seconds + pf.seconds + double(s.n_layer - 1) * pl.seconds + ph.seconds;
  const uint64_t launches = embed.size() + first.size() + uint64_t(s.n_layer - 1) * layer.size() + head.size();

  // the bound: the weights of n_layer layers and the head, and every layer's KV rows at ctx
  const uint64_t layer_weights =
      (model.weight_bytes() - quant::row_bytes(type, uint64_t(s.n_embd)) * uint64_t(s.n_vocab)) / uint64_t(cfg.n_layer);
  const uint64_t head_bytes = quant::row_bytes(type, uint64_t(s.n_embd)) * uint64_t(s.n_vocab);
  const uint64_t kv_bytes = uint64_t(s.n_layer) * 2 * uint64_t(s.n_head_kv * s.head_dim) * uint64_t(s.ctx) *
                            uint64_t(model.kv_element_bytes());
  const uint64_t bytes = uint64_t(s.n_layer) * layer_weights + head_bytes + kv_bytes;
  const double bound_s = double(bytes) / bench::kDramBytesPerSecond;

  std::printf("\n== %s, %s weights%s, one token at position %lld\n", s.name, wt.label.c_str(),
              wt.w4 ? "" : " (embedding and head too)", (long long)(s.ctx - 1));
  std::printf("  shape: hidden %lld, %lld layers, FFN %lld, %lld query / %lld KV heads of %lld, vocab %lld, %s KV cache\n",
              (long long)s.n_embd, (long long)s.n_layer, (long long)s.n_ff, (long long)s.n_head,
              (long long)s.n_head_kv, (long long)s.head_dim, (long long)s.n_vocab,
              model.kv_element_bytes() == 2 ? "f16" : "f32");
  std::printf("  launches per token: %llu (embedding %zu, first layer to its RoPE %zu, %lld layers x %zu, last layer's "
              "rest and head %zu)\n",
              (unsigned long long)launches, embed.size(), first.size(), (long long)(s.n_layer - 1), layer.size(),
              head.size());
  auto print = [](const char* title, const std::vector<const TracingDevice::Recorded*>& ds, const Part& p) {
    std::printf("  %s (MODELED):\n", title);
    for (size_t i = 0; i < ds.size() && i < p.timing.dispatches.size(); ++i) {
      const auto& d = p.timing.dispatches[i];
      std::printf("    %-24s grid %7u x %4u  %9.2f us  %-14s %s\n", ds[i]->kernel.c_str(), ds[i]->grid,
                  ds[i]->workgroup, d.total_s * 1e6, timing::limiter_name(d.limiter), d.reason.c_str());
    }
  };
  print("first layer to its RoPE", first, pf);
  print("per layer (from one RoPE to the next: attention, output, FFN, next QKV)", layer, pl);
  print("last layer after its RoPE, and the head", head, ph);
  std::printf("  MODELED time per token: %.3f ms = embedding %.1f us + first %.1f us + %lld x layer %.1f us + rest %.1f "
              "us\n",
              token_s * 1e3, pe.seconds * 1e6, pf.seconds * 1e6, (long long)(s.n_layer - 1), pl.seconds * 1e6,
              ph.seconds * 1e6);
  std::printf("  MODELED tokens/s: %.2f\n", 1.0 / token_s);
  std::printf("  bandwidth bound: %.3f GB per token (weights %.3f GB, KV cache %.3f GB) / 896 GB/s = %.3f ms, "
              "%.2f tokens/s\n",
              double(bytes) / 1e9, double(bytes - kv_bytes) / 1e9, double(kv_bytes) / 1e9, bound_s * 1e3, 1.0 / bound_s);
  std::printf("  MODELED speed is %.1f%% of the bound\n", 100.0 * bound_s / token_s);
  return 0;
}

// Qwen3.5-27B (its config.json): hidden 5120, 64 layers of which every
// fourth is gated attention (24 query / 4 KV heads of 256, RoPE over 64 dims,
// sections 11/11/10) and the others Gated DeltaNet (16 key / 48 value heads
// of 128, conv of 4 taps), FFN 17408, vocab 248320; context 4096.
model::ModelConfig qwen35_27b_config(int64_t n_layer) {
  model::ModelConfig c;
  c.arch = model::Architecture::Qwen35;
  c.arch_name = "qwen35";
  c.name = "Qwen3.5-27B";
  c.n_vocab = 248320;
  c.n_ctx_train = 4096;
  c.n_embd = 5120;
  c.n_layer = n_layer;
  c.n_ff = 17408;
  c.n_head = 24;
  c.n_head_kv = 4;
  c.head_dim = 256;
  c.n_rot = 64;
  c.rope_freq_base = 1e7;
  c.rope_type = model::RopeType::Neox;
  c.rms_eps = 1e-6f;
  c.ssm_conv = 4;
  c.ssm_state = 128;
  c.ssm_k_heads = 16;
  c.ssm_v_heads = 48;
  c.ssm_tiled_heads = true;
  c.rope_multi = true;
  c.rope_sections[0] = 11;
  c.rope_sections[1] = 11;
  c.rope_sections[2] = 10;
  for (int64_t i = 0; i < n_layer; ++i) c.recurrent.push_back((i + 1) % 4 != 0);
  return c;
}

// The hybrid model's token: the pass of a 4-layer model (3 Gated DeltaNet
// layers and one attention layer, with the embedding and the head) and of an
// 8-layer one; their difference is one 4-layer cycle, of which the 64-layer
// model has 16.
int run_hybrid(const Weights& wt, kernels::EmuTestDevice& emu, const timing::MachineParams& m, bool kv_f16) {
  constexpr int64_t kLayers = 64, kCycle = 4, kCtx = 4096;
  struct Pass {
    Part part;
    uint64_t launches = 0, weights = 0, kv_bytes = 0;
    std::vector<std::string> kernels;
  };
  auto pass = [&](int64_t n_layer) {
    TracingDevice dev(emu);
    const model::ModelConfig cfg = qwen35_27b_config(n_layer);
    const quant::TensorType type = wt.type;
    // the conv weights stay f32 (rows of 4 taps), as the converters store them
    const model::ShapeTensorSource source(
        [type](const std::string& name) { return name.ends_with("ssm_conv1d.weight") ? quant::TensorType::F32 : type; },
        std::string("Qwen3.5-27B ") + wt.label);
    model::DecoderModel model(dev, cfg, source, model::LoadOptions{.context = kCtx, .progress = {}, .kv_f16 = kv_f16});
    model.set_position(kCtx - 1);
    dev.launches.clear();
    model.forward(1, kCtx - 1);
    std::vector<const TracingDevice::Recorded*> all;
    Pass p;
    for (const auto& l : dev.launches) {
      all.push_back(&l);
      p.kernels.push_back(l.kernel);
    }
    p.part = simulate(all, m);
    p.launches = all.size();
    p.weights = model.weight_bytes();
    p.kv_bytes = uint64_t(n_layer / kCycle) * 2 * uint64_t(cfg.kv_dim()) * uint64_t(kCtx) *
                 uint64_t(model.kv_element_bytes());
    if (n_layer == kCycle) {
      std::printf("\n== Qwen3.5-27B (qwen35), %s weights (embedding and head too), one token at position %lld\n",
                  wt.label.c_str(), (long long)(kCtx - 1));
      std::printf("  shape: hidden 5120, 64 layers (48 Gated DeltaNet: 16 key / 48 value heads of 128, conv 4; 16 gated "
                  "attention: 24 query / 4 KV heads of 256, RoPE over 64 dims), FFN 17408, vocab 248320, %s KV cache\n",
                  model.kv_element_bytes() == 2 ? "f16" : "f32");
      std::printf("  dispatches of a 4-layer pass (3 Gated DeltaNet layers, 1 attention layer, embedding, head; MODELED):\n");
      for (size_t i = 0; i < all.size() && i < p.part.timing.dispatches.size(); ++i) {
        const auto& d = p.part.timing.dispatches[i];
        std::printf("    %-24s grid %7u x %4u  %9.2f us  %-14s %s\n", all[i]->kernel.c_str(), all[i]->grid,
                    all[i]->workgroup, d.total_s * 1e6, timing::limiter_name(d.limiter), d.reason.c_str());
      }
    }
    return p;
  };
  const Pass p4 = pass(kCycle), p8 = pass(2 * kCycle);
  const double cycle_s = p8.part.seconds - p4.part.seconds;
  const double token_s = p4.part.seconds + double(kLayers / kCycle - 1) * cycle_s;
  const uint64_t launches = p4.launches + uint64_t(kLayers / kCycle - 1) * (p8.launches - p4.launches);
  // the bound: every weight once (the head ties to the embedding table, counted once; the embedding row
  // is not counted), the KV rows of the 16 attention layers, and the Gated DeltaNet state of the 48 others
  // read and written
  const uint64_t weights = p4.weights + uint64_t(kLayers / kCycle - 1) * (p8.weights - p4.weights);
  const uint64_t kv = p4.kv_bytes * uint64_t(kLayers / kCycle);
  const uint64_t state = uint64_t(kLayers / kCycle * (kCycle - 1)) * 48 * 128 * 128 * 4 * 2;
  const uint64_t bytes = weights + kv + state;
  const double bound_s = double(bytes) / bench::kDramBytesPerSecond;
  std::printf("  a 4-layer cycle (MODELED): %.1f us (the 8-layer pass %.1f us - the 4-layer pass %.1f us)\n",
              cycle_s * 1e6, p8.part.seconds * 1e6, p4.part.seconds * 1e6);
  std::printf("  launches per token: %llu\n", (unsigned long long)launches);
  std::printf("  MODELED time per token: %.3f ms = 4-layer pass + 15 x cycle\n", token_s * 1e3);
  std::printf("  MODELED tokens/s: %.2f\n", 1.0 / token_s);
  std::printf("  bandwidth bound: %.3f GB per token (weights %.3f GB, KV cache %.3f GB, recurrent state read and "
              "written %.3f GB) / 896 GB/s = %.3f ms, %.2f tokens/s\n",
              double(bytes) / 1e9, double(weights) / 1e9, double(kv) / 1e9, double(state) / 1e9, bound_s * 1e3,
              1.0 / bound_s);
  std::printf("  MODELED speed is %.1f%% of the bound\n", 100.0 * bound_s / token_s);
  return 0;
}

int run(int argc, char** argv) {
  std::vector<std::string> shapes = {"27b", "8b"};
  std::vector<std::string> types;  // default: q4_K and q8_0 for each shape, and the 4-bit paths at 27B
  std::string package;  // default: the package every other tool finds (RT_HSACO, K100_BUILD_DIR, the install, ...)
  timing::MachineParams m = timing::k100_lc();
  bool kv_f16 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--shape") {
      shapes.clear();
      std::string v = value();
      for (size_t p = 0; p <= v.size();) {
        size_t e = v.find(',', p);
        if (e == std::string::npos) e = v.size();
        shapes.push_back(v.substr(p, e - p));
        p = e + 1;
      }
    } else if (a == "--type") {
      types.clear();
      std::string v = value();
      for (size_t p = 0; p <= v.size();) {
        size_t e = v.find(',', p);
        if (e == std::string::npos) e = v.size();
        weights_of(v.substr(p, e - p));  // an unknown name is an error before anything runs
        types.push_back(v.substr(p, e - p));
        p = e + 1;
      }
    } else if (a == "--kv") {
      const std::string v = value();
      if (v != "f32" && v != "f16") throw Error("--kv: 'f32' or 'f16', not '" + v + "'");
      kv_f16 = v == "f16";
    } else if (a == "--package") {
      package = value();
    } else if (a == "--set") {
      if (!bench::apply_set_option(m, "k100-bench model", value())) return 2;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: k100-bench model [--shape 27b,q35-27b,qwen3.5-27b,8b] [--type q4_K,q8_0,w4a16,w4a8,w4a4,nvfp4] [--kv f32|f16]\n"
                  "                        [--package file.hsaco] [--set name=value]\n"
                  "(default: q4_K and q8_0 for each shape, and w4a16, w4a8, w4a4 at 27b; the 4-bit weights are\n"
                  "the blocks' linear layers as compressed-tensors INT4 or NVFP4, embedding and head bf16)\n"
                  "MODELED K100_LC decode speed (timing model) of dense model shapes, one token at a full context,\n"
                  "beside the bandwidth bound (which counts the KV cache in its element type, f32 by default);\n"
                  "launches per token. Without --package, the kernel package is found as every k100 tool finds it\n"
                  "(RT_HSACO, K100_BUILD_DIR, the installed package, this build tree), from any directory.\n");
      return 0;
    } else {
      throw Error("unknown option '" + a + "' (see k100-bench model --help)");
    }
  }
  std::printf("MODELED K100_LC decode speed (not a measurement): the k100lc decoder's dispatches of one token,\n"
              "emulated with the timing model's recorder and scheduled by the timing model (k100/timing,\n"
              "calibrated by k100-bench calibrate); t = sum over dispatches of (dispatch floor + execution).\n");
  if (package.empty()) package = runtime::default_package_path();
  kernels::EmuTestDevice emu(package);
  for (const std::string& key : shapes) {
    if (key == "qwen3.5-27b") {  // the hybrid model (Gated DeltaNet and gated attention layers)
      for (const std::string& t : types.empty() ? std::vector<std::string>{"q4_K"} : types)
        run_hybrid(weights_of(t), emu, m, kv_f16);
      continue;
    }
    const Shape* s = nullptr;
    for (const auto& c : kShapes)
      if (key == c.key) s = &c;
    if (!s) throw Error("--shape: unknown shape '" + key + "' (27b, q35-27b, qwen3.5-27b, 8b)");
    std::vector<std::string> run = types;
    if (run.empty()) {
      run = {"q4_K", "q8_0"};
      if (key == "27b") run.insert(run.end(), {"w4a16", "w4a8", "w4a4"});
    }
    for (const std::string& t : run) run_shape(*s, weights_of(t), emu, m, kv_f16);
  }
  return 0;
}

int main_model(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-bench model: %s\n", e.what());
    return 1;
  }
}

const bench::Register reg("model", "MODELED decode tokens/s of 27B- and 8B-class dense models beside the bandwidth bound",
                          main_model);

}  // namespace
