// The NVFP4 decode GEMVs: nvfp4_gemv<M,NROW>, nvfp4_gemv_wide<M,NROW>.
//
//   y[m][n] = inv_gscale * sum_g E4M3(ws[n][g]) * asc[m][g] * sum_(k in g) E2M1(w[n][k]) * q[m][k]
//
// A unit is NROW consecutive weight rows; wave v of workgroup b takes unit
// b * W + v (W = the workgroup's waves, from its hidden group size, so any
// workgroup size is covered by grid = ceil(N / (W * NROW))). Lane l walks the
// row's 16-wide groups G l .. G l + G - 1, then + 64 G per step (G = 1: one
// u32 x 2 of codes and one scale byte per row; G = 2, the wide form: a u32 x 4
// and a u16 of two scale bytes), with the M activation rows' even and odd
// code words and their scales at the same positions (shared by the NROW
// rows). The last step runs on the lanes whose groups exist. Per group and
// activation row: four v_dot4_i32_i8 of the decoded weight words with the
// activation words (exact), then acc += f32(dot) * (0.5 E4M3 * asc). The
// NROW x M sums are reduced over the lanes (DPP) and lane 63 stores them
// times inv_gscale. Rows past N re-read the last row and are not stored.
#include <algorithm>

#include "nvfp4/nvfp4_gemv_parts.h"
#include "nvfp4/nvfp4_generators.h"

namespace k100::kernels::nvfp4 {

using namespace codegen;

std::string GemvForm::name() const {
  if (fast) return "nvfp4_gemv_fast_k";
  return std::string(groups == 2 ? "nvfp4_gemv_wide<" : "nvfp4_gemv<") + std::to_string(m) + "," +
         std::to_string(rows) + ">";
}

Signature gemv_signature(const GemvForm& f) {
  std::vector<Param> p = {in("wq", "u32"),  in("ws", "u8"),   in("ae", "i8"),     in("ao", "i8"),
                          in("asc", "f32"), out("y", "f32"), value("N", "i32"), value("K", "i32"),
                          value("inv_gscale", "f32")};
  if (!f.fast) return Signature(f.name(), p, codeobj::HiddenArgLayout::Full);
  // The fast form: the activation row count (bits 0-7) and the units of kFastRows rows each
  // workgroup takes (bits 8-31, from its launch contract); the arguments fill one 64-byte line.
  p.push_back(value("m", "u32"));
  return Signature(f.name(), p);
}

namespace {

// VGPRs the body keeps live, for the occupancy the kernel asks for.
int gemv_vgprs(const GemvShape& s) { return s.rows * (2 * s.groups + 1) + s.m * 5 * s.groups + s.rows * s.m + s.groups + 20; }

}  // namespace

codeobj::CodeObject build_gemv(isa::Target target, const GemvForm& f) {
  if (f.fast) return build_gemv_fast(target);
  const GemvShape sh{f.m, f.rows, f.groups};
  const int waves = std::clamp(256 / ((gemv_vgprs(sh) + 7) / 8 * 8), 1, 8);
  Kernel k(gemv_signature(f), target, {.waves_per_simd = waves, .max_workgroup = 1024});
  Label exit = k.exit();
  const WorkgroupWaves ww = workgroup_waves(k, exit);
  const VGPR lane = whole_wave_lane_id(k);
  StepMath math(k, sh);
  const SGPR N = k.arg("N"), K = k.arg("K");
  const SGPR row0 = k.sgpr(1, "first row"), valid = k.sgpr(1, "valid rows"), half = k.sgpr(1, "K / 2"),
             groups = k.sgpr(1, "groups"), left = k.sgpr(1, "groups left");
  k.s_mul_i32(row0, k.workgroup_id(), ww.waves);
  k.s_add_u32(row0, row0, ww.wave);
  k.s_mul_i32(row0, row0, f.rows);
  k.s_cmp_ge_u32(row0, N);
  k.s_cbranch_scc1(exit);
  k.s_lshr_b32(half, K, 1);
  k.s_lshr_b32(groups, K, 4);
  const StepRows rows(k, sh);
  unit_rows(k, sh, rows, row0, valid, N, half, groups, k.arg("wq"), k.arg("ws"));
  activation_rows(k, sh, rows, half, groups, k.arg("ae"), k.arg("ao"), k.arg("asc"));
  const LaneOffsets offs(k, sh, lane);
  const StepRegs regs(k, sh);
  const VGPR acc = k.vgpr(f.rows * f.m, "sums");
  for (int i = 0; i < f.rows * f.m; ++i) k.v_mov_b32(acc[i], 0);
  k.s_mov_b32(left, groups);
  k.loop_();
  k.v_cmp_gt_u32(vcc, left, offs.group);  // the last step: the lanes whose groups exist
  k.if_(vcc);
  load_step(k, sh, regs, rows, offs);
  math.dots(regs, acc);
  k.end_if();
  rows.advance(k, sh);
  k.s_sub_u32(left, left, 64 * f.groups);
  k.s_cmp_le_i32(left, 0);
  k.break_(Cond::Scc1);
  k.end_loop();
  math.store(acc, k.arg("y"), N, row0, valid, k.arg("inv_gscale"));
  return k.build();
}

}  // namespace k100::kernels::nvfp4
