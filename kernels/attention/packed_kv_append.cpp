// The writers of the packed KV format (KERNELS.md 3.7, 4.6; docs/PACKED_KV.md):
// attn_q_quant_k (queries), kv_append_k_k (keys), kv_append_v_k (values,
// transposed, re-quantised per 64-key tile). All three are compared bit for
// bit with quant::PackedQuery / quant::PackedKvCache.
//
// attn_q_quant_k: a grid-stride loop (any grid) over the T * H * D/G groups,
// 16 lanes per group for G = 128, one lane per group otherwise. kv_append_k_k: workgroup (t, h) of the
// 2D grid (T, H) quantises one key row: for G = 128 (D <= 512) with 16 lanes
// per group (all 64 lanes of the wave exist whatever the D/G threads the
// workgroup launched), otherwise one lane per group. kv_append_v_k: one
// workgroup per kv head, one lane per dim; per 64-key tile the lane loads the
// tile's 64 values of its dim into registers (staged keys from `stage`, new
// ones from vf, invalid keys read as 0), takes their max, writes the scale
// and the 16 words, then stages its new values. A lane only ever touches its
// own column of `stage`, so the workgroup needs no barrier.
#include <algorithm>
#include <cstring>
#include <string>

#include "attention/packed_kv_kernels.h"
#include "attention/packed_kv_quantiser.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/packed_kv.h"

