// IQ3_S: 256 elements in 110 bytes, d (f16) @0, qs[64] @2, qh[8] @66,
// signs[32] @74, scales[4] @106. Sub-block ib (32 elements, 4 groups of 8)
// has scale d * (1 + 2 s), s = nibble ib % 2 of scales[ib / 2]; group l
// takes two 9-bit indices qs[8 ib + 2 l] | (qh[ib] >> 2 l & 1) << 8 and
// qs[8 ib + 2 l + 1] | (qh[ib] >> (2 l + 1) & 1) << 8 into the 512-entry grid
// (4 magnitudes per u32 entry) and sign byte signs[4 ib + l].
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_iq3s(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0);
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR qh = k.vgpr(2, "qh"), scales = k.vgpr(1, "scales");
  load(k, in, qh, 66);
  load(k, in, scales, 106);
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR idx = k.vgpr(2, "index bytes"), signs = k.vgpr(1, "sign bytes");
    load(k, in, idx, 2 + 8 * ib);
    load(k, in, signs, 74 + 4 * ib);
    VGPR entry[8];  // group l: entries 2 l (elements 0-3) and 2 l + 1 (4-7)
    for (int n = 0; n < 8; ++n) {
      const VGPR index = k.vgpr(1, "grid index"), top = k.vgpr(1, "index high bit");
      k.v_bfe_u32(index, idx[n / 4], 8 * (n % 4), 8);
      k.v_bfe_u32(top, qh[ib / 4], 8 * (ib % 4) + n, 1);
      k.v_lshl_or_b32(index, top, 8, index);
      entry[n] = k.vgpr(1, "grid entry");
      load_entry(k, grid, index, entry[n]);
    }
    const VGPR db = k.vgpr(1, "db");
    k.v_bfe_u32(db, scales, 4 * ib, 4);
    k.v_mad_u32_u24(db, db, 2, 1);
    k.v_cvt_f32_u32(db, db);
    k.v_mul_f32(db, d, db);
    signed_grid_values(
        k, sink, ib, entry, [&](int) { return db; }, [&](int n) { return std::pair{signs, 4 * n}; });
  }
}

}  // namespace k100::kernels::gguf
