// libFuzzer target for the JSON documents of Hugging Face directories and
// RT4 files: the first byte picks the reader (config.json,
// generation_config.json, tokenizer.json, an .rt4.json manifest, a
// quantization_config, model.safetensors.index.json), the rest is the
// document. Each must be read or refused with k100::Error; any other
// exception, a crash or a hang is a bug. The documents go through a file in
// a per-process scratch directory because the readers take paths. The two
// model readers are compiled into the target (tests/fuzz/CMakeLists.txt), so
// it needs neither the device nor the emulator.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "k100/base/error.h"
#include "k100/model/hf_model.h"
#include "k100/model/tokenizer_json.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/json_document.h"
#include "k100/quant/rt4.h"
#include "k100/quant/safetensors_checkpoint.h"

namespace {

namespace fs = std::filesystem;

const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("k100_hf_json_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void put(const fs::path& p, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace k100;
  if (size == 0) return 0;
  const uint8_t which = data[0] % 6;
  ++data, --size;
  const fs::path& d = scratch();
  try {
    switch (which) {
      case 0: {
        put(d / "config.json", data, size);
        (void)model::read_hf_config((d / "config.json").string());
        break;
      }
      case 1: {
        put(d / "generation_config.json", data, size);
        (void)model::read_generation_config((d / "generation_config.json").string());
        break;
      }
      case 2: {
        put(d / "tokenizer.json", data, size);
        (void)model::read_tokenizer_json((d / "tokenizer.json").string());
        break;
      }
      case 3: {
        put(d / "w.rt4", data, 0);
        put(d / "w.rt4.json", data, size);
        const quant::Rt4File f = quant::Rt4File::open((d / "w.rt4").string());
        for (const auto& t : f.tensors())
          if (t.kind == "i4") (void)f.matrix(t).dequantize();
        break;
      }
      case 4: {
        const quant::Json j = quant::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "q");
        (void)quant::read_quantization_config(quant::JsonObject(j, "q", "quantization_config"));
        break;
      }
      case 5: {
        put(d / "model.safetensors.index.json", data, size);
        (void)quant::SafetensorsCheckpoint::open((d / "model.safetensors.index.json").string());
        break;
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
