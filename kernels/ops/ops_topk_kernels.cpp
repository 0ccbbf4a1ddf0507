// Per-row top-k by insertion, one row per lane: topk_k (dynamic k) and
// router_top10_k (k = 10, the MoE router). Generators, registry entries,
// host reference, tests.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops_parts.h"
#include "k100/base/error.h"
#include "ops_selection_inputs.h"

namespace k100::kernels {

namespace {

using selection::finite_or_neg_inf;
using selection::selection_inputs;

constexpr uint32_t kQuietNaN = 0x7fc00000u;

// ================================================================ top-k

// The insertion routines are called (s_swappc_b64) only when some lane's
// column beats its k-th value; for dynamic k they enter the sorted slots at
// slot k-1 through a computed jump into a table of 12-byte entries and leave
// through another into 8-byte threshold fetches. The layer follows both
// (Kernel::routine, jump_table) and checks the entry sizes.
namespace tk {

using namespace codegen;

Signature topk_signature(bool router) {
  if (router)
    return Signature("router_top10_k", {in("logits", "f32"), out("ids", "i32"), out("weights", "f32"),
                                        value("rows", "u32"), value("n_experts", "u32")});
  return Signature("topk_k", {in("x", "f32"), out("idx", "i32"), out("val", "f32"), value("rows", "u32"),
                              value("cols", "u32"), value("k", "u32")});
}

constexpr int kMaxK = 16;
constexpr int kLdsRow = 72;  // bytes per LDS row: 16 floats + 2 (banks 18 r mod 32 are distinct for 16 lanes)

enum class Cmp { Greater, NotLessEqual };

// What the insertion routines share with the kernel: the sorted slots (values
// a, columns i), the candidate x with its column (col, from the scalar
// column), c_j = (x beats slot j) in two alternating masks, the threshold and,
// for dynamic k, the two jump-table offsets.
struct Slots {
  VGPR a, i, x, col, thr;
  SGPR c[2], column, entry, fetch;
};

void compare(Kernel& k, Cmp c, SGPR dst, VGPR x, VGPR a) {
  if (c == Cmp::Greater)
    k.v_cmp_gt_f32(dst, x, a);
  else
    k.v_cmp_nle_f32(dst, x, a);  // x > a, or a is an empty (NaN) slot
}

// Insertion of (x, column) into the sorted slots 0..K-1, bottom-up:
// with c_j = (x beats slot j), slot j becomes slot j-1 when c_(j-1), else x
// when c_j, else stays. Slots are descending; an equal value never beats a
// slot (earlier column first). c is monotone in j, so once no lane moves
// slot j-1 the slots above are unchanged and the routine stops (`done`).
// In the steady phase (every slot filled, x not NaN) the new value of slot j
// is the median of (slot j-1, x, slot j): one v_med3_f32 instead of two
// selects (a -0 next to an equal +0 may come back as +0). The fill phase has
// NaN (empty) slots and uses the selects.
void insertion_block(Kernel& k, const Slots& s, Cmp c, int j, Label done) {
  const bool steady = c == Cmp::Greater;
  const SGPR cj = s.c[j % 2], cprev = s.c[(j + 1) % 2];
  if (j > 0) compare(k, c, cprev, s.x, s.a[j - 1]);
  if (j > 0 && steady) {
    k.v_med3_f32(s.a[j], s.a[j - 1], s.x, s.a[j]);
  } else if (j == 0 && steady) {
    k.v_max_f32(s.a[0], s.a[0], s.x);
  } else {
    k.v_cndmask_b32(s.a[j], s.a[j], s.x, cj);
    if (j > 0) k.v_cndmask_b32(s.a[j], s.a[j], s.a[j - 1], cprev);
  }
  k.v_cndmask_b32(s.i[j], s.i[j], s.col, cj);
  if (j > 0) {
    k.v_cndmask_b32(s.i[j], s.i[j], s.i[j - 1], cprev);
    k.s_cmp_eq_u64(cprev, 0);
    k.s_cbranch_scc1(done);
  }
}

// The insertion routine: K = 10 (router) or dynamic k (topk_k: entered at
// slot k-1 by a table of (compare, branch) entries of 12 bytes, left by one
// of (threshold = slot k-1, return) entries of 8).
Routine insertion_routine(Kernel& k, const Slots& s, Cmp c, bool router) {
  return k.routine(c == Cmp::Greater ? "insert" : "fill", [&](const Routine& r) {
    k.v_mov_b32(s.col, s.column);
    Label done = k.label("insert_done");
    if (router) {
      compare(k, c, s.c[9 % 2], s.x, s.a[9]);
      for (int j = 9; j >= 0; --j) insertion_block(k, s, c, j, done);
      k.bind(done);
      k.ret(r);
      return;
    }
    std::vector<Label> blocks;
    for (int j = 0; j < kMaxK; ++j) blocks.push_back(k.label("block" + std::to_string(j)));
    k.jump_table(s.entry, kMaxK, 12, [&](int e) {  // entry 15 - j: slot j
      const int j = kMaxK - 1 - e;
      compare(k, c, s.c[j % 2], s.x, s.a[j]);
      k.s_branch(blocks[size_t(j)]);
    });
    for (int j = kMaxK - 1; j >= 0; --j) {
      k.bind(blocks[size_t(j)]);
      insertion_block(k, s, c, j, done);
    }
    k.bind(done);
    k.jump_table(s.fetch, kMaxK, 8, [&](int e) {
      k.v_mov_b32(s.thr, s.a[kMaxK - 1 - e]);
      k.ret(r);
    });
  });
}

codeobj::CodeObject generate_topk(bool router, isa::Target target) {
  Kernel k(topk_signature(router), target, ops::options(64 * kLdsRow, 3));
  Label exit = k.exit();
  const int K = router ? 10 : kMaxK;  // slots kept
  const VGPR lane = k.local_id(), roff = k.vgpr(1, "row offset"), out = k.vgpr(1, "out offset"),
             t = k.vgpr(1, "t"), xd = k.vgpr(16, "columns"), stage = k.vgpr(16, "tile"),
             toff = k.vgpr(4, "tile offsets"), ldsw = k.vgpr(1, "lds write"), ldsr = k.vgpr(1, "lds read");
  Slots s{k.vgpr(K, "slot values"), k.vgpr(K, "slot columns"), k.vgpr(1, "x"), k.vgpr(1, "column"), {},
          {k.sgpr(2, "c even"), k.sgpr(2, "c odd")}, k.sgpr(1, "scalar column"), {}, {}};
  s.thr = router ? s.a[9] : k.vgpr(1, "threshold");
  const SGPR rows = k.arg("rows"), cols = k.arg(router ? "n_experts" : "cols"), kk = k.sgpr(1, "k"),
             r0 = k.sgpr(1, "r0"), c = k.sgpr(1, "c"), f = k.sgpr(1, "fill"), tmp = k.sgpr(1, "tmp"),
             limit = k.sgpr(1, "limit"), base = k.sgpr(2, "column address"), rows_exec = k.sgpr(2, "rows");
  const SGPR piece[4] = {k.sgpr(2, "piece 0"), k.sgpr(2, "piece 1"), k.sgpr(2, "piece 2"), k.sgpr(2, "piece 3")};
  if (!router) s.entry = k.sgpr(1, "entry offset"), s.fetch = k.sgpr(1, "fetch offset");
  // the two insertion routines sit at the start, jumped over
  const Routine steady = insertion_routine(k, s, Cmp::Greater, router);
  const Routine fill = insertion_routine(k, s, Cmp::NotLessEqual, router);

  exit_unless_first_wave(k, exit);  // one wave: rows 64 group + lane
  k.s_mov_b32(kk, router ? Operand(10) : Operand(k.arg("k")));
  k.s_cmp_eq_u32(kk, 0);
  k.s_cbranch_scc1(exit);
  k.s_lshl_b32(r0, k.workgroup_id(), 6);
  k.v_add_u32(t, r0, lane);
  // EXEC by hand (not an if_): the tile loads below widen it to the whole wave and back to these rows
  k.v_cmp_gt_u32(vcc, rows, t);
  k.s_and_b64(exec, exec, vcc);
  k.s_cbranch_execz(exit);

  if (!router) {
    // k > 16 is not supported: every slot of the row gets idx -1 and val NaN
    Label k_ok = k.label("k_ok"), top = k.label("bad_k");
    k.s_cmp_le_u32(kk, kMaxK);
    k.s_cbranch_scc1(k_ok);
    k.s_lshl_b32(tmp, kk, 2);
    k.v_mul_lo_u32(out, tmp, lane);
    const SGPR vals = scaled_address(k, k.arg("val"), r0, kk, 2), ids = scaled_address(k, k.arg("idx"), r0, kk, 2);
    k.v_mov_b32(t, kQuietNaN);
    k.v_mov_b32(s.x, -1);
    k.s_mov_b32(c, 0);
    k.bind(top);
    k.global_store_dword(out, t, vals);
    k.global_store_dword(out, s.x, ids);
    add64(k, vals, 4);
    add64(k, ids, 4);
    k.s_add_u32(c, c, 1);
    k.s_cmp_lt_u32(c, kk);
    k.s_cbranch_scc1(top);
    k.s_branch(exit);
    k.bind(k_ok);
    // jump-table offsets for k: entry and fetch 16 - k
    k.s_sub_u32(tmp, kMaxK, kk);
    k.s_mul_i32(s.entry, tmp, 12);
    k.s_add_u32(s.entry, s.entry, 12);
    k.s_lshl_b32(s.fetch, tmp, 3);
    k.s_add_u32(s.fetch, s.fetch, 12);
  }

  // empty slots: NaN (every value beats them in the fill phase), column -1
  for (int j = 0; j < K; ++j) {
    k.v_mov_b32(s.a[j], kQuietNaN);
    k.v_mov_b32(s.i[j], -1);
  }
  if (!router) k.v_mov_b32(s.thr, kQuietNaN);
  k.s_lshl_b32(tmp, cols, 2);
  k.v_mul_lo_u32(roff, tmp, lane);  // this lane's row, relative to row r0
  const SGPR block = scaled_address(k, k.arg(router ? "logits" : "x"), r0, cols, 2);

  // fill phase: the first min(k, cols) columns, NaN counted as -inf
  k.s_min_u32(f, kk, cols);
  k.v_mov_b32(t, kNegInfBits);
  k.s_mov_b32(c, 0);
  k.s_mov_b64(base, block);
  Label fill_top = k.label("fill"), fill_done = k.label("fill_done");
  k.bind(fill_top);
  k.s_cmp_ge_u32(c, f);
  k.s_cbranch_scc1(fill_done);
  k.global_load_dword(s.x, roff, base);
  k.v_cmp_o_f32(vcc, s.x, s.x);
  k.v_cndmask_b32(s.x, t, s.x, vcc);
  k.s_mov_b32(s.column, c);
  k.call(fill);
  k.s_add_u32(c, c, 1);
  add64(k, base, 4);
  k.s_branch(fill_top);
  k.bind(fill_done);

  // steady phase: a column enters only when it beats the k-th value
  auto element = [&](int e) {
    Label skip = k.label("skip");
    k.v_cmp_gt_f32(vcc, xd[e], s.thr);
    k.s_cbranch_vccz(skip);
    k.v_mov_b32(s.x, xd[e]);
    k.s_add_u32(s.column, c, e);
    k.call(steady);
    k.bind(skip);
  };
  // 16-column tiles through LDS, so the global loads are coalesced: piece i
  // of a tile is loaded by lane l as row 16 i + l/4, columns 4 (l % 4) .. +3
  // (64 bytes of each of 16 rows per instruction), written to LDS rows of 72
  // bytes (conflict-free 8-byte reads), and each lane reads back its own row.
  // The next tile's loads are in flight while the current one is compared.
  k.s_mov_b64(rows_exec, exec);
  k.s_mov_b64(exec, -1);
  k.v_lshrrev_b32(t, 2, lane);       // l / 4
  k.v_and_b32(ldsr, 3, lane);
  k.v_lshlrev_b32(ldsr, 4, ldsr);      // 16 (l % 4)
  k.v_mul_u32_u24(ldsw, kLdsRow, t);
  k.v_add_u32(ldsw, ldsw, ldsr);      // LDS write address of piece 0
  k.s_lshl_b32(tmp, cols, 2);
  for (int i = 0; i < 4; ++i) {
    k.v_add_u32(s.x, 16 * i, t);       // tile row
    k.v_mul_lo_u32(toff[i], tmp, s.x);
    k.v_add_u32(toff[i], toff[i], ldsr);
    k.v_add_u32(s.x, r0, s.x);
    k.v_cmp_gt_u32(piece[i], rows, s.x);  // rows past `rows` are not loaded
  }
  k.v_mul_u32_u24(ldsr, kLdsRow, lane);  // LDS read address: this lane's row
  k.s_mov_b64(exec, rows_exec);
  auto tile_loads = [&](int imm) {
    for (int i = 0; i < 4; ++i) {
      k.s_mov_b64(exec, piece[i]);
      k.global_load_dwordx4(stage.sub(4 * i, 4), toff[i], base, offset(imm));
    }
    k.s_mov_b64(exec, rows_exec);
  };
  // columns straight from each lane's row (4 or 1 at a time) up to `limit`
  auto per_lane_columns = [&](SGPR lim) {
    for (int width : {4, 1}) {
      Label top = k.label("cols" + std::to_string(width)), done = k.label("cols" + std::to_string(width) + "_done");
      k.bind(top);
      k.s_sub_u32(tmp, lim, c);
      k.s_cmp_lt_u32(tmp, width);
      k.s_cbranch_scc1(done);
      if (width == 1)
        k.global_load_dword(xd[0], roff, base);
      else
        k.global_load_dwordx4(xd.sub(0, 4), roff, base);
      for (int e = 0; e < width; ++e) element(e);
      k.s_add_u32(c, c, width);
      add64(k, base, 4 * width);
      k.s_branch(top);
      k.bind(done);
    }
  };
  // up to a multiple of 16 columns first, so that tiles start on 64-byte lines when rows do
  k.s_add_u32(limit, c, 15);
  k.s_and_b32(limit, limit, ~15u);
  k.s_min_u32(limit, limit, cols);
  per_lane_columns(limit);
  {
    Label top = k.label("tiles"), done = k.label("tiles_done"), no_prefetch = k.label("no_prefetch");
    k.s_sub_u32(tmp, cols, c);
    k.s_cmp_lt_u32(tmp, 16);
    k.s_cbranch_scc1(done);
    tile_loads(0);
    k.bind(top);
    for (int i = 0; i < 4; ++i) {
      k.s_mov_b64(exec, piece[i]);
      k.ds_write_b64(ldsw, stage.sub(4 * i, 2), offset(16 * kLdsRow * i));
      k.ds_write_b64(ldsw, stage.sub(4 * i + 2, 2), offset(16 * kLdsRow * i + 8));
    }
    k.s_mov_b64(exec, rows_exec);
    for (int q = 0; q < 8; ++q) k.ds_read_b64(xd.sub(2 * q, 2), ldsr, offset(8 * q));
    k.s_add_u32(tmp, c, 32);  // another whole tile after this one?
    k.s_cmp_gt_u32(tmp, cols);
    k.s_cbranch_scc1(no_prefetch);
    tile_loads(64);
    k.bind(no_prefetch);
    for (int e = 0; e < 16; ++e) element(e);
    k.s_add_u32(c, c, 16);
    add64(k, base, 64);
    k.s_sub_u32(tmp, cols, c);
    k.s_cmp_lt_u32(tmp, 16);
    k.s_cbranch_scc0(top);
    k.bind(done);
  }
  per_lane_columns(cols);  // the last columns (fewer than 16)

  // results: empty slots (cols < k) read as -inf with column -1
  for (int j = 0; j < K; ++j) k.v_max_f32(s.a[j], kNegInfBits, s.a[j]);
  if (router) {
    // weights = softmax over the 10 selected logits (the first is the largest)
    // (a0 - a0 is 0, or NaN when every logit is -inf: then every weight is NaN)
    for (int j = 0; j < 10; ++j) exp2_scaled_difference(k, xd[j], s.a[j], s.a[0], kLog2E);
    k.v_mov_b32(t, xd[0]);
    for (int j = 1; j < 10; ++j) k.v_add_f32(t, t, xd[j]);
    k.v_rcp_f32(t, t);
    for (int j = 0; j < 10; ++j) k.v_mul_f32(xd[j], xd[j], t);
    k.v_mul_u32_u24(out, 40, lane);
    const SGPR ids = scaled_address(k, k.arg("ids"), r0, 10, 2), ws = scaled_address(k, k.arg("weights"), r0, 10, 2);
    for (int m = 0; m < 5; ++m) {
      k.global_store_dwordx2(out, s.i.sub(2 * m, 2), ids, offset(8 * m));
      k.global_store_dwordx2(out, xd.sub(2 * m, 2), ws, offset(8 * m));
    }
  } else {
    k.s_lshl_b32(tmp, kk, 2);
    k.v_mul_u32_u24(out, tmp, lane);
    const SGPR vals = scaled_address(k, k.arg("val"), r0, kk, 2), ids = scaled_address(k, k.arg("idx"), r0, kk, 2);
    for (int j = 0; j < kMaxK; ++j) {
      k.global_store_dword(out, s.a[j], vals, offset(4 * j));
      k.global_store_dword(out, s.i[j], ids, offset(4 * j));
      if (j + 1 < kMaxK) {
        k.s_cmp_eq_u32(kk, j + 1);
        k.s_cbranch_scc1(exit);
      }
    }
  }
  return k.build();
}

}  // namespace tk

// ================================================================ references

// The top k of each row: stable descending order (earlier column first on
// ties), NaN counted as -inf; (-inf, -1) pads rows shorter than k.
void topk_reference(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t k, std::vector<int32_t>& idx,
                    std::vector<float>& val) {
  idx.assign(size_t(rows * k), -1);
  val.assign(size_t(rows * k), -INFINITY);
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < cols; ++i) order[size_t(i)] = i;
    auto v = [&](int64_t i) { return finite_or_neg_inf(x[size_t(r * cols + i)]); };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return v(a) > v(b); });
    for (int64_t j = 0; j < std::min(k, cols); ++j) {
      idx[size_t(r * k + j)] = int32_t(order[size_t(j)]);
      val[size_t(r * k + j)] = v(order[size_t(j)]);
    }
  }
}

