// libFuzzer target for the safetensors reader: any byte string must either
// parse or raise k100::Error; a crash, a sanitizer report, another exception
// or a hang is a bug. An accepted file is also checked for what the reader
// promises (every data byte in exactly one tensor, each tensor's bytes
// matching its dtype and shape), its float tensors decoded with the host
// codecs, and it is re-written with SafetensorsWriter and read back, which
// must give the same tensors and bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "k100/base/error.h"
#include "k100/quant/safetensors_reader.h"
#include "k100/quant/safetensors_writer.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace k100::quant;
  try {
    const SafetensorsFile f = SafetensorsFile::parse(std::span<const uint8_t>(data, size), "fuzz.safetensors");
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const SafetensorsTensor& t : f.tensors()) {
      check(t.file_offset == f.data_offset() + t.begin && t.end <= f.file_size() - f.data_offset());
      uint64_t n = 1;
      for (uint64_t d : t.shape) n *= d;
      check(n == t.elements && n * dtype_info(t.dtype).bytes == t.size());
      spans.push_back({t.begin, t.end});
      const auto info = dtype_info(t.dtype);
      if (info.tensor_type && traits(*info.tensor_type).has_host_codec && t.shape.size() <= 4 && t.elements < (1u << 20))
        (void)f.view(t).dequantize();
    }
    std::sort(spans.begin(), spans.end());
    uint64_t at = 0;
    for (const auto& [b, e] : spans) {
      check(b == at);
      at = e;
    }
    check(at == f.file_size() - f.data_offset());

    SafetensorsWriter w;
    for (const auto& [k, v] : f.metadata()) w.add_metadata(k, v);
    for (const SafetensorsTensor& t : f.tensors()) w.add(t.name, t.dtype, t.shape, f.bytes(t));
    const std::vector<uint8_t> out = w.bytes();
    const SafetensorsFile g = SafetensorsFile::parse(out, "rewritten");  // must not throw
    check(g.tensors().size() == f.tensors().size() && g.metadata() == f.metadata());
    for (const SafetensorsTensor& t : f.tensors()) {
      const SafetensorsTensor& u = g.at(t.name);
      check(u.dtype == t.dtype && u.shape == t.shape);
      const auto a = f.bytes(t), b = g.bytes(u);
      check(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }
  } catch (const k100::Error&) {
  }
  return 0;
}
