// Row normalisations: rmsnorm_fast_k, rmsnorm_deep_k, rmsnorm_k,
// rmsnorm_gated_k, l2norm_k, layernorm_k. One generator (two passes over the
// row: statistics, then scale and store) with the variants as parameters,
// plus each kernel's registry entry, host reference and tests.
#include <cmath>
#include <cstring>

#include "ops_norm_emit.h"
#include "ops_parts.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

using namespace as;
using namespace norm;
using codeobj::HiddenArgLayout;

enum class RowKind { Rms, RmsZc, RmsGated, L2, Layer };

struct RowSpec {
  std::string name;
  RowKind kind;
  bool multi_wave;             // group size from the hidden block (any multiple of 64 up to 1024)
  std::vector<int> stats_batches;  // rounds per load batch in the statistics pass
  std::vector<int> out_batches;    // and in the output pass
};

constexpr float kLog2e = 1.4426950408889634f;

// SGPRs
const SGPR sY = s(8, 2), sX = s(10, 2), sW = s(12, 2), sG = s(14, 2);  // gate (gated) or bias (layernorm)
const SGPR sD = s(16), sEps = s(17), sZc = s(18), sGroup = s(19);
const SGPR sXs = s(20, 2), sWs = s(22, 2), sGs = s(24, 2), sYs = s(26, 2);  // stream bases
const SGPR sNq = s(28), sRem = s(29), sLeft = s(30), sScratch = s(31), sSave = s(32, 2), sTmp2 = s(34, 2);
const SGPR sThreads = s(36), sW16 = s(37), sWave = s(38), sWaves = s(39), sSum = s(40), sSum2 = s(41),
           sShift = s(42);
const SGPR sRows = s(43);
const SGPR sX0 = s(46, 2), sY0 = s(48, 2), sG0 = s(50, 2);  // row starts
// VGPRs
const VGPR vT = v(0), vAcc = v(1), vAcc2 = v(2), vScale = v(3), vMean = v(4), vA = v(5), vB = v(6);
const VGPR vOff = v(7, 4), vLane = v(11);
constexpr int kX = 12, kWv = 44, kGv = 76;  // data registers: chunk i at base + 4 i

VGPR chunk(int base, int i) { return v(base + 4 * i, 4); }

void load4(KernelBuilder& b, VGPR dst, VGPR voff, SGPR base, int imm) {
  if (imm)
    b.global_load_dwordx4(dst, voff, base, offset(imm));
  else
    b.global_load_dwordx4(dst, voff, base);
}

void store4(KernelBuilder& b, VGPR voff, VGPR data, SGPR base, int imm) {
  if (imm)
    b.global_store_dwordx4(voff, data, base, offset(imm));
  else
    b.global_store_dwordx4(voff, data, base);
}

// y element from x (in place), w, g: the output formula of each kind. `zc`
// selects 1 + w. T is a scratch VGPR (may be w after its last use).
void output_element(KernelBuilder& b, RowKind kind, bool zc, VGPR x, VGPR w, VGPR g) {
  switch (kind) {
    case RowKind::Rms:
    case RowKind::RmsZc:
      b.v_mul_f32(x, x, vScale);
      if (zc) b.v_add_f32(w, 1.0f, w);
      b.v_mul_f32(x, x, w);
      break;
    case RowKind::RmsGated:
      b.v_mul_f32(x, x, vScale);
      b.v_mul_f32(x, x, w);
      // silu(g) = g / (1 + 2^(-g log2 e)); w is free now
      b.v_mul_f32(w, -kLog2e, g);
      b.v_exp_f32(w, w);
      b.v_add_f32(w, 1.0f, w);
      b.v_rcp_f32(w, w);
      b.v_mul_f32(w, g, w);
      b.v_mul_f32(x, x, w);
      break;
    case RowKind::L2:
      b.v_mul_f32(x, x, vScale);
      break;
    case RowKind::Layer:
      b.v_sub_f32(x, x, vMean);
      b.v_mul_f32(x, x, vScale);
      b.v_fma_f32(x, x, w, g);
      break;
  }
}

bool has_w(RowKind k) { return k != RowKind::L2; }
bool has_g(RowKind k) { return k == RowKind::RmsGated || k == RowKind::Layer; }

