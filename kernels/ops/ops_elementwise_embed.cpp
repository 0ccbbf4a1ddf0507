// Token embedding lookups: embed_f16_k (f16 table) and embed_k (int4 table
// with f16 group scales). One workgroup per token; the workgroup's threads
// walk the row in 16-byte output pieces (thread t takes pieces t, t + W, ...,
// W = the workgroup size from the hidden block), four pieces per thread in
// flight: all loads first, then convert and store each piece as its data
// arrives. Every output store is a global_store_dwordx4 (a wave writes 1 KiB,
// 16 whole lines); the table reads are coalesced the same way (8 bytes of f16
// or 2 bytes of int4 per output piece).
#include "k100/quant/half.h"
#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kEmbedF16("embed_f16_k", {out("y", "f32"), in("ids", "u32"), in("table", "f16"), value("rows", "u32"),
                                          value("dim", "u32")},
                          codeobj::HiddenArgLayout::Compact);
const Signature kEmbedInt4("embed_k", {out("y", "f32"), in("tbl", "u32"), in("sc", "f16"), in("ids", "i32"),
                                       value("D", "i32"), value("G", "i32")},
                           codeobj::HiddenArgLayout::Full);

// The row's token id (workgroup id < rows), read by a scalar load.
SGPR token_id(Kernel& k, SGPR ids) {
  SGPR t = k.sgpr(1, "id offset"), id = k.sgpr(1, "token id");
  k.s_lshl_b32(t, k.workgroup_id(), 2);
  k.s_load_dword(id, ids, t);
  return id;
}

SGPR group_size(Kernel& k) {
  SGPR wg = k.sgpr(1, "group size");
  k.s_and_b32(wg, hidden_block(k)[3], 0xffff);
  return wg;
}

// embed_f16_k(y, ids, table, rows, dim): y[r][d] = f32(table[ids[r]][d]).
codeobj::CodeObject build_embed_f16(isa::Target target) {
  Kernel k(kEmbedF16, target, ops::options());
  const SGPR dim = k.arg("dim"), count = k.sgpr(1, "pieces"), t = k.sgpr(1, "t");
  const int batch = 4;
  const VGPR off = k.vgpr(1, "offset"), h = k.vgpr(2 * batch, "halves"), f = k.vgpr(4 * batch, "floats");
  Label exit = k.exit(), odd = k.label("odd_dim");
  k.s_cmp_ge_u32(k.workgroup_id(), k.arg("rows"));
  k.s_cbranch_scc1(exit);
  const SGPR id = token_id(k, k.arg("ids"));
  const BatchedWalk w0{count, group_size(k), batch, 1, 1, {}, {}};
  const SGPR dst = scaled_address(k, k.arg("y"), k.workgroup_id(), dim, 2);
  const SGPR src = scaled_address(k, k.arg("table"), id, dim, 1);
  // dim % 4 == 0: 4 halves (8 bytes) -> 4 floats per piece.
  BatchedWalk w = w0;
  k.s_and_b32(t, dim, 3);
  k.s_cbranch_scc1(odd);
  k.s_lshr_b32(count, dim, 2);
  w.load = [&](int j, VGPR u) {
    k.v_lshlrev_b32(off, 3, u);
    k.global_load_dwordx2(h.sub(2 * j, 2), off, src);
  };
  w.finish = [&](int j, VGPR u) {
    VGPR o = f.sub(4 * j, 4);
    for (int c = 0; c < 4; ++c) f16_to_f32(k, o[c], h[2 * j + c / 2], c % 2);
    k.v_lshlrev_b32(off, 4, u);
    k.global_store_dwordx4(off, o, dst);
  };
  batched_walk(k, w);
  k.s_branch(exit);
  // Any other dim: one half -> one float per unit.
  k.bind(odd);
  k.s_mov_b32(count, dim);
  w.load = [&](int j, VGPR u) {
    k.v_lshlrev_b32(off, 1, u);
    k.global_load_ushort(h[j], off, src);
  };
  w.finish = [&](int j, VGPR u) {
    k.v_cvt_f32_f16(f[j], h[j]);
    k.v_lshlrev_b32(off, 2, u);
    k.global_store_dword(off, f[j], dst);
  };
  batched_walk(k, w);
  return k.build();
}

