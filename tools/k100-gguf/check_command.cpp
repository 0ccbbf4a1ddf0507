// k100-gguf check: every tensor of a file decoded on the device and by the
// host codecs, compared bit for bit (a NaN matches any NaN: NaNs formed by
// arithmetic need not carry the same payload on both). One line per tensor,
// then exactly "N passed, M failed"; exit status 1 when any tensor failed. A
// tensor whose type has no decoder on one side fails with that reason.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "command_table.h"
#include "commands.h"
#include "device_decoder.h"
#include "k100/quant/gguf_reader.h"

namespace k100::gguf_tool {

const char* const kCheckUsage =
    "usage: k100-gguf check FILE\n"
    "  Decodes every tensor on the device (K100_BACKEND=auto|emu|hsa; the\n"
    "  emulator when there is no DCU) and with the host codecs and compares\n"
    "  them bit for bit (NaN equals NaN). Last line: 'N passed, M failed';\n"
    "  exit status 1 when a tensor failed.\n";

namespace {

// "" when equal, else the first difference.
std::string first_difference(const std::vector<float>& device, const std::vector<float>& host, uint64_t base) {
  for (size_t i = 0; i < device.size(); ++i) {
    if (std::isnan(device[i]) && std::isnan(host[i])) continue;
    uint32_t a, b;
    std::memcpy(&a, &device[i], 4);
    std::memcpy(&b, &host[i], 4);
    if (a != b) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %llu: device %.9g (0x%08x), host %.9g (0x%08x)",
                    (unsigned long long)(base + i), double(device[i]), a, double(host[i]), b);
      return buf;
    }
  }
  return "";
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  std::string path;
  for (const std::string& a : args) {
    if (!a.empty() && a[0] == '-') throw UsageError{k100::tools::unknown_option(a, {"--help"})};
    if (!path.empty()) throw UsageError{"more than one FILE ('" + path + "', '" + a + "')"};
    path = a;
  }
  if (path.empty()) throw UsageError{"expected FILE"};
  const quant::GgufFile f = quant::GgufFile::open(path);
  runtime::Runtime rt;
  DeviceDecoder dec(rt);
  std::printf("%s: %zu tensors, decoded on the device (%s) and on the host\n", path.c_str(), f.tensors().size(),
              dec.backend().c_str());
  size_t passed = 0, failed = 0;
  for (const quant::TensorInfo& info : f.tensors()) {
    const quant::TensorView t = f.tensor(info.name);
    const std::string kernel = DeviceDecoder::kernel_for(t.type);
    const std::string what = info.name + " " + quant::type_name(t.type) + " " + quant::format_dims(t.dims);
    std::string problem;
    if (kernel.empty()) {
      problem = "no device decoder for type " + quant::type_name(t.type);
    } else if (!quant::traits(t.type).has_host_codec) {
      problem = "no host codec for type " + quant::type_name(t.type);
    } else {
      const uint64_t step = rows_per_chunk(t);
      for (uint64_t r = 0; r < t.rows() && problem.empty(); r += step) {
        const uint64_t rows = std::min(step, t.rows() - r), n = rows * t.row_elements();
        std::vector<float> device(n), host(n);
        try {
          dec.decode_rows(t, r, rows, device.data());
        } catch (const Error& e) {
          problem = std::string("device: ") + e.what();
          break;
        }
        t.dequantize_rows(r, rows, host.data());
        problem = first_difference(device, host, r * t.row_elements());
      }
    }
    if (problem.empty()) {
      ++passed;
      std::printf("PASS %s (%s)\n", what.c_str(), kernel.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", what.c_str(), problem.c_str());
    }
  }
  std::printf("%zu passed, %zu failed\n", passed, failed);
  return failed ? 1 : 0;
}

}  // namespace k100::gguf_tool
