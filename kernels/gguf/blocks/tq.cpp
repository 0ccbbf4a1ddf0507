// TQ1_0 and TQ2_0: ternary values (q - 1) * d under an f16 d.
//   TQ2_0  66 bytes: qs[64] @0 (2-bit codes as Q2_K: element 128 h + 32 s +
//          l in bits 2s of qs[32 h + l]), d @64
//   TQ1_0  54 bytes: qs[48] @0, qh[4] @48, d @52; five base-3 digits per byte
//          (four in qh), digit n = ((byte * 3^n mod 256) * 3) >> 8: byte m < 32
//          holds elements 32 n + m, byte 32 + m elements 160 + 16 n + m, qh
//          byte j elements 240 + 4 n + j
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_tq2_0(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR d = load_half(k, in, 64, "d");
  for (int h = 0; h < 2; ++h) {
    const VGPR qs = k.vgpr(8, "qs");
    load(k, in, qs.sub(0, 4), 32 * h);
    load(k, in, qs.sub(4, 4), 32 * h + 16);
    for (int s = 0; s < 4; ++s)
      for (int p = 0; p < 2; ++p) {
        const int e0 = 128 * h + 32 * s + 16 * p;
        RunBatch b(k, sink, {e0, e0 + 4, e0 + 8, e0 + 12});
        for (int w = 0; w < 4; ++w) {
          const VGPR codes = k.vgpr(1, "codes"), run = b[size_t(w)];
          k.v_lshrrev_b32(codes, 2 * s, qs[4 * p + w]);
          k.v_and_b32(codes, 0x03030303u, codes);
          bytes_to_f32(k, run, codes);
          for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], -1.0f, run[c]);  // float(q - 1), exact
          scale_values(k, run, d);
        }
        b.finish();
      }
  }
}

void decode_tq1_0(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  static const uint32_t kPow3[5] = {1, 3, 9, 27, 81};
  const VGPR d = load_half(k, in, 52, "d");
  const VGPR bytes = k.vgpr(13, "qs, qh");
  for (int at = 0; at < 12; at += 4) load(k, in, bytes.sub(at, 4), 4 * at);
  load(k, in, bytes.sub(12, 1), 48);
  // Runs of 4 elements: (dword, digit, first element).
  struct Run {
    int dword, digit, first;
  };
  std::vector<Run> runs;
  for (int n = 0; n < 5; ++n)
    for (int w = 0; w < 8; ++w) runs.push_back({w, n, 32 * n + 4 * w});
  for (int n = 0; n < 5; ++n)
    for (int w = 0; w < 4; ++w) runs.push_back({8 + w, n, 160 + 16 * n + 4 * w});
  for (int n = 0; n < 4; ++n) runs.push_back({12, n, 240 + 4 * n});
  for (size_t first = 0; first < runs.size(); first += 4) {
    std::vector<int> firsts;
    for (size_t i = first; i < std::min(runs.size(), first + 4); ++i) firsts.push_back(runs[i].first);
    RunBatch b(k, sink, firsts);
    for (size_t i = 0; i < firsts.size(); ++i) {
      const Run& r = runs[first + i];
      const VGPR run = b[i];
      for (int c = 0; c < 4; ++c) {
        const VGPR t = run[c];
        k.v_bfe_u32(t, bytes[r.dword], 8 * c, 8);
        if (r.digit) {
          k.v_mul_u32_u24(t, kPow3[r.digit], t);
          k.v_and_b32(t, 0xffu, t);
        }
        k.v_mul_u32_u24(t, 3, t);
        k.v_lshrrev_b32(t, 8, t);
        k.v_cvt_f32_u32(t, t);
        k.v_add_f32(t, -1.0f, t);  // float(digit - 1), exact
      }
      scale_values(k, run, d);
    }
    b.finish();
  }
}

}  // namespace k100::kernels::gguf