codeobj::CodeObject generate_row_norm(const RowSpec& spec, isa::Target target) {
  KernelBuilder b(spec.name, target);
  const RowKind kind = spec.kind;
  Label exit = b.label("exit");

  // ---- arguments
  switch (kind) {
    case RowKind::Rms:  // y, x, w, dim, eps
      b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
      b.s_load_dwordx2(sW, s(4, 2), 0x10);
      b.s_load_dwordx2(s(16, 2), s(4, 2), 0x18);
      break;
    case RowKind::RmsZc:  // y, x, w, D, eps, zc; hidden block at 40
      b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
      b.s_load_dwordx2(sW, s(4, 2), 0x10);
      b.s_load_dwordx2(s(16, 2), s(4, 2), 0x18);
      b.s_load_dword(sZc, s(4, 2), 0x20);
      b.s_load_dword(sGroup, s(4, 2), 40 + 12);
      break;
    case RowKind::RmsGated:  // y, x, w, gate, D, eps; hidden block at 40
      b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
      b.s_load_dwordx4(s(12, 4), s(4, 2), 0x10);
      b.s_load_dwordx2(s(16, 2), s(4, 2), 0x20);
      b.s_load_dword(sGroup, s(4, 2), 40 + 12);
      break;
    case RowKind::L2:  // x, S, eps; hidden block at 16
      b.s_load_dwordx2(sX, s(4, 2), 0x0);
      b.s_load_dwordx2(s(16, 2), s(4, 2), 0x8);
      b.s_load_dword(sGroup, s(4, 2), 16 + 12);
      break;
    case RowKind::Layer:  // y, x, w, b, rows, cols, eps, group_size (ignored)
      b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
      b.s_load_dwordx4(s(12, 4), s(4, 2), 0x10);
      b.s_load_dwordx2(s(16, 2), s(4, 2), 0x24);  // cols, eps
      b.s_load_dword(sRows, s(4, 2), 0x20);
      break;
  }
  wait_lgkm(b, 0);
  if (kind == RowKind::L2) b.s_mov_b64(sY, sX);  // in place

  // ---- which threads work
  if (spec.multi_wave) {
    // W = hidden group size x, rounded down to a multiple of 64 (64 when absent)
    b.s_and_b32(sThreads, sGroup, 0xffc0);
    b.s_cmp_eq_u32(sThreads, 0);
    b.s_cselect_b32(sThreads, 64, sThreads);
    b.s_lshl_b32(sW16, sThreads, 4);
    b.v_readfirstlane_b32(sWave, vT);
    b.s_lshr_b32(sWave, sWave, 6);
    b.s_lshr_b32(sWaves, sThreads, 6);
    b.s_cmp_ge_u32(sWave, sWaves);  // waves past W (a wg that is not a multiple of 64)
    b.s_cbranch_scc1(exit);
  } else {
    // one wave per row: further waves of a larger workgroup have nothing to do
    b.v_readfirstlane_b32(sScratch, vT);
    b.s_cmp_ge_u32(sScratch, 64);
    b.s_cbranch_scc1(exit);
  }
  if (kind == RowKind::Layer) {
    b.s_cmp_ge_u32(s(6), sRows);
    b.s_cbranch_scc1(exit);
  }
  b.s_cmp_lt_i32(sD, 1);  // empty row (or a negative / >= 2^31 length)
  b.s_cbranch_scc1(exit);

  row_address(b, sX0, sX, s(6), sD, 2, sTmp2);
  row_address(b, sY0, sY, s(6), sD, 2, sTmp2);
  if (kind == RowKind::RmsGated) row_address(b, sG0, sG, s(6), sD, 2, sTmp2);
  if (kind == RowKind::Layer) b.s_mov_b64(sG0, sG);  // bias: one vector for every row
  b.s_lshr_b32(sNq, sD, 2);
  b.s_and_b32(sRem, sD, 3);
  if (kind == RowKind::Layer) b.s_load_dword(sShift, sX0, 0);  // x[row][0]: shift for the variance

  ChunkWalk walk;
  walk.single_wave = !spec.multi_wave;
  walk.w_bytes16 = sW16;
  walk.w_threads = sThreads;
  walk.thread = vT;
  walk.offsets = vOff;
  int max_batch = 1;
  for (int x : spec.stats_batches) max_batch = std::max(max_batch, x);
  for (int x : spec.out_batches) max_batch = std::max(max_batch, x);
  walk.max_batch = max_batch;
  walk.left = sLeft;
  walk.scratch = sScratch;
  walk.save_exec = sSave;
  chunk_offsets(b, walk);
  b.v_and_b32(vLane, 63, vT);

  // ---- pass 1: statistics
  b.v_mov_b32(vAcc, 0);
  b.v_mov_b32(vAcc2, 0);
  if (kind == RowKind::Layer) wait_lgkm(b, 0);
  auto stat_element = [&](VGPR x) {
    if (kind == RowKind::Layer) {
      b.v_subrev_f32(vA, sShift, x);
      b.v_add_f32(vAcc, vAcc, vA);
      b.v_fmac_f32(vAcc2, vA, vA);
    } else {
      b.v_fmac_f32(vAcc, x, x);
    }
  };
  b.s_mov_b64(sXs, sX0);
  b.s_mov_b32(sLeft, sNq);
  ChunkWalk stats = walk;
  stats.loads_per_chunk = 1;
  stats.load = [&](int i, VGPR voff, int imm) { load4(b, chunk(kX, i), voff, sXs, imm); };
  stats.compute = [&](int i) {
    for (int k = 0; k < 4; ++k) stat_element(v(kX + 4 * i + k));
  };
  stats.advance = [&](const Arg& bytes) { add64(b, sXs, bytes); };
  chunk_walk(b, stats, spec.stats_batches);
  // element tail: thread t < rem takes x[4 nq + t]
  Label no_tail = b.label("stats_tail_done");
  b.s_cmp_eq_u32(sRem, 0);
  b.s_cbranch_scc1(no_tail);
  b.s_lshl_b32(sScratch, sNq, 4);
  b.s_add_u32(sXs[0], sX0[0], sScratch);
  b.s_addc_u32(sXs[1], sX0[1], 0);
  b.v_cmp_gt_u32(vcc, sRem, vT);
  b.s_and_saveexec_b64(sSave, vcc);
  b.v_lshlrev_b32(vB, 2, vT);
  b.global_load_dword(v(kX), vB, sXs);
  wait_vm(b, 0);
  stat_element(v(kX));
  b.s_mov_b64(exec, sSave);
  b.bind(no_tail);

  // ---- reduction and the scale
  if (kind == RowKind::Layer)
    wave_reduce(b, {{Red::Add, vAcc}, {Red::Add, vAcc2}});
  else
    wave_reduce(b, {{Red::Add, vAcc}});
  if (spec.multi_wave) {
    workgroup_reduce(b, Red::Add, vAcc, vA, sSum, sWave, sWaves, sSave, vLane);
  } else {
    b.v_readlane_b32(sSum, vAcc, 63);
    if (kind == RowKind::Layer) b.v_readlane_b32(sSum2, vAcc2, 63);
  }
  switch (kind) {
    case RowKind::L2:  // 1 / sqrt(sum + eps)
      b.v_mov_b32(vA, sSum);
      b.v_add_f32(vScale, sEps, vA);
      b.v_rsq_f32(vScale, vScale);
      break;
    case RowKind::Layer:
      b.v_cvt_f32_u32(vA, sD);
      b.v_rcp_f32(vA, vA);
      b.v_mul_f32(vB, sSum, vA);                  // mean of (x - shift)
      b.v_mul_f32(vScale, sSum2, vA);             // mean of (x - shift)^2
      b.v_fma_f32(vScale, neg(vB), vB, vScale);   // variance
      b.v_max_f32(vScale, 0, vScale);
      b.v_add_f32(vScale, sEps, vScale);
      b.v_rsq_f32(vScale, vScale);
      b.v_add_f32(vMean, sShift, vB);
      break;
    default:  // 1 / sqrt(sum / n + eps)
      b.v_cvt_f32_u32(vA, sD);
      b.v_rcp_f32(vA, vA);
      b.v_mov_b32(vB, sSum);
      b.v_fma_f32(vScale, vB, vA, sEps);
      b.v_rsq_f32(vScale, vScale);
      break;
  }

  // ---- pass 2: scale and store
  auto output_pass = [&](bool zc, const std::string& tag) {
    b.s_mov_b64(sXs, sX0);
    if (has_w(kind)) b.s_mov_b64(sWs, sW);
    if (has_g(kind)) b.s_mov_b64(sGs, sG0);
    b.s_mov_b64(sYs, sY0);
    b.s_mov_b32(sLeft, sNq);
    ChunkWalk out = walk;
    out.loads_per_chunk = 1 + int(has_w(kind)) + int(has_g(kind));
    out.load = [&](int i, VGPR voff, int imm) {
      load4(b, chunk(kX, i), voff, sXs, imm);
      if (has_w(kind)) load4(b, chunk(kWv, i), voff, sWs, imm);
      if (has_g(kind)) load4(b, chunk(kGv, i), voff, sGs, imm);
    };
    out.compute = [&](int i) {
      for (int k = 0; k < 4; ++k)
        output_element(b, kind, zc, v(kX + 4 * i + k), v(kWv + 4 * i + k), v(kGv + 4 * i + k));
    };
    out.finish = [&](int n) {
      for (int i = 0; i < n; ++i) {
        auto [voff, imm] = walk.address(i);
        store4(b, voff, chunk(kX, i), sYs, imm);
      }
    };
    out.advance = [&](const Arg& bytes) {
      add64(b, sXs, bytes);
      if (has_w(kind)) add64(b, sWs, bytes);
      if (has_g(kind)) add64(b, sGs, bytes);
      add64(b, sYs, bytes);
    };
    chunk_walk(b, out, spec.out_batches);
    Label done = b.label("out_tail_done" + tag);
    b.s_cmp_eq_u32(sRem, 0);
    b.s_cbranch_scc1(done);
    b.s_lshl_b32(sScratch, sNq, 4);
    auto tail_base = [&](SGPR dst, SGPR row) {
      b.s_add_u32(dst[0], row[0], sScratch);
      b.s_addc_u32(dst[1], row[1], 0);
    };
    tail_base(sXs, sX0);
    if (has_w(kind)) tail_base(sWs, sW);
    if (has_g(kind)) tail_base(sGs, sG0);
    tail_base(sYs, sY0);
    b.v_cmp_gt_u32(vcc, sRem, vT);
    b.s_and_saveexec_b64(sSave, vcc);
    b.v_lshlrev_b32(vB, 2, vT);
    b.global_load_dword(v(kX), vB, sXs);
    if (has_w(kind)) b.global_load_dword(v(kWv), vB, sWs);
    if (has_g(kind)) b.global_load_dword(v(kGv), vB, sGs);
    wait_vm(b, 0);
    output_element(b, kind, zc, v(kX), v(kWv), v(kGv));
    b.global_store_dword(vB, v(kX), sYs);
    b.s_mov_b64(exec, sSave);
    b.bind(done);
  };
  if (kind == RowKind::RmsZc) {
    Label zc_path = b.label("zero_centred");
    b.s_cmp_lg_u32(sZc, 0);
    b.s_cbranch_scc1(zc_path);
    output_pass(false, "_plain");
    b.s_branch(exit);
    b.bind(zc_path);
    output_pass(true, "_zc");
  } else {
    output_pass(false, "");
  }
  b.bind(exit);
  b.s_endpgm();

  // ---- interface
  switch (kind) {
    case RowKind::Rms:
      b.arg("y", "global_buffer", "f32*", "write_only")
          .arg("x", "global_buffer", "const f32*", "read_only")
          .arg("w", "global_buffer", "const f32*", "read_only")
          .arg("dim", "by_value", "u32")
          .arg("eps", "by_value", "f32");
      kernel_interface(b, HiddenArgLayout::None, 0, 1024, 32);
      break;
    case RowKind::RmsZc:
      b.arg("y", "global_buffer", "f32*", "write_only")
          .arg("x", "global_buffer", "const f32*", "read_only")
          .arg("w", "global_buffer", "const f32*", "read_only")
          .arg("D", "by_value", "i32")
          .arg("eps", "by_value", "f32")
          .arg("zc", "by_value", "i32");
      kernel_interface(b, HiddenArgLayout::Full, 64, 1024, 296);
      break;
    case RowKind::RmsGated:
      b.arg("y", "global_buffer", "f32*", "write_only")
          .arg("x", "global_buffer", "const f32*", "read_only")
          .arg("w", "global_buffer", "const f32*", "read_only")
          .arg("gate", "global_buffer", "const f32*", "read_only")
          .arg("D", "by_value", "i32")
          .arg("eps", "by_value", "f32");
      kernel_interface(b, HiddenArgLayout::Full, 64, 1024, 296);
      break;
    case RowKind::L2:
      b.arg("x", "global_buffer", "f32*", "read_write").arg("S", "by_value", "i32").arg("eps", "by_value", "f32");
      kernel_interface(b, HiddenArgLayout::Full, 64, 1024, 272);
      break;
    case RowKind::Layer:
      b.arg("y", "global_buffer", "f32*", "write_only")
          .arg("x", "global_buffer", "const f32*", "read_only")
          .arg("w", "global_buffer", "const f32*", "read_only")
          .arg("b", "global_buffer", "const f32*", "read_only")
          .arg("rows", "by_value", "u32")
          .arg("cols", "by_value", "u32")
          .arg("eps", "by_value", "f32")
          .arg("group_size", "by_value", "u32");
      kernel_interface(b, HiddenArgLayout::None, 0, 1024, 48);
      break;
  }
  return b.code_object();
}

