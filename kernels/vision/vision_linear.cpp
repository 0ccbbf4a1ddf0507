// vit_linear_f16_kernel: the linear layers of a vision block with f16
// weights, y[m][n] = sum_k f16(x[m][k]) * w[n][k] in f32.
//
// A workgroup computes one 64 x 64 tile of y (workgroup (bx, by): columns
// 64 bx.., rows 64 by..; the catalog's [2D] grid). The K axis goes in steps
// of 32: the x tile (64 rows x 32, rounded to f16 on the way) and the w tile
// (64 output columns x 32 halves) are written to LDS as packed f16 pairs,
// rows padded to 20 dwords (80 bytes) so that the 16-byte reads of
// neighbouring rows start in different banks, then each of 256 (virtual)
// threads reads four x rows and four w rows 16 bytes at a time and
// accumulates its 4 x 4 outputs with v_dot2_f32_f16 (the f16 products are
// exact in f32; the sums are f32).
//
// Tails: rows past M and columns past N are loaded from the last row /
// column (valid memory) and never stored; k past K is zero in both tiles.
// The 16-byte global loads are used where a whole 8-element piece is inside
// K and the addresses allow (K % 8 == 0, x_stride % 4 == 0, both base
// pointers 16-byte aligned: checked once per launch); elsewhere each element
// is loaded alone. The tile's 256 threads are virtual: a workgroup of W
// work-items makes ceil(256 / W) passes over K, so every workgroup size is
// correct (256, the catalog's, makes one).
#include <cmath>
#include <cstring>

#include "k100/quant/half.h"
#include "vision_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kLinear("vit_linear_f16_kernel",
                        {out("y", "f32"), in("w", "f16"), in("x", "f32"), value("M", "i32"),
                         value("N", "i32"), value("K", "i32"), value("x_stride", "i32"),
                         value("y_stride", "i32")},
                        HiddenArgLayout::Full);

constexpr uint32_t kRowBytes = 80;               // 16 dwords of f16 pairs + 4 of padding
constexpr uint32_t kTileBytes = 64 * kRowBytes;  // one 64-row tile
constexpr uint32_t kLdsBytes = 2 * kTileBytes;   // x tile, then w tile

