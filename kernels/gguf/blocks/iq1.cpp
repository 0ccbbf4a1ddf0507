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

// Sub-block ib: its index low bytes (dword at byte idx_at) and its qh u16
// (byte qh_at), and the grid entries of its four groups, group l's three
// high index bits at qh bits `stride` l.
struct SubBlock {
  VGPR qh;
  VGPR entry[4];
};
SubBlock sub_block(Kernel& k, const BlockInput& in, int idx_at, int qh_at, int stride) {
  SubBlock sb;
  const VGPR idx = k.vgpr(1, "index bytes");
  sb.qh = k.vgpr(1, "qh");
  load(k, in, idx, idx_at);
  load_u16(k, in, sb.qh, qh_at);
  for (int l = 0; l < 4; ++l) {
    const VGPR index = k.vgpr(1, "grid index"), top = k.vgpr(1, "index high bits");
    k.v_bfe_u32(index, idx, 8 * l, 8);
    k.v_bfe_u32(top, sb.qh, stride * l, 3);
    k.v_lshl_or_b32(index, top, 8, index);
    sb.entry[l] = k.vgpr(2, "grid entry");
    load_entry(k, in.tables.at(0), index, sb.entry[l]);
  }
  return sb;
}

// The sub-block's 32 values in two batches of 16, group l with its delta and scale.
template <class Delta, class Scale>
void sub_block_values(Kernel& k, const BlockSink& sink, int ib, const SubBlock& sb, Delta&& delta, Scale&& scale) {
  for (int p = 0; p < 2; ++p) {
    const int e = 32 * ib + 16 * p;
    RunBatch b(k, sink, {e, e + 4, e + 8, e + 12});
    for (int g = 0; g < 2; ++g) group_values(k, b, size_t(2 * g), sb.entry[2 * p + g], delta(2 * p + g), scale(2 * p + g));
    b.finish();
  }
}

}  // namespace

void decode_iq1s(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR d = load_half(k, in, 0, "d");
  for (int ib = 0; ib < 8; ++ib) {
    const SubBlock sb = sub_block(k, in, 2 + 4 * ib, 34 + 2 * ib, 3);
    const VGPR dl = run_scale(k, d, sb.qh, 12), delta = delta_of(k, sb.qh, 15);
    sub_block_values(k, sink, ib, sb, [&](int) { return delta; }, [&](int) { return dl; });
  }
}

void decode_iq1m(Kernel& k, const BlockInput& in, const BlockSink& sink) {
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
    const SubBlock sb = sub_block(k, in, 4 * ib, 32 + 2 * ib, 4);
    // scale word ib / 2 (half (ib / 2) % 2 of sc[ib / 4]): bits 6 (ib % 2) and 6 (ib % 2) + 3
    const int word = 16 * ((ib / 2) % 2) + 6 * (ib % 2);
    const VGPR dl[2] = {run_scale(k, d, sc[ib / 4], word), run_scale(k, d, sc[ib / 4], word + 3)};
    sub_block_values(
        k, sink, ib, sb, [&](int l) { return delta_of(k, sb.qh, 4 * l + 3); }, [&](int l) { return dl[l / 2]; });
  }
}

}  // namespace k100::kernels::gguf