// embed_k(y, tbl, sc, ids, D, G): y[r][d] = nibble(tbl[id][d / 8], d % 8) * f32(sc[id][d / G]),
// id = ids[r], r = workgroup id; nibbles two's complement, low nibble first.
codeobj::CodeObject build_embed_int4(isa::Target target) {
  Kernel k(kEmbedInt4, target, ops::options(0, 4));
  const SGPR D = k.arg("D"), G = k.arg("G");
  const SGPR t = k.sgpr(1, "t"), count = k.sgpr(1, "pieces"), words = k.sgpr(1, "words");
  const int batch = 4;
  const VGPR word = k.vgpr(batch, "words"), shift = k.vgpr(batch, "shifts"), scale = k.vgpr(4 * batch, "scales"),
             out = k.vgpr(4 * batch, "out"), element = k.vgpr(1, "element"), off = k.vgpr(1, "offset");
  Label exit = k.exit(), per_element = k.label("per_element");
  // D > 0, D % 8 == 0, G > 0, D % G == 0; otherwise nothing is written.
  k.s_cmp_lt_i32(D, 8);
  k.s_cbranch_scc1(exit);
  k.s_and_b32(t, D, 7);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(G, 1);
  k.s_cbranch_scc1(exit);
  const Divider div = make_divider(k, G);
  const SGPR groups = divide_scalar(k, div, D);
  k.s_mul_i32(t, groups, G);
  k.s_cmp_lg_u32(t, D);
  k.s_cbranch_scc1(exit);
  const SGPR id = token_id(k, k.arg("ids"));
  k.s_lshr_b32(words, D, 3);
  k.s_lshr_b32(count, D, 2);  // 4-element pieces
  const SGPR yrow = scaled_address(k, k.arg("y"), k.workgroup_id(), D, 2);
  const SGPR wrow = scaled_address(k, k.arg("tbl"), id, words, 2), srow = scaled_address(k, k.arg("sc"), id, groups, 1);

  // Piece u covers elements 4u..4u+3: word u / 2, nibbles from bit 16 (u & 1).
  auto load_word = [&](int j, VGPR u) {
    k.v_lshlrev_b32(off, 1, u);
    k.v_and_b32(off, ~3u, off);
    k.global_load_dword(word[j], off, wrow);
  };
  const Quotient qr{k.vgpr(1, "group"), k.vgpr(1, "in group")};
  const VGPR qt = k.vgpr(1, "correction");
  auto load_scale = [&](VGPR dst, VGPR e) {
    divide_into(k, div, e, qr, qt);
    k.v_lshlrev_b32(off, 1, qr.q);
    k.global_load_ushort(dst, off, srow);
  };
  auto finish = [&](int j, VGPR u, bool per_element_scales) {
    VGPR o = out.sub(4 * j, 4), s4 = scale.sub(4 * j, 4);
    k.v_and_b32(shift[j], 1, u);
    k.v_lshlrev_b32(shift[j], 4, shift[j]);
    for (int c = 0; c < 4; ++c) {
      if (c) k.v_add_u32(shift[j], 4, shift[j]);
      k.v_bfe_i32(o[c], word[j], shift[j], 4);
      k.v_cvt_f32_i32(o[c], o[c]);
    }
    for (int c = 0; c < (per_element_scales ? 4 : 1); ++c) k.v_cvt_f32_f16(s4[c], s4[c]);
    for (int c = 0; c < 4; ++c) k.v_mul_f32(o[c], o[c], s4[per_element_scales ? c : 0]);
    k.v_lshlrev_b32(off, 4, u);
    k.global_store_dwordx4(off, o, yrow);
  };
  BatchedWalk w{count, group_size(k), batch, 2, 1, {}, {}};
  // G % 4 == 0: one scale per piece.
  k.s_and_b32(t, G, 3);
  k.s_cbranch_scc1(per_element);
  w.load = [&](int j, VGPR u) {
    load_word(j, u);
    k.v_lshlrev_b32(element, 2, u);
    load_scale(scale[4 * j], element);
  };
  w.finish = [&](int j, VGPR u) { finish(j, u, false); };
  batched_walk(k, w);
  k.s_branch(exit);
  // Other G: one scale per element.
  k.bind(per_element);
  w.loads = 5;
  w.load = [&](int j, VGPR u) {
    load_word(j, u);
    for (int c = 0; c < 4; ++c) {
      k.v_lshlrev_b32(element, 2, u);
      if (c) k.v_add_u32(element, c, element);
      load_scale(scale[4 * j + c], element);
    }
  };
  w.finish = [&](int j, VGPR u) { finish(j, u, true); };
  batched_walk(k, w);
  return k.build();
}

