// The entries of fa_decode_rows_k and fa_decode_rows_comb_k: the row-batched
// causal form of packed-KV decode attention (up to 4 query rows, e.g. a
// speculative-verify batch). The test is the form's promise: row r's
// partials and output are bit-identical to fa_decode_k (+ fa_decode_comb_k)
// over n_kv0 + r keys of the cache as a single-row decode would have seen it
// (its last V tile quantised against its own prefix by the format's append,
// k100/quant/packed_kv.h, and its snapshot that append's staging tile), and
// close to the f64 attention reference.
#include <cmath>
#include <span>

#include "attention/flash_decode_kernels.h"
#include "attention/flash_decode_operands.h"
#include "k100/quant/packed_kv.h"

namespace k100::kernels::flash_decode {

namespace {

const float kUnwritten = std::nanf("");

const char* kRowsContract =
    "sizes n_heads n_kv0 n_rows kv_cap ratio max_split\n"
    "choose force_split = 0\n"
    "choose sc_stride = max_split\n"
    "let kv_cap_multiple_of_64 = 1 / (kv_cap % 64 == 0)\n"
    "let kv_cap_below_2_pow_23 = 1 / ((kv_cap >= 64) * (kv_cap < 8388608))\n"
    "let n_rows_from_1_to_4 = 1 / ((n_rows >= 1) * (n_rows <= 4))\n"
    "let keys_within_kv_cap = 1 / ((n_kv0 >= 0) * (n_kv0 + n_rows - 1 <= kv_cap))\n"
    "let ratio_divides_n_heads = 1 / ((ratio >= 1) * (n_heads % ratio == 0))\n"
    "let max_split_at_least_1 = 1 / (max_split >= 1)\n"
    "let force_split_at_most_max_split = 1 / ((force_split >= 0) * (force_split <= max_split))\n"
    "let sc_stride_at_least_max_split = 1 / (sc_stride >= max_split)\n"
    "workgroup = 256\n"
    "grid = n_heads, max_split, n_rows\n"
    "arg n_kv0 = n_kv0\narg kv_cap = kv_cap\narg ratio = ratio\narg max_split = max_split\n"
    "arg force_split = force_split\narg sc_stride = sc_stride\narg n_heads = n_heads\n"
    "arg sc_row_stride = n_heads * sc_stride * 256";

const char* kRowsCombineContract =
    "sizes n_heads n_kv0 n_rows max_split out_stride out_row_stride\n"
    "choose force_split = 0\n"
    "choose sc_stride = max_split\n"
    "let n_rows_from_1_to_4 = 1 / ((n_rows >= 1) * (n_rows <= 4))\n"
    "let n_kv0_not_negative = 1 / (n_kv0 >= 0)\n"
    "let max_split_at_least_1 = 1 / (max_split >= 1)\n"
    "let force_split_at_most_max_split = 1 / ((force_split >= 0) * (force_split <= max_split))\n"
    "let sc_stride_at_least_max_split = 1 / (sc_stride >= max_split)\n"
    "let out_stride_at_least_256 = 1 / (out_stride >= 256)\n"
    "let out_row_stride_at_least_heads = 1 / (out_row_stride >= n_heads * out_stride)\n"
    "workgroup = 256\n"
    "grid = n_heads, n_rows\n"
    "arg n_kv0 = n_kv0\narg n_heads = n_heads\narg max_split = max_split\narg force_split = force_split\n"
    "arg sc_stride = sc_stride\narg out_stride = out_stride\narg out_row_stride = out_row_stride";

Tolerance rows_tolerance() { return Tolerance{1e-4, 1e-4}; }

CaseResult run_rows(TestDevice& dev, const Case& c) {
  const int64_t n_heads = c["n_heads"], ratio = c["ratio"], kv_heads = n_heads / ratio, n_kv0 = c["n_kv0"],
                n_rows = c["n_rows"], max_split = c["max_split"], force = c["force_split"], snap = c["snap"];
  const int64_t n_total = n_kv0 + n_rows - 1, kv_cap = (n_total + 63) / 64 * 64 + 64;
  const int64_t sc_stride = max_split + dim(c, "stride_pad", 0), snap_stride = kv_heads * kTileKeys * kHeadDim + 7;
  const int64_t out_stride = kHeadDim + dim(c, "out_pad", 0), out_row_stride = n_heads * out_stride + 5;
  // V: f32 rows [key][kv head][256] appended by the format's own append (k100/quant/packed_kv.h), for the
  // whole batch and for each row's own prefix; a row's snapshot is its cache's staging tile
  Rng rng(c.seed + 11);
  const std::vector<float> vals = rng.normal(size_t(n_total * kv_heads * kHeadDim));
  auto appended = [&](int64_t keys) {
    quant::PackedKvCache pk(kv_heads, kv_cap, kHeadDim, kScaleGroup);
    pk.append_v(std::span<const float>(vals).first(size_t(keys * kv_heads * kHeadDim)), 0, keys);
    return pk;
  };
  PackedCache full = random_cache(kv_heads, kv_cap, n_total, c.seed);
  {
    const quant::PackedKvCache pk = appended(n_total);
    full.vc = pk.v_codes;
    full.vsc = pk.v_scales;
  }
  std::vector<float> vsnap(size_t(n_rows * snap_stride), kUnwritten);
  std::vector<PackedCache> own_caches;
  for (int64_t r = 0; r < n_rows; ++r) {
    const quant::PackedKvCache pk = appended(n_kv0 + r);
    std::copy(pk.v_stage.begin(), pk.v_stage.end(), vsnap.begin() + r * snap_stride);
    own_caches.push_back(full);
    if (snap) {
      own_caches.back().vc = pk.v_codes;
      own_caches.back().vsc = pk.v_scales;
    }
  }
  const PackedQueries q =
      random_queries({n_heads, n_rows, dim(c, "dw_pad", 0), dim(c, "sc_pad", 0), dim(c, "sc_row_step", 1)}, c.seed + 7);
  const size_t slots = size_t(n_rows * n_heads * sc_stride);
  DeviceBuffer<uint32_t> dq(dev, q.q), dk(dev, full.kc), dv(dev, full.vc);
  DeviceBuffer<float> dqs(dev, q.qsc), dks(dev, full.ksc), dvs(dev, full.vsc), dsnap(dev, vsnap),
      dpo(dev, std::vector<float>(slots * kHeadDim, kUnwritten)), dpm(dev, std::vector<float>(slots, kUnwritten)),
      dps(dev, std::vector<float>(slots, kUnwritten)),
      dout(dev, std::vector<float>(size_t(n_rows * out_row_stride), kUnwritten));
  const std::map<std::string, int64_t> choices = {{"force_split", force}, {"sc_stride", sc_stride}};
  contract_launch(dev, "fa_decode_rows_k",
                  {{"n_heads", n_heads}, {"n_kv0", n_kv0}, {"n_rows", n_rows}, {"kv_cap", kv_cap}, {"ratio", ratio},
                   {"max_split", max_split}},
                  choices,
                  {{"pout", dpo.addr()}, {"pmax", dpm.addr()}, {"psum", dps.addr()}, {"q", dq.addr()},
                   {"qsc", dqs.addr()}, {"k", dk.addr()}, {"ksc", dks.addr()}, {"v", dv.addr()}, {"vsc", dvs.addr()},
                   {"vsnap", snap ? dsnap.addr() : 0}, {"vsnap_row_stride", uint64_t(snap_stride)},
                   {"q_dw_stride", uint64_t(q.dw_stride)}, {"q_sc_stride", uint64_t(q.sc_stride)},
                   {"q_sc_row", uint64_t(q.sc_row)}, {"q_row_stride", uint64_t(q.row_stride)},
                   {"arg23", uint64_t(q.sc_row_step)}});
  contract_launch(dev, "fa_decode_rows_comb_k",
                  {{"n_heads", n_heads}, {"n_kv0", n_kv0}, {"n_rows", n_rows}, {"max_split", max_split},
                   {"out_stride", out_stride}, {"out_row_stride", out_row_stride}},
                  choices, {{"out", dout.addr()}, {"pout", dpo.addr()}, {"pmax", dpm.addr()}, {"psum", dps.addr()}});
  const SplitPartials rows{dpo.download(), dpm.download(), dps.download()};
  const std::vector<float> rows_out = dout.download();

  // each row against fa_decode_k + fa_decode_comb_k over its own view of the cache
  std::vector<CaseResult> results;
  for (int64_t r = 0; r < n_rows; ++r) {
    const int64_t n_kv = n_kv0 + r, ns = row_split_count(n_kv, max_split, force);
    const PackedCache& own = own_caches[size_t(r)];
    DeviceBuffer<uint32_t> ov(dev, own.vc);
    DeviceBuffer<float> ovs(dev, own.vsc), spo(dev, size_t(n_heads * ns * kHeadDim)), spm(dev, size_t(n_heads * ns)),
        sps(dev, size_t(n_heads * ns)), sout(dev, std::vector<float>(size_t(n_heads * out_stride), kUnwritten));
    contract_launch(dev, "fa_decode_k",
                    {{"n_heads", n_heads}, {"n_kv", n_kv}, {"kv_cap", kv_cap}, {"ratio", ratio}, {"splits", ns}}, {},
                    {{"pout", spo.addr()}, {"pmax", spm.addr()}, {"psum", sps.addr()},
                     {"q", dq.addr() + uint64_t(4 * r * q.row_stride)}, {"qsc", dqs.addr() + uint64_t(4 * r * q.sc_row_step)},
                     {"k", dk.addr()}, {"ksc", dks.addr()}, {"v", ov.addr()}, {"vsc", ovs.addr()},
                     {"q_dw_stride", uint64_t(q.dw_stride)}, {"q_sc_stride", uint64_t(q.sc_stride)},
                     {"q_sc_row", uint64_t(q.sc_row)}});
    contract_launch(dev, "fa_decode_comb_k", {{"n_heads", n_heads}, {"splits", ns}, {"out_stride", out_stride}}, {},
                    {{"out", sout.addr()}, {"pout", spo.addr()}, {"pmax", spm.addr()}, {"psum", sps.addr()}});
    // the row's slots: splits s < ns as the single-row run wrote them, the others untouched
    std::vector<float> got_o, want_o, got_m, want_m, got_l, want_l;
    const auto single_o = spo.download(), single_m = spm.download(), single_l = sps.download();
    for (int64_t h = 0; h < n_heads; ++h)
      for (int64_t s = 0; s < sc_stride; ++s) {
        const size_t slot = size_t((r * n_heads + h) * sc_stride + s), one = size_t(h * ns + s);
        got_m.push_back(rows.pmax[slot]);
        got_l.push_back(rows.psum[slot]);
        want_m.push_back(s < ns ? single_m[one] : kUnwritten);
        want_l.push_back(s < ns ? single_l[one] : kUnwritten);
        for (int64_t d = 0; d < kHeadDim; ++d) {
          got_o.push_back(rows.pout[slot * kHeadDim + size_t(d)]);
          want_o.push_back(s < ns ? single_o[one * kHeadDim + size_t(d)] : kUnwritten);
        }
      }
    const auto single_out = sout.download();
    const std::vector<float> row_out(rows_out.begin() + r * out_row_stride,
                                     rows_out.begin() + r * out_row_stride + n_heads * out_stride);
    std::vector<float> want_ref(size_t(n_heads * out_stride), kUnwritten);
    const auto att = attention_reference(q, own, n_heads, ratio, n_kv, r);
    for (int64_t h = 0; h < n_heads; ++h)
      std::copy_n(att.begin() + h * kHeadDim, kHeadDim, want_ref.begin() + h * out_stride);
    for (CaseResult x : {compare_bits(got_o, want_o), compare_bits(got_m, want_m), compare_bits(got_l, want_l),
                         compare_bits(row_out, single_out), compare(row_out, want_ref, rows_tolerance())}) {
      if (!x.pass) x.note = "row " + std::to_string(r) + ": " + x.note;
      results.push_back(x);
    }
  }
  // the gaps between output rows are not written
  for (int64_t r = 0; r < n_rows; ++r)
    for (int64_t i = n_heads * out_stride; i < out_row_stride && r * out_row_stride + i < int64_t(rows_out.size()); ++i)
      if (!std::isnan(rows_out[size_t(r * out_row_stride + i)])) {
        CaseResult x;
        x.compared = 1;
        x.note = "fa_decode_rows_comb_k wrote between rows";
        results.push_back(x);
      }
  return combine(results);
}

Case rows_dims(int64_t n_heads, int64_t ratio, int64_t n_kv0, int64_t n_rows, int64_t max_split, int64_t force,
               int64_t snap, uint32_t seed, std::map<std::string, int64_t> more = {}) {
  more.insert({{"n_heads", n_heads}, {"ratio", ratio}, {"n_kv0", n_kv0}, {"n_rows", n_rows},
               {"max_split", max_split}, {"force_split", force}, {"snap", snap}});
  return make_case(more, seed);
}

std::vector<Case> rows_cases() {
  return {
      rows_dims(6, 6, 1, 4, 4, 0, 1, 1, {{"dw_pad", 3}}),
      rows_dims(12, 6, 62, 4, 2, 0, 1, 2, {{"sc_row_step", 2}, {"sc_pad", 1}}),  // rows of 62 .. 65 keys
      rows_dims(2, 1, 447, 4, 4, 0, 1, 3, {{"stride_pad", 1}, {"out_pad", 4}}),  // 7 tiles, then 8: 1 split, then 2
      rows_dims(6, 6, 130, 3, 4, 3, 1, 4),                                       // force_split 3
      rows_dims(6, 6, 100, 4, 4, 0, 0, 5),                                       // no snapshot
      rows_dims(6, 6, 8190, 4, 4, 0, 1, 6),  // 128 tiles and more: six heads per workgroup, with the snapshot
  };
}

void add_rows(Registry& reg) {
  KernelDef d = generated_kernel("attention", kRowsSig, [](isa::Target t) { return build_attend(t, true); });
  d.description =
      "Row-batched causal form of fa_decode_k for up to 4 query rows (a speculative-verify batch): workgroup "
      "(h, s, r) of the 3D grid (n_heads, max_split, n_rows) attends query row r over its n_kv = n_kv0 + r keys. "
      "Row r's split count ns_r: 1, doubled while ceil(n_kv / 64) >= 8 ns_r and ns_r < max_split; force_split > 0 "
      "replaces it. Workgroups with s >= ns_r write nothing; the others walk the tiles of fa_decode_k's partition "
      "for ns_r splits. Query row r: codes at q + h q_dw_stride + r q_row_stride words, group scale gr at "
      "qsc[h q_sc_stride + gr q_sc_row + r arg23] (arg23 = the scales' row step: 1 for the [h][2][TP] layout of "
      "attn_q_quant_k). Scratch: pmax / psum at (r n_heads + h) sc_stride + s, pout at r sc_row_stride + "
      "(h sc_stride + s) 256 floats (the contract derives sc_row_stride = n_heads sc_stride 256, the layout "
      "fa_decode_rows_comb_k reads). vsnap (0: not used): per row r at vsnap + r vsnap_row_stride floats, "
      "[kv head][64][256] f32, the values of the tile holding key n_kv - 1 (keys of the tile below n_kv are "
      "read, the rest never); that tile is re-quantised against the row's own keys of it exactly as the KV "
      "append does (scale = amax / 127, 1 for an all-zero column; code = clamp(rint(x / scale), -127, 127), "
      "IEEE division), so row r's partials are bit-identical to fa_decode_k (n_split = ns_r) over a cache whose "
      "last tile holds n_kv keys.";
  d.semantics = "per row r: fa_decode_k over n_kv0 + r keys with n_split = ns_r, last V tile from vsnap when given";
  d.geometry = "[3D] grid = (n_heads, max_split, n_rows <= 4), wg = 256 (exactly; other sizes write nothing)";
  d.launch = kRowsContract;
  d.limits = "head_dim 256; 1 <= n_rows <= 4; kv_cap % 64 == 0; n_kv0 + n_rows - 1 <= kv_cap; ratio divides "
             "n_heads; 0 <= force_split <= max_split; sc_stride >= max_split (refused by the contract); strides "
             "and vsnap_row_stride below 2^32 elements";
  d.tolerance = rows_tolerance();
  d.cases = [](bool) { return rows_cases(); };
  d.run = run_rows;
  d.ideal_bytes = [](const Case& c) {
    // the K and V (codes and scales) of the longest row, the rows' snapshots and queries, the partials
    const uint64_t kv_heads = uint64_t(c["n_heads"] / c["ratio"]), rows = uint64_t(c["n_rows"]);
    const uint64_t keys = uint64_t(c["n_kv0"]) + rows - 1, tiles = (keys + 63) / 64;
    return kv_heads * (keys * (256 + 8) + tiles * (64 * 256 + 1024)) + rows * kv_heads * 64 * 1024 +
           rows * uint64_t(c["n_heads"]) * (264 + uint64_t(c["max_split"]) * 1032);
  };
  d.bench_case = [] { return rows_dims(24, 6, 4093, 4, 8, 0, 1, 1); };
  reg.add(std::move(d));
}

void add_rows_combine(Registry& reg) {
  KernelDef d = generated_kernel("attention", kRowsCombineSig, [](isa::Target t) { return build_combine(t, true); });
  d.description =
      "Row-batched combine for fa_decode_rows_k: workgroup (h, r) of the 2D grid (n_heads, n_rows) recomputes "
      "row r's split count ns_r from n_kv0 + r (as fa_decode_rows_k) and combines slots (r n_heads + h) "
      "sc_stride + s, s < ns_r, exactly as fa_decode_comb_k (same arithmetic, same order) into "
      "out[r out_row_stride + h out_stride + t] (out_row_stride in floats).";
  d.semantics = "M = max_s pmax; a_s = exp(pmax_s - M); out = sum a_s pout_s / sum a_s psum_s over row r's ns_r "
                "splits, written when the denominator > 0";
  d.geometry = "[2D] grid = (n_heads, n_rows), wg = 256 (exactly; other sizes write nothing)";
  d.launch = kRowsCombineContract;
  d.limits = "head_dim 256; out_stride >= 256, out_row_stride >= n_heads out_stride (refused by the contract)";
  d.tolerance = rows_tolerance();
  // tested with fa_decode_rows_k (bit-identical to fa_decode_comb_k per row, and against the reference)
  d.cases = [](bool) { return std::vector<Case>{rows_cases()[1], rows_cases()[2], rows_cases()[3]}; };
  d.run = run_rows;
  d.bench_case = [] { return rows_dims(24, 6, 4093, 4, 8, 0, 1, 1); };
  reg.add(std::move(d));
}

}  // namespace

void register_rows_entries(Registry& r) {
  add_rows(r);
  add_rows_combine(r);
}

}  // namespace flash_decode
