// MXFP4: 32 elements in 17 bytes, the E8M0 exponent e @0, qs[16] @1 (nibble
// order as Q4_0); value kvalues_mxfp4[nibble] * 2^(e - 128), the scale formed
// from its bits as ggml forms it (a denormal for e < 2).
#include "gguf/blocks/block_parts.h"
#include "k100/quant/iq_tables.h"

namespace k100::kernels::gguf {

using namespace codegen;
using namespace parts;

void decode_mxfp4(Kernel& k, const BlockInput& in, const BlockSink& sink) {
  const VGPR e = k.vgpr(1, "exponent"), d = k.vgpr(1, "scale"), low = k.vgpr(1, "denormal scale");
  k.global_load_ubyte(e, in.addr, as::off);
  const VGPR qs = k.vgpr(4, "qs");
  load(k, in, qs, 1);
  // e < 2: 0x00200000 << e; else (e - 1) << 23
  k.v_subrev_u32(d, 1, e);
  k.v_lshlrev_b32(d, 23, d);
  k.v_mov_b32(low, 0x00200000u);
  k.v_lshlrev_b32(low, e, low);
  k.v_cmp_gt_u32(as::vcc, 2, e);
  k.v_cndmask_b32(d, d, low, as::vcc);
  codebook_values(k, sink, 0, qs, codebook_of(k, quant::kvalues_mxfp4()), d);
}

}  // namespace k100::kernels::gguf