// ------------------------------------------------------------ references

// y = x * (mean(x^2) + eps)^(-1/2) * W (W = w, 1 + w, or w * silu(g)), in double.
std::vector<float> rms_reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>* g,
                                 int64_t rows, int64_t d, float eps, bool zc) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < d; ++i) ss += double(x[size_t(r * d + i)]) * x[size_t(r * d + i)];
    double scale = 1.0 / std::sqrt(ss / double(d) + double(eps));
    for (int64_t i = 0; i < d; ++i) {
      size_t k = size_t(r * d + i);
      double wi = zc ? 1.0 + double(w[size_t(i)]) : double(w[size_t(i)]);
      double v = double(x[k]) * scale * wi;
      if (g) {
        double gi = (*g)[k];
        v *= gi / (1.0 + std::exp(-gi));
      }
      y[k] = float(v);
    }
  }
  return y;
}

std::vector<float> l2_reference(const std::vector<float>& x, int64_t rows, int64_t d, float eps) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < d; ++i) ss += double(x[size_t(r * d + i)]) * x[size_t(r * d + i)];
    double scale = 1.0 / std::sqrt(ss + double(eps));
    for (int64_t i = 0; i < d; ++i) y[size_t(r * d + i)] = float(double(x[size_t(r * d + i)]) * scale);
  }
  return y;
}

