// The INT4 decode GEMV body (w4_gemv_generator.h).
//
//   y[m][n] = sum over 32-wide groups j of ws[n][j/4] * as(m, j) * sum_(k in j) w[n][k] * a[m][k]
//
// Lanes run along K: in a trip, lane l takes the 32-wide group j = 64 t + l of
// each of the wave's nrow weight rows: one dwordx4 of weights per row (the
// wave reads 1 KiB of the row, 16 whole lines), the same 16 bytes of every
// activation row (W4A4: the int4 codes; W4A8: 16 even-k and 16 odd-k int8
// codes) and the group's scales (the f16 weight scale of its 128-group, the
// activation scale of its 32- or 128-group). The wave's activation loads are
// shared by its rows; a fast form keeps `unroll` such pieces per row in
// flight before it uses the first.
//
// W4A4: four v_dot8_i32_i4 per group and activation row give the exact group
// dot. W4A8: the weight byte's low nibble is an even k, the high nibble an odd
// k, so `w & 0xF0F0F0F0` holds 16 * (odd codes) and `(w << 4) & 0xF0F0F0F0`
// 16 * (even codes) as int8 (a two's-complement nibble in the high half of a
// byte reads as 16 times its value); v_dot4_i32_i8 against the even and odd
// streams gives 16 times the exact group dot (|.| <= 16 * 32 * 8 * 128 =
// 2^19), and the 1/16 is applied once to the row sums (exact). The code sums
// `asu` that the biased-code form (u = w + 8) needs are not read.
//
// Each group's integer dot becomes f32 (exact below 2^24), is multiplied by
// the activation scale and accumulated with the f16 weight scale by
// v_fma_mix_f32. The lanes' sums are reduced with DPP and lane 63 stores the
// valid rows. The last trip of a row whose K/32 groups are not a multiple of
// 64 runs with the lanes past the end switched off (a divergent lane walk).
#include "int4/w4_gemv_generator.h"

#include <vector>

namespace k100::kernels::int4_gemv {

using namespace codegen;

Signature w4_gemv_signature(const W4GemvSpec& s) {
  const bool r2 = s.name.rfind("gemv_w4a4_r2", 0) == 0;  // hand-written originals: u32 sizes
  const std::string size_type = r2 || s.schedule == W4Schedule::Fast ? "u32" : "i32";
  std::vector<Param> p = {in("wq", "u32"), in("ws", "f16")};
  if (s.act == W4Act::A4) {
    p.push_back(in("aq", "u32"));
    p.push_back(in("as", "f32"));
  } else {
    p.push_back(in("ae", "u32"));
    p.push_back(in("ao", "u32"));
    p.push_back(in("asc", "f32"));
    p.push_back(in("asu", "i32"));
  }
  p.push_back(out("y", "f32"));
  p.push_back(value("N", size_type));
  p.push_back(value("K", size_type));
  if (s.schedule == W4Schedule::Fast) p.push_back(value("m", "u32"));
  return Signature(s.name, p, s.full_hidden ? codeobj::HiddenArgLayout::Full : codeobj::HiddenArgLayout::None);
}

namespace {

class W4GemvBuilder {
 public:
  W4GemvBuilder(Kernel& k, const W4GemvSpec& s) : k(k), s(s) {}

  void emit();

 private:
  // The rows [row0, row0 + vr) of the wave (nrow at most; the missing ones
  // re-read the last valid row and are not stored) against M activation rows
  // starting at activation row `mrow`.
  void pass(int M, SGPR row0, SGPR vr, SGPR mrow);
  // The activation streams of rows mrow .. mrow + M - 1.
  void activation_rows(int M, SGPR mrow);
  // Loads `pieces` 1 KiB pieces (pieces 64 groups apart), then accumulates them.
  void trip(int M, int pieces, VGPR group);
  void row_sets();
  // The largest body of at most M rows that `left` activation rows fill, then mrow += its rows.
  void chunk(int M, SGPR row0, SGPR vr, SGPR mrow, SGPR left);
  void entry();
  SGPR arg(const std::string& name);  // an explicit argument, from the block entry() fills

