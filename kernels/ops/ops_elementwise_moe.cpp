// MoE combine: moe_combine_k (dense: every expert's output for every row) and
// moe_combine_gather_k (bucketed: each row's selected experts' outputs sit at
// host-computed row offsets of one bucket tensor).
//
// One wave per output row (grid = rows, wg = 64; the catalog gives these
// kernels no hidden arguments, so the workgroup size is not known: the first
// wave does the row with all 64 lanes enabled, further waves end). The row is
// walked in 1 KiB chunks (lane l owns floats 4l..4l+3 of a chunk, one
// global_load_dwordx4 per expert per chunk, every line requested once); the
// weights (and bucket offsets) are scalar loads, four experts' rows are loaded
// before the first is accumulated, and the sum runs over experts in index
// order with fused multiply-adds: acc = fma(w_e, x_e, acc). A tail of dim % 4
// floats is done one dword per lane.
#include "ops_elementwise_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

Signature moe_signature(bool gather) {
  std::vector<Param> p = {out("y", "f32"), in(gather ? "exp_bucket" : "exp_out", "f32"), in("weights", "f32")};
  if (gather) p.push_back(in("base", "u32"));
  p.insert(p.end(), {value(gather ? "n_sel" : "n_exp", "u32"), value("rows", "u32"), value("dim", "u32")});
  return Signature(gather ? "moe_combine_gather_k" : "moe_combine_k", p);
}

codeobj::CodeObject build_moe_combine(isa::Target target, bool gather) {
  Kernel k(moe_signature(gather), target, ops::options());
  const SGPR src = k.arg(gather ? "exp_bucket" : "exp_out"), n = k.arg(gather ? "n_sel" : "n_exp"),
             rows = k.arg("rows"), dim = k.arg("dim"), row = k.workgroup_id();
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };
  const SGPR t = s1("t"), e = s1("expert"), eleft = s1("experts left"), eoff = s1("expert offset"), nq = s1("chunks"),
             kq = s1("chunk"),
             erow = k.sgpr(2, "expert row"), estep = k.sgpr(2, "expert step"), p = k.sgpr(2, "row pointer"),
             save = k.sgpr(2, "saved exec"), wq = k.sgpr(4, "weights"), bq = k.sgpr(4, "bucket offsets");
  std::vector<SGPR> ptr;
  for (int j = 0; j < 4; ++j) ptr.push_back(k.sgpr(2, "expert pointer"));
  const VGPR voff = k.vgpr(1, "offset"), acc = k.vgpr(4, "acc"), val = k.vgpr(16, "values");
  Label exit = k.exit();
  // The first wave does the row with all lanes (a partial wave's missing lanes
  // exist in hardware); other waves of a larger workgroup end.
  exit_unless_first_wave(k, exit);
  const VGPR lane = whole_wave_lane_id(k);
  k.s_cmp_ge_u32(row, rows);
  k.s_cbranch_scc1(exit);
  const SGPR yrow = scaled_address(k, k.arg("y"), row, dim, 2), wrow = scaled_address(k, k.arg("weights"), row, n, 2);
  const SGPR brow = gather ? scaled_address(k, k.arg("base"), row, n, 2) : SGPR{};
  if (!gather) {
    set_scaled_address(k, erow, src, row, dim, 2);  // exp_out[0][r]
    k.s_mul_i32(estep[0], rows, dim);
    k.s_mul_hi_u32(estep[1], rows, dim);
    k.s_lshl_b64(estep, estep, 2);  // one expert's [rows][dim] block
  }

  // acc = sum_e w[r][e] * row_e[voff ..], `width` floats per lane: four
  // experts at a time (their rows all loaded first), then single ones.
  auto accumulate = [&](int width) {
    for (int c = 0; c < width; ++c) k.v_mov_b32(acc[c], 0);
    k.s_mov_b32(e, 0);
    k.s_mov_b32(eleft, n);
    if (!gather) k.s_mov_b64(p, erow);
    auto row_of = [&](SGPR dst, int j) {  // expert row j of the current group
      if (gather) {
        set_scaled_address(k, dst, src, bq[j], dim, 2);
      } else if (j == 0) {
        k.s_mov_b64(dst, p);
      } else {
        k.s_add_u32(dst[0], ptr[size_t(j - 1)][0], estep[0]);
        k.s_addc_u32(dst[1], ptr[size_t(j - 1)][1], estep[1]);
      }
    };
    auto load = [&](int j) {
      VGPR v4 = val.sub(4 * j, 4);
      if (width == 4)
        k.global_load_dwordx4(v4, voff, ptr[size_t(j)]);
      else
        k.global_load_dword(v4[0], voff, ptr[size_t(j)]);
    };
    countdown_groups(k, eleft, {4, 1}, [&](int m) {
      k.s_lshl_b32(eoff, e, 2);
      if (m == 4) {
        k.s_load_dwordx4(wq, wrow, eoff);
        if (gather) k.s_load_dwordx4(bq, brow, eoff);
      } else {
        k.s_load_dword(wq[0], wrow, eoff);
        if (gather) k.s_load_dword(bq[0], brow, eoff);
      }
      for (int j = 0; j < m; ++j) row_of(ptr[size_t(j)], j);
      for (int j = 0; j < m; ++j) load(j);
      for (int j = 0; j < m; ++j)
        for (int c = 0; c < width; ++c) k.v_fmac_f32(acc[c], wq[j], val[4 * j + c]);
      k.s_add_u32(e, e, m);
      if (!gather) {
        k.s_add_u32(p[0], ptr[size_t(m - 1)][0], estep[0]);
        k.s_addc_u32(p[1], ptr[size_t(m - 1)][1], estep[1]);
      }
    });
  };

  // 1 KiB chunks: floats 256k + 4 lane .. +3.
  Label chunk = k.label("chunk"), whole = k.label("whole"), tail = k.label("tail");
  k.s_lshr_b32(nq, dim, 2);
  k.s_mov_b32(kq, 0);
  k.v_lshlrev_b32(voff, 4, lane);
  k.bind(chunk);
  k.s_cmp_ge_u32(kq, nq);
  k.s_cbranch_scc1(tail);
  k.s_mov_b64(save, exec);
  k.s_sub_u32(t, nq, kq);
  k.s_cmp_ge_u32(t, 64);
  k.s_cbranch_scc1(whole);
  k.v_cmp_gt_u32(vcc, t, lane);
  k.s_and_b64(exec, exec, vcc);
  k.bind(whole);
  accumulate(4);
  k.global_store_dwordx4(voff, acc, yrow);
  k.s_mov_b64(exec, save);
  k.v_add_u32(voff, 1024, voff);
  k.s_add_u32(kq, kq, 64);
  k.s_branch(chunk);
  // dim % 4 floats: lane l < dim % 4 takes float 4 nq + l.
  k.bind(tail);
  k.s_and_b32(t, dim, 3);
  k.s_cbranch_scc0(exit);
  k.v_cmp_gt_u32(vcc, t, lane);
  k.s_and_b64(exec, exec, vcc);
  k.s_lshl_b32(t, nq, 2);
  k.v_add_u32(voff, t, lane);
  k.v_lshlrev_b32(voff, 2, voff);
  accumulate(1);
  k.global_store_dword(voff, acc[0], yrow);
  return k.build();
}

