// IQ4_XS: 256 elements in 136 bytes, d (f16) @0, scales_h (u16) @2,
// scales_l[4] @4, qs[128] @8. Sub-block ib (32 elements) has the 6-bit scale
// ls = low nibble ib % 2 of scales_l[ib / 2] | bits 2ib, 2ib + 1 of scales_h
// << 4, and value d * (ls - 32) * kvalues[nibble], qs[16 ib + j] low nibble
// -> element 32 ib + j, high -> 32 ib + 16 + j.
#include "gguf/blocks/block_parts.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_iq4xs(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR head = k.vgpr(2, "d, scales");  // d | scales_h << 16, scales_l
  load(k, in, head, 0);
  const VGPR d = k.vgpr(1, "d");
  f16_to_f32(k, d, head[0], 0);
  const Codebook cb = iq4_codebook(k);
  for (int ib = 0; ib < 8; ++ib) {
    const VGPR qs = k.vgpr(4, "qs");
    load(k, in, qs, 8 + 16 * ib);
    // ls - 32 as f32, then dl = d * float(ls - 32) as ggml forms it
    const VGPR ls = k.vgpr(1, "ls"), high = k.vgpr(1, "ls high bits");
    k.v_bfe_u32(ls, head[1], 4 * ib, 4);
    k.v_bfe_u32(high, head[0], 16 + 2 * ib, 2);
    k.v_lshl_or_b32(ls, high, 4, ls);
    k.v_subrev_u32(ls, 32, ls);
    k.v_cvt_f32_i32(ls, ls);
    const VGPR dl = k.vgpr(1, "dl");
    k.v_mul_f32(dl, d, ls);
    codebook_values(k, sink, 32 * ib, qs, cb, dl);
  }
}

}  // namespace k100::kernels::gguf
