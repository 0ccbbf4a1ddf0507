// Q2_0: 64 elements in 18 bytes, d (f16) @0, qs[16] @2; element 4i + t =
// (qs[i] >> 2t) & 3, value (code - 1) * d.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_q2_0(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR qs = k.vgpr(4, "qs");
  load(k, in, qs, 2);
  // qs dword w holds elements 16w .. 16w + 15; element 16w + e is at bits 2e
  for (int w = 0; w < 4; ++w) {
    RunBatch b(k, sink, {16 * w, 16 * w + 4, 16 * w + 8, 16 * w + 12});
    for (int r = 0; r < 4; ++r) {
      const VGPR run = b[size_t(r)];
      for (int c = 0; c < 4; ++c) {
        k.v_bfe_u32(run[c], qs[w], 2 * (4 * r + c), 2);
        k.v_cvt_f32_u32(run[c], run[c]);
        k.v_add_f32(run[c], -1.0f, run[c]);  // float(code - 1), exact
      }
      scale_values(k, run, d);
    }
    b.finish();
  }
}

}  // namespace k100::kernels::gguf