// ================================================================ registration

void register_topk(Registry& r) {
  KernelDef d = generated_kernel("ops", tk::topk_signature(false), [](isa::Target t) { return tk::generate_topk(false, t); });
  d.description =
      "Per-row top-k by insertion, one row per lane (64 rows per workgroup). The rows are read in 16-column "
      "tiles staged through LDS: each global load covers 64 bytes of 16 rows (coalesced, the next tile in flight "
      "while the current one is compared), then every lane reads its own row back from LDS (4.5 KiB of LDS; the "
      "spec's 0 is an implementation detail). Each column is compared with the lane's current k-th value; only a "
      "column that beats it (strictly: ties keep the earlier column) calls the insertion routine, which shifts the "
      "sorted slots bottom-up (v_med3 for the values, selects for the columns), entering at slot k-1 through a "
      "computed jump (s_setpc) and stopping as soon as no lane moves a slot. The first k columns fill the slots "
      "(NaN counted as -inf, so -inf columns are selectable). Rows shorter than k are padded with val = -inf, "
      "idx = -1. k > 16 is unsupported: every slot of the row is written as idx = -1, val = NaN (a visible "
      "error, inside the buffers). Extra waves of a larger workgroup exit. A -0 tied with +0 may be reported as "
      "+0.";
  d.semantics = "val[r][0..k-1] = the k largest x[r][c], descending (stable: earlier c first on ties), idx = their c";
  d.geometry = "grid = ceil(rows / 64), wg = 64";
  d.launch = "sizes rows\nworkgroup = 64\ngrid = ceil_div(rows, 64)";
  d.limits = "1 <= k <= 16 (k = 0: nothing written; k > 16: idx -1 / val NaN); cols < 2^24; NaN counts as -inf";
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"rows", "cols", "k", "kind"}, {{1, 64, 1, 0}, {70, 37, 10, 1}, {5, 259, 16, 2},
                                                                    {3, 5, 8, 2}, {2, 20, 17, 0}, {65, 128, 4, 3}});
    if (sweep)
      for (int64_t cols : {1, 2, 3, 15, 16, 17, 63, 64, 100, 1000, 4097})
        for (int64_t k = 1; k <= 16; k += (cols > 100 ? 5 : 1))
          c.push_back(make_case({{"rows", cols > 1000 ? 64 : 130}, {"cols", cols}, {"k", k}, {"kind", (cols + k) % 4}},
                                uint32_t(cols * 31 + k)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], cols = c["cols"], k = c["k"];
    auto x = selection_inputs(size_t(rows * cols), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dval(dev, size_t(rows * k));
    DeviceBuffer<int32_t> didx(dev, size_t(rows * k));
    launch(dev, tk::topk_signature(false), {uint32_t((rows + 63) / 64)}, {64},
               {dx.addr(), didx.addr(), dval.addr(), rows, cols, k});
    std::vector<int32_t> want_i;
    std::vector<float> want_v;
    if (k > 16) {
      want_i.assign(size_t(rows * k), -1);
      want_v.assign(size_t(rows * k), NAN);
    } else {
      topk_reference(x, rows, cols, k, want_i, want_v);
    }
    return combine({compare_exact(didx.download(), want_i), compare(dval.download(), want_v, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["cols"] + 2 * c["rows"] * c["k"]) * 4; };
  d.bench_case = [] { return make_case({{"rows", 512}, {"cols", 512}, {"k", 8}, {"kind", 0}}); };
  r.add(std::move(d));
}

void register_router(Registry& r) {
  KernelDef d = generated_kernel("ops", tk::topk_signature(true), [](isa::Target t) { return tk::generate_topk(true, t); });
  d.description =
      "MoE router, one row (token) per lane: the 10 largest logits by insertion, the topk_k scheme with k fixed "
      "at 10 (16-column tiles staged through LDS for coalesced loads, a strict comparison with the 10th value so "
      "a later equal logit never displaces an earlier one, the insertion routine called only when needed), then "
      "the weights are the softmax over those 10 logits (v_exp_f32, one reciprocal). ids and weights rows are "
      "written with dwordx2 stores. With fewer than 10 experts the missing slots are id -1, weight 0. NaN logits "
      "count as -inf. LDS 4.5 KiB (the spec's 0 is an implementation detail).";
  d.semantics = "ids[r][0..9] = columns of the 10 largest logits[r][:], descending (earlier first on ties); "
                "weights[r][j] = exp(l_j - l_0) / sum_i exp(l_i - l_0) over those 10";
  d.geometry = "grid = ceil(rows / 64) (the docs' grid = rows also works: extra lanes and groups idle), wg = 64";
  d.launch = "sizes rows\nworkgroup = 64\ngrid = ceil_div(rows, 64)";
  d.limits = "n_experts < 2^24 (n_experts < 10: missing slots id -1, weight 0); a row of all -inf logits gives "
             "NaN weights";
  d.tolerance = Tolerance{1e-7, 2e-6};
  d.cases = [](bool sweep) {
    std::vector<Case> c = case_table({"rows", "cols", "kind"}, {{1, 64, 0}, {70, 40, 1}, {3, 517, 2}, {2, 7, 0}});
    if (sweep)
      for (int64_t cols : {10, 11, 16, 40, 63, 64, 65, 128, 256, 512, 1024})
        for (int64_t kind : {0, 1, 2})
          c.push_back(make_case({{"rows", 130}, {"cols", cols}, {"kind", kind}}, uint32_t(cols * 3 + kind)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], cols = c["cols"];
    auto x = selection_inputs(size_t(rows * cols), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dw(dev, size_t(rows * 10));
    DeviceBuffer<int32_t> dids(dev, size_t(rows * 10));
    launch(dev, tk::topk_signature(true), {uint32_t((rows + 63) / 64)}, {64},
               {dx.addr(), dids.addr(), dw.addr(), rows, cols});
    std::vector<int32_t> want_i;
    std::vector<float> top, want_w(size_t(rows * 10));
    topk_reference(x, rows, cols, 10, want_i, top);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int j = 0; j < 10; ++j) sum += std::exp(double(top[size_t(r * 10 + j)]) - top[size_t(r * 10)]);
      for (int j = 0; j < 10; ++j)
        want_w[size_t(r * 10 + j)] = float(std::exp(double(top[size_t(r * 10 + j)]) - top[size_t(r * 10)]) / sum);
    }
    return combine({compare_exact(dids.download(), want_i), compare(dw.download(), want_w, Tolerance{1e-7, 2e-6})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["cols"] + 20 * c["rows"]) * 4; };
  d.bench_case = [] { return make_case({{"rows", 512}, {"cols", 512}, {"kind", 0}}); };
  r.add(std::move(d));
}

}  // namespace

void register_ops_topk_kernels(Registry& r) {
  register_topk(r);
  register_router(r);
}

}  // namespace k100::kernels
