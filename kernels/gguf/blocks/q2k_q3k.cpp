// Q2_K and Q3_K: 256 elements in runs of 16 with 2-bit codes; element
// 128 h + 32 s + l (l < 32) is bits 2s of qs[32 h + l], its run 8 h + 2 s +
// l / 16.
//   Q2_K  84 bytes: scales[16] @0 (low nibble scale, high nibble min per
//         run), qs[64] @16, d @80, dmin @82; value (d * sc) * q - dmin * m
//   Q3_K  110 bytes: hmask[32] @0 (bit 4 h + s of hmask[l]: no -4), qs[64]
//         @32, scales[12] @96 (16 six-bit scales), d @108; value
//         (d * (sc - 32)) * (q - (hmask bit ? 0 : 4))
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

namespace {

// The runs of one (h, p) chunk: qs bytes 32 h + 16 p .. + 15 hold elements
// 128 h + 32 s + 16 p + i of runs 8 h + 2 s + p (s = 0..3); `run(s, codes,
// values)` turns the four dwords of 2-bit codes (bytes 0..3) of run s into
// its 16 values, one batch per run.
template <class Run>
void each_run(Kernel& k, const BlockInput& in, const BlockSink& sink, int qs_at, Run&& run) {
  for (int h = 0; h < 2; ++h)
    for (int p = 0; p < 2; ++p) {
      const VGPR qs = k.vgpr(4, "qs");
      load(k, in, qs, qs_at + 32 * h + 16 * p);
      for (int s = 0; s < 4; ++s) {
        const int e0 = 128 * h + 32 * s + 16 * p;
        RunBatch b(k, sink, {e0, e0 + 4, e0 + 8, e0 + 12});
        const VGPR codes = k.vgpr(4, "codes");
        for (int w = 0; w < 4; ++w) {
          k.v_lshrrev_b32(codes[w], 2 * s, qs[w]);
          k.v_and_b32(codes[w], 0x03030303u, codes[w]);
        }
        run(h, p, s, codes, b);
        b.finish();
      }
    }
}

}  // namespace

void decode_q2k(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR scales = k.vgpr(4, "scales"), dd = k.vgpr(1, "d, dmin");
  load(k, in, scales, 0);
  load(k, in, dd, 80);
  const VGPR d = k.vgpr(1, "d"), dmin = k.vgpr(1, "dmin");
  f16_to_f32(k, d, dd, 0);
  f16_to_f32(k, dmin, dd, 1);
  each_run(k, in, sink, 16, [&](int h, int p, int s, VGPR codes, const RunBatch& b) {
    const int r = 8 * h + 2 * s + p;
    const VGPR dl = field_f32(k, scales[r / 4], 8 * (r % 4), 4, "dl"), ml = field_f32(k, scales[r / 4], 8 * (r % 4) + 4, 4, "ml");
    k.v_mul_f32(dl, d, dl);
    k.v_mul_f32(ml, dmin, ml);
    for (int w = 0; w < 4; ++w) {
      bytes_to_f32(k, b[size_t(w)], codes[w]);
      scale_values(k, b[size_t(w)], dl);
      for (int c = 0; c < 4; ++c) k.v_sub_f32(b[size_t(w)][c], b[size_t(w)][c], ml);
    }
  });
}

void decode_q3k(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR packed = k.vgpr(3, "scales"), d = load_half(k, in, 108, "d");
  load(k, in, packed, 96);
  const VGPR hmask = k.vgpr(4, "hmask"), hmask_hi = k.vgpr(4, "hmask");
  load(k, in, hmask, 0);
  load(k, in, hmask_hi, 16);
  each_run(k, in, sink, 32, [&](int h, int p, int s, VGPR codes, const RunBatch& b) {
    // scale r: low nibble of scales byte r (r < 8) or r - 8 (high nibble),
    // top bits 2 (r / 4) of byte 8 + r % 4
    const int r = 8 * h + 2 * s + p;
    const VGPR dl = k.vgpr(1, "dl"), top = k.vgpr(1, "scale top bits");
    k.v_bfe_u32(dl, packed[(r % 8) / 4], 8 * (r % 4) + (r < 8 ? 0 : 4), 4);
    k.v_bfe_u32(top, packed[2], 8 * (r % 4) + 2 * (r / 4), 2);
    k.v_lshl_or_b32(dl, top, 4, dl);
    k.v_subrev_u32(dl, 32, dl);
    k.v_cvt_f32_i32(dl, dl);
    k.v_mul_f32(dl, d, dl);
    const VGPR hm = p ? hmask_hi : hmask;
    for (int w = 0; w < 4; ++w) {
      // code + 4 * hmask bit, then float(. - 4), exact
      const VGPR t = k.vgpr(1, "hmask bits");
      k.v_lshrrev_b32(t, 4 * h + s, hm[w]);
      k.v_and_b32(t, 0x01010101u, t);
      k.v_lshl_or_b32(codes[w], t, 2, codes[w]);
      bytes_to_f32(k, b[size_t(w)], codes[w]);
      for (int c = 0; c < 4; ++c) k.v_add_f32(b[size_t(w)][c], -4.0f, b[size_t(w)][c]);
      scale_values(k, b[size_t(w)], dl);
    }
  });
}

}  // namespace k100::kernels::gguf