// ------------------------------------------------------------------ tests

// Sums of up to 64 products of |w| <= 1 and |x| <= 1 in f32 fma order against
// a double reference: a few ulps of partial sums that reach ~16 (ulp 2e-6).
Tolerance moe_tolerance() { return Tolerance{6e-6, 2e-6}; }

std::vector<Case> moe_cases(bool sweep) {
  std::vector<Case> c = case_table({"rows", "n", "dim"}, {{1, 1, 1}, {3, 4, 640}, {5, 7, 1030}, {2, 0, 100},
                                                         {4, 9, 259}});
  if (sweep) {
    uint32_t seed = 50;
    for (int64_t dim : {1, 3, 4, 63, 64, 255, 256, 257, 1000, 5120})
      for (int64_t n : {1, 2, 3, 4, 5, 8, 16, 33})
        for (int64_t rows : {1, 7}) c.push_back(make_case({{"rows", rows}, {"n", n}, {"dim", dim}}, seed++));
  }
  return c;
}

void add_moe(Registry& reg, bool gather) {
  KernelDef d = generated_kernel("ops", moe_signature(gather), [gather](isa::Target t) { return build_moe_combine(t, gather); });
  const char* common =
      " One wave per row (wg = 64; the first wave of a larger workgroup does the row, the others end): 1 KiB "
      "chunks of the row, one global_load_dwordx4 per expert per chunk, four experts in flight, scalar loads of "
      "the weights; fma accumulation over experts in index order.";
  if (gather) {
    d.description = std::string("Bucketed MoE combine: each row gathers its n_sel selected experts' output rows "
                                "from one bucket tensor at host-computed row indices base[r][e] (bucket offset "
                                "of the expert + rank of token r in it) and sums them with its routing weights.") +
                    common;
    d.semantics = "y[r][d] = sum_(e<n_sel) weights[r][e] * exp_bucket[base[r][e]][d] (rows of dim floats)";
    d.limits = "base[r][e] < bucket rows (not checked); n_sel = 0 gives zeros; tolerance stated for n_sel <= 64, |w|, |x| <= 1";
  } else {
    d.description = std::string("Dense MoE combine: every expert's output for every row, weighted by the routing "
                                "weights (exp_out [n_exp][rows][dim], weights [rows][n_exp]).") +
                    common;
    d.semantics = "y[r][d] = sum_(e<n_exp) weights[r][e] * exp_out[e][r][d]";
    d.limits = "n_exp = 0 gives zeros; tolerance stated for n_exp <= 64, |w|, |x| <= 1";
  }
  d.geometry = "grid = rows (workgroups past rows do nothing), wg = 64";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg rows = rows\narg dim = dim";
  d.tolerance = moe_tolerance();
  d.cases = moe_cases;
  d.run = [gather](TestDevice& dev, const Case& c) {
    const int64_t rows = c["rows"], n = c["n"], dim = c["dim"];
    Rng rng(c.seed);
    auto w = rng.uniform(size_t(rows * n), 0.f, 1.f);
    std::vector<float> want(size_t(rows * dim));
    DeviceBuffer<float> y(dev, with_guard(std::vector<float>(size_t(rows * dim), 0.f))), dw(dev, w);
    if (gather) {
      // Buckets: expert e holds the rows routed to it; token r's pick j of expert ex lands at
      // offset[ex] + rank. Built like the host router: a random expert choice per (r, j).
      const int64_t experts = std::max<int64_t>(n, 3) + 2;
      auto members = std::vector<std::vector<int64_t>>(size_t(experts));
      std::vector<int64_t> pick(size_t(rows * n)), rank(size_t(rows * n));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j) {
          int64_t ex = (r * 7 + j * 3 + int64_t(rng.engine()() % 3)) % experts;
          pick[size_t(r * n + j)] = ex;
          rank[size_t(r * n + j)] = int64_t(members[size_t(ex)].size());
          members[size_t(ex)].push_back(r);
        }
      std::vector<int64_t> offset(size_t(experts) + 1, 0);
      for (int64_t ex = 0; ex < experts; ++ex) offset[size_t(ex + 1)] = offset[size_t(ex)] + int64_t(members[size_t(ex)].size());
      const int64_t bucket_rows = std::max<int64_t>(offset.back(), 1);
      auto bucket = rng.uniform(size_t(bucket_rows * dim));
      std::vector<uint32_t> base(size_t(rows * n));
      for (size_t i = 0; i < base.size(); ++i) base[i] = uint32_t(offset[size_t(pick[i])] + rank[i]);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e2 = 0; e2 < dim; ++e2) {
          double s = 0;
          for (int64_t j = 0; j < n; ++j)
            s += double(w[size_t(r * n + j)]) * bucket[size_t(int64_t(base[size_t(r * n + j)]) * dim + e2)];
          want[size_t(r * dim + e2)] = float(s);
        }
      DeviceBuffer<float> db(dev, bucket);
      DeviceBuffer<uint32_t> dbase(dev, base.empty() ? std::vector<uint32_t>{0} : base);
      launch(dev, moe_signature(true), {uint32_t(rows)}, {64},
                 {y.addr(), db.addr(), dw.addr(), dbase.addr(), n, rows, dim});
    } else {
      auto x = rng.uniform(size_t(std::max<int64_t>(n, 1) * rows * dim));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t e2 = 0; e2 < dim; ++e2) {
          double s = 0;
          for (int64_t j = 0; j < n; ++j) s += double(w[size_t(r * n + j)]) * x[size_t((j * rows + r) * dim + e2)];
          want[size_t(r * dim + e2)] = float(s);
        }
      DeviceBuffer<float> dx(dev, x);
      launch(dev, moe_signature(false), {uint32_t(rows)}, {64}, {y.addr(), dx.addr(), dw.addr(), n, rows, dim});
    }
    return compare_guarded(y.download(), want, moe_tolerance());
  };
  d.ideal_bytes = [gather](const Case& c) {
    uint64_t rows = uint64_t(c["rows"]), n = uint64_t(c["n"]), dim = uint64_t(c["dim"]);
    return (n * rows * dim + rows * dim + rows * n * (gather ? 2 : 1)) * 4;
  };
  // 64 tokens, 8 experts (dense) / top-8 (bucketed), dim 5120.
  d.bench_case = [] { return make_case({{"rows", 64}, {"n", 8}, {"dim", 5120}}); };
  reg.add(std::move(d));
}

}  // namespace

void register_ops_elementwise_moe_kernels(Registry& r) {
  add_moe(r, false);
  add_moe(r, true);
}

}  // namespace k100::kernels