// ------------------------------------------------------------------ tests

void add_embed_f16(Registry& reg) {
  KernelDef d = generated_kernel("ops", kEmbedF16, build_embed_f16);
  d.description =
      "Token embedding lookup from an f16 table [vocab][dim] into f32 rows, bit-exact (v_cvt_f32_f16; f16 "
      "denormals become normal f32 values). One workgroup per token: with dim % 4 == 0 each thread converts "
      "8-byte pieces (global_load_dwordx2 -> 4 x v_cvt_f32_f16 -> global_store_dwordx4), four pieces in flight; "
      "any other dim goes one half per thread. Any workgroup size (read from the hidden block).";
  d.semantics = "y[r][d] = f32(table[ids[r]][d]) for r < rows, d < dim";
  d.geometry = "grid = rows (workgroups past rows do nothing), wg = 64 (any)";
  d.launch = "sizes rows\nworkgroup = 64\ngrid = rows";
  d.limits = "ids[r] < vocab (not checked: the table size is not an argument); dim * 4 bytes < 4 GiB";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"rows", "dim", "vocab", "wg", "grid"}, {{1, 4, 3, 64, 1}, {5, 640, 40, 64, 5},
                                                                             {3, 101, 7, 64, 4},
                                                                             {4, 1030, 9, 96, 4}});
    if (sweep) {
      uint32_t seed = 30;
      for (int64_t dim : {1, 2, 3, 4, 63, 64, 65, 256, 1000, 1024, 4095, 5120, 8192})
        for (int64_t wg : {32, 64, 256, 1024})
          c.push_back(make_case({{"rows", 7}, {"dim", dim}, {"vocab", 50}, {"wg", wg}, {"grid", 9}}, seed++));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t rows = c["rows"], dim = c["dim"], vocab = c["vocab"];
    Rng rng(c.seed);
    auto table = random_halves(rng, size_t(vocab * dim));
    auto idv = rng.integers(size_t(rows), 0, int32_t(vocab - 1));
    std::vector<uint32_t> ids(idv.begin(), idv.end());
    std::vector<float> want(size_t(rows * dim));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t e = 0; e < dim; ++e) want[size_t(r * dim + e)] = quant::f16_to_f32(table[size_t(ids[size_t(r)] * dim + e)]);
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(size_t(rows * dim), 0.f)));
    DeviceBuffer<uint32_t> did(dev, ids);
    DeviceBuffer<uint16_t> dt(dev, table);
    launch(dev, kEmbedF16, {uint32_t(c["grid"])}, {uint32_t(c["wg"])},
               {y.addr(), did.addr(), dt.addr(), rows, dim});
    return compare_guarded(y.download(), want, Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * (c["dim"] * 6 + 4)); };
  d.bench_case = [] { return make_case({{"rows", 64}, {"dim", 5120}, {"vocab", 1024}, {"wg", 64}, {"grid", 64}}); };
  reg.add(std::move(d));
}

// The documented formula: tbl [V][D/8] u32, nibble d % 8 of word d / 8 (low
// nibble first, two's complement), times the f16 scale sc[id][d / G].
std::vector<float> embed_int4_reference(const std::vector<uint32_t>& tbl, const std::vector<uint16_t>& sc,
                                        const std::vector<int32_t>& ids, int64_t D, int64_t G) {
  std::vector<float> y(ids.size() * size_t(D));
  for (size_t r = 0; r < ids.size(); ++r)
    for (int64_t e = 0; e < D; ++e) {
      uint32_t w = tbl[size_t(ids[r] * (D / 8) + e / 8)];
      int32_t nib = int32_t((w >> (4 * (e % 8))) & 15);
      if (nib >= 8) nib -= 16;
      y[r * size_t(D) + size_t(e)] = float(nib) * quant::f16_to_f32(sc[size_t(ids[r] * (D / G) + e / G)]);
    }
  return y;
}

