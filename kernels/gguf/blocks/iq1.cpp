// IQ1_S and IQ1_M: groups of 8 signed grid values (-1, 0, 1: one u64 entry
// of the 2048-entry grid by an 11-bit index) plus a delta of +-1/8; value
// dl * (grid + delta).
//   IQ1_S  50 bytes: d @0, qs[32] @2 (index low bytes), qh[8] u16 @34: per
//          sub-block ib the index bits 3l.. of group l, s in bits 12-14, the
//          delta's sign in bit 15; dl = d * (2 s + 1)
//   IQ1_M  56 bytes: qs[32] @0, qh[16] @32 (per group a nibble: 3 index bits
//          and the delta's sign), scales @48: four u16 of 3-bit scales (two
//          per sub-block: groups 0-1, 2-3) and the f16 d in their top nibbles
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

namespace {

// The values of group `g` (elements 8 g .. 8 g + 7 of the block) from its
// grid entry: dl * (float(value) + delta), in two runs of 4.
void group_values(Kernel& k, RunBatch& b, size_t first, VGPR entry, VGPR delta, VGPR dl) {
  for (int h = 0; h < 2; ++h) {
    const VGPR run = b[first + size_t(h)];
    signed_bytes_to_f32(k, run, entry[h]);
    for (int c = 0; c < 4; ++c) k.v_add_f32(run[c], run[c], delta);
    scale_values(k, run, dl);
  }
}

// delta = bit `bit` of src ? -1/8 : 1/8.
VGPR delta_of(Kernel& k, VGPR src, int bit) {
  const VGPR delta = k.vgpr(1, "delta"), t = k.vgpr(1, "delta sign");
  k.v_bfe_u32(t, src, bit, 1);
  k.v_lshlrev_b32(t, 31, t);
  k.v_xor_b32(delta, 0x3e000000u, t);  // +-0.125
  return delta;
}

// dl = d * float(2 s + 1), s = src bits [first, first + 3).
VGPR run_scale(Kernel& k, VGPR d, VGPR src, int first) {
  const VGPR dl = k.vgpr(1, "dl");
  k.v_bfe_u32(dl, src, first, 3);
  k.v_lshl_add_u32(dl, dl, 1, 1);
  k.v_cvt_f32_u32(dl, dl);
  k.v_mul_f32(dl, d, dl);
  return dl;
}

}  // namespace

void decode_iq1s(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0);
  const VGPR d = load_half(k, in, 0, "d");
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR idx = k.vgpr(1, "index bytes"), qh = k.vgpr(1, "qh");
    load(k, in, idx, 2 + 4 * ib);
    load_u16(k, in, qh, 34 + 2 * ib);
    VGPR entry[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR index = k.vgpr(1, "grid index"), top = k.vgpr(1, "index high bits");
      k.v_bfe_u32(index, idx, 8 * l, 8);
      k.v_bfe_u32(top, qh, 3 * l, 3);
      k.v_lshl_or_b32(index, top, 8, index);
      entry[l] = k.vgpr(2, "grid entry");
      load_entry(k, grid, index, entry[l]);
    }
    const VGPR dl = run_scale(k, d, qh, 12), delta = delta_of(k, qh, 15);
    for (int p = 0; p < 2; ++p) {
      const int e = 32 * ib + 16 * p;
      RunBatch b(k, sink, {e, e + 4, e + 8, e + 12});
      for (int g = 0; g < 2; ++g) group_values(k, b, size_t(2 * g), entry[2 * p + g], delta, dl);
      b.finish();
    }
  }
}

void decode_iq1m(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0);
  const VGPR sc = k.vgpr(2, "scales");
  load(k, in, sc, 48);
  // d's bits: the top nibble of each of the four u16 (words 0, 1 of sc[0], sc[1])
  const VGPR d = k.vgpr(1, "d"), t = k.vgpr(1, "d bits");
  k.v_bfe_u32(d, sc[0], 12, 4);
  k.v_bfe_u32(t, sc[0], 28, 4);
  k.v_lshl_or_b32(d, t, 4, d);
  k.v_bfe_u32(t, sc[1], 12, 4);
  k.v_lshl_or_b32(d, t, 8, d);
  k.v_bfe_u32(t, sc[1], 28, 4);
  k.v_lshl_or_b32(d, t, 12, d);
  f16_to_f32(k, d, d, 0);
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR idx = k.vgpr(1, "index bytes"), qh = k.vgpr(1, "qh");
    load(k, in, idx, 4 * ib);
    load_u16(k, in, qh, 32 + 2 * ib);
    VGPR entry[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR index = k.vgpr(1, "grid index"), top = k.vgpr(1, "index high bits");
      k.v_bfe_u32(index, idx, 8 * l, 8);
      k.v_bfe_u32(top, qh, 4 * l, 3);
      k.v_lshl_or_b32(index, top, 8, index);
      entry[l] = k.vgpr(2, "grid entry");
      load_entry(k, grid, index, entry[l]);
    }
    // scale word ib / 2 (half ib / 4 % 2... of sc[ib / 4]): bits 6 (ib % 2) and 6 (ib % 2) + 3
    const int word = 16 * ((ib / 2) % 2) + 6 * (ib % 2);
    const VGPR dl[2] = {run_scale(k, d, sc[ib / 4], word), run_scale(k, d, sc[ib / 4], word + 3)};
    for (int p = 0; p < 2; ++p) {
      const int e = 32 * ib + 16 * p;
      RunBatch b(k, sink, {e, e + 4, e + 8, e + 12});
      for (int g = 0; g < 2; ++g) {
        const int l = 2 * p + g;
        group_values(k, b, size_t(2 * g), entry[l], delta_of(k, qh, 4 * l + 3), dl[p]);
      }
      b.finish();
    }
  }
}

}  // namespace k100::kernels::gguf
