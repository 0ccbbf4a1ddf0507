// The NVFP4 prefill GEMM: nvfp4_gemm_kernel (M and N edges guarded) and
// nvfp4_gemm_kernel_ng (no guards: M, N, K multiples of 64, which its launch
// contract requires).
//
//   c[m][n] = inv_gscale * sum_g asc[m][g] * E4M3(ws[n][g]) * sum_(k in g) E2M1(w[n][k]) * q[m][k]
//
// Workgroup (x, y) of the 2D grid owns the 64 x 64 tile of c at rows 64 y,
// columns 64 x; its 256 threads (four waves) compute 4 x 4 outputs each:
// thread t = 16 ty + tx takes rows 64 y + ty + 16 i and columns 64 x + tx + 16 j
// (i, j < 4). Per 64-wide K step the workgroup decodes the weight tile once
// into LDS (thread t: row t / 4, group t % 4: two code words to four int8
// words, its scale byte to 0.5 * E4M3) and copies the activation tile's even
// and odd words and scales beside it; after a barrier each thread adds per
// group the exact four-dot4 integer product of its 16 (row, column) pairs
// times the two scales. Rows (columns) past M (N) read as zeros and are not
// stored by the guarded form.
#include "nvfp4/nvfp4_format.h"
#include "nvfp4/nvfp4_generators.h"