// Two-pass mean and biased variance in double.
std::vector<float> layer_reference(const std::vector<float>& x, const std::vector<float>& w,
                                   const std::vector<float>& bias, int64_t rows, int64_t d, float eps) {
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < d; ++i) mean += x[size_t(r * d + i)];
    mean /= double(d);
    for (int64_t i = 0; i < d; ++i) var += (x[size_t(r * d + i)] - mean) * (x[size_t(r * d + i)] - mean);
    var /= double(d);
    double scale = 1.0 / std::sqrt(var + double(eps));
    for (int64_t i = 0; i < d; ++i)
      y[size_t(r * d + i)] = float((x[size_t(r * d + i)] - mean) * scale * w[size_t(i)] + bias[size_t(i)]);
  }
  return y;
}

std::vector<uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * 4);
  return out;
}

// ------------------------------------------------------------ cases

// rows x dim cases; `wg` (multi-wave kernels) and `scale` (input magnitude) vary.
std::vector<Case> row_cases(bool sweep, bool multi_wave, int64_t big) {
  std::vector<Case> c = {make_case({{"rows", 1}, {"dim", 64}, {"wg", 64}}, 1),
                         make_case({{"rows", 3}, {"dim", 100}, {"wg", multi_wave ? 256 : 64}}, 2),
                         make_case({{"rows", 2}, {"dim", 1027}, {"wg", multi_wave ? 128 : 128}}, 3),
                         make_case({{"rows", 2}, {"dim", big}, {"wg", 64}}, 4),
                         make_case({{"rows", 4}, {"dim", 3}, {"wg", 64}}, 5)};
  if (sweep) {
    uint32_t seed = 100;
    for (int64_t d : {1, 2, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2048, 4095, 4096, 4097, 5120, 8191,
                      10240, 16387})
      for (int64_t wg : multi_wave ? std::vector<int64_t>{64, 128, 256, 1024} : std::vector<int64_t>{64})
        c.push_back(make_case({{"rows", d > 4096 ? 2 : 3}, {"dim", d}, {"wg", wg}}, seed++));
    c.push_back(make_case({{"rows", 67}, {"dim", 320}, {"wg", 64}}, seed++));
  }
  return c;
}

