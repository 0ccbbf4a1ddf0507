// k100-gguf dequant: one tensor decoded to float32 and written as .npy, with
// the NumPy shape (the GGUF shape reversed: rows first).
//
// Decoding runs on the host reference codecs (--host). The device decoders
// are a separate path that this build does not have, so without --host the
// command says so instead of quietly decoding on the host.
#include <cstdio>

#include "command_table.h"
#include "commands.h"
#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/npy.h"

namespace k100::gguf_tool {

const char* const kDequantUsage =
    "usage: k100-gguf dequant FILE TENSOR -o OUT.npy --host\n"
    "  Decodes TENSOR to float32 and writes it as a NumPy .npy file whose shape\n"
    "  is the GGUF shape reversed (rows first, elements per row last).\n"
    "  --host   decode with the host reference codecs (required: this build\n"
    "           has no device decoders)\n";

int dequant_command(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  std::string out;
  bool host = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a file name"};
      out = args[++i];
    } else if (a == "--host") {
      host = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{k100::tools::unknown_option(a, {"-o", "--output", "--host", "--help"})};
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) throw UsageError{"expected FILE and TENSOR"};
  if (out.empty()) throw UsageError{"-o OUT.npy is missing"};
  if (!host)
    throw UsageError{"device decoding is not available in this build; pass --host to decode with the host codecs"};

  const quant::GgufFile f = quant::GgufFile::open(positional[0]);
  const quant::TensorView t = f.tensor(positional[1]);
  const std::vector<float> values = t.dequantize();
  const std::vector<uint64_t> shape(t.dims.rbegin(), t.dims.rend());
  quant::write_npy_f32(out, values, shape);
  std::printf("%s: %s %s -> %s (%s float32)\n", positional[1].c_str(), quant::type_name(t.type).c_str(),
              quant::format_dims(t.dims).c_str(), out.c_str(), quant::format_dims(shape).c_str());
  return 0;
}

}  // namespace k100::gguf_tool
