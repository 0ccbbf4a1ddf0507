// Code-generation pieces the sequence-model kernels share (beside them, not
// in the authoring layer): the workgroup layout and token step of the D = 128
// delta rule in the [Hv][i][col] state layout (gdn_k2<32>, gdn_decode_k), the
// check that the workgroup is exactly 128 x 1, and softplus.
#pragma once

#include <functional>

#include "k100/codegen/codegen.h"

namespace k100::kernels::seq {

// dst = ln(1 + e^z), z itself above 20 (where the two agree in f32); z is kept.
void softplus(codegen::Kernel& k, codegen::VGPR dst, codegen::VGPR z);

// The key head of value head h: h % Hk when khmod != 0 (tiled heads), else
// h / rep (grouped heads); `rem` is h % Hk or h % rep (zero for the first
// value head of a group). Goes to `exit` when the divisor is below 1 or the
// key head is not below Hk.
struct KeyHead {
  codegen::SGPR kh, rem;
};
KeyHead key_head(codegen::Kernel& k, codegen::SGPR h, codegen::SGPR Hk, codegen::SGPR rep, codegen::SGPR khmod,
                 codegen::Label exit);

// Goes to `exit` unless the workgroup is 128 x 1 x 1: from the dispatch
// packet's workgroup_size_x and _y (KernelOptions::dispatch_ptr) when the
// kernel has no hidden arguments, else from the hidden group sizes (which
// share the kernarg lines of the last explicit arguments: no extra read).
void exit_unless_workgroup_128(codegen::Kernel& k, codegen::Label exit);

// Workgroup (h, y) of 128 threads over the D = 128 state of value head h,
// [i][col]: thread tid holds column 32y + (tid & 31) for the 32 rows of its
// slice tid >> 5 in VGPRs; the slices' partial sums meet in LDS (two regions
// of 512 bytes at region_a and region_b, one barrier each per token).
class SliceRule {
 public:
  static constexpr int kD = 128, kSlice = 32;
  SliceRule(codegen::Kernel& k, codegen::SGPR state, codegen::SGPR h, codegen::SGPR y, int region_a, int region_b);

  // The slice's 32 rows of the state at `base` (the state or a snapshot of the same layout).
  void load(codegen::SGPR base);
  void store(codegen::SGPR base);
  // One token, with the caller's k and q slices in k_rows / q_rows (32 floats each, this thread's slice):
  // kv = S^T k, u = beta (v - decay kv), S = decay S + k u^T, out = S^T q (not scaled).
  void step(codegen::VGPR decay, codegen::Operand beta, codegen::VGPR v, codegen::VGPR out);

  codegen::SGPR base;                  // the state of head h
  codegen::VGPR tid, slice, col;       // local id, tid >> 5, 32y + (tid & 31)
  codegen::VGPR k_rows, k_rows2, q_rows, q_rows2;  // 16 + 16 floats each

 private:
  codegen::VGPR row(int j) const;
  codegen::VGPR k_row(int j) const;
  codegen::VGPR q_row(int j) const;
  void column_sum(codegen::VGPR dst, codegen::VGPR mine, int region);
  codegen::Kernel& k_;
  int region_a_, region_b_;
  codegen::VGPR cl_, lds_, ldsr_, offs_, S_, S2_, part_, p0_, p1_, u_, ku_;
};

}  // namespace k100::kernels::seq
