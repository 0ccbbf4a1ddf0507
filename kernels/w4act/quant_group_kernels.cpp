// The activation quantisers that take one group per workgroup on a 2D grid
// (x = group, y = row; KERNELS.md 1.7): quant_act (W4A8, group 128, int8
// even/odd streams and group sums), quant_act4 (W4A4 decode, group 32,
// nibbles) and nvfp4_quant_act (group 16, int8 even/odd streams).
//
// Lane l of the workgroup takes unit l & (G/8 - 1): 8 consecutive f32 of the
// group (GroupQuantiser), so the first G/8 lanes hold the group and pack
// their own output words; lanes past them repeat a unit and store nothing.
// The row comes from the workgroup id y, so a 2D dispatch and per-row 1D
// launches (M = 1, pointers advanced to the row) run the same code.
#include "w4act/w4act_kernels.h"

#include <bit>

#include "w4act/activation_quantiser.h"
#include "w4act/w4act_parts.h"

namespace k100::kernels::w4act {

using namespace codegen;

namespace {

codeobj::CodeObject build_group_quantiser(isa::Target target, const GroupKernel& g) {
  const int lanes = g.group() / 8;
  Kernel k(g.signature, target, {.waves_per_simd = 8, .max_workgroup = 64, .workgroup_dims = 2});
  const SGPR gx = k.workgroup_id(0), row = k.workgroup_id(1), sK = k.arg("K"), sM = k.arg("M");
  const Label exit = k.exit();
  // Workgroups past the rows or the groups write nothing.
  const SGPR first = k.sgpr(1, "first k"), half_k = k.sgpr(1, "K / 2"), half_first = k.sgpr(1, "first k / 2"),
             groups = k.sgpr(1, "groups per row");
  k.s_cmp_ge_u32(row, sM);
  k.s_cbranch_scc1(exit);
  k.s_lshl_b32(first, gx, std::countr_zero(unsigned(g.group())));
  k.s_cmp_ge_u32(first, sK);
  k.s_cbranch_scc1(exit);
  k.s_lshr_b32(half_k, sK, 1);
  k.s_lshr_b32(half_first, first, 1);
  k.s_lshr_b32(groups, sK, std::countr_zero(unsigned(g.group())));

  const VGPR lane = k.local_id(), unit = k.vgpr(1, "unit"), xoff = k.vgpr(1, "x offset"),
             ooff = k.vgpr(1, "output offset"), x8 = k.vgpr(8, "x"), codes = k.vgpr(8, "codes");
  k.v_and_b32(unit, lanes - 1, lane);
  k.v_lshlrev_b32(xoff, 5, unit);  // 32 bytes a unit
  k.v_lshlrev_b32(ooff, 2, unit);  // one output word a unit (per stream)
  const SGPR xg = element_address(k, k.arg("x"), row, sK, first, 2);
  k.global_load_dwordx4(x8.sub(0, 4), xoff, xg);
  k.global_load_dwordx4(x8.sub(4, 4), xoff, xg, offset(16));

  const GroupQuantiser q(k, g.range, lanes);
  const VGPR s = q.quantise(codes, x8);
  VGPR sum, w0 = k.vgpr(1, "word"), w1;
  if (g.sums) sum = q.group_sum(codes);
  std::vector<std::pair<SGPR, VGPR>> stores;  // (row's stream base, word)
  if (g.int8) {
    w1 = k.vgpr(1, "odd word");
    q.even_odd_bytes(w0, w1, codes);
    stores.push_back({element_address(k, k.arg("ae"), row, half_k, half_first, 0), w0});
    stores.push_back({element_address(k, k.arg("ao"), row, half_k, half_first, 0), w1});
  } else {
    q.nibbles(w0, codes);
    stores.push_back({element_address(k, k.arg("aq"), row, half_k, half_first, 0), w0});
  }
  const SGPR sc = element_address(k, k.arg(g.scale_arg), row, groups, gx, 2);
  SGPR su;
  if (g.sums) su = element_address(k, k.arg("asu"), row, groups, gx, 2);
  k.v_cmp_gt_u32(vcc, lanes, lane);  // the group's own lanes store
  k.if_(vcc);
  for (const auto& [base, word] : stores) k.global_store_dword(ooff, word, base);
  k.v_cmp_eq_u32(vcc, 0, lane);  // lane 0 (offset 0): the scale and the sum
  k.if_(vcc);
  k.global_store_dword(ooff, s, sc);
  if (g.sums) k.global_store_dword(ooff, sum, su);
  k.end_if();
  k.end_if();
  return k.build();
}

}  // namespace

const std::vector<GroupKernel>& group_kernels() {
  static const std::vector<GroupKernel> all = {
      {Signature("quant_act",
                 {in("x", "f32"), out("ae", "i8"), out("ao", "i8"), out("asc", "f32"), out("asu", "i32"),
                  value("M", "i32"), value("K", "i32")},
                 HiddenArgLayout::Full),
       "int4", &quant::kActW4A8, kInt8Codes, true, true, 32, "asc"},
      {Signature("quant_act4", {in("x", "f32"), out("aq", "u8"), out("as", "f32"), value("M", "i32"), value("K", "i32")}),
       "int4", &quant::kActW4A4Decode, kInt4Codes, false, false, 32, "as"},
      {Signature("nvfp4_quant_act",
                 {in("x", "f32"), out("ae", "i8"), out("ao", "i8"), out("asc", "f32"), value("M", "i32"),
                  value("K", "i32")},
                 HiddenArgLayout::Full),
       "nvfp4", &quant::kActNvfp4, kInt8Codes, true, false, 64, "asc"},
  };
  return all;
}

codeobj::CodeObject build_group_kernel(isa::Target target, const GroupKernel& g) {
  return build_group_quantiser(target, g);
}

}  // namespace k100::kernels::w4act
