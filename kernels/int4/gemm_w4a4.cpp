// The W4A4 prefill GEMM: one 128 x 64 tile of c per workgroup of 256 threads.
//
// Per 128-wide K group the workgroup stages the tile's operands in LDS: 128
// activation rows and 64 weight rows of 16 u32 each (a row padded to 20
// dwords, so the reads below meet no bank twice), and the group's 128 + 64
// scales. Thread (tm, tn) (tn = 8 (wave & 1) + lane % 8, tm = 8 (wave / 2) +
// lane / 8) owns rows tm + 16 i (i < 8) and columns tn + 16 j (j < 4): per
// two dwords of K it reads its 8 activation and 4 weight pairs (ds_read_b64;
// a half-wave reads 4 distinct rows and 8 distinct columns, all in distinct
// banks) and does 64 v_dot8_i32_i4 into 32 int32 sums, so the group's exact
// integer dot of every output is ready after 512 dot8. Then each output
// takes acc += f32(dot) * wsc[g][n] * asc[g][m] (scales read from LDS, stored
// there so a thread's 8 row scales and 4 column scales are contiguous).
//
// LDS is double-buffered (2 x 16 KiB): while a group is computed from one
// buffer, the next group's operands are loaded from global memory (three
// 16-byte loads and one scale per thread) and written into the other; one
// barrier per group. Within a group the LDS reads are software-pipelined:
// the next two dwords' pairs are in flight while the current ones are
// multiplied, and the previous group's scaling (96 VALU) fills the wait for
// a group's first pairs. 32 KiB of LDS and at most 128 VGPRs keep two
// workgroups on a CU, so each SIMD has a second wave to issue from.
#include "int4/gemm_w4a4.h"

