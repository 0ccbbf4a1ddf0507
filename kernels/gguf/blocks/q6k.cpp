// Q6_K: 256 elements in 210 bytes, ql[128] @0, qh[64] @128, scales[16] int8
// @192, d (f16) @208. Half h (128 elements) uses ql[64 h ..], qh[32 h ..],
// scales[8 h ..]; for l < 32 the four 6-bit codes
//   ql[l] & 15 | (qh[l] & 3) << 4          -> element 128 h + l,      scale l/16
//   ql[l + 32] & 15 | (qh[l] >> 2 & 3) << 4 -> element 128 h + l + 32, scale l/16 + 2
//   ql[l] >> 4 | (qh[l] >> 4 & 3) << 4      -> element 128 h + l + 64, scale l/16 + 4
//   ql[l + 32] >> 4 | (qh[l] >> 6) << 4     -> element 128 h + l + 96, scale l/16 + 6
// and value (d * scale) * (code - 32).
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_q6k(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR scales = k.vgpr(4, "scales");
  load(k, in, scales, 192);
  const VGPR d = load_half(k, in, 208, "d");
  for (int h = 0; h < 2; ++h) {
    for (int g = 0; g < 2; ++g) {  // l = 16 g .. 16 g + 15: scale index 8 h + g + 2 u for code u
      VGPR ds[4];
      for (int u = 0; u < 4; ++u) {
        const int idx = 8 * h + g + 2 * u;
        ds[u] = k.vgpr(1, "d * scale");
        i8_to_f32(k, ds[u], scales[idx / 4], idx % 4);
        k.v_mul_f32(ds[u], d, ds[u]);
      }
      const VGPR ql_a = k.vgpr(4, "ql"), ql_b = k.vgpr(4, "ql + 32"), qh = k.vgpr(4, "qh");
      load(k, in, ql_a, 64 * h + 16 * g);
      load(k, in, ql_b, 64 * h + 32 + 16 * g);
      load(k, in, qh, 128 + 32 * h + 16 * g);
      for (int j = 0; j < 4; ++j) {
        const int e = 128 * h + 16 * g + 4 * j;
        RunBatch b(k, sink, {e, e + 32, e + 64, e + 96});
        for (int u = 0; u < 4; ++u) {
          const VGPR code = k.vgpr(1, "codes"), top = k.vgpr(1, "high bits");
          const VGPR ql = u % 2 == 0 ? ql_a[j] : ql_b[j];
          if (u < 2) {
            k.v_and_b32(code, 0x0f0f0f0fu, ql);
          } else {
            k.v_lshrrev_b32(code, 4, ql);
            k.v_and_b32(code, 0x0f0f0f0fu, code);
          }
          if (u == 0) {
            k.v_and_b32(top, 0x03030303u, qh[j]);
          } else {
            k.v_lshrrev_b32(top, 2 * u, qh[j]);
            k.v_and_b32(top, 0x03030303u, top);
          }
          k.v_lshl_or_b32(code, top, 4, code);
          const VGPR run = b[size_t(u)];
          bytes_to_f32(k, run, code);
          for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], -32.0f, run[c]);  // float(q - 32), exact
          scale_values(k, run, ds[u]);
        }
        b.finish();
      }
    }
  }
}

}  // namespace k100::kernels::gguf
