#include "gemv/gemv_generators.h"

namespace k100::kernels::gemv {

using namespace codegen;

GroupRows group_rows(Kernel& k, SGPR group_size, SGPR nrows, Label exit) {
  const SGPR packet = k.sgpr(1, "packet size"), t = k.sgpr(1, "t");
  GroupRows r{k.sgpr(1, "row begin"), k.sgpr(1, "row end"), k.sgpr(1, "waves")};
  k.s_load_dword(packet, k.dispatch_pointer(), 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  k.s_and_b32(t, packet, 0xffff);
  k.s_add_u32(r.waves, t, 63);
  k.s_lshr_b32(r.waves, r.waves, 6);
  k.s_cmp_eq_u32(group_size, 0);
  k.s_cselect_b32(group_size, t, group_size);
  k.s_mul_hi_u32(t, k.workgroup_id(), group_size);
  k.s_cmp_lg_u32(t, 0);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(r.begin, k.workgroup_id(), group_size);
  k.s_cmp_ge_u32(r.begin, nrows);
  k.s_cbranch_scc1(exit);
  k.s_add_u32(r.end, r.begin, group_size);
  k.s_cselect_b32(r.end, nrows, r.end);  // carry: the range reaches past 2^32
  k.s_min_u32(r.end, r.end, nrows);
  return r;
}

}  // namespace k100::kernels::gemv
