// dot_block: see dot_block_index.h.
#include "gguf/dot_block_index.h"

namespace k100::kernels::gguf {

using namespace codegen;

DotBlock dot_block(Kernel& k, VGPR i, uint32_t elems, uint32_t block_bytes) {
  const SGPR nbpr = k.arg("nbpr");
  const VGPR row = k.vgpr(1, "weight row"), b = k.vgpr(1, "block in row"), e = k.vgpr(1, "activation group"),
             ew = k.vgpr(1, "weight group"), local = k.vgpr(1, "block in group"), t = k.vgpr(1, "index temp");
  magic_divide(k, row, i, k.arg("magic_nbpr"));
  k.v_mul_lo_u32(t, row, nbpr);
  k.v_sub_u32(b, i, t);
  magic_divide(k, e, row, k.arg("magic_rpe"));
  magic_divide(k, ew, row, k.arg("magic_rpw"));
  k.v_mul_lo_u32(t, ew, k.arg("rows_per_w"));
  k.v_sub_u32(t, row, t);
  k.v_mul_lo_u32(t, t, nbpr);
  k.v_add_u32(local, t, b);
  k.v_mul_lo_u32(t, e, nbpr);
  k.v_add_u32(t, t, b);
  const VGPR x = lane_address(k, k.arg("x"), t, 4 * elems);
  const VGPR slot = k.vgpr(1, "slot");
  k.v_lshlrev_b32(t, 2, ew);
  k.global_load_dword(slot, t, k.arg("ids"));
  const VGPR w = lane_address(k, k.arg("w"), slot, Operand(k.arg("stride")));
  add_lane_offset(k, w, local, block_bytes);
  return {x, w, slot, local};
}

}  // namespace k100::kernels::gguf
