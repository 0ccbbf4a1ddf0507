// Registration of the activation quantisers of the W4 and NVFP4 paths: the
// registry entries (docs, launch contracts, tests against the host
// references of k100/quant/activation_quant.h and digit_split_reference.h).
#include <cstring>
#include <map>

#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/activation_quant.h"
#include "w4act/digit_split_reference.h"
#include "w4act/w4act_kernels.h"
#include "w4act/w4act_parts.h"

namespace k100::kernels {

namespace w4act {

namespace {

std::string n_str(int64_t v) { return std::to_string(v); }

// ---------------------------------------------------------------------------
// One group per workgroup: quant_act, quant_act4, nvfp4_quant_act.

// A case's outputs: 2D grid (groups, m) from the contract, or one 1D launch
// per row (m = 1, pointers advanced to the row) when `per_row`.
CaseResult run_group(TestDevice& dev, const GroupKernel& g, const Case& c) {
  const int64_t m = c["m"], K = c["k"], G = g.group();
  const bool per_row = c["per_row"] != 0;
  const std::string name = g.signature.kernel();
  const std::vector<float> x = activation_rows(c.seed, m, K, K, G, g.range.qmax);
  const quant::QuantizedActivations ref = quant::quantize_activations(*g.format, x, m, K);
  const size_t code_bytes = size_t(m * K / 2), scale_bytes = size_t(m * (K / G) * 4);
  DeviceBuffer<float> dx(dev, x);
  DeviceBuffer<uint8_t> c0(dev, filled(code_bytes)), c1(dev, filled(code_bytes)), sc(dev, filled(scale_bytes)),
      su(dev, filled(scale_bytes));
  const LaunchContract lc = dev.launch_contract(name);
  for (int64_t r0 = 0; r0 < m; r0 += per_row ? 1 : m) {
    const Launch l = lc.evaluate({{"m", per_row ? 1 : m}, {"k", K}});
    std::map<std::string, uint64_t> given = {{"x", dx.addr() + uint64_t(r0 * K * 4)},
                                             {g.scale_arg, sc.addr() + uint64_t(r0 * (K / G) * 4)}};
    const uint64_t codes_at = uint64_t(r0 * K / 2);
    if (g.int8) {
      given["ae"] = c0.addr() + codes_at;
      given["ao"] = c1.addr() + codes_at;
    } else {
      given["aq"] = c0.addr() + codes_at;
    }
    if (g.sums) given["asu"] = su.addr() + uint64_t(r0 * (K / G) * 4);
    launch(dev, name, l, lc.argv(l, given));
  }
  std::vector<CaseResult> parts;
  if (g.int8) {
    parts.push_back(compare_output(c0.download(), ref.even, "ae (even k)"));
    parts.push_back(compare_output(c1.download(), ref.odd, "ao (odd k)"));
  } else {
    parts.push_back(compare_output(c0.download(), ref.packed, "aq"));
  }
  parts.push_back(compare_output(sc.download(), ref.scale, std::string(g.scale_arg) + " (scale bits)"));
  if (g.sums) parts.push_back(compare_output(su.download(), ref.sum, "asu (group sums)"));
  return combine(parts);
}

KernelDef group_def(const GroupKernel& g) {
  KernelDef d = generated_kernel(g.family, g.signature, [&g](isa::Target t) { return build_group_kernel(t, g); });
  const int64_t G = g.group(), lanes = G / 8;
  const std::string gs = n_str(G), q = n_str(g.range.qmax), lo = n_str(g.range.lo), s = g.scale_arg;
  d.description =
      "Activation quantiser (" + std::string(g.format->name) + "), one " + gs + "-wide group per workgroup on a 2D grid "
      "(x = group, y = row): lane l takes 8 consecutive f32 of the group (lanes l & " + n_str(lanes - 1) + ", two "
      "16-byte loads), the group's amax is reduced over its " + n_str(lanes) + " lanes with DPP, s = amax / " + q +
      " and x / s are correctly rounded f32 divisions (v_div_scale, refined v_rcp_f32, v_div_fmas, v_div_fixup), the "
      "codes rint (ties to even) then clamp, and each lane packs and stores its own " +
      (g.int8 ? "even-k and odd-k int8 words" : "word of 8 nibbles") + "; lane 0 stores the scale" +
      (g.sums ? " and the group's code sum (DPP-reduced)" : "") + ". Bit-exact with quant::quantize_activations (" +
      g.format->name + "). The row is the workgroup id y: a 2D dispatch and per-row 1D launches (M = 1, pointers "
      "advanced to the row) give the same outputs.";
  d.semantics = "per row m, group j of " + gs + " k: " + s + "[m][j] = s = max|x| / " + q +
                " (1 if 0); q[m][k] = clamp(rint(x[m][k] / s), " + lo + ", " + q + "); " +
                (g.int8 ? "ae[m][k/2] = q (k even), ao[m][k/2] = q (k odd)"
                        : "aq[m][k/2] = nibbles of q, even k in the low nibble") +
                (g.sums ? "; asu[m][j] = sum of the group's q (int32)" : "");
  d.geometry = "[2D] grid = (K/" + gs + ", M), wg = " + n_str(g.workgroup) +
               " (lanes past " + n_str(lanes) + " store nothing); or per row: grid = K/" + gs +
               ", M = 1, pointers advanced by r*K*4 (x), r*K/2 (codes), r*K/" + gs + "*4 (" + s + (g.sums ? ", asu" : "") + ")";
  d.launch = "sizes m k\nworkgroup = " + n_str(g.workgroup) + "\ngrid = select((k % " + gs + ") == 0, k / " + gs +
             ", 0), m\narg M = m\narg K = k";
  d.limits = "K % " + gs + " == 0 (the contract refuses others: its grid is 0); workgroup >= " + n_str(lanes) +
             " threads (up to 64); workgroups past M rows or K/" + gs +
             " groups write nothing; x finite (NaN or infinite inputs are not defined)";
  d.tolerance = Tolerance{};
  d.cases = [G](bool sweep) {
    std::vector<Case> c = case_table({"m", "k", "per_row"}, {{1, G, 0}, {3, 3 * G, 0}, {5, 5 * G, 0}, {3, 3 * G, 1},
                                                            {2, 10 * G, 1}});
    if (sweep) {
      auto more = case_table({"m", "k", "per_row", "seed"}, {{7, 40 * G, 0, 11}, {4, 17 * G, 1, 12}});
      c.insert(c.end(), more.begin(), more.end());
    }
    return c;
  };
  d.run = [&g](TestDevice& dev, const Case& c) { return run_group(dev, g, c); };
  d.ideal_bytes = [&g](const Case& c) {
    const uint64_t m = uint64_t(c["m"]), K = uint64_t(c["k"]), groups = K / uint64_t(g.group());
    return m * K * 4 + m * K * (g.int8 ? 1 : 0) + m * K / 2 * (g.int8 ? 0 : 1) + m * groups * 4 * (g.sums ? 2 : 1);
  };
  d.bench_case = [] { return make_case({{"m", 1}, {"k", 5120}, {"per_row", 0}}); };
  return d;
}

// ---------------------------------------------------------------------------
// The prefill row quantisers.

// Row r of the case's input at x[r * stride + off + k].
struct RowInput {
  int64_t rows, K, G, stride, off;
  std::vector<float> x;
};

RowInput row_input(const Case& c, int64_t G, int qmax) {
  RowInput in{c["rows"], c["k"], G, c["k"] + c["pad"] + c["off"], c["off"], {}};  // rows do not overlap
  const std::vector<float> base = activation_rows(c.seed, in.rows, in.K, in.stride, G, qmax);
  in.x.assign(size_t(in.rows * in.stride + in.off), 0.5f);
  std::memcpy(in.x.data() + in.off, base.data(), base.size() * 4);  // the groups start at in_off
  return in;
}

// The case's launch: by the contract (wg = 0), or with the workgroup size the
// case names and the arguments packed by the signature.
void launch_rows(TestDevice& dev, RowsKind kind, const Case& c, const RowInput& in,
                 const std::map<std::string, uint64_t>& buffers) {
  const codegen::Signature sig = rows_signature(kind);
  std::map<std::string, uint64_t> given = buffers;
  given["in_stride"] = uint64_t(in.stride);
  given["in_off"] = uint64_t(in.off);
  const int64_t wg = c["wg"];
  if (!wg) {
    const LaunchContract lc = dev.launch_contract(sig.kernel());
    std::map<std::string, int64_t> sizes = {{"rows", in.rows}, {"k", in.K}};
    if (kind != RowsKind::Fast) sizes["g"] = in.G;
    const Launch l = lc.evaluate(sizes);
    launch(dev, sig.kernel(), l, lc.argv(l, given));
    return;
  }
  given["K"] = uint64_t(in.K);
  given["G"] = uint64_t(in.G);
  given["rows"] = uint64_t(in.rows);
  if (kind == RowsKind::Fast) given["NG"] = uint64_t(in.K / in.G);
  std::vector<uint64_t> argv;
  for (const codegen::Param& p : sig.params()) argv.push_back(given.at(p.name));
  dev.launch(sig.kernel(), {uint32_t(in.rows)}, {uint32_t(wg)}, argv);
}

CaseResult run_rows(TestDevice& dev, RowsKind kind, const Case& c) {
  const int64_t G = c["g"];
  const bool digits = kind == RowsKind::Digits;
  const RowInput in = row_input(c, G, digits ? 119 : 7);
  const size_t words = size_t(in.rows * in.K / 8), scales = size_t(in.rows * (in.K / G));
  DeviceBuffer<float> dx(dev, in.x);
  DeviceBuffer<uint8_t> q0(dev, filled(words * 4)), q1(dev, filled(words * 4)), s0(dev, filled(scales * 4)),
      s1(dev, filled(scales * 4));
  if (digits) {
    launch_rows(dev, kind, c, in,
                {{"qh", q0.addr()}, {"ql", q1.addr()}, {"sc", s0.addr()}, {"sc16", s1.addr()}, {"x", dx.addr()}});
    const DigitActivations ref = quantize_digits(in.x, in.rows, in.K, G, in.stride, in.off);
    return combine({compare_output(q0.download(), ref.qh, "qh (high digits)"),
                    compare_output(q1.download(), ref.ql, "ql (low digits)"),
                    compare_output(s0.download(), ref.sc, "sc (scale bits)"),
                    compare_output(s1.download(), ref.sc16, "sc16 (scale bits)")});
  }
  launch_rows(dev, kind, c, in, {{"q", q0.addr()}, {"sc", s0.addr()}, {"x", dx.addr()}});
  const quant::ActivationFormat f{"w4a4 prefill", uint32_t(G), 7, quant::ActivationCodes::Int4Packed,
                                  quant::ScaleOrder::GroupMajor, false};
  const quant::QuantizedActivations ref = quant::quantize_activations(f, in.x, in.rows, in.K, in.stride, in.off);
  return combine({compare_output(q0.download(), ref.packed, "q"), compare_output(s0.download(), ref.scale, "sc (scale bits)")});
}

KernelDef rows_def(RowsKind kind) {
  KernelDef d = generated_kernel("int4", rows_signature(kind), [kind](isa::Target t) { return build_rows_kernel(t, kind); });
  const bool digits = kind == RowsKind::Digits, fast = kind == RowsKind::Fast;
  const std::string common =
      " s = amax / " + std::string(digits ? "119" : "7") +
      " and x / s are correctly rounded f32 divisions (v_div_scale, refined v_rcp_f32, v_div_fmas, v_div_fixup), the "
      "codes rint (ties to even) then clamp; row r reads x[r * in_stride + in_off + k] (two 16-byte loads per 8 f32, "
      "4-byte alignment is enough).";
  if (fast) {
    d.description =
        "Prefill activation quantiser (int4, the W4A4 GEMM's operand): G/8 consecutive lanes quantise one group, 8 "
        "f32 each, the group's amax reduced over them with DPP, and each lane packs its 8 codes into one word of q; "
        "a workgroup of W threads holds W / (G/8) such slots (W from the dispatch packet), slot s taking the groups "
        "s, s + slots, ...; lane 0 of a slot stores the scale. G = 16, 32, 64 or 128 (one body each, chosen at run "
        "time)." + common + " Bit-exact with quant::quantize_activations (w4a4 prefill) and with quant_rows_k.";
    d.geometry = "grid = rows, wg = 256 (any W >= G/8 gives the same outputs)";
    d.launch = "sizes rows k\nworkgroup = select((k % 128) == 0, 256, 0)\ngrid = rows\narg K = k\narg G = 128\n"
               "arg rows = rows\narg NG = k / 128";
    d.limits = "G in {16, 32, 64, 128} (other G: nothing written) and NG = K/G (the contract: G = 128, K % 128 == 0); "
               "workgroup >= G/8 threads; rows, NG < 2^24; x finite";
  } else {
    d.description =
        std::string(digits ? "Prefill activation quantiser, int8 codes as two int4 digits for the W4A4 GEMM (run the "
                             "GEMM on qh with sc16 and on ql with sc, and add): q8 = clamp(rint(x / s), -128, 119) = "
                             "16 h + l with h = floor((q8 + 8) / 16), l = q8 - 16 h, both in [-8, 7]. "
                           : "Prefill activation quantiser (int4, the W4A4 GEMM's operand), serial form. ") +
        "Thread t takes the groups t, t + W, t + 2W, ... (W = the workgroup size from the dispatch packet: any "
        "workgroup size gives the same outputs, the catalog's K/G threads one group each): the group's G/8 units "
        "of 8 f32 walked twice, for the amax and for the codes, one packed word per unit." +
        common + (digits ? " Bit-exact with the host reference of the formula (kernels/w4act/digit_split_reference.h)."
                         : " Bit-exact with quant::quantize_activations (w4a4 prefill, group G).");
    d.geometry = "grid = rows, wg = K/G (one thread per group; any workgroup size gives the same outputs)";
    d.launch = "sizes rows k g\nworkgroup = select(((k % g) == 0) * ((g % 8) == 0), min(k / g, 1024), 0)\n"
               "grid = rows\narg K = k\narg G = g\narg rows = rows";
    d.limits = "K % G == 0 and G % 8 == 0 (the contract refuses others: its workgroup is 0); rows < 2^24, K < 2^24; "
               "x finite";
  }
  d.semantics = std::string("per row r, group g of G k: s = max|x| / ") + (digits ? "119" : "7") +
                " (1 if 0), q = clamp(rint(x / s), " + (digits ? "-128, 119); qh/ql[r][k/8] nibble k%8 = h/l of q = 16 h + l; "
                                                               "sc[g * rows + r] = s, sc16[g * rows + r] = 16 s"
                                                             : "-8, 7); q[r][k/8] nibble k%8 = q; sc[g * rows + r] = s");
  d.tolerance = Tolerance{};
  d.cases = [fast](bool sweep) {
    // wg 0: the contract's launch; others: a raw launch with that workgroup size.
    std::vector<Case> c = fast ? case_table({"rows", "k", "g", "pad", "off", "wg"},
                                            {{1, 128, 128, 0, 0, 0}, {3, 640, 128, 8, 3, 0}, {2, 2560, 128, 0, 1, 0},
                                             {3, 384, 64, 4, 1, 64}, {2, 320, 32, 0, 5, 100}, {2, 96, 16, 2, 0, 16},
                                             {2, 1024, 128, 0, 2, 512}})
                               : case_table({"rows", "k", "g", "pad", "off", "wg"},
                                            {{1, 128, 128, 0, 0, 0}, {3, 640, 128, 8, 3, 0}, {2, 384, 64, 0, 1, 0},
                                             {3, 96, 32, 4, 1, 0}, {2, 640, 128, 0, 0, 2}, {2, 512, 64, 0, 2, 3},
                                             {2, 256, 128, 0, 0, 64}});
    if (sweep) {
      auto more = case_table({"rows", "k", "g", "pad", "off", "wg", "seed"},
                             {{9, 5120, 128, 0, 0, 0, 21}, {5, 1280, 128, 16, 7, fast ? 192 : 7, 22}});
      c.insert(c.end(), more.begin(), more.end());
    }
    return c;
  };
  d.run = [kind](TestDevice& dev, const Case& c) { return run_rows(dev, kind, c); };
  d.ideal_bytes = [digits](const Case& c) {
    const uint64_t r = uint64_t(c["rows"]), K = uint64_t(c["k"]), groups = K / uint64_t(c["g"]);
    return r * K * 4 + r * K / 2 * (digits ? 2 : 1) + r * groups * 4 * (digits ? 2 : 1);
  };
  d.bench_case = [] {
    return make_case({{"rows", 2048}, {"k", 5120}, {"g", 128}, {"pad", 0}, {"off", 0}, {"wg", 0}});
  };
  return d;
}

}  // namespace

void register_quantisers(Registry& r) {
  for (const GroupKernel& g : group_kernels()) r.add(group_def(g));
  for (RowsKind k : {RowsKind::Serial, RowsKind::Fast, RowsKind::Digits}) r.add(rows_def(k));
}

}  // namespace w4act

void register_w4_activation_kernels(Registry& r) { w4act::register_quantisers(r); }

}  // namespace k100::kernels