Tolerance rms_tolerance() { return Tolerance{1e-6, 4e-6}; }
Tolerance layer_tolerance() { return Tolerance{5e-6, 1e-5}; }

// Runs one of the rmsnorm_fast_k / rmsnorm_deep_k pair.
std::vector<float> run_rms_plain(TestDevice& dev, const std::string& lookup, const std::vector<float>& x,
                                 const std::vector<float>& w, int64_t rows, int64_t d, float eps, uint32_t wg) {
  DeviceBuffer<float> dx(dev, x), dw(dev, w), dy(dev, x.size());
  dev.launch(lookup, {uint32_t(rows)}, {wg}, {dy.addr(), dx.addr(), dw.addr(), u32(d), f32(eps)});
  return dy.download();
}

void register_rms_plain(Registry& r, const std::string& lookup, const std::string& twin, int batch) {
  KernelDef d;
  d.lookup = lookup;
  d.family = "ops";
  bool deep = batch == 16;
  d.generate = [lookup, deep](isa::Target t) {
    RowSpec spec{lookup, RowKind::Rms, false, deep ? std::vector<int>{16, 4, 1} : std::vector<int>{4, 1},
                 deep ? std::vector<int>{8, 2, 1} : std::vector<int>{2, 1}};
    return generate_row_norm(spec, t);
  };
  d.description =
      std::string("RMSNorm, one wave per row, two passes: lane l sums the squares of the 16-byte pieces l, l+64, ... "
                  "of the row (one 1 KiB dwordx4 load per wave step, ") +
      (deep ? "16 loads in flight per batch, for large dims" : "4 loads in flight per batch") +
      "), a DPP butterfly gives the row sum, then x*rsqrt(mean + eps)*w is written with dwordx4 stores; a tail of "
      "dim % 4 floats is read one dword per lane. The per-lane summation order and the reduction are those of " +
      twin + ", so the outputs are bit-identical to it. Any dim (not only multiples of 64); extra waves of a larger "
      "workgroup exit. No LDS (the spec's 1024 bytes are an implementation detail of the original).";
  d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / dim + eps)^(-1/2) * w[i]";
  d.geometry = "grid = rows, wg = 64 (larger workgroups: waves past the first do nothing)";
  d.limits = "1 <= dim < 2^31 (dim = 0: nothing written); any dim, no alignment requirement beyond 4 bytes; "
             "y may equal x (in place)";
  d.tolerance = rms_tolerance();
  d.cases = [deep](bool sweep) { return row_cases(sweep, false, deep ? 5120 : 2053); };
  d.run = [lookup, twin](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], dim = c["dim"];
    Rng rng(c.seed);
    auto x = rng.normal(size_t(rows * dim));
    auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
    float eps = 1e-6f;
    auto y = run_rms_plain(dev, lookup, x, w, rows, dim, eps, uint32_t(c["wg"]));
    auto y_twin = run_rms_plain(dev, twin, x, w, rows, dim, eps, 64);
    CaseResult same = compare_exact_u32(bits_of(y), bits_of(y_twin));
    if (!same.pass) same.note = "not bit-identical to " + twin + ": " + same.note;
    return combine({compare(y, rms_reference(x, w, nullptr, rows, dim, eps, false), rms_tolerance()), same});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + c["dim"]) * 4; };
  d.bench_case = [deep] { return make_case({{"rows", deep ? 1 : 64}, {"dim", deep ? 5120 : 4096}, {"wg", 64}}); };
  r.add(std::move(d));
}

}  // namespace