namespace k100::kernels::attention {

namespace {

using namespace codegen;

const Signature kQQuant("attn_q_quant_k",
                        {out("qq", "u32"), out("qs", "f32"), in("x", "f32"), value("T", "i32"), value("H", "i32"),
                         value("D", "i32"), value("G", "i32"), value("TP", "i32")},
                        HiddenArgLayout::Full);

const Signature kAppendK("kv_append_k_k", {out("kc", "u32"), out("ksc", "f32"), in("kf", "f32"), value("t0", "i32"),
                                           value("T", "i32"), value("H", "i32"), value("D", "i32"),
                                           value("G", "i32"), value("kv_total", "i32")});

const Signature kAppendV("kv_append_v_k", {out("vc", "u32"), out("vsc", "f32"), inout("stage", "f32"),
                                           in("vf", "f32"), value("t0", "i32"), value("T", "i32"),
                                           value("H", "i32"), value("D", "i32"), value("BG", "i32"),
                                           value("kv_total", "i32")});

// ---------------------------------------------------------------- generators

codeobj::CodeObject build_q_quant(isa::Target target) {
  Kernel k(kQQuant, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  const SGPR G = k.arg("G"), D = k.arg("D"), H = k.arg("H"), TP = k.arg("TP"), hid = hidden_block(k);
  const SGPR ng = k.sgpr(1, "groups per row"), count = k.sgpr(1, "groups"), g4 = k.sgpr(1, "4 G");
  const VGPR gi = k.vgpr(1, "group index"), row = k.vgpr(1, "qq row"), sidx = k.vgpr(1, "scale index");
  const Grid g = grid_geometry(k, hid);
  const Divider by_g = make_divider(k, G);
  k.s_mov_b32(ng, divide_scalar(k, by_g, D));
  k.s_mul_i32(count, k.arg("T"), H);
  k.s_mul_i32(count, count, ng);
  k.s_lshl_b32(g4, G, 2);
  const Divider by_ng = make_divider(k, ng), by_h = make_divider(k, H);
  // G = 128 (the fa_* kernels' groups): 16 lanes per group, 8 floats each, so
  // a wave's loads are contiguous; other G: one lane per group.
  k.s_cmp_eq_u32(G, 128);
  k.if_(Cond::Scc1);
  {
    const w4act::GroupQuantiser q16(k, kPackedKvCodes, 16);
    const SGPR units = k.sgpr(1, "units");
    const VGPR ui = k.vgpr(1, "unit"), j = k.vgpr(1, "unit in group"), x8 = k.vgpr(8, "x"),
               codes = k.vgpr(8, "codes"), words = k.vgpr(2, "words");
    k.s_lshl_b32(units, count, 4);
    stride_loop(
        k, units, g,
        [&](SGPR first) {
          k.v_add_u32(ui, first, g.lane);
          k.v_lshrrev_b32(gi, 4, ui);
          k.v_and_b32(j, 15, ui);
          const Quotient head_row = divide(k, by_ng, gi);        // (t H + h, group)
          const Quotient token = divide(k, by_h, head_row.q);    // (t, h)
          const VGPR src = lane_address(k, k.arg("x"), ui, 32u);  // x + 32 unit
          k.global_load_dwordx4(x8.sub(0, 4), src, off);
          k.global_load_dwordx4(x8.sub(4, 4), src, off, offset(16));
          const VGPR s = q16.quantise(codes, x8);
          pack_code_bytes(k, words[0], codes, 0);
          pack_code_bytes(k, words[1], codes, 4);
          k.v_mul_lo_u32(row, token.r, TP);
          k.v_add_u32(row, row, token.q);                        // h TP + t
          const VGPR dst = lane_address(k, k.arg("qq"), row, D); // a row is D bytes
          add_lane_offset(k, dst, head_row.r, 128u);
          add_lane_offset(k, dst, j, 8u);
          k.global_store_dwordx2(dst, words, off);
          k.v_cmp_eq_u32(vcc, 0, j);
          k.if_(vcc);
          k.v_mul_lo_u32(sidx, token.r, ng);
          k.v_add_u32(sidx, sidx, head_row.r);
          k.v_mul_lo_u32(sidx, sidx, TP);
          k.v_add_u32(sidx, sidx, token.q);                      // (h D/G + group) TP + t
          k.global_store_dword(lane_address(k, k.arg("qs"), sidx, 4u), s, off);
          k.end_if();
        },
        [] {});
  }
  k.else_();
  {
    const w4act::GroupQuantiser q(k, kPackedKvCodes, 1);
    stride_loop(
        k, count, g,
        [&](SGPR first) {
          k.v_add_u32(gi, first, g.lane);
          const Quotient head_row = divide(k, by_ng, gi);        // (t H + h, group)
          const Quotient token = divide(k, by_h, head_row.q);    // (t, h)
          const VGPR src = lane_address(k, k.arg("x"), gi, g4);  // x + 4 G gi
          k.v_mul_lo_u32(row, token.r, TP);
          k.v_add_u32(row, row, token.q);                        // h TP + t
          const VGPR dst = lane_address(k, k.arg("qq"), row, D); // a row is D bytes
          add_lane_offset(k, dst, head_row.r, G);                // + group * G bytes
          const VGPR s = quantise_group_words(k, q, src, G, dst);
          k.v_mul_lo_u32(sidx, token.r, ng);
          k.v_add_u32(sidx, sidx, head_row.r);
          k.v_mul_lo_u32(sidx, sidx, TP);
          k.v_add_u32(sidx, sidx, token.q);                      // (h D/G + group) TP + t
          k.global_store_dword(lane_address(k, k.arg("qs"), sidx, 4u), s, off);
        },
        [] {});
  }
  k.end_if();
  return k.build();
}

codeobj::CodeObject build_append_k(isa::Target target) {
  Kernel k(kAppendK, target, {.waves_per_simd = 8, .max_workgroup = 1024, .workgroup_dims = 2});
  const SGPR t = k.workgroup_id(0), h = k.workgroup_id(1), G = k.arg("G"), D = k.arg("D"),
             cap = k.arg("kv_total");
  const SGPR ng = k.sgpr(1, "groups per row"), row = k.sgpr(1, "row"), pos = k.sgpr(1, "position"),
             g4 = k.sgpr(1, "4 G"), cap4 = k.sgpr(1, "4 kv_total"), sbase = k.sgpr(1, "scale base"),
             tmp = k.sgpr(1, "tmp");
  const VGPR lane = k.local_id();
  const Divider by_g = make_divider(k, G);
  k.s_mov_b32(ng, divide_scalar(k, by_g, D));
  k.s_lshl_b32(g4, G, 2);
  k.s_lshl_b32(cap4, cap, 2);
  k.s_add_u32(pos, k.arg("t0"), t);
  k.s_mul_i32(row, t, k.arg("H"));
  k.s_add_u32(row, row, h);                                         // t H + h
  const SGPR src_row = element_address(k, k.arg("kf"), row, D, 0, 2);
  k.s_mul_i32(row, h, cap);
  k.s_add_u32(row, row, pos);                                       // h kv_total + pos
  const SGPR dst_row = element_address(k, k.arg("kc"), row, D, 0, 0);
  k.s_mul_i32(sbase, h, ng);
  k.s_mul_i32(sbase, sbase, cap);
  k.s_add_u32(sbase, sbase, pos);                                   // (h D/G) kv_total + pos
  const SGPR scale0 = offset_address(k, k.arg("ksc"), sbase, 2);
  // G = 128 and D <= 512: the wave's 64 lanes exist in hardware whatever the
  // workgroup size (D/G threads), so 16 lanes per group take 8 floats each
  // (contiguous loads, the group max with DPP); otherwise one lane per group.
  k.s_cmp_eq_u32(G, 128);
  k.s_cselect_b32(tmp, 1, 0);
  k.s_cmp_le_u32(ng, 4);
  k.s_cselect_b32(tmp, tmp, 0);
  k.s_cmp_eq_u32(tmp, 1);
  k.if_(Cond::Scc1);
  {
    const VGPR wl = whole_wave_lane_id(k), j = k.vgpr(1, "lane in group"), grp = k.vgpr(1, "group"),
               x8 = k.vgpr(8, "x"), codes = k.vgpr(8, "codes"), words = k.vgpr(2, "words");
    const w4act::GroupQuantiser q16(k, kPackedKvCodes, 16);
    k.s_lshl_b32(tmp, ng, 4);
    if_lanes_below(k, tmp, wl, [&] {
      const VGPR src = lane_address(k, src_row, wl, 32u);            // floats 8 lane
      k.global_load_dwordx4(x8.sub(0, 4), src, off);
      k.global_load_dwordx4(x8.sub(4, 4), src, off, offset(16));
      const VGPR s = q16.quantise(codes, x8);
      pack_code_bytes(k, words[0], codes, 0);
      pack_code_bytes(k, words[1], codes, 4);
      k.global_store_dwordx2(lane_address(k, dst_row, wl, 8u), words, off);
      k.v_and_b32(j, 15, wl);
      k.v_lshrrev_b32(grp, 4, wl);
      k.v_cmp_eq_u32(vcc, 0, j);
      k.if_(vcc);
      k.global_store_dword(lane_address(k, scale0, grp, cap4), s, off);
      k.end_if();
    });
  }
  k.else_();
  {
    const w4act::GroupQuantiser q(k, kPackedKvCodes, 1);
    if_lanes_below(k, ng, lane, [&] {
      const VGPR src = lane_address(k, src_row, lane, g4);
      const VGPR dst = lane_address(k, dst_row, lane, G);
      const VGPR s = quantise_group_words(k, q, src, G, dst);
      k.global_store_dword(lane_address(k, scale0, lane, cap4), s, off);
    });
  }
  k.end_if();
  return k.build();
}

codeobj::CodeObject build_append_v(isa::Target target) {
  constexpr int BG = quant::kPackedKvTile;
  Kernel k(kAppendV, target, {.waves_per_simd = 2, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR h = k.workgroup_id(), t0 = k.arg("t0"), T = k.arg("T"), H = k.arg("H"), D = k.arg("D"),
             cap = k.arg("kv_total");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR end = s1("t0 + T"), b = s1("tile start"), e = s1("tile end"), nvalid = s1("valid keys"),
             first_new = s1("first new key"), d4 = s1("4 D"), p = s1("key"), r = s1("vf row"), tmp = s1("tmp"), hd4 = s1("4 H D"),
             tiles_h = s1("tile rows before the head"), addr = k.sgpr(2, "load address"),
             mask = k.sgpr(2, "valid mask"), stage_h = k.sgpr(2, "stage of the head"),
             stage_row = k.sgpr(2, "stage row"), vc_tile = k.sgpr(2, "vc tile"), vsc_tile = k.sgpr(2, "vsc tile"),
             word_ptr = k.sgpr(2, "vc word row");
  const VGPR voff = k.vgpr(1, "4 d"), amax = k.vgpr(1, "amax"), codes = k.vgpr(8, "codes"),
             words = k.vgpr(2, "words");
  std::vector<VGPR> units;
  for (int u = 0; u < BG / 8; ++u) units.push_back(k.vgpr(8, "tile values"));
  auto val = [&](int j) { return units[size_t(j / 8)][j % 8]; };
  k.s_cmp_eq_u32(T, 0);
  k.s_cbranch_scc1(exit);
  k.v_lshlrev_b32(voff, 2, k.local_id());
  k.s_lshl_b32(d4, D, 2);
  k.s_add_u32(end, t0, T);
  k.s_and_b32(b, t0, ~uint32_t(BG - 1));
  k.s_mul_i32(tmp, h, D);
  set_scaled_address(k, stage_h, k.arg("stage"), tmp, BG, 2);       // stage + 4 h 64 D
  k.s_lshr_b32(tiles_h, cap, 6);
  k.s_mul_i32(tiles_h, tiles_h, h);                                 // h kv_total/64
  k.s_lshr_b32(tmp, b, 6);
  k.s_add_u32(tmp, tmp, tiles_h);
  set_scaled_address(k, vsc_tile, k.arg("vsc"), tmp, D, 2);         // vsc + 4 (h kv_total/64 + b/64) D
  k.s_mul_i32(tmp, tmp, BG / 4);                                    // word rows before the tile
  set_scaled_address(k, vc_tile, k.arg("vc"), tmp, D, 2);
  const w4act::GroupQuantiser q(k, kPackedKvCodes, 1);
  k.s_mul_i32(hd4, H, d4);                                          // bytes from one key's row to the next
  // The tile's scale and 16 words from its 64 values (0 past the valid keys).
  auto quantise_tile = [&] {
    for (int u = 0; u < BG / 8; ++u) q.unit_amax(amax, units[size_t(u)], u == 0);
    const VGPR s = q.scale(amax);
    k.global_store_dword(voff, s, vsc_tile);
    k.s_mov_b64(word_ptr, vc_tile);
    for (int u = 0; u < BG / 8; ++u) {
      q.codes(codes, units[size_t(u)], s);
      pack_code_bytes(k, words[0], codes, 0);
      pack_code_bytes(k, words[1], codes, 4);
      for (int i = 0; i < 2; ++i) {
        k.global_store_dword(voff, words[i], word_ptr);
        add64(k, word_ptr, d4);
      }
    }
  };
  k.loop_();
  k.s_cmp_ge_u32(b, end);
  k.break_(Cond::Scc1);
  k.s_add_u32(e, b, BG);
  k.s_min_u32(e, e, end);
  k.s_sub_u32(nvalid, e, b);
  k.s_sub_u32(first_new, t0, b);
  k.s_cmp_lt_u32(t0, b);
  k.s_cselect_b32(first_new, 0, first_new);  // keys j >= first_new of the tile are new
  // A tile of 64 new keys (the bulk of a long append) takes the plain path:
  // one running vf pointer, no masks; the first and last tiles of an append
  // the general one.
  k.s_cmp_eq_u32(first_new, 0);
  k.s_cselect_b32(tmp, 1, 0);
  k.s_cmp_eq_u32(nvalid, BG);
  k.s_cselect_b32(tmp, tmp, 0);
  k.s_cmp_eq_u32(tmp, 1);
  k.if_(Cond::Scc1);
  {
    k.s_sub_u32(r, b, t0);
    k.s_mul_i32(r, r, H);
    k.s_add_u32(r, r, h);
    k.s_mul_i32(r, r, D);                                           // ((b - t0) H + h) D
    set_offset_address(k, addr, k.arg("vf"), r, 2);
    for (int j = 0; j < BG; ++j) {
      k.global_load_dword(val(j), voff, addr);
      if (j + 1 < BG) add64(k, addr, hd4);
    }
    quantise_tile();
    k.s_mov_b64(stage_row, stage_h);
    for (int j = 0; j < BG; ++j) {
      k.global_store_dword(voff, val(j), stage_row);
      if (j + 1 < BG) add64(k, stage_row, d4);
    }
  }
  k.else_();
  {
    // Staged keys (j < first_new) from stage row j, new keys from vf, keys
    // past the end read stage row j and are zeroed.
    k.s_mov_b64(stage_row, stage_h);
    for (int j = 0; j < BG; ++j) {
      k.s_add_u32(p, b, j);
      k.s_sub_u32(r, p, t0);
      k.s_mul_i32(r, r, H);
      k.s_add_u32(r, r, h);
      k.s_mul_i32(r, r, D);                                         // ((p - t0) H + h) D
      set_offset_address(k, addr, k.arg("vf"), r, 2);
      k.s_cmp_lt_u32(p, t0);
      k.s_cselect_b64(addr, stage_row, addr);
      k.s_cmp_ge_u32(p, e);
      k.s_cselect_b64(addr, stage_row, addr);
      k.global_load_dword(val(j), voff, addr);
      if (j + 1 < BG) add64(k, stage_row, d4);
    }
    for (int j = 0; j < BG; ++j) {
      k.s_cmp_lt_u32(j, nvalid);
      k.s_cselect_b64(mask, -1, 0);
      k.v_cndmask_b32(val(j), 0, val(j), mask);
    }
    quantise_tile();
    // Stage the new keys of the tile: rows first_new <= j < nvalid.
    k.s_mov_b64(stage_row, stage_h);
    for (int j = 0; j < BG; ++j) {
      k.s_cmp_le_u32(first_new, j);
      k.if_(Cond::Scc1);
      k.s_cmp_lt_u32(j, nvalid);
      k.if_(Cond::Scc1);
      k.global_store_dword(voff, val(j), stage_row);
      k.end_if();
      k.end_if();
      if (j + 1 < BG) add64(k, stage_row, d4);
    }
  }
  k.end_if();
  k.s_add_u32(b, b, BG);
  add64(k, vsc_tile, d4);
  k.s_mov_b64(vc_tile, word_ptr);
  k.end_loop();
  return k.build();
}

// ---------------------------------------------------------------- tests

// Junk in every output word, so that a write the format does not allow shows.
template <class T>
std::vector<T> junk(size_t n, uint32_t seed) {
  const auto b = Rng(seed).bytes(n * sizeof(T));
  std::vector<T> v(n);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}
std::vector<float> junk_scales(size_t n, uint32_t seed) { return Rng(seed).uniform(n, 1.0f, 2.0f); }

CaseResult run_q_quant(TestDevice& dev, const Case& c) {
  const int64_t T = c["T"], H = c["H"], D = c["D"], G = c["G"], TP = c["TP"];
  if (auto bad = expect_contract_refusal(dev, "attn_q_quant_k", {{"T", T}, {"H", H}, {"D", D + 4}, {"G", G}, {"TP", TP}},
                                "g_divides_d"))
    return *bad;
  if (auto bad = expect_contract_refusal(dev, "attn_q_quant_k", {{"T", TP + 1}, {"H", H}, {"D", D}, {"G", G}, {"TP", TP}},
                                "t_within_tp"))
    return *bad;
  const auto x = Rng(c.seed).normal(size_t(T * H * D));
  quant::PackedQuery want = quant::make_packed_query(H, TP, D, G);
  want.codes = junk<uint32_t>(want.codes.size(), c.seed + 1);
  want.scales = junk_scales(want.scales.size(), c.seed + 2);
  DeviceBuffer<uint32_t> dq(dev, want.codes);
  DeviceBuffer<float> ds(dev, want.scales), dx(dev, x);
  std::map<std::string, int64_t> choices;
  if (dim(c, "grid", 0)) choices["grid_x"] = c["grid"];
  const LaunchContract lc = dev.launch_contract("attn_q_quant_k");
  const Launch l = lc.evaluate({{"T", T}, {"H", H}, {"D", D}, {"G", G}, {"TP", TP}}, choices);
  launch(dev, "attn_q_quant_k", l,
         lc.argv(l, {{"qq", dq.addr()}, {"qs", ds.addr()}, {"x", dx.addr()}, {"T", i32(T)}, {"H", i32(H)},
                     {"D", i32(D)}, {"G", i32(G)}, {"TP", i32(TP)}}));
  quant::quantize_query_into(want, x, T);
  return combine({compare_exact_u32(dq.download(), want.codes), compare_bits(ds.download(), want.scales)});
}

// A cache with keys [0, filled) already appended on the host (random
// values), and junk where nothing was appended.
quant::PackedKvCache filled_cache(int64_t H, int64_t cap, int64_t D, int64_t G, int64_t filled, uint32_t seed) {
  quant::PackedKvCache c(H, cap, D, G);
  c.k_codes = junk<uint32_t>(c.k_codes.size(), seed);
  c.k_scales = junk_scales(c.k_scales.size(), seed + 1);
  c.v_codes = junk<uint32_t>(c.v_codes.size(), seed + 2);
  c.v_scales = junk_scales(c.v_scales.size(), seed + 3);
  c.v_stage = Rng(seed + 4).normal(c.v_stage.size());
  if (filled > 0) {
    const auto rows = Rng(seed + 5).normal(size_t(filled * H * D));
    c.append_k(rows, 0, filled);
    c.append_v(rows, 0, filled);
  }
  return c;
}

CaseResult run_append_k(TestDevice& dev, const Case& c) {
  const int64_t T = c["T"], H = c["H"], D = c["D"], G = c["G"], t0 = c["t0"], cap = c["cap"];
  if (auto bad = expect_contract_refusal(dev, "kv_append_k_k",
                                {{"T", T}, {"H", H}, {"D", D}, {"G", 12}, {"t0", t0}, {"kv_total", cap}},
                                "g_multiple_of_8"))
    return *bad;
  if (auto bad = expect_contract_refusal(dev, "kv_append_k_k",
                                {{"T", T}, {"H", H}, {"D", D}, {"G", G}, {"t0", cap - T + 1}, {"kv_total", cap}},
                                "keys_within_kv_total"))
    return *bad;
  quant::PackedKvCache want = filled_cache(H, cap, D, G, t0, c.seed);
  const auto rows = Rng(c.seed + 10).normal(size_t(T * H * D));
  DeviceBuffer<uint32_t> dkc(dev, want.k_codes);
  DeviceBuffer<float> dks(dev, want.k_scales), dkf(dev, rows);
  const LaunchContract lc = dev.launch_contract("kv_append_k_k");
  const Launch l = lc.evaluate({{"T", T}, {"H", H}, {"D", D}, {"G", G}, {"t0", t0}, {"kv_total", cap}});
  launch(dev, "kv_append_k_k", l,
         lc.argv(l, {{"kc", dkc.addr()}, {"ksc", dks.addr()}, {"kf", dkf.addr()}, {"t0", i32(t0)}, {"T", i32(T)},
                     {"H", i32(H)}, {"D", i32(D)}, {"G", i32(G)}, {"kv_total", i32(cap)}}));
  want.append_k(rows, t0, T);
  return combine({compare_exact_u32(dkc.download(), want.k_codes), compare_bits(dks.download(), want.k_scales)});
}

// The appends of a V case: (t0, T) after the keys [0, first) the host put there.
std::vector<std::pair<int64_t, int64_t>> v_appends(const Case& c) {
  std::vector<std::pair<int64_t, int64_t>> a;
  int64_t t = c["first"];
  for (const char* key : {"n1", "n2", "n3"})
    if (c.dims.count(key)) {
      a.emplace_back(t, c[key]);
      t += c[key];
    }
  return a;
}

CaseResult run_append_v(TestDevice& dev, const Case& c) {
  const int64_t H = c["H"], D = c["D"], cap = c["cap"];
  if (auto bad = expect_contract_refusal(dev, "kv_append_v_k",
                                {{"T", 1}, {"H", H}, {"D", D}, {"BG", 32}, {"t0", 0}, {"kv_total", cap}}, "bg_is_64"))
    return *bad;
  if (auto bad = expect_contract_refusal(dev, "kv_append_v_k",
                                {{"T", 1}, {"H", H}, {"D", D}, {"BG", 64}, {"t0", 0}, {"kv_total", cap + 32}},
                                "kv_total_multiple_of_64"))
    return *bad;
  quant::PackedKvCache want = filled_cache(H, cap, D, 4, c["first"], c.seed);
  DeviceBuffer<uint32_t> dvc(dev, want.v_codes);
  DeviceBuffer<float> dvs(dev, want.v_scales), dst(dev, want.v_stage);
  const LaunchContract lc = dev.launch_contract("kv_append_v_k");
  std::vector<CaseResult> parts;
  uint32_t seed = c.seed + 20;
  for (const auto& [t0, T] : v_appends(c)) {
    const auto rows = Rng(seed++).normal(size_t(T * H * D));
    DeviceBuffer<float> dvf(dev, rows);
    const Launch l = lc.evaluate({{"T", T}, {"H", H}, {"D", D}, {"BG", 64}, {"t0", t0}, {"kv_total", cap}});
    launch(dev, "kv_append_v_k", l,
           lc.argv(l, {{"vc", dvc.addr()}, {"vsc", dvs.addr()}, {"stage", dst.addr()}, {"vf", dvf.addr()},
                       {"t0", i32(t0)}, {"T", i32(T)}, {"H", i32(H)}, {"D", i32(D)}, {"BG", 64},
                       {"kv_total", i32(cap)}}));
    want.append_v(rows, t0, T);
    // After every append: the stage is what the next one reads.
    parts.push_back(compare_exact_u32(dvc.download(), want.v_codes));
    parts.push_back(compare_bits(dvs.download(), want.v_scales));
    parts.push_back(compare_bits(dst.download(), want.v_stage));
  }
  return combine(parts);
}

uint64_t row_bytes(const Case& c) { return uint64_t(c["T"] * c["H"] * c["D"]); }

// The group rules of the query and key quantisers' launch contracts.
const char* const kGroupRules = "let g_multiple_of_8 = 1 / ((G > 0) * (G % 8 == 0))\nlet g_divides_d = 1 / (D % G == 0)\n";

}  // namespace

void register_packed_kv_writers(Registry& r) {
  {
    KernelDef d = generated_kernel("attention", kQQuant, build_q_quant);
    d.description =
        "Quantises attention queries for the packed-KV attention kernels (docs/PACKED_KV.md) in a grid-stride "
        "loop: for G = 128 (the fa_* kernels' groups) 16 lanes per group, 8 floats each (contiguous loads, the "
        "group max over the 16 lanes with DPP); other G one lane per group, two passes over its G floats (max "
        "|x|, then the codes). int8 codes four to a word. Padded rows T..TP-1 are not written. For fa_int4, fold the "
        "softmax scale (1/sqrt(D)) into x and pass TP = 64 * ceil(T/64).";
    d.semantics =
        "for t < T, h < H, g < D/G: s = amax/127 over x[t][h][gG .. gG+G) (1.0 when zero); qs[h][g][TP-pitch t] = s; "
        "code(d) = clamp(rint(x[t][h][d] / s), -127, 127) (ties to even, divisions correctly rounded); "
        "qq[h][t][w] = code(4w) | code(4w+1) << 8 | code(4w+2) << 16 | code(4w+3) << 24 (bytes)";
    d.geometry = "grid-stride over T*H*(D/G) groups: grid = ceil(T*H*(D/G)/128) (any grid is correct), wg = 128";
    d.launch =
        std::string("sizes T H D G TP\n") + kGroupRules + "let t_within_tp = 1 / (T <= TP)\nchoose grid_x = max(1, ceil_div(T * H * (D / G), 128))\n"
        "workgroup = 128\ngrid = grid_x";
    d.limits = "G % 8 == 0 (refused: g_multiple_of_8), D % G == 0 (g_divides_d), T <= TP (t_within_tp)";
    d.cases = [](bool) {
      return case_table({"T", "H", "D", "G", "TP", "grid"}, {{1, 1, 256, 128, 64, 0},
                                                               {63, 3, 256, 128, 64, 0},
                                                               {65, 2, 128, 32, 128, 0},
                                                               {7, 5, 256, 128, 64, 1},
                                                               {130, 1, 64, 8, 192, 3}});
    };
    d.run = run_q_quant;
    d.ideal_bytes = [](const Case& c) { return row_bytes(c) * 5; };
    d.bench_case = [] {
      return make_case({{"T", 512}, {"H", 24}, {"D", 256}, {"G", 128}, {"TP", 512}, {"grid", 0}});
    };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated_kernel("attention", kAppendK, build_append_k);
    d.description =
        "Appends T new keys to the packed K cache (docs/PACKED_KV.md): workgroup (t, h) of the 2D grid (T, H) "
        "quantises key t0 + t of kv head h and writes its scales (group-major, pitch kv_total) and its int8 codes "
        "four to a word. For G = 128 and D <= 512 the wave uses all its 64 lanes (they exist in hardware whatever "
        "the D/G threads launched): 16 lanes per group, 8 floats each, the group max with DPP; other G one lane "
        "per G-dim group (two passes over its G floats). Nothing else changes.";
    d.semantics =
        "for t < T, h < H, g < D/G, p = t0 + t: s = amax/127 over kf[t][h][gG .. gG+G) (1.0 when zero); "
        "ksc[h][g][p] = s (pitch kv_total); kc[h][p][w] = the four codes of dims 4w..4w+3, "
        "code = clamp(rint(x / s), -127, 127), ties to even";
    d.geometry = "[2D] grid = (T, H), wg = D/G (one thread per group)";
    d.launch =
        std::string("sizes T H D G t0 kv_total\n") + kGroupRules + "let groups_per_row_at_most_1024 = 1 / (D / G <= 1024)\n"
        "let keys_within_kv_total = 1 / ((t0 >= 0) * (t0 + T <= kv_total))\nworkgroup = D / G\ngrid = T, H";
    d.limits =
        "G % 8 == 0 (refused: g_multiple_of_8), D % G == 0 (g_divides_d), t0 + T <= kv_total "
        "(keys_within_kv_total), wg = D/G exactly";
    d.cases = [](bool) {
      return case_table({"T", "H", "D", "G", "t0", "cap"}, {{1, 1, 256, 128, 0, 64},
                                                              {5, 4, 256, 128, 61, 128},
                                                              {33, 2, 64, 8, 7, 64},
                                                              {3, 3, 128, 16, 125, 128}});
    };
    d.run = run_append_k;
    d.ideal_bytes = [](const Case& c) { return row_bytes(c) * 5 + uint64_t(c["T"] * c["H"] * (c["D"] / c["G"])) * 4; };
    d.bench_case = [] {
      return make_case({{"T", 512}, {"H", 4}, {"D", 256}, {"G", 128}, {"t0", 2048}, {"cap", 2560}});
    };
    r.add(std::move(d));
  }
  {
    KernelDef d = generated_kernel("attention", kAppendV, build_append_v);
    d.description =
        "Appends T new values to the packed, transposed V cache (docs/PACKED_KV.md): one workgroup per kv head, "
        "one lane per dim. For every 64-key tile the append touches, the lane loads the tile's valid values of "
        "its dim (keys before t0 from the f32 staging tile, new keys from vf), re-quantises them with one scale "
        "per (tile, d), rewrites all 16 words of the tile (codes of keys past t0 + T are 0), then stores its new "
        "values into the staging tile. Between calls `stage[h][j][d]`, j <= (t0+T-1) % 64, holds the f32 values "
        "of the tile of key t0+T-1; the next contiguous append reads its rows j < t0' % 64.";
    d.semantics =
        "for each tile [b, b+64) meeting [t0, t0+T), e = min(b+64, t0+T), h < H, d < D: val(p) = stage[h][p-b][d] "
        "for b <= p < t0, vf[p-t0][h][d] for t0 <= p < e; s = amax/127 over val(b..e-1) (1.0 when zero); "
        "vsc[h][b/64][d] = s; code(p) = clamp(rint(val(p)/s), -127, 127) for p < e, 0 for p >= e; "
        "vc[h][p/4][d] byte p%4 = code(p) for b <= p < b+64; then stage[h][p%64][d] = vf[p-t0][h][d] for "
        "max(b, t0) <= p < e";
    d.geometry = "grid = H, wg = D (one lane per dim)";
    d.launch =
        "sizes T H D BG t0 kv_total\nlet bg_is_64 = 1 / (BG == 64)\n"
        "let kv_total_multiple_of_64 = 1 / ((kv_total > 0) * (kv_total % 64 == 0))\n"
        "let keys_within_kv_total = 1 / ((t0 >= 0) * (t0 + T <= kv_total))\nlet d_from_1_to_1024 = 1 / ((D >= 1) * (D <= 1024))\n"
        "workgroup = D\ngrid = H";
    d.limits =
        "BG = 64 (refused: bg_is_64), kv_total % 64 == 0 (kv_total_multiple_of_64), t0 + T <= kv_total "
        "(keys_within_kv_total), D <= 1024 (d_from_1_to_1024); the stage must hold keys [64 floor(t0/64), t0)";
    d.cases = [](bool) {
      return case_table({"H", "D", "cap", "first", "n1", "n2", "n3"}, {{1, 64, 64, 0, 1, 2, 61},
                                                                        {2, 256, 192, 0, 5, 70, 60},
                                                                        {3, 96, 256, 63, 1, 64, 65},
                                                                        {1, 128, 320, 100, 130, 1, 64}});
    };
    d.run = run_append_v;
    d.ideal_bytes = [](const Case& c) {
      int64_t T = 0;
      for (const char* key : {"n1", "n2", "n3"})
        if (c.dims.count(key)) T += c[key];
      return uint64_t(T * c["H"] * c["D"]) * 5;
    };
    d.bench_case = [] { return make_case({{"H", 4}, {"D", 256}, {"cap", 2560}, {"first", 2048}, {"n1", 512}}); };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels::attention
