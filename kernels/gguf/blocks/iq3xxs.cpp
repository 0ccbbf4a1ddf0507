// IQ3_XXS: 256 elements in 98 bytes, d (f16) @0, qs[64] @2 (8-bit grid
// indices), 8 u32 scale/sign words @66. Sub-block ib (32 elements, 4 groups
// of 8) has aux = word ib: scale d * (0.5 + (aux >> 28)) * 0.5; group l takes
// the sign pattern ksigns[aux >> 7 l & 127] and two 4-magnitude entries of
// the 256-entry grid, indexed by qs[8 ib + 2 l] and qs[8 ib + 2 l + 1].
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_iq3xxs(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const SGPR grid = in.tables.at(0), ksigns = in.tables.at(1);
  const VGPR d = load_half(k, in, 0, "d");
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR aux = k.vgpr(1, "scale and signs"), idx = k.vgpr(2, "index bytes");
    load(k, in, aux, 66 + 4 * ib);
    load(k, in, idx, 2 + 8 * ib);
    VGPR entry[8], signs[4];
    for (int l = 0; l < 4; ++l) {
      const VGPR pattern = k.vgpr(1, "sign pattern index");
      k.v_bfe_u32(pattern, aux, 7 * l, 7);
      signs[l] = k.vgpr(1, "signs");
      load_entry_u8(k, ksigns, pattern, signs[l]);
    }
    for (int n = 0; n < 8; ++n) {
      const VGPR index = k.vgpr(1, "grid index");
      k.v_bfe_u32(index, idx[n / 4], 8 * (n % 4), 8);
      entry[n] = k.vgpr(1, "grid entry");
      load_entry(k, grid, index, entry[n]);
    }
    const VGPR db = k.vgpr(1, "db");
    k.v_lshrrev_b32(db, 28, aux);
    k.v_cvt_f32_u32(db, db);
    k.v_add_f32(db, 0.5f, db);
    k.v_mul_f32(db, d, db);
    k.v_mul_f32(db, 0.5f, db);
    // entry n: group n / 2, elements 4 (n % 2) .. with sign bits 4 (n % 2) .. of the group's pattern
    signed_grid_values(
        k, sink, ib, entry, [&](int) { return db; }, [&](int n) { return std::pair{signs[n / 2], 4 * (n % 2)}; });
  }
}

}  // namespace k100::kernels::gguf
