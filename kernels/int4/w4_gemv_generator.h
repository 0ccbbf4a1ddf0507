// The INT4 decode GEMV generator (RT4 weights, W4A4 and W4A8 activations):
// one body for the catalog's gemv_w4a4<M>, gemv_w4a4_r2*, gemv_w4a8<M,S,NROW>
// and the fast forms, which differ in the activation format, the activation
// rows M, the weight rows a wave computes at once and the row schedule.
// Registered in int4_gemv_kernels.cpp.
#pragma once

#include <string>

#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::kernels::int4_gemv {

enum class W4Act {
  A4,  // quant_act4: int4 codes [M][K/8] u32, f32 scale per 32 k [M][K/32]
  A8,  // quant_act: int8 even/odd streams [M][K/2] bytes, f32 scale [M][K/128], sums [M][K/128]
};

// How the rows are shared out.
enum class W4Schedule {
  // The catalog's: workgroup id owns rows [id * 4 * nrow, (id + 1) * 4 * nrow)
  // as four sets of nrow rows.
  Catalog,
  // The fast forms: workgroup id owns waves * passes sets of nrow rows; any
  // number of activation rows m (argument), taken 4 at a time.
  Fast,
};

struct W4GemvSpec {
  std::string name;       // lookup
  W4Act act = W4Act::A4;
  int m = 1;              // activation rows (Catalog); the largest m (Fast)
  int nrow = 1;           // weight rows per wave pass
  W4Schedule schedule = W4Schedule::Catalog;
  bool full_hidden = false;  // the <…,true,…> variants' full hidden block (KA 320)
  int unroll = 1;         // 1 KiB row pieces per lane and row in flight per trip (Fast)
  int waves = 4;          // Fast: the default workgroup's waves
  int passes = 1;         // Fast: row sets per wave of the default workgroup
};

// In both schedules the waves of a workgroup (any number) take its row sets
// one at a time from a counter in LDS, so any workgroup size computes every
// row of the workgroup.
// Rows a fast-form workgroup owns (its launch contract's grid divisor).
inline int fast_rows_per_group(const W4GemvSpec& s) { return s.waves * s.nrow * s.passes; }

codegen::Signature w4_gemv_signature(const W4GemvSpec& spec);
codeobj::CodeObject build_w4_gemv(isa::Target target, const W4GemvSpec& spec);

}  // namespace k100::kernels::int4_gemv
