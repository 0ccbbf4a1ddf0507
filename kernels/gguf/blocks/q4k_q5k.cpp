// Q4_K and Q5_K, which decode alike but for Q5_K's fifth bits.
//
// Q4_K: 256 elements in 144 bytes, d, dmin (f16) @0, @2, scales[12] @4 (8
// six-bit (scale, min) pairs), qs[128] @16. Q5_K: 176 bytes, qh[32] @16, qs
// @48. Chunk s (64 elements): qs[32 s + l] low nibble -> element 64 s + l with
// pair 2 s, high nibble -> 64 s + 32 + l with pair 2 s + 1; for Q5_K bit 2 s
// (low) / 2 s + 1 (high) of qh[l] adds 16. Value (d * sc) * q - dmin * m.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

namespace {

struct ScaleMin {
  VGPR scale, offset;  // d * sc and dmin * m
};

// Pair j of the packed 6-bit (scale, min) pairs in head[1..3] (scales[0..11]).
ScaleMin scale_min(Kernel& k, VGPR head, VGPR d, VGPR dmin, int j) {
  const VGPR sc = k.vgpr(1, "sc"), m = k.vgpr(1, "m");
  if (j < 4) {
    k.v_bfe_u32(sc, head[1], 8 * j, 6);
    k.v_bfe_u32(m, head[2], 8 * j, 6);
  } else {
    // low 4 bits from scales[j + 4], high 2 bits from the top of scales[j - 4] / scales[j]
    const int b = 8 * (j - 4);
    const VGPR t = k.vgpr(1, "scale high bits");
    k.v_bfe_u32(sc, head[3], b, 4);
    k.v_bfe_u32(t, head[1], b + 6, 2);
    k.v_lshl_or_b32(sc, t, 4, sc);
    k.v_bfe_u32(m, head[3], b + 4, 4);
    k.v_bfe_u32(t, head[2], b + 6, 2);
    k.v_lshl_or_b32(m, t, 4, m);
  }
  k.v_cvt_f32_u32(sc, sc);
  k.v_cvt_f32_u32(m, m);
  k.v_mul_f32(sc, d, sc);
  k.v_mul_f32(m, dmin, m);
  return {sc, m};
}

void decode_affine(Kernel& k, const BlockInput& in, const BlockSink& sink, bool fifth_bits) {
  const VGPR head = k.vgpr(4, "d, dmin, scales");
  load(k, in, head, 0);
  const VGPR d = k.vgpr(1, "d"), dmin = k.vgpr(1, "dmin");
  f16_to_f32(k, d, head[0], 0);
  f16_to_f32(k, dmin, head[0], 1);
  const int qs_at = fifth_bits ? 48 : 16;
  for (int s = 0; s < 4; ++s) {
    const ScaleMin low = scale_min(k, head, d, dmin, 2 * s), high = scale_min(k, head, d, dmin, 2 * s + 1);
    for (int half = 0; half < 2; ++half) {  // bytes l = 16 half .. 16 half + 15 of the chunk
      const VGPR qs = k.vgpr(4, "qs"), qh = fifth_bits ? k.vgpr(4, "qh") : VGPR{};
      load(k, in, qs, qs_at + 32 * s + 16 * half);
      if (fifth_bits) load(k, in, qh, 16 + 16 * half);
      for (int p = 0; p < 2; ++p) {
        const int l = 16 * half + 8 * p;
        RunBatch b(k, sink, {64 * s + l, 64 * s + l + 4, 64 * s + 32 + l, 64 * s + 36 + l});
        for (int j = 0; j < 2; ++j) {
          const int w = 2 * p + j;
          const VGPR lo = k.vgpr(1, "low codes"), hi = k.vgpr(1, "high codes");
          split_nibbles(k, qs[w], lo, hi);
          if (fifth_bits) {
            const VGPR t = k.vgpr(1, "fifth bits");
            k.v_lshrrev_b32(t, 2 * s, qh[w]);
            k.v_and_b32(t, 0x01010101u, t);
            k.v_lshl_or_b32(lo, t, 4, lo);
            k.v_lshrrev_b32(t, 2 * s + 1, qh[w]);
            k.v_and_b32(t, 0x01010101u, t);
            k.v_lshl_or_b32(hi, t, 4, hi);
          }
          for (auto [run, codes, sm] : {std::tuple{b[size_t(j)], lo, low}, std::tuple{b[size_t(2 + j)], hi, high}}) {
            bytes_to_f32(k, run, codes);
            scale_values(k, run, sm.scale);
            for (int c = 0; c < 4; ++c) k.v_sub_f32(run[c], run[c], sm.offset);
          }
        }
        b.finish();
      }
    }
  }
}

}  // namespace

void decode_q4k(Kernel& k, const BlockInput& in, const BlockSink& sink) { decode_affine(k, in, sink, false); }
void decode_q5k(Kernel& k, const BlockInput& in, const BlockSink& sink) { decode_affine(k, in, sink, true); }

}  // namespace k100::kernels::gguf
