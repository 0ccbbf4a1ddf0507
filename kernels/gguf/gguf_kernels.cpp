// GGUF block kernels: the twelve decoders of KERNELS.md 3.4 and those of the
// other block types, the eleven fused dot products and reduce_blocks_k of
// 3.3, and the f16 / bf16 tensor converters; registered with their documentation, test cases (host codecs
// of the `quant` module as the reference) and benchmark cases.
#include "gguf/gguf_cases.h"
#include "gguf/gguf_generators.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

using namespace gguf;

std::string n_str(int v) { return std::to_string(v); }

std::string table_text(const BlockFormat& f) {
  std::string s;
  for (const TableParam& t : f.tables)
    s += (s.empty() ? "" : ", ") + std::string("`") + t.name + "` = the " + t.source + " table (quant::table_bytes)";
  return s;
}

const char* const kAnyAddress =
    "blocks may sit at any byte address (unaligned dword loads, which GFX9 serves in the unaligned memory mode the "
    "KFD driver sets for compute queues; no load reaches past a block)";

KernelDef dequant_def(const BlockFormat& f) {
  KernelDef d = generated_kernel("gguf", dequant_signature(f), [&f](isa::Target t) { return build_dequant(t, f); });
  const std::string e = n_str(f.elems);
  d.description = f.title + " -> f32, one " + n_str(f.bytes) + "-byte block (" + e + " values) per work-item" +
                  (f.dot ? ", decoded by the same emitter as " + dot_lookup(f) : std::string()) + ": " + f.decoding +
                  ". Every value is formed with ggml's float operations in ggml's order, so the output is bit-exact "
                  "with ggml's dequantiser. Each lane stores its values with 16-byte stores.";
  if (!f.tables.empty()) d.description += " Tables: " + table_text(f) + ".";
  d.semantics = "y[i * " + e + " + j] = dequant(block i of w)[j], j < " + e;
  if (dequant_by_global_id(f)) {
    d.geometry = "grid = ceil(nblocks/64), wg = 64 (work-item i = global id; any grid covering nblocks works, e.g. "
                 "the package examples' grid = nblocks)";
    d.launch = "sizes nblocks\nworkgroup = 64\ngrid = ceil_div(nblocks, 64)";
    d.limits = std::string("nblocks < 2^32; items past nblocks do nothing; ") + kAnyAddress;
  } else {
    d.geometry = "grid = ceil(nblocks/group_size), wg = group_size (64; work-item i = workgroup * group_size + local id)";
    d.launch = "sizes nblocks\nworkgroup = 64\ngrid = ceil_div(nblocks, 64)";
    d.limits = std::string("group_size = the workgroup size; nblocks < 2^32; items past nblocks do nothing; ") + kAnyAddress;
  }
  d.tolerance = Tolerance{};
  d.cases = dequant_cases;
  d.run = [&f](TestDevice& dev, const Case& c) { return run_dequant(dev, f, c, host_codecs()); };
  d.ideal_bytes = [&f](const Case& c) { return uint64_t(c["nblocks"]) * uint64_t(f.bytes + 4 * f.elems); };
  d.bench_case = [&f] { return make_case({{"nblocks", 4096 * 256 / f.elems}, {"wg", 64}, {"grid", 0}, {"offset", 0}, {"bits", 2}}); };
  return d;
}

KernelDef iq4nl_to_i8_def() {
  KernelDef d = generated_kernel("gguf", iq4nl_to_i8_signature(), build_iq4nl_to_i8);
  d.description =
      "IQ4_NL -> int8 codebook values plus one scale per block (feeds gemv_i8_k): the IQ4_NL emitter's codebook "
      "lookup (byte permutes from 4 VGPRs) gives the 32 int8 values of block i, stored in natural order to "
      "out[32 i ..] (low nibbles of qs[j] -> element j, high -> j + 16), and the block's f16 scale widened to "
      "f32 goes to scale[i]; out * scale equals the f32 decode bit for bit.";
  d.semantics = "out[32 i + j] = kvalues_iq4nl[nibble j of block i], scale[i] = f32(d of block i)";
  d.geometry = "grid = ceil(nblocks/group_size), wg = group_size (64; work-item i = workgroup * group_size + local id)";
  d.launch = "sizes nblocks\nworkgroup = 64\ngrid = ceil_div(nblocks, 64)";
  d.limits = std::string("group_size = the workgroup size; nblocks < 2^27; ") + kAnyAddress;
  d.tolerance = Tolerance{};
  d.cases = dequant_cases;
  d.run = [](TestDevice& dev, const Case& c) { return run_iq4nl_to_i8(dev, c, host_codecs()); };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["nblocks"]) * (18 + 32 + 4); };
  d.bench_case = [] { return make_case({{"nblocks", 32768}, {"wg", 64}, {"grid", 0}, {"offset", 0}, {"bits", 2}}); };
  return d;
}

