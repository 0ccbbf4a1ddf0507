// Q8_0: 32 elements in 34 bytes, d (f16) @0, qs[32] int8 @2; value q * d.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_q8_0(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR qs[2] = {k.vgpr(4, "qs 0-15"), k.vgpr(4, "qs 16-31")};
  load(k, in, qs[0], 2);
  load(k, in, qs[1], 18);
  for (int h = 0; h < 2; ++h) {
    RunBatch b(k, sink, {16 * h, 16 * h + 4, 16 * h + 8, 16 * h + 12});
    for (int j = 0; j < 4; ++j) {
      signed_bytes_to_f32(k, b[size_t(j)], qs[h][j]);
      scale_values(k, b[size_t(j)], d);
    }
    b.finish();
  }
}

}  // namespace k100::kernels::gguf
