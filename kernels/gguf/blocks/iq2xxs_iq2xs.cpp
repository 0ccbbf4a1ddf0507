// IQ2_XXS and IQ2_XS: sub-block ib (32 elements) is 4 groups of 8; group l
// takes one u64 entry of 8 magnitudes from its grid and the sign pattern
// ksigns[7-bit code]; value (d * (0.5 + s) * 0.25) * magnitude, negated
// where the sign bit is set.
//   IQ2_XXS  66 bytes: d @0; per ib 8 bytes @2 + 8 ib: 4 index bytes (256-
//            entry grid), then a u32 of 4 x 7 sign bits, s on top
//   IQ2_XS   74 bytes: d @0; 32 u16 @2: 9-bit index (512-entry grid), 7 sign
//            bits on top; scales[8] @66: s = low nibble for groups 0-1, high
//            for 2-3
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

namespace {

// db = (d * (0.5 + s)) * 0.25 with s from `bits` [first, first + 4).
VGPR sub_scale(Kernel& k, VGPR d, VGPR bits, int first) {
  const VGPR db = field_f32(k, bits, first, 4, "db");
  k.v_add_f32(db, 0.5f, db);
  k.v_mul_f32(db, d, db);
  k.v_mul_f32(db, 0.25f, db);
  return db;
}

// The sub-block's values from its four groups' entries and sign patterns.
void emit_sub_block(Kernel& k, const BlockSink& sink, int ib, const VGPR (&entry)[4], const VGPR (&signs)[4],
                    const std::function<VGPR(int n)>& scale) {
  const VGPR words[8] = {entry[0][0], entry[0][1], entry[1][0], entry[1][1],
                         entry[2][0], entry[2][1], entry[3][0], entry[3][1]};
  signed_grid_values(k, sink, ib, words, scale, [&](int n) { return std::pair{signs[n / 2], 4 * (n % 2)}; });
}

}  // namespace

void decode_iq2xxs(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0), ksigns = in.tables.at(1);
  const VGPR d = load_half(k, in, 0, "d");
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR q = k.vgpr(2, "index bytes, signs and scale");
    load(k, in, q, 2 + 8 * ib);
    VGPR entry[4], signs[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR code = k.vgpr(1, "sign code"), index = k.vgpr(1, "grid index");
      k.v_bfe_u32(code, q[1], 7 * l, 7);
      signs[l] = k.vgpr(1, "signs");
      load_entry_u8(k, ksigns, code, signs[l]);
      k.v_bfe_u32(index, q[0], 8 * l, 8);
      entry[l] = k.vgpr(2, "grid entry");
      load_entry(k, grid, index, entry[l]);
    }
    const VGPR db = sub_scale(k, d, q[1], 28);
    emit_sub_block(k, sink, ib, entry, signs, [&](int) { return db; });
  }
}

void decode_iq2xs(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0), ksigns = in.tables.at(1);
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR scales = k.vgpr(2, "scales");
  load(k, in, scales, 66);
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR q = k.vgpr(2, "index and sign words");
    load(k, in, q, 2 + 8 * ib);
    VGPR entry[4], signs[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR code = k.vgpr(1, "sign code"), index = k.vgpr(1, "grid index");
      k.v_bfe_u32(code, q[l / 2], 16 * (l % 2) + 9, 7);
      signs[l] = k.vgpr(1, "signs");
      load_entry_u8(k, ksigns, code, signs[l]);
      k.v_bfe_u32(index, q[l / 2], 16 * (l % 2), 9);
      entry[l] = k.vgpr(2, "grid entry");
      load_entry(k, grid, index, entry[l]);
    }
    const VGPR db[2] = {sub_scale(k, d, scales[ib / 4], 8 * (ib % 4)), sub_scale(k, d, scales[ib / 4], 8 * (ib % 4) + 4)};
    emit_sub_block(k, sink, ib, entry, signs, [&](int n) { return db[n / 4]; });
  }
}

}  // namespace k100::kernels::gguf
