// Micro benchmark of the VALU semantic functions on one wave.
#include "bench_valu.h"

#include <ctime>
#include <random>

#include "k100/emu/semantics.h"
#include "k100/isa/inst.h"
#include "k100/isa/table.h"

namespace k100::emu::valu {

namespace {

isa::Inst make(const char* name, isa::Encoding enc, std::initializer_list<isa::Operand> ops) {
  isa::Inst in;
  const isa::InstDesc* d = isa::find_instruction(name);
  in.id = d->id;
  in.encoding = enc;
  in.num_operands = uint8_t(ops.size());
  size_t i = 0;
  for (const auto& o : ops) in.ops[i++] = o;
  if (d->family == isa::Family::VOP3P) in.mods.op_sel_hi = 7;
  return in;
}

}  // namespace

std::vector<ValuBenchLine> run_valu_benchmark(double seconds_each) {
  using isa::Encoding;
  using isa::Operand;
  auto v = [](unsigned n, uint8_t w = 1) { return Operand::vgpr(n, w); };
  struct Case {
    const char* label;
    isa::Inst inst;
  };
  std::vector<Case> cases = {
      {"v_add_f32_e32", make("v_add_f32", Encoding::Native, {v(0), v(1), v(2)})},
      {"v_mul_f32_e32", make("v_mul_f32", Encoding::Native, {v(0), v(1), v(2)})},
      {"v_fmac_f32_e32", make("v_fmac_f32", Encoding::Native, {v(3), v(1), v(2)})},
      {"v_fma_f32", make("v_fma_f32", Encoding::Native, {v(0), v(1), v(2), v(3)})},
      {"v_add_u32_e32", make("v_add_u32", Encoding::Native, {v(4), v(5), v(6)})},
      {"v_mov_b32_e32 (sgpr)", make("v_mov_b32", Encoding::Native, {v(7), Operand::sgpr(4)})},
      {"v_lshlrev_b32_e32", make("v_lshlrev_b32", Encoding::Native, {v(8), Operand::reg(130), v(5)})},
      {"v_add_co_u32_e32", make("v_add_co_u32", Encoding::Native, {v(9), Operand::reg(106, 2), v(5), v(6)})},
      {"v_cndmask_b32_e32", make("v_cndmask_b32", Encoding::Native, {v(10), v(5), v(6), Operand::reg(106, 2)})},
      {"v_cmp_gt_f32_e32", make("v_cmp_gt_f32", Encoding::Native, {Operand::reg(106, 2), v(1), v(2)})},
      {"v_mad_u32_u24", make("v_mad_u32_u24", Encoding::Native, {v(11), v(5), v(6), v(4)})},
      {"v_mul_lo_u32", make("v_mul_lo_u32", Encoding::Native, {v(12), v(5), v(6)})},
      {"v_exp_f32_e32", make("v_exp_f32", Encoding::Native, {v(13), v(1)})},
      {"v_rcp_f32_e32", make("v_rcp_f32", Encoding::Native, {v(14), v(1)})},
      {"v_pk_fma_f16", make("v_pk_fma_f16", Encoding::Native, {v(15), v(16), v(17), v(18)})},
      {"v_add_f16_e32", make("v_add_f16", Encoding::Native, {v(19), v(16), v(17)})},
      {"v_fma_f64", make("v_fma_f64", Encoding::Native, {v(20, 2), v(22, 2), v(24, 2), v(26, 2)})},
      {"v_dot4_i32_i8", make("v_dot4_i32_i8", Encoding::Native, {v(28), v(5), v(6), v(4)})},
      {"v_mov_b32_dpp row_shr:1", [&] {
         auto in = make("v_mov_b32", Encoding::DPP, {v(29), v(5)});
         in.mods.dpp_ctrl = 0x111;
         return in;
       }()},
  };
  WaveState w;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  for (auto& row : w.vgpr)
    for (auto& x : row) x = std::bit_cast<uint32_t>(dist(rng));
  for (int lane = 0; lane < 64; ++lane) {
    w.vgpr[5][lane] = rng();
    w.vgpr[6][lane] = rng();
    w.vgpr[16][lane] = 0x3c003800u;
    w.vgpr[17][lane] = 0x40003c00u;
    w.vgpr[18][lane] = 0x38003800u;
  }
  w.set_exec(~0ull);
  w.mode = 0xf0 | (1u << 9);  // denormals allowed, IEEE mode
  const auto& table = valu_semantics();
  std::vector<ValuBenchLine> out;
  for (const Case& c : cases) {
    ValuFn fn = table[c.inst.id];
    if (!fn) continue;
    // Thread CPU time, so a loaded machine does not distort the rate.
    auto now = [] {
      timespec ts;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
    };
    uint64_t n = 0;
    double t0 = now(), elapsed = 0;
    do {
      for (int k = 0; k < 256; ++k) fn(w, c.inst);
      n += 256;
      elapsed = now() - t0;
    } while (elapsed < seconds_each);
    out.push_back({c.label, double(n) / elapsed});
  }
  return out;
}

}  // namespace k100::emu::valu