codeobj::CodeObject build_linear(isa::Target target) {
  Kernel k(
      kLinear, target,
      {.waves_per_simd = 3, .lds_bytes = kLdsBytes, .max_workgroup = 1024, .workgroup_dims = 2});
  Label exit = k.exit();
  const SGPR M = k.arg("M"), N = k.arg("N"), K = k.arg("K"), xs = k.arg("x_stride"),
             ys = k.arg("y_stride");
  const SGPR X = k.arg("x"), Wt = k.arg("w"), Y = k.arg("y");
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR m0 = s1("m0"), n0 = s1("n0"), mlast = s1("last row"), nlast = s1("last column"),
             k0 = s1("k0"), vec = s1("16-byte loads"), t = s1("t"), threads = s1("threads"),
             pass = s1("pass"), parts = s1("parts");
  for (const SGPR& v : {M, N, K}) {
    k.s_cmp_lt_i32(v, 1);  // an empty (or >= 2^31) size: nothing to do
    k.s_cbranch_scc1(exit);
  }
  k.s_lshl_b32(n0, k.workgroup_id(0), 6);
  k.s_lshl_b32(m0, k.workgroup_id(1), 6);
  k.s_cmp_ge_u32(m0, M);
  k.s_cbranch_scc1(exit);
  k.s_cmp_ge_u32(n0, N);
  k.s_cbranch_scc1(exit);
  k.s_sub_u32(mlast, M, 1);
  k.s_sub_u32(nlast, N, 1);
  k.s_and_b32(threads, k.kernarg(k.signature().layout().hidden_start + 12, 1),
              0xffff);  // group_size_x
  k.s_mov_b32(parts, 256);
  // 16-byte loads: K % 8 == 0, x_stride % 4 == 0, x and w 16-byte aligned
  k.s_and_b32(vec, K, 7);
  k.s_and_b32(t, xs, 3);
  k.s_or_b32(vec, vec, t);
  k.s_or_b32(t, X[0], Wt[0]);
  k.s_and_b32(t, t, 15);
  k.s_or_b32(vec, vec, t);  // 0 when allowed

  const VGPR tid = k.local_id();
  const VGPR vt = k.vgpr(1, "virtual thread"), ax = k.vgpr(1, "x read address"),
             aw = k.vgpr(1, "w read address");
  const VGPR acc = k.vgpr(16, "acc"), xr = k.vgpr(16, "x rows"), wr = k.vgpr(16, "w rows");
  const VGPR row = k.vgpr(1, "row"), kk = k.vgpr(1, "k"), idx = k.vgpr(1, "index"),
             la = k.vgpr(1, "lds address"), xv = k.vgpr(8, "x"), wv = k.vgpr(4, "w"),
             hv = k.vgpr(8, "halves"), xh = k.vgpr(4, "x halves"), tmp = k.vgpr(1, "tmp");

  // The 256 pieces of one K step: piece p loads row p / 4, elements
  // k0 + 8 (p % 4) .. + 7 of x (rounded to f16) and of w into the tiles.
  auto load_piece = [&](VGPR p) {
    k.v_lshrrev_b32(row, 2, p);
    k.v_and_b32(kk, 3, p);
    k.v_lshlrev_b32(kk, 3, kk);
    k.v_mul_u32_u24(la, kRowBytes, row);
    k.v_lshl_add_u32(la, kk, 1, la);  // row * 80 + (k offset) * 2
    k.v_add_u32(kk, k0, kk);
    for (int i = 0; i < 8; ++i) k.v_mov_b32(xv[i], 0);
    for (int i = 0; i < 4; ++i) k.v_mov_b32(wv[i], 0);
    // x row (clamped to M - 1) and w row (clamped to N - 1)
    const VGPR xrow = k.vgpr(1, "x row"), wrow = k.vgpr(1, "w row");
    k.v_add_u32(xrow, m0, row);
    k.v_min_u32(xrow, mlast, xrow);
    k.v_add_u32(wrow, n0, row);
    k.v_min_u32(wrow, nlast, wrow);
    k.v_mul_lo_u32(idx, xrow, xs);
    k.v_add_u32(idx, idx, kk);
    const VGPR xa = lane_address(k, X, idx, 4u);
    k.v_mul_lo_u32(idx, wrow, K);
    k.v_add_u32(idx, idx, kk);
    const VGPR wa = lane_address(k, Wt, idx, 2u);
    k.v_add_u32(tmp, 8, kk);
    k.v_cmp_ge_u32(vcc, K, tmp);  // the whole piece inside K
    const SGPR whole = k.sgpr(2, "whole piece");
    k.s_mov_b64(whole, vcc);
    k.s_cmp_eq_u32(vec, 0);
    k.s_cselect_b64(whole, whole, 0);
    k.if_(
        whole,
        [&] {
          k.global_load_dwordx4(xv.sub(0, 4), xa, off);
          k.global_load_dwordx4(xv.sub(4, 4), xa, off, offset(16));
          k.global_load_dwordx4(wv, wa, off);
        },
        [&] {
          for (int i = 0; i < 8; ++i) k.v_mov_b32(hv[i], 0);
          for (int e = 0; e < 8; ++e) {
            k.v_add_u32(tmp, e, kk);
            k.v_cmp_gt_u32(vcc, K, tmp);
            k.if_(vcc, [&] {
              k.global_load_dword(xv[e], xa, off, offset(4 * e));
              k.global_load_ushort(hv[e], wa, off, offset(2 * e));
            });
          }
          for (int i = 0; i < 4; ++i) k.v_lshl_or_b32(wv[i], hv[2 * i + 1], 16, hv[2 * i]);
        });
    for (int i = 0; i < 4; ++i) {
      f32_to_f16(k, hv[2 * i], xv[2 * i]);
      f32_to_f16(k, hv[2 * i + 1], xv[2 * i + 1]);
      k.v_pack_b32_f16(xh[i], hv[2 * i], hv[2 * i + 1]);
    }
    k.ds_write_b128(la, xh);
    k.ds_write_b128(la, wv, offset(kTileBytes));
  };

  // One pass: virtual threads vt = local id + pass (those below 256) own
  // output rows m0 + tm + 16 i and columns n0 + tn + 16 j (i, j < 4), with
  // tm = 8 (vt / 128) + (vt / 8) % 8 and tn = 8 ((vt / 64) % 2) + vt % 8: a
  // half-wave reads 4 x rows and 8 w rows, whose 80-byte pitches put each
  // dword of them in a bank of its own (no bank conflicts).
  const VGPR tm = k.vgpr(1, "tm"), tn = k.vgpr(1, "tn"), part = k.vgpr(1, "part");
  k.s_mov_b32(pass, 0);
  k.loop_();
  k.s_cmp_ge_u32(pass, 256);
  k.break_(Cond::Scc1);
  k.v_add_u32(vt, pass, tid);
  k.v_lshrrev_b32(tm, 7, vt);
  k.v_bfe_u32(part, vt, 3, 3);
  k.v_lshl_or_b32(tm, tm, 3, part);
  k.v_bfe_u32(tn, vt, 6, 1);
  k.v_and_b32(part, 7, vt);
  k.v_lshl_or_b32(tn, tn, 3, part);
  k.v_mul_u32_u24(ax, kRowBytes, tm);
  k.v_mul_u32_u24(aw, kRowBytes, tn);
  k.v_add_u32(aw, kTileBytes, aw);
  for (int i = 0; i < 16; ++i) k.v_mov_b32(acc[i], 0);
  k.s_mov_b32(k0, 0);
  k.loop_();
  k.s_cmp_ge_u32(k0, K);
  k.break_(Cond::Scc1);
  row_walk(k, parts, threads, load_piece);
  k.s_barrier();
  k.v_cmp_gt_u32(vcc, 256, vt);
  k.if_(vcc, [&] {
    for (int q = 0; q < 4; ++q) {
      for (int i = 0; i < 4; ++i)
        k.ds_read_b128(xr.sub(4 * i, 4), ax, offset(int(i * 16 * kRowBytes) + 16 * q));
      for (int j = 0; j < 4; ++j)
        k.ds_read_b128(wr.sub(4 * j, 4), aw, offset(int(j * 16 * kRowBytes) + 16 * q));
      for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) dot2_f16(k, acc[4 * i + j], xr[4 * i + c], wr[4 * j + c]);
    }
  });
  k.s_barrier();  // the tiles are rewritten by the next step
  k.s_add_u32(k0, k0, 32);
  k.end_loop();
  // stores of the rows and columns inside M x N
  k.v_cmp_gt_u32(vcc, 256, vt);
  k.if_(vcc, [&] {
    const VGPR m = k.vgpr(1, "m"), n = k.vgpr(1, "n");
    for (int i = 0; i < 4; ++i) {
      k.v_add_u32(m, m0, tm);
      k.v_add_u32(m, 16 * i, m);
      k.v_cmp_gt_u32(vcc, M, m);
      k.if_(vcc, [&] {
        for (int j = 0; j < 4; ++j) {
          k.v_add_u32(n, n0, tn);
          k.v_add_u32(n, 16 * j, n);
          k.v_cmp_gt_u32(vcc, N, n);
          k.if_(vcc, [&] {
            k.v_mul_lo_u32(idx, m, ys);
            k.v_add_u32(idx, idx, n);
            const VGPR ya = lane_address(k, Y, idx, 4u);
            k.global_store_dword(ya, acc[4 * i + j], off);
          });
        }
      });
    }
  });
  k.s_add_u32(pass, pass, threads);
  k.end_loop();
  return k.build();
}