  Kernel& k;
  const W4GemvSpec& s;
  SGPR block_, tail_, sN, sK, sG32, sRowBytes, sScaleRowBytes;
  VGPR vLane, vZero;
  uint32_t counter_at = 0;  // LDS: the argument block, then the row set counter
  // Per activation row: codes (A4: aq; A8: ae, ao) and scales, 64-bit bases.
  std::vector<SGPR> code_base, odd_base, scale_base;
  // Per weight row of the pass.
  std::vector<SGPR> w_row, s_row;
  std::vector<VGPR> acc;  // [r * M + m]
};

void W4GemvBuilder::activation_rows(int M, SGPR mrow) {
  const bool a4 = s.act == W4Act::A4;
  const SGPR codes = arg(a4 ? "aq" : "ae"), scales = arg(a4 ? "as" : "asc");
  const SGPR t = k.sgpr(1, "activation row"), codeBytes = k.sgpr(1, "code row bytes"),
             scaleBytes = k.sgpr(1, "scale row bytes");
  k.s_lshr_b32(codeBytes, sK, 1);                // K/2 bytes of codes (each stream, A8)
  k.s_lshr_b32(scaleBytes, sK, a4 ? 3 : 5);      // K/32 or K/128 f32 scales
  for (int m = 0; m < M; ++m) {
    k.s_add_u32(t, mrow, m);
    set_scaled_address(k, code_base[size_t(m)], codes, t, codeBytes, 0);
    if (!a4) set_scaled_address(k, odd_base[size_t(m)], arg("ao"), t, codeBytes, 0);
    set_scaled_address(k, scale_base[size_t(m)], scales, t, scaleBytes, 0);
  }
}

void W4GemvBuilder::trip(int M, int pieces, VGPR group) {
  const bool a4 = s.act == W4Act::A4;
  const int R = s.nrow;
  const VGPR off16 = k.vgpr(1, "piece offset"), offWs = k.vgpr(1, "weight scale offset"),
             offAs = k.vgpr(1, "activation scale offset");
  k.v_lshlrev_b32(off16, 4, group);  // 16 bytes per 32-group (codes, and each A8 stream)
  k.v_lshrrev_b32(offWs, 1, group);
  k.v_and_b32(offWs, ~1u, offWs);    // 2 * (j / 4): the f16 scale of the 128-group
  if (a4) k.v_lshlrev_b32(offAs, 2, group);  // 4 j: the f32 scale of the 32-group
  else k.v_and_b32(offAs, ~3u, group);       // 4 * (j / 4): the f32 scale of the 128-group
  struct Piece {
    std::vector<VGPR> w, ws, codes, odd, as;
  };
  std::vector<Piece> p(static_cast<size_t>(pieces));
  for (int u = 0; u < pieces; ++u) {
    Piece& q = p[size_t(u)];
    for (int r = 0; r < R; ++r) {
      q.w.push_back(k.vgpr(4, "weights"));
      q.ws.push_back(k.vgpr(1, "weight scale"));
    }
    for (int m = 0; m < M; ++m) {
      q.codes.push_back(k.vgpr(4, a4 ? "codes" : "even codes"));
      if (!a4) q.odd.push_back(k.vgpr(4, "odd codes"));
      q.as.push_back(k.vgpr(1, "activation scale"));
    }
  }
  // Every load of the trip first: weights, then the activations they meet.
  for (int u = 0; u < pieces; ++u) {
    Piece& q = p[size_t(u)];
    for (int r = 0; r < R; ++r) k.global_load_dwordx4(q.w[size_t(r)], off16, w_row[size_t(r)], offset(1024 * u));
    for (int r = 0; r < R; ++r) k.global_load_ushort(q.ws[size_t(r)], offWs, s_row[size_t(r)], offset(32 * u));
    for (int m = 0; m < M; ++m) {
      k.global_load_dwordx4(q.codes[size_t(m)], off16, code_base[size_t(m)], offset(1024 * u));
      if (!a4) k.global_load_dwordx4(q.odd[size_t(m)], off16, odd_base[size_t(m)], offset(1024 * u));
      k.global_load_dword(q.as[size_t(m)], offAs, scale_base[size_t(m)], offset((a4 ? 256 : 64) * u));
    }
  }
  const VGPR dot = k.vgpr(1, "group dot"), f = k.vgpr(1, "scaled dot");
  const VGPR ev = k.vgpr(4, "even nibbles"), od = k.vgpr(4, "odd nibbles");
  for (int u = 0; u < pieces; ++u) {
    Piece& q = p[size_t(u)];
    for (int r = 0; r < R; ++r) {
      const VGPR w = q.w[size_t(r)];
      if (!a4)
        for (int i = 0; i < 4; ++i) {
          k.v_and_b32(od[i], 0xF0F0F0F0u, w[i]);
          k.v_lshlrev_b32(ev[i], 4, w[i]);
          k.v_and_b32(ev[i], 0xF0F0F0F0u, ev[i]);
        }
      for (int m = 0; m < M; ++m) {
        const VGPR a = q.codes[size_t(m)];
        if (a4) {
          k.v_dot8_i32_i4(dot, w[0], a[0], 0);
          for (int i = 1; i < 4; ++i) k.v_dot8_i32_i4(dot, w[i], a[i], dot);
        } else {
          const VGPR o = q.odd[size_t(m)];
          k.v_dot4_i32_i8(dot, ev[0], a[0], 0);
          k.v_dot4_i32_i8(dot, od[0], o[0], dot);
          for (int i = 1; i < 4; ++i) {
            k.v_dot4_i32_i8(dot, ev[i], a[i], dot);
            k.v_dot4_i32_i8(dot, od[i], o[i], dot);
          }
        }
        k.v_cvt_f32_i32(f, dot);
        k.v_mul_f32(f, q.as[size_t(m)], f);
        const VGPR sum = acc[size_t(r * M + m)];
        k.v_fma_mix_f32(sum, q.ws[size_t(r)], f, sum, as::op_sel({0, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }
}

void W4GemvBuilder::pass(int M, SGPR row0, SGPR vr, SGPR mrow) {
  const int R = s.nrow;
  activation_rows(M, mrow);
  acc.clear();
  for (int i = 0; i < R * M; ++i) acc.push_back(k.vgpr(1, "row sum"));
  const SGPR last = k.sgpr(1, "last valid row"), t = k.sgpr(1, "row");
  k.s_sub_u32(last, vr, 1);
  for (int r = 0; r < R; ++r) {
    k.s_min_u32(t, last, r);
    k.s_add_u32(t, row0, t);
    set_scaled_address(k, w_row[size_t(r)], arg("wq"), t, sRowBytes, 0);
    set_scaled_address(k, s_row[size_t(r)], arg("ws"), t, sScaleRowBytes, 0);
  }
  for (auto& a : acc) k.v_mov_b32(a, 0);
  // Whole trips of `unroll` pieces while the wave's pieces all lie in the row.
  const SGPR done = k.sgpr(1, "groups done");
  k.s_mov_b32(done, 0);
  const VGPR group = k.vgpr(1, "group");
  if (s.unroll > 1) {
    const SGPR next = k.sgpr(1, "next");
    k.loop_();
    k.s_add_u32(next, done, 64 * s.unroll);
    k.s_cmp_gt_u32(next, sG32);
    k.break_(Cond::Scc1);
    k.v_add_u32(group, done, vLane);
    trip(M, s.unroll, group);
    k.s_mov_b32(done, next);
    k.end_loop();
  }
  // The rest one piece per trip; the lanes leave as they pass the row's end.
  k.v_add_u32(group, done, vLane);
  lane_walk(k, group, sG32, 64, [&] { trip(M, 1, group); });
  if (s.act == W4Act::A8)
    for (auto& a : acc) k.v_mul_f32(a, 0.0625f, a);  // the codes were read as 16 * code
  std::vector<std::pair<ReduceOp, VGPR>> values;
  for (auto& a : acc) values.push_back({ReduceOp::Add, a});
  lane_reduce(k, values);
  // Lane 63 stores y[mrow + m][row0 + r] for the valid rows.
  const SGPR ym = k.sgpr(2, "y row"), mm = k.sgpr(1, "y activation row");
  const VGPR zero = vZero;
  k.v_cmp_eq_u32(vcc, 63, vLane);
  k.if_(vcc);
  for (int m = 0; m < M; ++m) {
    k.s_add_u32(mm, mrow, m);
    const SGPR y = element_address(k, arg("y"), mm, sN, row0, 2);
    k.s_mov_b64(ym, y);
    for (int r = 0; r < R; ++r) {
      if (r == 0) {
        k.global_store_dword(zero, acc[size_t(m)], ym, offset(0));
        continue;
      }
      k.s_cmp_gt_u32(vr, r);
      k.if_(Cond::Scc1);
      k.global_store_dword(zero, acc[size_t(r * M + m)], ym, offset(4 * r));
      k.end_if();
    }
  }
  k.end_if();
}

// The workgroup's row sets, taken one at a time from the LDS counter by
// whichever wave is free (the rows each set gives do not depend on which
// wave computes it); every set runs the passes of its activation rows.
void W4GemvBuilder::row_sets() {
  const int sets = s.schedule == W4Schedule::Catalog ? 4 : s.waves * s.passes;
  const SGPR set = k.sgpr(1, "row set"), row0 = k.sgpr(1, "first row"), vr = k.sgpr(1, "valid rows"),
             mrow = k.sgpr(1, "activation row"), left = k.sgpr(1, "rows left");
  const VGPR taken = k.vgpr(1, "set taken"), one = k.vgpr(1, "one");
  k.v_mov_b32(one, 1);
  k.loop_();
  k.v_cmp_eq_u32(vcc, 0, vLane);
  k.if_(vcc);
  k.ds_add_rtn_u32(taken, vZero, one, offset(counter_at));
  k.end_if();
  k.v_readfirstlane_b32(set, taken);
  k.s_cmp_ge_u32(set, sets);
  k.break_(Cond::Scc1);
  k.s_mul_i32(row0, set, s.nrow);
  k.s_mul_i32(vr, k.workgroup_id(), sets * s.nrow);
  k.s_add_u32(row0, row0, vr);
  k.s_cmp_ge_u32(row0, sN);
  k.break_(Cond::Scc1);
  k.s_sub_u32(vr, sN, row0);
  k.s_min_u32(vr, vr, s.nrow);
  k.s_mov_b32(mrow, 0);
  if (s.schedule == W4Schedule::Catalog) {
    pass(s.m, row0, vr, mrow);
  } else {
    // The m activation rows in chunks of up to s.m, each by the body of its size.
    k.loop_();
    k.s_cmp_le_u32(arg("m"), mrow);
    k.break_(Cond::Scc1);
    k.s_sub_u32(left, arg("m"), mrow);
    chunk(s.m, row0, vr, mrow, left);
    k.end_loop();
  }
  k.end_loop();
}

void W4GemvBuilder::chunk(int M, SGPR row0, SGPR vr, SGPR mrow, SGPR left) {
  if (M == 1) {
    pass(1, row0, vr, mrow);
    k.s_add_u32(mrow, mrow, 1);
    return;
  }
  k.s_cmp_ge_u32(left, M);
  k.if_(Cond::Scc1);
  pass(M, row0, vr, mrow);
  k.s_add_u32(mrow, mrow, M);
  k.else_();
  chunk(M - 1, row0, vr, mrow, left);
  k.end_if();
}

SGPR W4GemvBuilder::arg(const std::string& name) {
  const Signature& sig = k.signature();
  const uint32_t off = sig.offset(name);
  const int d = int(off / 4), n = std::max(1, int(sig.size(name) / 4));
  return d >= 16 ? tail_.sub(d - 16, n) : block_.sub(d, n);
}

// Arguments: wave 0 reads the explicit ones (one host-link request per
// 64-byte line) and hands them to the other waves through LDS, with the row
// set counter cleared; after one barrier every wave has them. A workgroup so
// costs one argument read, and no wave needs the workgroup size.
void W4GemvBuilder::entry() {
  const Signature& sig = k.signature();
  uint32_t end = 0;
  for (const Param& q : sig.params()) end = std::max(end, sig.offset(q.name) + sig.size(q.name));
  const int dwords = int(end / 4);
  counter_at = 80;  // past the longest block (20 dwords): no block read touches it
  block_ = k.sgpr(16, "argument block");
  if (dwords > 16) tail_ = k.sgpr(4, "argument block tail");
  auto dword = [&](int i) { return i >= 16 ? tail_[i - 16] : block_[i]; };
  const SGPR wave = wave_index(k);
  Label asked = k.label("arguments asked for"), read = k.label("arguments handed over"),
        have = k.label("arguments in SGPRs"), copied = k.label("arguments copied");
  k.s_cmp_lg_u32(wave, 0);
  k.s_cbranch_scc1(asked);
  k.s_load_dwordx8(block_.sub(0, 8), k.kernarg_pointer(), 0);
  k.s_load_dwordx8(block_.sub(8, 8), k.kernarg_pointer(), 32);
  if (dwords > 16) k.s_load_dword(tail_[0], k.kernarg_pointer(), 64);
  k.bind(asked);
  vLane = whole_wave_lane_id(k);
  vZero = k.vgpr(1, "zero");
  k.v_mov_b32(vZero, 0);
  const VGPR staging = k.vgpr(4, "argument staging");
  k.s_cmp_lg_u32(wave, 0);
  k.s_cbranch_scc1(read);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_write_b32(vZero, vZero, offset(counter_at));
  for (int d = 0; d < dwords; d += 4) {
    const int w = std::min(4, dwords - d);
    for (int i = 0; i < w; ++i) k.v_mov_b32(staging[i], dword(d + i));
    if (w == 4) k.ds_write_b128(vZero, staging, offset(4 * uint32_t(d)));
    else
      for (int i = 0; i < w; ++i) k.ds_write_b32(vZero, staging[i], offset(4 * uint32_t(d + i)));
  }
  k.s_mov_b64(exec, -1);
  k.bind(read);
  k.s_barrier();
  k.s_cmp_eq_u32(wave, 0);
  k.s_cbranch_scc1(have);
  const VGPR copy = k.vgpr(16, "argument copy"), copy_tail = k.vgpr(4, "argument copy tail");
  for (int d = 0; d < dwords; d += 4)
    k.ds_read_b128(d >= 16 ? copy_tail : copy.sub(d, 4), vZero, offset(4 * uint32_t(d)));
  for (int i = 0; i < dwords; ++i) k.v_readfirstlane_b32(dword(i), i >= 16 ? copy_tail[i - 16] : copy[i]);
  k.s_branch(copied);
  k.bind(have);
  k.bind(copied);
}

void W4GemvBuilder::emit() {
  entry();
  sN = arg("N");
  sK = arg("K");
  sG32 = k.sgpr(1, "groups of 32");
  sRowBytes = k.sgpr(1, "weight row bytes");
  sScaleRowBytes = k.sgpr(1, "weight scale row bytes");
  k.s_lshr_b32(sG32, sK, 5);
  k.s_lshr_b32(sRowBytes, sK, 1);
  k.s_lshr_b32(sScaleRowBytes, sK, 6);
  for (int m = 0; m < s.m; ++m) {
    code_base.push_back(k.sgpr(2, "activation codes"));
    odd_base.push_back(k.sgpr(2, "odd activation codes"));
    scale_base.push_back(k.sgpr(2, "activation scales"));
  }
  for (int r = 0; r < s.nrow; ++r) {
    w_row.push_back(k.sgpr(2, "weight row"));
    s_row.push_back(k.sgpr(2, "weight scale row"));
  }
  row_sets();
}

}  // namespace

codeobj::CodeObject build_w4_gemv(isa::Target target, const W4GemvSpec& spec) {
  const int vgpr_heavy = spec.nrow * spec.m * spec.unroll;
  const Signature sig = w4_gemv_signature(spec);
  const uint32_t lds = sig.explicit_args().empty() ? 0 : 4 * 21;  // the argument block and the counter
  Kernel k(sig, target, {.waves_per_simd = vgpr_heavy >= 8 ? 2 : 4, .lds_bytes = lds, .max_workgroup = 1024});
  W4GemvBuilder(k, spec).emit();
  return k.build();
}

}  // namespace k100::kernels::int4_gemv
