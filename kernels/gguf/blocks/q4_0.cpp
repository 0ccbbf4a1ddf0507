// Q4_0: 32 elements in 18 bytes, d (f16) @0, qs[16] @2; byte j: low nibble
// -> element j, high -> j + 16; value (nibble - 8) * d.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_q4_0(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR qs = k.vgpr(4, "qs");
  load(k, in, qs, 2);
  // qs dwords 2h, 2h + 1 hold elements 8h .. 8h + 7 and 16 + 8h .. 16 + 8h + 7
  for (int h = 0; h < 2; ++h) {
    RunBatch b(k, sink, {8 * h, 8 * h + 4, 16 + 8 * h, 20 + 8 * h});
    for (int j = 0; j < 2; ++j) {
      const VGPR lo = k.vgpr(1, "low nibbles"), hi = k.vgpr(1, "high nibbles");
      split_nibbles(k, qs[2 * h + j], lo, hi);
      for (auto [run, codes] : {std::pair{b[size_t(j)], lo}, std::pair{b[size_t(2 + j)], hi}}) {
        bytes_to_f32(k, run, codes);
        for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], -8.0f, run[c]);  // float(q - 8), exact
        scale_values(k, run, d);
      }
    }
    b.finish();
  }
}

}  // namespace k100::kernels::gguf
