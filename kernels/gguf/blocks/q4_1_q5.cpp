// Q4_1, Q5_0 and Q5_1: 32 elements with nibble codes (Q4_0's order: byte j
// low nibble -> element j, high -> j + 16) and, for Q5_0 / Q5_1, a fifth
// bit per element in the u32 qh (bit j -> element j).
//   Q4_1  20 bytes: d @0, m @2, qs @4; value q * d + m
//   Q5_0  22 bytes: d @0, qh @2, qs @6; value (q - 16) * d
//   Q5_1  24 bytes: d @0, m @2, qh @4, qs @8; value q * d + m
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

namespace {

void decode_legacy(Kernel& k, const BlockInput& in, const BlockSink& sink, bool with_min, bool fifth_bits) {
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR m = with_min ? load_half(k, in, 2, "m") : VGPR{};
  const int qh_at = with_min ? 4 : 2, qs_at = qh_at + (fifth_bits ? 4 : 0);
  const VGPR qs = k.vgpr(4, "qs"), qh = fifth_bits ? k.vgpr(1, "qh") : VGPR{};
  load(k, in, qs, qs_at);
  if (fifth_bits) load(k, in, qh, qh_at);
  // qs dwords 2h, 2h + 1 hold elements 8h .. 8h + 7 and 16 + 8h .. 16 + 8h + 7
  for (int h = 0; h < 2; ++h) {
    RunBatch b(k, sink, {8 * h, 8 * h + 4, 16 + 8 * h, 20 + 8 * h});
    for (int j = 0; j < 2; ++j) {
      const int w = 2 * h + j;
      const VGPR lo = k.vgpr(1, "low codes"), hi = k.vgpr(1, "high codes");
      split_nibbles(k, qs[w], lo, hi);
      if (fifth_bits) {
        const VGPR t = k.vgpr(1, "fifth bits");
        spread_bits(k, t, qh, 4 * w, 4);
        k.v_or_b32(lo, t, lo);
        spread_bits(k, t, qh, 16 + 4 * w, 4);
        k.v_or_b32(hi, t, hi);
      }
      for (auto [run, codes] : {std::pair{b[size_t(j)], lo}, std::pair{b[size_t(2 + j)], hi}}) {
        bytes_to_f32(k, run, codes);
        if (!with_min)
          for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], -16.0f, run[c]);  // float(q - 16), exact
        scale_values(k, run, d);
        if (with_min)
          for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], run[c], m);
      }
    }
    b.finish();
  }
}

}  // namespace

void decode_q4_1(Kernel& k, const BlockInput& in, const BlockSink& sink) { decode_legacy(k, in, sink, true, false); }
void decode_q5_0(Kernel& k, const BlockInput& in, const BlockSink& sink) { decode_legacy(k, in, sink, false, true); }
void decode_q5_1(Kernel& k, const BlockInput& in, const BlockSink& sink) { decode_legacy(k, in, sink, true, true); }

}  // namespace k100::kernels::gguf