// ------------------------------------------------------------------ tests

void add_linear(Registry& reg) {
  KernelDef d = generated_kernel("vision", kLinear, build_linear);
  d.description =
      "Linear layer with f16 weights for a vision tower: x (f32, rows of pitch x_stride) is "
      "rounded to f16 "
      "(round to nearest even) and multiplied by w [N][K] (f16) with f32 accumulation "
      "(v_dot2_f32_f16; the f16 "
      "products are exact in f32), written to y rows of pitch y_stride; no bias (vit_bias_kernel "
      "adds it). "
      "A workgroup computes one 64 x 64 tile of y through LDS in K steps of 32; workgroup (bx, by) "
      "of the 2D "
      "grid covers columns 64 bx.. and rows 64 by... Tails in M, N and K are handled (rows and "
      "columns past "
      "the end are not written, k past K contributes 0); 16-byte loads where K % 8 == 0, x_stride "
      "% 4 == 0 and "
      "x, w are 16-byte aligned, element loads otherwise. Any workgroup size is correct (256 "
      "threads' work is "
      "done in ceil(256/wg) passes).";
  d.semantics =
      "y[m*y_stride + n] = sum_(k<K) f32(f16(x[m*x_stride + k])) * f32(w[n*K + k]) for m < M, n < "
      "N "
      "(f32 sums)";
  d.geometry =
      "[2D] grid = (ceil(N/64), ceil(M/64)), wg = 256 (any workgroup size is correct; 256 does one "
      "pass)";
  d.launch =
      "sizes m n k\nworkgroup = 256\ngrid = ceil_div(n, 64), ceil_div(m, 64)\narg M = m\narg N = "
      "n\narg K = k";
  d.limits =
      "x_stride >= K and y_stride >= N, passed explicitly (0 is not a default); M*x_stride, "
      "M*y_stride and "
      "N*K below 2^32 elements";
  d.tolerance = Tolerance{5e-5, 5e-5};
  d.cases = [](bool) {
    return case_table({"M", "N", "K", "x_stride", "y_stride", "x_offset", "wg"},
                      {{1, 1, 1, 1, 1, 0, 256},
                       {64, 64, 32, 32, 64, 0, 256},
                       {130, 70, 72, 72, 70, 0, 256},
                       {65, 129, 100, 103, 131, 0, 256},
                       {70, 80, 40, 44, 80, 1, 256},
                       {33, 65, 17, 17, 66, 0, 64},
                       {129, 64, 64, 64, 64, 0, 100}});
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    const size_t M = size_t(c["M"]), N = size_t(c["N"]), K = size_t(c["K"]),
                 xs = size_t(c["x_stride"]), ys = size_t(c["y_stride"]),
                 xoff = size_t(c["x_offset"]);
    Rng rng(c.seed);
    std::vector<float> x = rng.normal(xoff + M * xs);
    std::vector<uint16_t> w(N * K);
    const std::vector<float> wf = rng.normal(N * K, 0.f, 0.5f);
    for (size_t i = 0; i < N * K; ++i) w[i] = quant::f32_to_f16(wf[i]);
    std::vector<float> y0 = rng.normal(M * ys), want = y0;
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) {
        double s = 0;
        for (size_t kk = 0; kk < K; ++kk)
          s += double(quant::f16_to_f32(quant::f32_to_f16(x[xoff + m * xs + kk]))) *
               double(quant::f16_to_f32(w[n * K + kk]));
        want[m * ys + n] = float(s);
      }
    DeviceBuffer<float> dy(dev, vision::guarded_copy(y0)), dx(dev, x);
    DeviceBuffer<uint16_t> dw(dev, w);
    const uint32_t gx = uint32_t((N + 63) / 64), gy = uint32_t((M + 63) / 64);
    launch(dev, kLinear, {gx, gy}, {uint32_t(c["wg"])},
           {dy.addr(), dw.addr(), dx.addr() + 4 * xoff, M, N, K, xs, ys});
    return vision::compare_guarded_output(dy.download(), want, tol);
  };
  // The fused QKV projection of a vision block: 1024 tokens, 1152 -> 3 x 1152.
  d.bench_case = [] {
    const int64_t h = vision::kBenchHidden;
    return make_case({{"M", vision::kBenchTokens},
                      {"N", 3 * h},
                      {"K", h},
                      {"x_stride", h},
                      {"y_stride", 3 * h},
                      {"x_offset", 0},
                      {"wg", 256}});
  };
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["N"] * c["K"]) * 2 + uint64_t(c["M"] * c["K"]) * 4 +
           uint64_t(c["M"] * c["N"]) * 4;
  };
  reg.add(std::move(d));
}

}  // namespace

void register_vision_linear_kernels(Registry& r) {
  add_linear(r);
}

}  // namespace k100::kernels