KernelDef dot_def(const BlockFormat& f) {
  KernelDef d = generated_kernel("gguf", dot_signature(f), [&f](isa::Target t) { return build_dot(t, f); });
  const std::string e = n_str(f.elems), bytes = n_str(f.bytes);
  d.description =
      "Fused native " + f.title + " decode x f32 activation, one " + e + "-weight / " + bytes +
      "-byte block per work-item, with the dense / MoE block indexing of the semantics (block at w + ids[ew] * stride + "
      "local * " + bytes + "): the type's emitter (" + f.decoding +
      ") hands its values on in batches of 16, whose activations are loaded (16-byte loads) before the values are "
      "computed; fused multiply-adds into four accumulators, summed as (a0 + a1) + (a2 + a3). Row sums come from "
      "reduce_blocks_k.";
  if (!f.tables.empty()) d.description += " Tables: " + table_text(f) + ".";
  d.semantics = "partial[i] = sum_(j<" + e + ") dequant(block i)[j] * x[e][b * " + e + " + j]; b = i % nbpr, q1 = i / nbpr, "
                "e = q1 / rows_per_exp, ew = q1 / rows_per_w, local = (q1 - ew * rows_per_w) * nbpr + b, block i at "
                "w + ids[ew] * stride + local * " + bytes + "; x is [groups][nbpr * " + e + "] f32";
  d.geometry = "grid = ceil(nblocks/64), wg = 64 (= group_size; work-item i = workgroup * group_size + local id)";
  d.launch =
      "sizes nblocks nbpr rows_per_exp rows_per_w\nworkgroup = 64\ngrid = ceil_div(nblocks, 64)\narg nblocks = nblocks\n"
      "arg group_size = 64\narg nbpr = nbpr\narg magic_nbpr = select(nbpr > 1, 4294967296 / nbpr + 1, 0)\n"
      "arg rows_per_exp = rows_per_exp\narg magic_rpe = select(rows_per_exp > 1, 4294967296 / rows_per_exp + 1, 0)\n"
      "arg rows_per_w = rows_per_w\narg magic_rpw = select(rows_per_w > 1, 4294967296 / rows_per_w + 1, 0)";
  d.limits =
      "magic_nbpr, magic_rpe, magic_rpw = floor(2^32 / d) + 1 must be exact over the dividends (i < nblocks, q1 < "
      "nrows; codegen::magic_multiplier computes and checks them), so nbpr, rows_per_exp and rows_per_w are >= 2 unless their dividends are all 0 (a "
      "divisor of 1 has no 32-bit multiplier: rows_per_exp = 1 is unsupported); dense matrix: ids = [0], stride "
      "any, rows_per_exp = rows_per_w = N; MoE: one group per expert, x shared (rows_per_exp = all rows) or one row "
      "per expert (rows_per_exp = rows_per_w); stride < 2^32; group_size = the workgroup size; " +
      std::string(kAnyAddress) + ". Tolerance against a double dot over the decoded weights, stated for weights of "
      "order 1 and |x| <= 1 (partials and reduce_blocks_k row sums).";
  d.tolerance = dot_tolerance();
  d.cases = [&f](bool sweep) { return dot_cases(f, sweep); };
  d.run = [&f](TestDevice& dev, const Case& c) { return run_dot(dev, f, c, host_codecs()); };
  d.ideal_bytes = [&f](const Case& c) { return dot_ideal_bytes(f, c); };
  d.bench_case = [&f] { return dot_bench_case(f); };
  return d;
}

KernelDef reduce_def() {
  KernelDef d = generated_kernel("gguf", reduce_blocks_signature(), build_reduce_blocks);
  d.description =
      "Row reduction for every *_dot_k (and split-K partials): lane r of the first wave sums the nbpr partials of "
      "row r from 0 in index order, 16 loads in flight per step then one at a time, so the result is the f32 sum "
      "in index order, bit-stable.";
  d.semantics = "y[r] = sum_(b<nbpr) partial[r * nbpr + b] (f32, from 0, in index order)";
  d.geometry = "grid = ceil(nrows/64), wg = 64 (lane = row; waves past the first do nothing)";
  d.launch = "sizes nrows\nworkgroup = 64\ngrid = ceil_div(nrows, 64)";
  d.limits = "nbpr < 2^30; nbpr = 0 gives 0; rows past nrows do nothing";
  d.tolerance = Tolerance{};
  d.cases = reduce_cases;
  d.run = run_reduce;
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["nrows"]) * uint64_t(c["nbpr"] + 1) * 4; };
  d.bench_case = [] { return make_case({{"nrows", 17408}, {"nbpr", 20}}); };
  return d;
}

KernelDef half_def(HalfKind kind) {
  const bool bf16 = kind == HalfKind::BF16;
  KernelDef d = generated_kernel("gguf", half_to_f32_signature(kind),
                                 [kind](isa::Target t) { return build_half_to_f32(t, kind); });
  d.description = bf16 ? "BF16 -> f32 (GGUF BF16 tensors on the device): one element per work-item, a 16-bit load "
                         "shifted into the high half; exact, NaN payloads kept."
                       : "F16 -> f32 (GGUF F16 tensors on the device): one element per work-item, a 16-bit load "
                         "widened by v_cvt_f32_f16 (f16 denormals kept) and a NaN made quiet with its payload, as the host codecs and ggml widen it; exact.";
  d.semantics = "y[i] = f32(x[i]), i < n";
  d.geometry = "grid = ceil(n/64), wg = 64 (work-item = global id; any grid covering n works)";
  d.launch = "sizes n\nworkgroup = 64\ngrid = ceil_div(n, 64)";
  d.limits = "n < 2^32; x 2-byte aligned";
  d.tolerance = Tolerance{};
  d.cases = half_cases;
  d.run = [bf16](TestDevice& dev, const Case& c) { return run_half_to_f32(dev, bf16, c, host_codecs()); };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 6; };
  // 1 Mi values (a 1024 x 1024 F16 tensor), as many as the decoders' cases
  d.bench_case = [] { return make_case({{"n", 1 << 20}, {"offset", 0}, {"wg", 64}}); };
  return d;
}

}  // namespace

void register_gguf_kernels(Registry& r) {
  for (const BlockFormat& f : block_formats()) r.add(dequant_def(f));
  r.add(iq4nl_to_i8_def());
  for (const BlockFormat& f : block_formats())
    if (f.dot) r.add(dot_def(f));
  r.add(reduce_def());
  r.add(half_def(HalfKind::F16));
  r.add(half_def(HalfKind::BF16));
}

}  // namespace k100::kernels
