// The parts the NVFP4 GEMVs share (nvfp4_gemv.cpp: one unit per wave;
// nvfp4_gemv_fast.cpp: waves walking units with the next step in flight):
// one step's registers, its loads, its dots and the unit's lane reduction and
// store. A step is 64 G groups of the K row: lane l takes groups G l .. G l +
// G - 1 of each of the unit's R weight rows and of the M activation rows.
#pragma once

#include <vector>

#include "nvfp4/nvfp4_format.h"

namespace k100::kernels::nvfp4 {

using codegen::Label;

struct GemvShape {
  int m = 1, rows = 1, groups = 1;  // activation rows, weight rows per unit, groups per lane and step
};

// The pointers a step reads from: the unit's weight and scale rows, the activation rows (SGPR pairs).
struct StepRows {
  std::vector<SGPR> w, s, e, o, a;
  StepRows(Kernel& k, const GemvShape& sh);
  // Every pointer one step on.
  void advance(Kernel& k, const GemvShape& sh) const;
};

// One step's loaded data.
struct StepRegs {
  std::vector<VGPR> codes, sbytes, ae, ao, asc;
  StepRegs(Kernel& k, const GemvShape& sh);
  void zero(Kernel& k) const;
};

// Lane offsets of a step's loads: code and activation words (8 G lane), scale bytes (G lane), activation scales (4 G lane).
struct LaneOffsets {
  VGPR group, o8, o1, o4;
  LaneOffsets(Kernel& k, const GemvShape& sh, VGPR lane);
};

// The step's loads (under the caller's EXEC).
void load_step(Kernel& k, const GemvShape& sh, const StepRegs& r, const StepRows& p, const LaneOffsets& o);

class StepMath {
 public:
  StepMath(Kernel& k, const GemvShape& sh);
  // acc[r * M + m] += per group f32(exact dot) * (0.5 E4M3 * asc).
  void dots(const StepRegs& r, VGPR acc);
  // The unit's sums over the lanes, times inv_gscale; lane 63 stores
  // y[m][row0 + r] for r < valid (an SGPR). Needs the whole wave; EXEC all after.
  void store(VGPR acc, SGPR y, SGPR n, SGPR row0, SGPR valid, SGPR inv_gscale);

 private:
  Kernel& k_;
  GemvShape sh_;
  Nvfp4Decoder dec_;
  VGPR e_, o_, tmp_, sw_, dot_, fd_, prod_, zero_;
  SGPR yrow_, idx_;
};

// dst = N - row0 clipped to R (the unit's rows that exist); the unit's row
// pointers, rows past the last existing one re-reading it.
void unit_rows(Kernel& k, const GemvShape& sh, const StepRows& p, SGPR row0, SGPR valid, SGPR n, SGPR half,
               SGPR groups, SGPR wq, SGPR ws);
// The activation row pointers at the row starts.
void activation_rows(Kernel& k, const GemvShape& sh, const StepRows& p, SGPR half, SGPR groups, SGPR ae, SGPR ao,
                     SGPR asc);

}  // namespace k100::kernels::nvfp4
