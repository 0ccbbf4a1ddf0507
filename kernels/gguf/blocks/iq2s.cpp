// IQ2_S: 256 elements in 82 bytes, d (f16) @0, qs[64] @2 (32 low index bytes,
// then 32 sign bytes), qh[8] @66, scales[8] @74. Sub-block ib (32 elements)
// is 4 groups of 8: group l takes the 10-bit index qs[4 ib + l] | (qh[ib] >>
// 2 l & 3) << 8 into the 1024-entry grid (8 magnitudes per u64 entry) and
// sign byte qs[32 + 4 ib + l]; value (d * (0.5 + s) * 0.25) * magnitude,
// negated where the sign bit is set, s = low nibble of scales[ib] for groups
// 0-1, high nibble for 2-3.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_iq2s(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0);
  const VGPR d = load_half(k, in, 0, "d");
  const VGPR high = k.vgpr(4, "qh, scales");  // qh[0..7], scales[0..7]
  load(k, in, high, 66);
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR idx = k.vgpr(1, "index bytes"), signs = k.vgpr(1, "sign bytes");
    load(k, in, idx, 2 + 4 * ib);
    load(k, in, signs, 34 + 4 * ib);
    const int byte = 8 * (ib % 4);
    VGPR entry[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR index = k.vgpr(1, "grid index"), top = k.vgpr(1, "index high bits");
      k.v_bfe_u32(index, idx, 8 * l, 8);
      k.v_bfe_u32(top, high[ib / 4], byte + 2 * l, 2);
      k.v_lshl_or_b32(index, top, 8, index);
      entry[l] = k.vgpr(2, "grid entry");
      load_entry(k, grid, index, entry[l]);
    }
    VGPR db[2];
    for (int n = 0; n < 2; ++n) {
      db[n] = field_f32(k, high[2 + ib / 4], byte + 4 * n, 4, "db");
      k.v_add_f32(db[n], 0.5f, db[n]);
      k.v_mul_f32(db[n], d, db[n]);
      k.v_mul_f32(db[n], 0.25f, db[n]);
    }
    // word n = half n % 2 of group n / 2's entry; sign bits 4 n .. of the sign dword
    const VGPR words[8] = {entry[0][0], entry[0][1], entry[1][0], entry[1][1],
                           entry[2][0], entry[2][1], entry[3][0], entry[3][1]};
    signed_grid_values(
        k, sink, ib, words, [&](int n) { return db[n / 4]; }, [&](int n) { return std::pair{signs, 4 * n}; });
  }
}

}  // namespace k100::kernels::gguf