namespace k100::kernels::int4 {

using namespace codegen;

Signature gemm_w4a4_signature(GemmGrid grid) {
  std::vector<Param> p = {in("aq", "u32"),    in("wq", "u32"),    in("asc", "f32"), in("wsc", "f32"),
                          out("c", "f32"),    value("M", "i32"), value("N", "i32"), value("K", "i32")};
  if (grid == GemmGrid::Flat) {
    p.push_back(value("nbn", "i32"));
    p.push_back(value("magic", "i32"));
  }
  return Signature(grid == GemmGrid::Flat ? "gemm_w4a4_flat" : "gemm_w4a4", p);
}

namespace {

// LDS layout of one buffer (bytes).
constexpr uint32_t kRowBytes = 80;                                  // 16 dwords of a K group + 4 of padding
constexpr uint32_t kBOff = kTileM * kRowBytes;                      // weight rows after the 128 activation rows
constexpr uint32_t kSaOff = kBOff + kTileN * kRowBytes;             // 128 activation scales
constexpr uint32_t kSbOff = kSaOff + kTileM * 4;                    // 64 weight scales
constexpr uint32_t kBuffer = 16384;                                 // >= kSbOff + 256
static_assert(kSbOff + kTileN * 4 <= kBuffer);

struct Tile {
  SGPR row0, col0;
};

// The tile of this workgroup; workgroups past M or N leave.
Tile tile_of(Kernel& k, GemmGrid grid, Label exit) {
  SGPR rb, cb;
  if (grid == GemmGrid::TwoD) {
    cb = k.workgroup_id(0);
    rb = k.workgroup_id(1);
  } else {
    // f = rb * nbn + cb: rb by the magic multiplier (nbn = 1 has none: rb = f)
    const SGPR f = k.workgroup_id(0), nbn = k.arg("nbn"), t = k.sgpr(1, "rb * nbn");
    rb = k.sgpr(1, "row block");
    cb = k.sgpr(1, "column block");
    magic_divide(k, rb, f, k.arg("magic"));
    k.s_cmp_eq_u32(nbn, 1);
    k.s_cselect_b32(rb, f, rb);
    k.s_mul_i32(t, rb, nbn);
    k.s_sub_u32(cb, f, t);
  }
  Tile t{k.sgpr(1, "row0"), k.sgpr(1, "col0")};
  k.s_lshl_b32(t.row0, rb, 7);
  k.s_lshl_b32(t.col0, cb, 6);
  k.s_cmp_ge_u32(t.row0, k.arg("M"));
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(t.col0, k.arg("N"));
  k.s_cbranch_scc1(exit);
  return t;
}

}  // namespace

codeobj::CodeObject build_gemm_w4a4(isa::Target target, GemmGrid grid) {
  Kernel k(gemm_w4a4_signature(grid), target,
           {.waves_per_simd = 2, .lds_bytes = 2 * kBuffer, .max_workgroup = kGemmThreads,
            .workgroup_dims = grid == GemmGrid::TwoD ? 2 : 1});
  const Label exit = k.exit();
  const SGPR sM = k.arg("M"), sN = k.arg("N"), sK = k.arg("K");
  const Tile tile = tile_of(k, grid, exit);
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR half_k = s1("bytes per row"), left = s1("groups left"), t = s1("t"), scale_step = s1("scale step");
  k.s_lshr_b32(half_k, sK, 1);
  k.s_lshr_b32(left, sK, 7);
  k.s_cmp_eq_u32(left, 0);
  k.s_cbranch_scc1(exit);

  // --- thread coordinates and addresses
  const SGPR wave = wave_index(k);
  const VGPR tid = k.local_id(), lane = lane_of_local_id(k);
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const VGPR tn = v1("tn"), tm = v1("tm"), rA = v1("A read"), rB = v1("B read"), rSa = v1("sa read"),
             rSb = v1("sb read"), wA = v1("tile write"), wS = v1("scale write"), gA = v1("tile load"),
             gS = v1("scale load"), vt = v1("t");
  k.s_and_b32(t, wave, 1);
  k.s_lshl_b32(t, t, 3);
  k.v_and_b32(tn, 7, lane);
  k.v_add_u32(tn, t, tn);
  k.s_lshr_b32(t, wave, 1);
  k.s_lshl_b32(t, t, 3);
  k.v_lshrrev_b32(tm, 3, lane);
  k.v_add_u32(tm, t, tm);
  k.v_mul_u32_u24(rA, kRowBytes, tm);
  k.v_mul_u32_u24(rB, kRowBytes, tn);
  k.v_add_u32(rB, kBOff, rB);
  k.v_lshlrev_b32(rSa, 5, tm);
  k.v_lshlrev_b32(rSb, 4, tn);
  // Staging: thread t copies 16 bytes (chunk t % 4) of activation rows t / 4
  // and t / 4 + 64 and of weight row t / 4.
  k.v_lshrrev_b32(vt, 2, tid);
  k.v_mul_u32_u24(wA, kRowBytes, vt);
  k.v_and_b32(gA, 3, tid);
  k.v_lshl_add_u32(wA, gA, 4, wA);
  k.v_lshlrev_b32(gA, 4, gA);
  k.v_mad_u32_u24(gA, vt, half_k, gA);
  // Scales: waves 0 and 1 copy the 128 activation scales (row r to slot
  // (r % 16) * 8 + r / 16), wave 2 the 64 weight scales (column c to slot
  // (c % 16) * 4 + c / 16), wave 3 none.
  const VGPR slot = v1("scale slot");
  // index i (thread or lane) to slot (i % 16) * per + i / 16 of the scales at `at`
  auto scale_slot = [&](VGPR index, int per_shift, uint32_t at) {
    k.v_lshlrev_b32(gS, 2, index);
    k.v_and_b32(slot, 15, index);
    k.v_lshlrev_b32(slot, per_shift, slot);
    k.v_lshrrev_b32(vt, 4, index);
    k.v_add_u32(slot, vt, slot);
    k.v_lshlrev_b32(wS, 2, slot);
    k.v_add_u32(wS, at, wS);
  };
  k.s_cmp_lt_u32(wave, 2);
  k.if_(Cond::Scc1, [&] { scale_slot(tid, 3, kSaOff); }, [&] { scale_slot(lane, 2, kSbOff); });

  // Scalar streams: the tile's rows of aq (two halves) and wq, and the scale
  // column this wave copies; each advances by one group per step.
  const SGPR row64 = s1("row0 + 64");
  k.s_add_u32(row64, tile.row0, 64);
  const SGPR sA = scaled_address(k, k.arg("aq"), tile.row0, half_k, 0),
             sA2 = scaled_address(k, k.arg("aq"), row64, half_k, 0),
             sB = scaled_address(k, k.arg("wq"), tile.col0, half_k, 0),
             sSa = offset_address(k, k.arg("asc"), tile.row0, 2), sSb = offset_address(k, k.arg("wsc"), tile.col0, 2),
             sS = k.sgpr(2, "scale stream");
  k.s_cmp_lt_u32(wave, 2);
  k.s_cselect_b64(sS, sSa, sSb);
  k.s_cselect_b32(scale_step, sM, sN);
  k.s_lshl_b32(scale_step, scale_step, 2);

  const VGPR pa = k.vgpr(8, "staged A"), pb = k.vgpr(4, "staged B"), ps = v1("staged scale");
  auto load_group = [&] {
    k.global_load_dwordx4(pa.sub(0, 4), gA, sA);
    k.global_load_dwordx4(pa.sub(4, 4), gA, sA2);
    k.global_load_dwordx4(pb, gA, sB);
    k.s_cmp_lt_u32(wave, 3);
    k.if_(Cond::Scc1);
    k.global_load_dword(ps, gS, sS);
    k.end_if();
  };
  auto advance = [&] {
    add64(k, sA, 64);
    add64(k, sA2, 64);
    add64(k, sB, 64);
    add64(k, sS, scale_step);
  };
  auto write_group = [&](uint32_t buf) {
    k.ds_write_b128(wA, pa.sub(0, 4), offset(buf));
    k.ds_write_b128(wA, pa.sub(4, 4), offset(buf + 64 * kRowBytes));
    k.ds_write_b128(wA, pb, offset(buf + kBOff));
    k.s_cmp_lt_u32(wave, 3);
    k.if_(Cond::Scc1);
    k.ds_write_b32(wS, ps, offset(buf));
    k.end_if();
  };

  VGPR acc[8][4], sum[8][4];
  const VGPR sa = k.vgpr(8, "row scales"), sb = k.vgpr(4, "column scales"), f = v1("dot f32");
  for (int i = 0; i < 8; ++i) {
    k.v_mov_b32(sa[i], 0);
    if (i < 4) k.v_mov_b32(sb[i], 0);
    for (int j = 0; j < 4; ++j) {
      acc[i][j] = v1("dot");
      sum[i][j] = v1("c");
      k.v_mov_b32(acc[i][j], 0);
      k.v_mov_b32(sum[i][j], 0);
    }
  }
  // The previous group's dots, scaled, into the sums (zeros before the first group).
  auto scale_sums = [&] {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 4; ++j) {
        k.v_cvt_f32_i32(f, acc[i][j]);  // exact: |dot| <= 128 * 64
        k.v_mul_f32(f, f, sb[j]);
        k.v_fmac_f32(sum[i][j], f, sa[i]);
      }
  };
  auto read_b = [&](uint32_t buf, int kc, VGPR* fb) {
    for (int j = 0; j < 4; ++j) {
      fb[j] = k.vgpr(2, "w pair");
      k.ds_read_b64(fb[j], rB, offset(buf + uint32_t(j) * 16 * kRowBytes + uint32_t(kc) * 8));
    }
  };
  auto read_a = [&](uint32_t buf, int kc, int i) {
    const VGPR fa = k.vgpr(2, "a pair");
    k.ds_read_b64(fa, rA, offset(buf + uint32_t(i) * 16 * kRowBytes + uint32_t(kc) * 8));
    return fa;
  };
  // One group from LDS buffer `buf`, software-pipelined: the next two dwords'
  // pairs are read while these are multiplied (a row's activation pair as
  // soon as its dots are issued), the previous group's scaling fills the
  // wait for the first pairs, and the group's scales are read during its last
  // step (for the next group's scale_sums).
  auto compute = [&](uint32_t buf) {
    VGPR fa[8], fb[4];
    read_b(buf, 0, fb);
    for (int i = 0; i < 8; ++i) fa[i] = read_a(buf, 0, i);
    scale_sums();
    for (int kc = 0; kc < 8; ++kc) {
      VGPR next_b[4];
      if (kc < 7) {
        read_b(buf, kc + 1, next_b);
      } else {
        k.ds_read_b128(sb, rSb, offset(buf + kSbOff));
        k.ds_read_b128(sa.sub(0, 4), rSa, offset(buf + kSaOff));
        k.ds_read_b128(sa.sub(4, 4), rSa, offset(buf + kSaOff + 16));
      }
      for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 4; ++j) {
          if (kc == 0)
            k.v_dot8_i32_i4(acc[i][j], fa[i][0], fb[j][0], 0);
          else
            k.v_dot8_i32_i4(acc[i][j], fa[i][0], fb[j][0], acc[i][j]);
          k.v_dot8_i32_i4(acc[i][j], fa[i][1], fb[j][1], acc[i][j]);
        }
        if (kc < 7) fa[i] = read_a(buf, kc + 1, i);
      }
      if (kc < 7)
        for (int j = 0; j < 4; ++j) fb[j] = next_b[j];
    }
  };

  // Group 0 into buffer 0; then per group: the next group's loads, this
  // group's products, the next group into the other buffer, one barrier.
  load_group();
  write_group(0);
  k.s_barrier();
  k.loop_();
  for (uint32_t buf : {0u, kBuffer}) {
    k.s_sub_u32(left, left, 1);
    k.s_cmp_lg_u32(left, 0);
    k.if_(Cond::Scc1);
    advance();
    load_group();
    k.end_if();
    compute(buf);
    k.s_cmp_lg_u32(left, 0);
    k.if_(Cond::Scc1);
    write_group(kBuffer - buf);
    k.end_if();
    k.s_barrier();
    k.s_cmp_eq_u32(left, 0);
    k.break_(Cond::Scc1);
  }
  k.end_loop();
  scale_sums();  // the last group's

  // c[row0 + tm + 16 i][col0 + tn + 16 j]
  const SGPR sC = element_address(k, k.arg("c"), tile.row0, sN, tile.col0, 2), row_step = s1("16 rows");
  k.s_lshl_b32(row_step, sN, 6);
  const VGPR co = v1("c offset");
  k.v_mad_u32_u24(co, tm, sN, tn);
  k.v_lshlrev_b32(co, 2, co);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) k.global_store_dword(co, sum[i][j], sC, offset(64 * j));
    if (i < 7) k.v_add_u32(co, row_step, co);
  }
  return k.build();
}

}  // namespace k100::kernels::int4