void register_ops_norm_row_kernels(Registry& r) {
  register_rms_plain(r, "rmsnorm_deep_k", "rmsnorm_fast_k", 16);
  register_rms_plain(r, "rmsnorm_fast_k", "rmsnorm_deep_k", 4);

  {
    KernelDef d;
    d.lookup = "rmsnorm_gated_k";
    d.family = "ops";
    d.generate = [](isa::Target t) {
      return generate_row_norm(RowSpec{"rmsnorm_gated_k", RowKind::RmsGated, true, {4, 1}, {2, 1}}, t);
    };
    d.description =
        "Gated RMSNorm: the workgroup's threads sum the squares of the row's 16-byte pieces (dwordx4, consecutive "
        "threads on consecutive pieces), waves combine through a DPP butterfly and LDS, then "
        "x*rsqrt(mean + eps)*w*silu(gate) is written with dwordx4 stores (silu via v_exp_f32 and v_rcp_f32). Any "
        "workgroup size that is a multiple of 64 (read from the hidden block); any D. LDS 64 bytes (the spec's 128 "
        "is an implementation detail).";
    d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / D + eps)^(-1/2) * w[i] * silu(gate[r][i]), "
                  "silu(g) = g / (1 + e^-g)";
    d.geometry = "grid = rows, wg = 64 (any multiple of 64 up to 1024)";
    d.limits = "1 <= D < 2^31 (D <= 0: nothing written); workgroup size a multiple of 64; gate has the layout of x";
    d.tolerance = Tolerance{2e-6, 6e-6};
    d.cases = [](bool sweep) { return row_cases(sweep, true, 2560); };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
      auto g = rng.normal(size_t(rows * dim), 0.f, 4.f);
      float eps = 1e-5f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), dg(dev, g), dy(dev, x.size());
      dev.launch("rmsnorm_gated_k", {uint32_t(rows)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), dg.addr(), i32(dim), f32(eps)});
      return compare(dy.download(), rms_reference(x, w, &g, rows, dim, eps, false), Tolerance{2e-6, 6e-6});
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(3 * c["rows"] * c["dim"] + c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 64}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d;
    d.lookup = "rmsnorm_k";
    d.family = "ops";
    d.generate = [](isa::Target t) {
      return generate_row_norm(RowSpec{"rmsnorm_k", RowKind::RmsZc, true, {4, 1}, {2, 1}}, t);
    };
    d.description =
        "RMSNorm with an optional zero-centred weight (W = 1 + w when zc != 0). The workgroup's threads sum the "
        "squares of the row's 16-byte pieces (dwordx4, consecutive threads on consecutive pieces), waves combine "
        "through a DPP butterfly and LDS, then the scaled row is written with dwordx4 stores. Any D (the spec's "
        "D % 64 == 0 constraint is lifted); any workgroup size that is a multiple of 64 (read from the hidden "
        "block). LDS 64 bytes (the spec's 128 is an implementation detail).";
    d.semantics = "y[r][i] = x[r][i] * (sum_j x[r][j]^2 / D + eps)^(-1/2) * W[i], W = w (zc = 0) or 1 + w (zc != 0)";
    d.geometry = "grid = rows, wg = 64 or 256 (any multiple of 64 up to 1024)";
    d.limits = "pass zc = 0 for standard RMSNorm; 1 <= D < 2^31 (D <= 0: nothing written); workgroup size a "
               "multiple of 64; y may equal x";
    d.tolerance = rms_tolerance();
    d.cases = [](bool sweep) {
      auto c = row_cases(sweep, true, 4096);
      for (size_t i = 0; i < c.size(); ++i) c[i].dims["zc"] = int64_t(i % 2);
      return c;
    };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      bool zc = c["zc"] != 0;
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      auto w = zc ? rng.uniform(size_t(dim), -0.5f, 0.5f) : rng.uniform(size_t(dim), 0.5f, 1.5f);
      float eps = 1e-6f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), dy(dev, x.size());
      dev.launch("rmsnorm_k", {uint32_t(rows)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), i32(dim), f32(eps), i32(zc ? 1 : 0)});
      return compare(dy.download(), rms_reference(x, w, nullptr, rows, dim, eps, zc), rms_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 256}, {"zc", 0}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d;
    d.lookup = "l2norm_k";
    d.family = "ops";
    d.generate = [](isa::Target t) {
      return generate_row_norm(RowSpec{"l2norm_k", RowKind::L2, true, {4, 1}, {4, 1}}, t);
    };
    d.description =
        "In-place L2 normalisation of each row: the workgroup's threads sum the squares of the row's 16-byte "
        "pieces (dwordx4), waves combine through a DPP butterfly and LDS, then the row is scaled in place with "
        "dwordx4 stores. eps is added inside the root (not squared). Any S; any workgroup size that is a multiple "
        "of 64 (read from the hidden block). LDS 64 bytes (the spec's 128 is an implementation detail).";
    d.semantics = "x[r][i] *= (sum_j x[r][j]^2 + eps)^(-1/2)";
    d.geometry = "grid = rows, wg = 64 or 128 (any multiple of 64 up to 1024)";
    d.limits = "1 <= S < 2^31 (S <= 0: nothing written); workgroup size a multiple of 64";
    d.tolerance = rms_tolerance();
    d.cases = [](bool sweep) { return row_cases(sweep, true, 128); };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim));
      float eps = 1e-6f;
      DeviceBuffer<float> dx(dev, x);
      dev.launch("l2norm_k", {uint32_t(rows)}, {uint32_t(c["wg"])}, {dx.addr(), i32(dim), f32(eps)});
      return compare(dx.download(), l2_reference(x, rows, dim, eps), rms_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["dim"]) * 8; };  // x read and written back
    d.bench_case = [] { return make_case({{"rows", 512}, {"dim", 128}, {"wg", 64}}); };
    r.add(std::move(d));
  }

  {
    KernelDef d;
    d.lookup = "layernorm_k";
    d.family = "ops";
    d.generate = [](isa::Target t) {
      return generate_row_norm(RowSpec{"layernorm_k", RowKind::Layer, false, {4, 1}, {2, 1}}, t);
    };
    d.description =
        "Row LayerNorm, one wave per row, two passes: lanes accumulate sum(x - s) and sum((x - s)^2) over the "
        "row's 16-byte pieces (dwordx4), with the shift s = x[row][0] so the variance does not cancel for rows "
        "with a large mean; a DPP butterfly reduces both, then (x - mean)*rsqrt(var + eps)*w + b is written with "
        "dwordx4 stores. Unlike the original, y is not used as scratch: any cols, and y may equal x (in place; it "
        "must not overlap w or b). group_size is ignored: extra waves of a larger workgroup exit; rows past `rows` do "
        "nothing. No LDS (the spec's 1024 bytes are an implementation detail).";
    d.semantics = "y[r][i] = (x[r][i] - mean_r) / sqrt(var_r + eps) * w[i] + b[i], var_r biased (divided by cols)";
    d.geometry = "grid = rows (extra workgroups do nothing), wg = 64";
    d.limits = "1 <= cols < 2^31 (the spec's cols % 64 == 0 is lifted); group_size is ignored";
    d.tolerance = layer_tolerance();
    d.cases = [](bool sweep) {
      auto c = row_cases(sweep, false, 1536);
      for (size_t i = 0; i < c.size(); ++i) c[i].dims["offset"] = int64_t(i % 2 ? 50 : 0);
      return c;
    };
    d.run = [](TestDevice& dev, const Case& c) {
      int64_t rows = c["rows"], dim = c["dim"];
      Rng rng(c.seed);
      auto x = rng.normal(size_t(rows * dim), float(c["offset"]), 2.f);
      auto w = rng.uniform(size_t(dim), 0.5f, 1.5f);
      auto bias = rng.uniform(size_t(dim));
      float eps = 1e-5f;
      DeviceBuffer<float> dx(dev, x), dw(dev, w), db(dev, bias), dy(dev, x.size());
      // one workgroup more than rows: it must not write
      dev.launch("layernorm_k", {uint32_t(rows + 1)}, {uint32_t(c["wg"])},
                 {dy.addr(), dx.addr(), dw.addr(), db.addr(), u32(rows), u32(dim), f32(eps), u32(c["wg"])});
      return compare(dy.download(), layer_reference(x, w, bias, rows, dim, eps), layer_tolerance());
    };
    d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["rows"] * c["dim"] + 2 * c["dim"]) * 4; };
    d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 4096}, {"wg", 64}, {"offset", 0}}); };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels
