// Cross-lane moves between VGPRs and SGPRs: v_readfirstlane_b32,
// v_readlane_b32, v_writelane_b32 (which ignore EXEC for the lane they
// name), and v_swap_b32.
#include <bit>
#include <string>

#include "drivers.h"
#include "k100/base/error.h"

namespace k100::emu::valu {

namespace {

void write_sgpr(WaveState& w, const isa::Inst& in, int op, uint32_t value) {
  uint16_t c = in.ops[op].code;
  if (c > isa::code::kExecHi || c == 125)
    throw Error(in.desc().name + ": destination is not a scalar register");
  w.sgpr[c] = value;
}

}  // namespace

void add_lane_ops(Defs& d) {
  d.push_back({"v_readfirstlane_b32", K100_VALU {
    Vop v(w, in);
    const uint32_t* s = v.vgpr_row(v.lay.src[0], 0);
    LaneMask exec = w.exec();
    int lane = exec ? std::countr_zero(exec) : 0;
    write_sgpr(w, in, v.lay.dst, s[lane]);
  }});
  d.push_back({"v_readlane_b32", K100_VALU {
    Vop v(w, in);
    const uint32_t* s = v.vgpr_row(v.lay.src[0], 0);
    uint32_t lane = v.scalar_src(1) & 63;
    write_sgpr(w, in, v.lay.dst, s[lane]);
  }});
  d.push_back({"v_writelane_b32", K100_VALU {
    Vop v(w, in);
    uint32_t value = v.scalar_src(0);
    uint32_t lane = v.scalar_src(1) & 63;
    v.vgpr_row(v.lay.dst, 3)[lane] = value;
  }});
  d.push_back({"v_swap_b32", K100_VALU {
    Vop v(w, in);
    uint32_t* a = v.vgpr_row(v.lay.dst, 3);
    uint32_t* b = v.vgpr_row(v.lay.src[0], 0);
    LaneMask exec = v.exec;
    for (int i = 0; i < kLanes; ++i) {
      if ((exec >> i) & 1) {
        uint32_t t = a[i];
        a[i] = b[i];
        b[i] = t;
      }
    }
  }});
}

}  // namespace k100::emu::valu