void add_embed_int4(Registry& reg) {
  KernelDef d = generated_kernel("ops", kEmbedInt4, build_embed_int4);
  d.description =
      "Token embedding lookup from an int4 table with f16 group scales, bit-exact (a nibble times an f16 scale "
      "is exact in f32). Row ids[r] of tbl ([V][D/8] u32, 8 two's-complement nibbles per word, low nibble "
      "first) times its scale per G elements (sc [V][D/G] f16). One workgroup per token (the token count is the "
      "grid); each thread makes 4 floats per piece from half a word (v_bfe_i32) and one scale (G % 4 == 0) or "
      "four (other G), four pieces in flight, one global_store_dwordx4 each. The lane/row mapping of the "
      "original was never reverse-engineered; this is the documented formula.";
  d.semantics = "y[r][d] = sext4((tbl[ids[r]][d/8] >> 4 (d%8)) & 15) * f32(sc[ids[r]][d/G]), r < grid, d < D";
  d.geometry = "grid = number of tokens, wg = 256 (any workgroup size)";
  d.launch = "sizes tokens\nworkgroup = 256\ngrid = tokens";
  d.limits = "D % 8 == 0, G >= 1, D % G == 0 (otherwise nothing is written); 0 <= ids[r] < V (not checked)";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"tokens", "D", "G", "vocab", "wg"}, {{1, 8, 8, 2, 256}, {3, 640, 32, 20, 256},
                                                                          {2, 120, 6, 5, 64}, {4, 2056, 8, 9, 96},
                                                                          {2, 12, 4, 3, 64}});
    if (sweep) {
      uint32_t seed = 40;
      for (auto [D, G] : std::vector<std::pair<int64_t, int64_t>>{{8, 1},      {8, 2},       {16, 16},   {64, 32},
                                                                  {96, 12},    {96, 3},      {264, 8},   {1000, 40},
                                                                  {2048, 128}, {5120, 32},   {5120, 64}, {8192, 128},
                                                                  {40, 5},     {4096, 4096}, {12, 4},    {64, 7}})
        for (int64_t wg : {64, 256, 1000})
          c.push_back(make_case({{"tokens", 5}, {"D", D}, {"G", G}, {"vocab", 33}, {"wg", wg}}, seed++));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    const int64_t tokens = c["tokens"], D = c["D"], G = c["G"], vocab = c["vocab"];
    const bool valid = D % 8 == 0 && D % G == 0;
    Rng rng(c.seed);
    std::vector<uint32_t> tbl(size_t(vocab * std::max<int64_t>(D / 8, 1)));
    for (auto& w : tbl) w = rng.engine()();
    auto sc = random_halves(rng, size_t(vocab * std::max<int64_t>(D / G, 1)));
    auto ids = rng.integers(size_t(tokens), 0, int32_t(vocab - 1));
    std::vector<float> want = valid ? embed_int4_reference(tbl, sc, ids, D, G) : std::vector<float>(size_t(tokens * D), 0.f);
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(size_t(tokens * D), 0.f)));
    DeviceBuffer<uint32_t> dt(dev, tbl);
    DeviceBuffer<uint16_t> ds(dev, sc);
    DeviceBuffer<int32_t> di(dev, ids);
    launch(dev, kEmbedInt4, {uint32_t(tokens)}, {uint32_t(c["wg"])},
               {y.addr(), dt.addr(), ds.addr(), di.addr(), D, G});
    return compare_guarded(y.download(), want, Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["tokens"] * (c["D"] / 2 + 2 * c["D"] / c["G"] + 4 * c["D"] + 4));
  };
  d.bench_case = [] { return make_case({{"tokens", 64}, {"D", 5120}, {"G", 32}, {"vocab", 1024}, {"wg", 256}}); };
  reg.add(std::move(d));
}

}  // namespace

void register_ops_elementwise_embed_kernels(Registry& r) {
  add_embed_f16(r);
  add_embed_int4(r);
}

}  // namespace k100::kernels
