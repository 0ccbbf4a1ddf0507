// IQ4_NL: 32 elements in 18 bytes, d (f16) @0, qs[16] @2, nibble order as
// Q4_0; value d * kvalues[nibble] (the 16-level codebook).
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

Iq4nlCodes iq4nl_codes(Kernel& k, const BlockInput& in) {
  Iq4nlCodes out;
  out.scale = load_half(k, in, 0, "d");
  const VGPR qs = k.vgpr(4, "qs");
  load(k, in, qs, 2);
  const Codebook cb = iq4_codebook(k);
  for (int j = 0; j < 4; ++j) {
    const VGPR lo = k.vgpr(1, "low nibbles"), hi = k.vgpr(1, "high nibbles");
    split_nibbles(k, qs[j], lo, hi);
    out.low[j] = k.vgpr(1, "low codes");
    out.high[j] = k.vgpr(1, "high codes");
    codebook_lookup(k, cb, lo, out.low[j]);
    codebook_lookup(k, cb, hi, out.high[j]);
  }
  return out;
}

void decode_iq4nl(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const Iq4nlCodes codes = iq4nl_codes(k, in);
  for (int h = 0; h < 2; ++h) {
    RunBatch b(k, sink, {8 * h, 8 * h + 4, 16 + 8 * h, 20 + 8 * h});
    for (int j = 0; j < 2; ++j) {
      signed_bytes_to_f32(k, b[size_t(j)], codes.low[2 * h + j]);
      signed_bytes_to_f32(k, b[size_t(2 + j)], codes.high[2 * h + j]);
      scale_values(k, b[size_t(j)], codes.scale);
      scale_values(k, b[size_t(2 + j)], codes.scale);
    }
    b.finish();
  }
}

}  // namespace k100::kernels::gguf
