// KV-cache transposes (KERNELS.md §3.9): vt_scatter_k, vt_scatter_v_k,
// vt_scatter_v1_k. They append new rows to the f32 decode-attention caches:
// a transposed cache [dim][ystride] (V^T for the single-head path, K^T for
// flash_dec_part_k) and, for the _v kernels, a row-major cache [..][dim].
// Copies are bit-exact; the tests fill the caches with old contents first and
// check that only the appended columns / rows change.
//
// vt_scatter_k and vt_scatter_v_k move one 64 x 64 tile per workgroup
// (workgroup id -> d tile id & (2^cshift - 1), row tile id >> cshift) through
// LDS rows padded to 65 floats: lane l reads column D0 + l of 8 rows at a
// time (256-byte row loads, eight, or sixteen with the V rows, in flight) and
// writes them as tile rows (conflict-free), then reads tile row l back as
// columns (260 l + 4 d: conflict-free) and stores them as 256-byte runs of the
// transposed cache's rows. Partial tiles are masked. vt_scatter_v_k copies
// the V rows into the row-major cache on the way. vt_scatter_v1_k appends one
// token: one d per lane. Waves past the first do nothing.
#include <algorithm>

#include "other_families.h"

namespace k100::kernels {

namespace {

using namespace codegen;

Signature scatter_signature(bool kv) {
  if (!kv)
    return Signature("vt_scatter_k", {out("vt", "f32"), in("v", "f32"), value("rows", "u32"), value("dim", "u32"),
                                      value("vstride", "u32"), value("ystride", "u32"), value("y0", "u32"),
                                      value("cshift", "u32")},
                     codeobj::HiddenArgLayout::Compact);
  return Signature("vt_scatter_v_k", {out("vt", "f32"), out("vc", "f32"), in("k", "f32"), in("v", "f32"),
                                      value("rows", "u32"), value("dim", "u32"), value("kstride", "u32"),
                                      value("vstride", "u32"), value("ystride", "u32"), value("y0", "u32"),
                                      value("cshift", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

constexpr int kTileRow = 260;  // bytes per LDS tile row: 65 floats

codeobj::CodeObject build_scatter(isa::Target target, bool kv) {
  Kernel k(scatter_signature(kv), target, {.lds_bytes = 64 * kTileRow});
  Label exit = k.exit();
  const SGPR rows = k.arg("rows"), dim = k.arg("dim"), ystride = k.arg("ystride"), id = k.workgroup_id();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  const SGPR mask = s1("tile mask"), dtile = s1("d tile"), ttile = s1("row tile"), d0 = s1("D0"), t0 = s1("T0"),
             nd = s1("d in tile"), nt = s1("rows in tile"), left = s1("left"), col = s1("y0 + T0"),
             saved = k.sgpr(2, "saved exec");
  const VGPR lane = k.local_id(), l4 = k.vgpr(1, "4 lane"), lds = k.vgpr(1, "tile address"),
             tile = k.vgpr(8, "tile values"), vrows = kv ? k.vgpr(8, "v rows") : VGPR{};
  exit_unless_first_wave(k, exit);
  k.v_lshlrev_b32(l4, 2, lane);
  k.s_lshl_b32(mask, 1, k.arg("cshift"));
  k.s_add_u32(mask, mask, -1);
  k.s_and_b32(dtile, id, mask);
  k.s_lshr_b32(ttile, id, k.arg("cshift"));
  k.s_cmp_ge_u32(dtile, ceil_shift(k, dim, 6));
  k.s_cbranch_scc1(exit);  // d tile past dim
  k.s_cmp_ge_u32(ttile, ceil_shift(k, rows, 6));
  k.s_cbranch_scc1(exit);  // row tile past rows
  k.s_lshl_b32(d0, dtile, 6);
  k.s_lshl_b32(t0, ttile, 6);
  k.s_sub_u32(nd, dim, d0);
  k.s_min_u32(nd, nd, 64);
  k.s_sub_u32(nt, rows, t0);
  k.s_min_u32(nt, nt, 64);
  const SGPR sstride = k.arg(kv ? "kstride" : "vstride");
  const SGPR src = element_address(k, k.arg(kv ? "k" : "v"), t0, sstride, d0, 2), step = widen_shifted(k, sstride, 2);
  k.s_add_u32(col, k.arg("y0"), t0);
  const SGPR dst = element_address(k, k.arg("vt"), d0, ystride, col, 2), dstep = widen_shifted(k, ystride, 2);
  SGPR vsrc, vstep, vdst, vdstep;
  if (kv) {
    vsrc = element_address(k, k.arg("v"), t0, k.arg("vstride"), d0, 2), vstep = widen_shifted(k, k.arg("vstride"), 2);
    vdst = element_address(k, k.arg("vc"), col, dim, d0, 2), vdstep = widen_shifted(k, dim, 2);
  }
  // Phase 1: lanes d < nd load the tile's rows and write them as tile rows.
  k.s_mov_b64(saved, exec);
  k.v_cmp_gt_u32(vcc, nd, lane);
  k.s_and_b64(exec, saved, vcc);
  k.v_mov_b32(lds, l4);
  k.s_mov_b32(left, nt);
  countdown_groups(k, left, {8, 1}, [&](int n) {
    for (int i = 0; i < n; ++i) {
      k.global_load_dword(tile[i], l4, src);
      add64_pair(k, src, step);
      if (!kv) continue;
      k.global_load_dword(vrows[i], l4, vsrc);
      add64_pair(k, vsrc, vstep);
    }
    for (int i = 0; i < n; ++i) k.ds_write_b32(lds, tile[i], offset(kTileRow * i));
    k.v_add_u32(lds, kTileRow * n, lds);
    for (int i = 0; i < n && kv; ++i) {
      k.global_store_dword(l4, vrows[i], vdst);
      add64_pair(k, vdst, vdstep);
    }
  });
  // Phase 2: lanes t < nt read tile row t as columns and store them as runs of
  // the transposed cache's rows D0 + d.
  k.s_barrier();
  k.s_mov_b64(exec, saved);
  k.v_cmp_gt_u32(vcc, nt, lane);
  k.s_and_b64(exec, saved, vcc);
  k.v_mul_u32_u24(lds, kTileRow, lane);
  k.s_mov_b32(left, nd);
  countdown_groups(k, left, {8, 1}, [&](int n) {
    for (int i = 0; i < n; ++i) k.ds_read_b32(tile[i], lds, offset(4 * i));
    k.v_add_u32(lds, 4 * n, lds);
    for (int i = 0; i < n; ++i) {
      k.global_store_dword(l4, tile[i], dst);
      add64_pair(k, dst, dstep);
    }
  });
  return k.build();
}

const Signature kScatter1("vt_scatter_v1_k", {out("vt", "f32"), out("vc", "f32"), in("k", "f32"), in("v", "f32"),
                                              value("dim", "u32"), value("ystride", "u32"), value("y0", "u32")});

codeobj::CodeObject build_scatter1(isa::Target target) {
  Kernel k(kScatter1, target);
  Label exit = k.exit();
  const SGPR carry = k.sgpr(2, "carry");
  const VGPR d = k.vgpr(1, "d"), off = k.vgpr(1, "offset"), kd = k.vgpr(1, "k[d]"), vd = k.vgpr(1, "v[d]"),
             addr = k.vgpr(2, "vt address"), hi = k.vgpr(1, "base hi");
  exit_unless_first_wave(k, exit);
  workgroup_elements64(k, k.arg("dim"), exit, [&](SGPR first) {
    k.v_add_u32(d, first, k.local_id());
    k.v_lshlrev_b32(off, 2, d);
    k.global_load_dword(kd, off, k.arg("k"));
    k.global_load_dword(vd, off, k.arg("v"));
    // vt + 4 (d ystride + y0) per lane, 64-bit
    const SGPR column = offset_address(k, k.arg("vt"), k.arg("y0"), 2);
    k.v_mad_u64_u32(addr, carry, d, k.arg("ystride"), 0);
    k.v_lshlrev_b64(addr, 2, addr);
    k.v_mov_b32(hi, column[1]);
    k.v_add_co_u32(addr[0], vcc, column[0], addr[0]);
    k.v_addc_co_u32(addr[1], vcc, hi, addr[1], vcc);
    k.global_store_dword(addr, kd, as::off);
    k.global_store_dword(off, vd, scaled_address(k, k.arg("vc"), k.arg("y0"), k.arg("dim"), 2));
  });
  return k.build();
}

// log2 of the number of 64-wide d tiles, rounded up (the cshift argument).
int64_t cshift_for(int64_t dim) {
  int64_t s = 0;
  while ((int64_t(64) << s) < dim) ++s;
  return s;
}

// cshift of a case: the smallest that covers dim, plus "xshift" (extra d tiles that must do nothing)
int64_t case_cshift(const Case& c) { return cshift_for(c["dim"]) + (c.dims.count("xshift") ? c["xshift"] : 0); }
uint32_t tile_grid(const Case& c) { return uint32_t(((c["rows"] + 63) / 64) << case_cshift(c)); }

// vt[d * ystride + y0 + t] = src[t * sstride + d]
void transpose_into(std::vector<float>& vt, const std::vector<float>& src, int64_t rows, int64_t dim,
                    int64_t sstride, int64_t ystride, int64_t y0) {
  for (int64_t t = 0; t < rows; ++t)
    for (int64_t d = 0; d < dim; ++d) vt[size_t(d * ystride + y0 + t)] = src[size_t(t * sstride + d)];
}

std::vector<Case> tile_cases(bool sweep, uint32_t seed0) {
  // rows, dim, source stride pad, ystride (cache length), y0
  std::vector<Case> c = case_table({"rows", "dim", "spad", "ystride", "y0", "seed"},
                                   {{1, 128, 0, 300, 17, seed0 + 1}, {8, 128, 0, 256, 248, seed0 + 2},
                                    {64, 64, 5, 200, 3, seed0 + 3}, {100, 256, 0, 160, 60, seed0 + 4},
                                    {40, 96, 1, 50, 6, seed0 + 5}});
  if (sweep)
    for (int64_t rows : {1, 2, 7, 8, 9, 63, 64, 65, 130, 257})
      for (int64_t dim : {1, 32, 64, 65, 128, 192, 256, 512, 1024})
        c.push_back(make_case({{"rows", rows}, {"dim", dim}, {"spad", rows % 3}, {"ystride", rows + 37}, {"y0", 29},
                               {"xshift", rows % 2}},
                              uint32_t(seed0 + rows * 1000 + dim)));
  return c;
}

void register_vt_scatter(Registry& r) {
  KernelDef d = generated_kernel("other", scatter_signature(false), [](isa::Target t) { return build_scatter(t, false); });
  d.description =
      "Transposes new V rows into a V^T cache: each workgroup moves one 64 x 64 tile through LDS padded to "
      "65 floats per row (conflict-free row writes and column reads), reading 256-byte rows of v and writing "
      "256-byte runs of vt rows, eight memory instructions in flight. Only columns [y0, y0 + rows) of vt change. "
      "Partial tiles are masked, so any rows and any dim <= 64 * 2^cshift work (the reference required "
      "dim % 64 == 0). The compact hidden block is declared for the catalog layout but not read.";
  d.semantics = "vt[d*ystride + y0 + t] = v[t*vstride + d] for t < rows, d < dim";
  d.geometry =
      "grid = ceil(rows/64) * 2^cshift, wg = 64; workgroup id -> d tile = id & (2^cshift - 1), row tile = "
      "id >> cshift; cshift = log2(dim/64) (any cshift with 64 * 2^cshift >= dim)";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = ceil_div(rows, 64) * ceil_div(dim, 64)\narg cshift = log2_ceil(ceil_div(dim, 64))";
  d.limits = "y0 + rows <= ystride; vstride >= dim; dim <= 64 * 2^cshift; wg must be at least 64";
  d.cases = [](bool sweep) { return tile_cases(sweep, 500); };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], dim = c["dim"], vstride = dim + c["spad"], ystride = c["ystride"], y0 = c["y0"];
    Rng rng(c.seed);
    auto v = rng.uniform(size_t(rows * vstride));
    auto vt = rng.uniform(size_t(dim * ystride + 1));  // old cache contents and a guard
    DeviceBuffer<float> dv(dev, v), dvt(dev, vt);
    dev.launch("vt_scatter_k", {tile_grid(c)}, {64},
               {dvt.addr(), dv.addr(), u32(rows), u32(dim), u32(vstride), u32(ystride), u32(y0),
                u32(case_cshift(c))});
    transpose_into(vt, v, rows, dim, vstride, ystride, y0);
    return compare(dvt.download(), vt, Tolerance{});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["dim"]) * 8; };
  d.bench_case = [] {
    return make_case({{"rows", 64}, {"dim", 4096}, {"spad", 0}, {"ystride", 4096}, {"y0", 1000}});
  };
  r.add(std::move(d));
}

void register_vt_scatter_v(Registry& r) {
  KernelDef d = generated_kernel("other", scatter_signature(true), [](isa::Target t) { return build_scatter(t, true); });
  d.description =
      "Multi-token KV append in one launch: K rows transposed into the K^T cache (through a 64 x 65 LDS tile, as "
      "vt_scatter_k) and V rows copied into the row-major V cache. Each workgroup handles one 64 x 64 tile of "
      "both, sixteen 256-byte row loads in flight. Partial tiles are masked (any rows, any dim <= 64 * 2^cshift). "
      "The compact hidden block is declared for the catalog layout but not read.";
  d.semantics =
      "vt[d*ystride + y0 + t] = k[t*kstride + d]; vc[(y0 + t)*dim + d] = v[t*vstride + d] for t < rows, d < dim";
  d.geometry =
      "grid = ceil(rows/64) * 2^cshift, wg = 64; workgroup id -> d tile = id & (2^cshift - 1), row tile = "
      "id >> cshift; cshift = log2(dim/64) (any cshift with 64 * 2^cshift >= dim)";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = ceil_div(rows, 64) * ceil_div(dim, 64)\narg cshift = log2_ceil(ceil_div(dim, 64))";
  d.limits =
      "y0 + rows <= ystride (vt) and <= the row count of vc; kstride, vstride >= dim; dim <= 64 * 2^cshift; "
      "wg must be at least 64";
  d.cases = [](bool sweep) { return tile_cases(sweep, 600); };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], dim = c["dim"], ystride = c["ystride"], y0 = c["y0"];
    int64_t kstride = dim + c["spad"], vstride = dim + 2 * c["spad"];
    Rng rng(c.seed);
    auto k = rng.uniform(size_t(rows * kstride));
    auto v = rng.uniform(size_t(rows * vstride));
    auto vt = rng.uniform(size_t(dim * ystride + 1));  // old cache contents and a guard
    auto vc = rng.uniform(size_t(ystride * dim + 1));
    DeviceBuffer<float> dk(dev, k), dv(dev, v), dvt(dev, vt), dvc(dev, vc);
    dev.launch("vt_scatter_v_k", {tile_grid(c)}, {64},
               {dvt.addr(), dvc.addr(), dk.addr(), dv.addr(), u32(rows), u32(dim), u32(kstride), u32(vstride),
                u32(ystride), u32(y0), u32(case_cshift(c))});
    transpose_into(vt, k, rows, dim, kstride, ystride, y0);
    for (int64_t t = 0; t < rows; ++t)
      for (int64_t i = 0; i < dim; ++i) vc[size_t((y0 + t) * dim + i)] = v[size_t(t * vstride + i)];
    return combine({compare(dvt.download(), vt, Tolerance{}), compare(dvc.download(), vc, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["dim"]) * 16; };
  d.bench_case = [] {
    return make_case({{"rows", 64}, {"dim", 4096}, {"spad", 0}, {"ystride", 4096}, {"y0", 1000}});
  };
  r.add(std::move(d));
}

void register_vt_scatter_v1(Registry& r) {
  KernelDef d = generated_kernel("other", kScatter1, build_scatter1);
  d.description =
      "Single-token KV append in one launch: k becomes column y0 of the transposed K cache and v row y0 of the "
      "row-major V cache. One d per lane: the k/v loads and the vc store are 256-byte rows, the vt stores one "
      "dword per cache row (inherent to the layout). Any dim (the grid covers ceil(dim/64)).";
  d.semantics = "vt[d*ystride + y0] = k[d]; vc[y0*dim + d] = v[d] for d < dim";
  d.geometry = "grid = ceil(dim/64) (workgroups past it do nothing), wg = 64";
  d.launch = "sizes dim\nworkgroup = 64\ngrid = ceil_div(dim, 64)";
  d.limits = "y0 < ystride (vt) and < the row count of vc; wg must be at least 64";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"dim", "ystride", "y0", "seed"}, {{128, 64, 0, 701}, {64, 100, 99, 702},
                                                                       {200, 33, 17, 703}, {1, 5, 2, 704}});
    if (sweep)
      for (int64_t dim : {2, 63, 65, 127, 256, 320, 1000, 4096, 8192})
        for (int64_t ys : {1, 77, 1000}) c.push_back(make_case({{"dim", dim}, {"ystride", ys}, {"y0", ys - 1}}, uint32_t(dim + ys)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t dim = c["dim"], ystride = c["ystride"], y0 = c["y0"];
    Rng rng(c.seed);
    auto k = rng.uniform(size_t(dim)), v = rng.uniform(size_t(dim));
    auto vt = rng.uniform(size_t(dim * ystride + 1));
    auto vc = rng.uniform(size_t(ystride * dim + 1));
    DeviceBuffer<float> dk(dev, k), dv(dev, v), dvt(dev, vt), dvc(dev, vc);
    dev.launch("vt_scatter_v1_k", {uint32_t((dim + 63) / 64)}, {64},
               {dvt.addr(), dvc.addr(), dk.addr(), dv.addr(), u32(dim), u32(ystride), u32(y0)});
    for (int64_t i = 0; i < dim; ++i) {
      vt[size_t(i * ystride + y0)] = k[size_t(i)];
      vc[size_t(y0 * dim + i)] = v[size_t(i)];
    }
    return combine({compare(dvt.download(), vt, Tolerance{}), compare(dvc.download(), vc, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["dim"]) * 16; };
  d.bench_case = [] { return make_case({{"dim", 4096}, {"ystride", 4096}, {"y0", 1000}}); };
  r.add(std::move(d));
}

}  // namespace

void register_other_kv_kernels(Registry& r) {
  register_vt_scatter(r);
  register_vt_scatter_v(r);
  register_vt_scatter_v1(r);
}

}  // namespace k100::kernels
