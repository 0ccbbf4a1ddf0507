// k100-gguf dequant: one tensor decoded to float32 and written as .npy, with
// the NumPy shape (the GGUF shape reversed: rows first).
//
// Decoding runs on the runtime's default device with the catalog's decoder
// kernels (device_decoder.h): the emulator without a DCU, the DCU with one
// (K100_BACKEND chooses). --host decodes with the host reference codecs.
#include <cstdio>

#include "command_table.h"
#include "commands.h"
#include "device_decoder.h"
#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/npy.h"

namespace k100::gguf_tool {

const char* const kDequantUsage =
    "usage: k100-gguf dequant FILE TENSOR -o OUT.npy [--host]\n"
    "  Decodes TENSOR to float32 and writes it as a NumPy .npy file whose shape\n"
    "  is the GGUF shape reversed (rows first, elements per row last).\n"
    "  Decoding runs on the device (K100_BACKEND=auto|emu|hsa; the emulator\n"
    "  when there is no DCU) with the kernel package's decoders.\n"
    "  --host   decode with the host reference codecs instead\n";

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

  const quant::GgufFile f = quant::GgufFile::open(positional[0]);
  const quant::TensorView t = f.tensor(positional[1]);
  std::vector<float> values(t.elements());
  std::string where = "host codecs";
  if (host) {
    t.dequantize_rows(0, t.rows(), values.data());
  } else {
    if (DeviceDecoder::kernel_for(t.type).empty())
      throw Error(positional[0] + ": tensor '" + positional[1] + "' has type " + quant::type_name(t.type) +
                  ", which no device kernel decodes (--host decodes the types the host codecs know)");
    runtime::Runtime rt;
    DeviceDecoder dec(rt);
    dec.decode_rows(t, 0, t.rows(), values.data());
    where = "device " + dec.backend() + ", " + DeviceDecoder::kernel_for(t.type);
  }
  const std::vector<uint64_t> shape(t.dims.rbegin(), t.dims.rend());
  quant::write_npy_f32(out, values, shape);
  std::printf("%s: %s %s -> %s (%s float32, %s)\n", positional[1].c_str(), quant::type_name(t.type).c_str(),
              quant::format_dims(t.dims).c_str(), out.c_str(), quant::format_dims(shape).c_str(), where.c_str());
  return 0;
}

}  // namespace k100::gguf_tool