namespace k100::kernels::nvfp4 {

using namespace codegen;

Signature gemm_signature(bool guarded) {
  return Signature(guarded ? "nvfp4_gemm_kernel" : "nvfp4_gemm_kernel_ng",
                   {in("wq", "u32"), in("ws", "u8"), in("ae", "i8"), in("ao", "i8"), in("asc", "f32"), out("c", "f32"),
                    value("M", "i32"), value("N", "i32"), value("K", "i32"), value("inv_gscale", "f32")},
                   codeobj::HiddenArgLayout::Full);
}

namespace {

// LDS: the decoded weight tile and the activation tile, 64 rows of 16 words
// each at a pitch of 80 bytes (a column's 16 lanes then spread over the
// banks), then the weight and activation scales, [64][4] f32 each.
constexpr uint32_t kPitch = 80, kWeights = 0, kActs = 64 * kPitch, kWScales = 2 * 64 * kPitch,
                   kAScales = kWScales + 1024, kLds = kAScales + 1024;

}  // namespace

codeobj::CodeObject build_gemm(isa::Target target, bool guarded) {
  Kernel k(gemm_signature(guarded), target,
           {.waves_per_simd = 2, .lds_bytes = kLds, .max_workgroup = 256, .workgroup_dims = 2});
  const Nvfp4Decoder dec(k);
  const SGPR M = k.arg("M"), N = k.arg("N"), K = k.arg("K");
  const SGPR m0 = k.sgpr(1, "tile row"), n0 = k.sgpr(1, "tile column"), half = k.sgpr(1, "K / 2"),
             groups = k.sgpr(1, "groups"), steps = k.sgpr(1, "steps"), t = k.sgpr(1, "t");
  k.s_lshl_b32(n0, k.workgroup_id(0), 6);
  k.s_lshl_b32(m0, k.workgroup_id(1), 6);
  k.s_lshr_b32(half, K, 1);
  k.s_lshr_b32(groups, K, 4);
  k.s_lshr_b32(steps, K, 6);
  const VGPR tid = k.local_id(0);
  const VGPR lr = k.vgpr(1, "load row"), lg = k.vgpr(1, "load group"), tmp = k.vgpr(3, "scratch");
  k.v_lshrrev_b32(lr, 2, tid);
  k.v_and_b32(lg, 3, tid);
  // Tile bases (advanced per step) and lane offsets of the cooperative loads.
  const SGPR wbase = k.sgpr(2, "weight tile"), sbase = k.sgpr(2, "scale tile"), ebase = k.sgpr(2, "even tile"),
             obase = k.sgpr(2, "odd tile"), abase = k.sgpr(2, "activation scale tile");
  set_scaled_address(k, wbase, k.arg("wq"), n0, half, 0);
  set_scaled_address(k, sbase, k.arg("ws"), n0, groups, 0);
  set_scaled_address(k, ebase, k.arg("ae"), m0, half, 0);
  set_scaled_address(k, obase, k.arg("ao"), m0, half, 0);
  set_scaled_address(k, abase, k.arg("asc"), m0, groups, 2);
  const VGPR wo = k.vgpr(1, "word offset"), so = k.vgpr(1, "scale byte offset"), ao = k.vgpr(1, "scale offset");
  k.v_mul_lo_u32(wo, lr, half);
  k.v_lshl_add_u32(wo, lg, 3, wo);  // row * K/2 + 8 g
  k.v_mul_lo_u32(so, lr, groups);
  k.v_add_u32(so, so, lg);          // row * K/16 + g
  k.v_lshlrev_b32(ao, 2, so);
  // Which load rows exist (guarded form): weight rows n0 + lr < N, activation rows m0 + lr < M.
  const SGPR wrows = k.sgpr(2, "weight rows present"), arows = k.sgpr(2, "activation rows present");
  if (guarded) {
    k.s_sub_u32(t, N, n0);
    k.v_cmp_gt_u32(wrows, t, lr);
    k.s_sub_u32(t, M, m0);
    k.v_cmp_gt_u32(arows, t, lr);
  }
  // LDS addresses: the loader's slots, the computing thread's rows and columns.
  const VGPR lw = k.vgpr(1, "tile slot"), ls = k.vgpr(1, "scale slot"), tx = k.vgpr(1, "tx"), ty = k.vgpr(1, "ty"),
             ra = k.vgpr(1, "row words"), cw = k.vgpr(1, "column words"), ras = k.vgpr(1, "row scales"),
             cws = k.vgpr(1, "column scales");
  k.v_mul_u32_u24(lw, kPitch, lr);
  k.v_lshl_add_u32(lw, lg, 4, lw);
  k.v_lshlrev_b32(ls, 2, tid);  // row * 16 + g * 4
  k.v_and_b32(tx, 15, tid);
  k.v_lshrrev_b32(ty, 4, tid);
  k.v_mul_u32_u24(ra, kPitch, ty);
  k.v_mul_u32_u24(cw, kPitch, tx);
  k.v_lshlrev_b32(ras, 4, ty);
  k.v_lshlrev_b32(cws, 4, tx);

  const VGPR wv = k.vgpr(2, "code words"), sb = k.vgpr(1, "scale byte"), av = k.vgpr(4, "activation words"),
             as = k.vgpr(1, "activation scale"), wd = k.vgpr(4, "weight words"), sw = k.vgpr(1, "weight scale");
  const VGPR acc = k.vgpr(16, "sums"), asc4 = k.vgpr(16, "row scales"), wsc4 = k.vgpr(16, "column scales"),
             arow = k.vgpr(16, "row words"), wcol = k.vgpr(16, "column words"), dot = k.vgpr(1, "dot"),
             fd = k.vgpr(1, "dot f32"), prod = k.vgpr(1, "scale product");
  for (int i = 0; i < 16; ++i) k.v_mov_b32(acc[i], 0);

  k.loop_();
  // Cooperative loads (rows past the edges: zeros).
  auto loads = [&](bool weights) {
    if (weights) {
      k.global_load_dwordx2(wv, wo, wbase);
      k.global_load_ubyte(sb, so, sbase);
    } else {
      k.global_load_dwordx2(av.sub(0, 2), wo, ebase);
      k.global_load_dwordx2(av.sub(2, 2), wo, obase);
      k.global_load_dword(as, ao, abase);
    }
  };
  if (guarded) {
    for (int i = 0; i < 2; ++i) k.v_mov_b32(wv[i], 0);
    for (int i = 0; i < 4; ++i) k.v_mov_b32(av[i], 0);
    k.v_mov_b32(sb, 0);
    k.v_mov_b32(as, 0);
    k.if_(wrows, [&] { loads(true); });
    k.if_(arows, [&] { loads(false); });
  } else {
    loads(true);
    loads(false);
  }
  add64(k, wbase, 32);
  add64(k, sbase, 4);
  add64(k, ebase, 32);
  add64(k, obase, 32);
  add64(k, abase, 16);
  // Weight words [even 0, even 1, odd 0, odd 1] beside the activation words in the same order.
  dec.codes(wd[0], wd[2], wv[0], tmp);
  dec.codes(wd[1], wd[3], wv[1], tmp);
  dec.scale(sw, sb, 0, tmp[0]);
  k.ds_write_b128(lw, wd, offset(kWeights));
  k.ds_write_b128(lw, av, offset(kActs));
  k.ds_write_b32(ls, sw, offset(kWScales));
  k.ds_write_b32(ls, as, offset(kAScales));
  k.s_barrier();
  for (int i = 0; i < 4; ++i) {
    k.ds_read_b128(asc4.sub(4 * i, 4), ras, offset(kAScales + 256 * i));
    k.ds_read_b128(wsc4.sub(4 * i, 4), cws, offset(kWScales + 256 * i));
  }
  for (int g = 0; g < 4; ++g) {
    for (int i = 0; i < 4; ++i) {
      k.ds_read_b128(arow.sub(4 * i, 4), ra, offset(kActs + 16 * kPitch * i + 16 * g));
      k.ds_read_b128(wcol.sub(4 * i, 4), cw, offset(kWeights + 16 * kPitch * i + 16 * g));
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        k.v_dot4_i32_i8(dot, arow[4 * i], wcol[4 * j], 0);
        for (int q = 1; q < 4; ++q) k.v_dot4_i32_i8(dot, arow[4 * i + q], wcol[4 * j + q], dot);
        k.v_cvt_f32_i32(fd, dot);
        k.v_mul_f32(prod, asc4[4 * i + g], wsc4[4 * j + g]);
        k.v_fmac_f32(acc[4 * i + j], fd, prod);
      }
  }
  k.s_barrier();  // the tile is read before the next step overwrites it
  k.s_sub_u32(steps, steps, 1);
  k.s_cmp_eq_u32(steps, 0);
  k.break_(Cond::Scc1);
  k.end_loop();

  // c[m0 + ty + 16 i][n0 + tx + 16 j] at c + ((m0 + ty) N + n0 + tx) * 4 + i * 64 N + 64 j.
  const VGPR co = k.vgpr(1, "output offset"), rl = k.vgpr(1, "rows left"), cl = k.vgpr(1, "columns left");
  k.v_add_u32(co, m0, ty);
  k.v_mul_lo_u32(co, co, N);
  k.v_add3_u32(co, co, n0, tx);
  k.v_lshlrev_b32(co, 2, co);
  const SGPR rowstep = k.sgpr(1, "16 rows");
  k.s_lshl_b32(rowstep, N, 6);
  std::vector<SGPR> ri, cj;
  if (guarded) {
    k.s_sub_u32(t, M, m0);
    k.v_sub_u32(rl, t, ty);
    k.s_sub_u32(t, N, n0);
    k.v_sub_u32(cl, t, tx);
    for (int i = 0; i < 4; ++i) {
      ri.push_back(k.sgpr(2, "row present"));
      cj.push_back(k.sgpr(2, "column present"));
      k.v_cmp_lt_i32(ri.back(), 16 * i, rl);
      k.v_cmp_lt_i32(cj.back(), 16 * i, cl);
    }
  }
  const SGPR both = k.sgpr(2, "output present");
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      k.v_mul_f32(acc[4 * i + j], k.arg("inv_gscale"), acc[4 * i + j]);
      if (guarded) {
        k.s_and_b64(both, ri[size_t(i)], cj[size_t(j)]);
        k.if_(both, [&] { k.global_store_dword(co, acc[4 * i + j], k.arg("c"), offset(64 * j)); });
      } else {
        k.global_store_dword(co, acc[4 * i + j], k.arg("c"), offset(64 * j));
      }
    }
    if (i < 3) k.v_add_u32(co, rowstep, co);
  }
  return k.build();
}

}  // namespace k100::kernels::nvfp4
