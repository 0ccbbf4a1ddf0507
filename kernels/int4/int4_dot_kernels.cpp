// Registration of compressed-tensors INT4 (W4A16): the decoder
// int4_dequant_k and the fused dot int4_dot_k of KERNELS.md 3.2, and our fast
// decode GEMV int4_gemv_k (int4_w4a16_gemv.h).
#include "int4/int4_dot_cases.h"
#include "int4/int4_dot_generators.h"
#include "int4/int4_w4a16_gemv.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

using namespace int4;

KernelDef dequant_def() {
  KernelDef d = generated_kernel("int4", int4_dequant_signature(), build_int4_dequant);
  d.description =
      "compressed-tensors INT4 -> f32: work-item i expands u32 word i of the codes (element j at bits 4j..4j+3, "
      "offset-binary) into 8 floats (code - 8) * bf16(scale[i / 16]), 16 words being one 128-weight block with one "
      "scale. The codes become floats by v_cvt_f32_ubyte0..3 of word & 0x0F0F0F0F and (word >> 4) & 0x0F0F0F0F; "
      "code - 8 is exact, so each value is one f32 product, bit-exact with the host reference "
      "(quant::W4Matrix). Two 16-byte stores per lane.";
  d.semantics = "y[8 i + j] = (((w[i] >> 4 j) & 15) - 8) * bf16(scale[i / 16]), j < 8, i < nwords";
  d.geometry = "grid = ceil(nwords/64), wg = 64 (= group_size; work-item i = workgroup * group_size + local id)";
  d.launch = "sizes nwords\nworkgroup = 64\ngrid = ceil_div(nwords, 64)\narg nwords = nwords\narg group_size = 64";
  d.limits = "group_size = the workgroup size; nwords < 2^28 (16 per block; a partial last block reads its scale); "
             "items past nwords do nothing; w 4-byte and scale 2-byte aligned";
  d.tolerance = Tolerance{};
  d.cases = dequant_cases;
  d.run = run_dequant;
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["words"]) * (4 + 32) + uint64_t((c["words"] + 15) / 16) * 2; };
  // 17408 x 5120 weights
  d.bench_case = [] { return make_case({{"words", 17408 * 5120 / 8}, {"wg", 64}, {"grid", 0}, {"bits", 0}}); };
  return d;
}

KernelDef dot_def() {
  KernelDef d = generated_kernel("int4", int4_dot_signature(), build_int4_dot);
  d.description =
      "Fused compressed-tensors INT4 (W4A16) decode x f32 activation, one 128-weight block (64 bytes of codes, one "
      "bf16 scale) per work-item, with the dense / MoE block indexing of the GGUF *_dot_k family (KERNELS.md 3.3): "
      "codes at w + ids[ew] * stride + local * 64, the scale at scale + ids[ew] * (stride >> 5) + local * 2 (the "
      "scales ordered like the blocks, 2 bytes per 64). The codes are loaded with four 16-byte loads, x 32 floats "
      "at a time; (code - 8) * x by fused multiply-adds into four accumulators, summed as (a0 + a1) + (a2 + a3) and "
      "multiplied by the scale once. Row sums come from reduce_blocks_k.";
  d.semantics = "partial[i] = bf16(scale_i) * sum_(j<128) (code_j - 8) * x[e][b * 128 + j]; b = i % nbpr, q1 = i / "
                "nbpr, e = q1 / rows_per_exp, ew = q1 / rows_per_w, local = (q1 - ew * rows_per_w) * nbpr + b, codes "
                "of block i at w + ids[ew] * stride + local * 64, scale_i at scale + ids[ew] * (stride >> 5) + local "
                "* 2; x is [groups][nbpr * 128] f32";
  d.geometry = "grid = ceil(nblocks/64), wg = 64 (= group_size; work-item i = workgroup * group_size + local id)";
  d.launch =
      "sizes nblocks nbpr rows_per_exp rows_per_w\nworkgroup = 64\ngrid = ceil_div(nblocks, 64)\narg nblocks = nblocks\n"
      "arg group_size = 64\narg nbpr = nbpr\narg magic_nbpr = select(nbpr > 1, 4294967296 / nbpr + 1, 0)\n"
      "arg rows_per_exp = rows_per_exp\narg magic_rpe = select(rows_per_exp > 1, 4294967296 / rows_per_exp + 1, 0)\n"
      "arg rows_per_w = rows_per_w\narg magic_rpw = select(rows_per_w > 1, 4294967296 / rows_per_w + 1, 0)";
  d.limits =
      "K % 128 = 0 (nbpr = K / 128); magic_nbpr, magic_rpe, magic_rpw = floor(2^32 / d) + 1 must be exact over "
      "the dividends (i < nblocks, q1 < nrows; codegen::magic_multiplier computes and checks them), so nbpr, "
      "rows_per_exp and rows_per_w are >= 2 unless their dividends are all 0 (rows_per_exp = 1 is unsupported); "
      "dense matrix: ids = [0], rows_per_exp = rows_per_w = N; MoE: one group per expert, x shared "
      "(rows_per_exp = all rows) or one row per expert (rows_per_exp = rows_per_w); stride a multiple of 64 "
      "(the scale groups then start 2-byte aligned), < 2^32; group_size = the workgroup size. Tolerance against "
      "double dots over quant::W4Matrix weights (partials) and quant::gemv_reference (reduce_blocks_k row sums), "
      "stated for weights of order 1 and |x| <= 1.";
  d.tolerance = dot_tolerance();
  d.cases = dot_cases;
  d.run = run_dot;
  d.ideal_bytes = dot_ideal_bytes;
  d.bench_case = dot_bench_case;
  return d;
}

}  // namespace

void register_int4_dot_kernels(Registry& r) {
  r.add(dequant_def());
  r.add(dot_def());
  r.add(int4_w4a16_gemv_def());
}

}  // namespace k100::kernels
