// libFuzzer target for the GGUF reader: any byte string must either parse or
// raise k100::Error; a crash, a sanitizer report, another exception or a hang
// is a bug. An accepted file is also checked for what the reader promises
// (every tensor aligned, inside the file, disjoint from the others), its
// metadata is rendered, its tensors decoded with the host codecs, and it is
// re-written with GgufWriter and read back, which must give the same
// metadata and tensor bytes.
//
// Built and run by scripts/fuzz.sh (seeds from gguf_fuzz_seeds, which writes
// small valid files of every codec type).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "k100/base/error.h"
#include "k100/quant/gguf_reader.h"
#include "k100/quant/gguf_writer.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_placement(const k100::quant::GgufFile& f) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const auto& t : f.tensors()) {
    check(t.offset % f.alignment() == 0);
    check(t.file_offset == f.data_offset() + t.offset);
    check(t.file_offset <= f.file_size() && t.size <= f.file_size() - t.file_offset);
    if (t.size) spans.push_back({t.file_offset, t.file_offset + t.size});
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) check(spans[i].first >= spans[i - 1].second);
}

void check_rewrite(const k100::quant::GgufFile& f) {
  using namespace k100::quant;
  GgufWriter w(f.version());
  std::vector<uint8_t> out;
  try {
    for (const KeyValue& kv : f.metadata()) w.add(kv.key, kv.value);
    for (const TensorInfo& t : f.tensors()) {
      const TensorView v = f.tensor(t);
      w.add_tensor(t.name, t.type, t.dims, std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()));
    }
    out = w.bytes();
  } catch (const k100::Error&) {
    return;  // readable but not writable as it is (e.g. a tensor name over 63 bytes)
  }
  const GgufFile g = GgufFile::parse(out, "rewritten");  // must not throw
  check(g.metadata().size() == f.metadata().size() && g.tensors().size() == f.tensors().size());
  for (size_t i = 0; i < f.metadata().size(); ++i)
    check(g.metadata()[i].key == f.metadata()[i].key && g.metadata()[i].value == f.metadata()[i].value);
  for (size_t i = 0; i < f.tensors().size(); ++i) {
    const TensorView a = f.tensor(f.tensors()[i]), b = g.tensor(g.tensors()[i]);
    check(a.name == b.name && a.type == b.type && a.dims == b.dims);
    check(std::equal(a.bytes.begin(), a.bytes.end(), b.bytes.begin(), b.bytes.end()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace k100::quant;
  try {
    const GgufFile f = GgufFile::parse(std::span<const uint8_t>(data, size), "fuzz.gguf");
    check_placement(f);
    for (const KeyValue& kv : f.metadata()) (void)kv.value.to_string();
    for (const TensorInfo& t : f.tensors())
      if (traits(t.type).has_host_codec) (void)f.tensor(t).dequantize();
    check_rewrite(f);
  } catch (const k100::Error&) {
  }
  return 0;
}
