// The body of the fast GEMVs (gemv_skeleton.h): one wave's share of a
// tile's row, from the first loads to the sums of the tile's waves and the
// store of the plain kernel.
#include <algorithm>

#include "gemv_skeleton.h"
#include "k100/quant/gemv_tile_shares.h"

namespace k100::kernels::gguf_gemv::skeleton {

using namespace codegen;
using as::offset, as::exec, as::vcc, as::exec_lo, as::exec_hi;

namespace {

// dst = src + imm (64-bit).
void add64_to(Kernel& k, SGPR dst, SGPR src, uint32_t imm) {
  k.s_add_u32(dst[0], src[0], imm);
  k.s_addc_u32(dst[1], src[1], 0);
}

}  // namespace

void Body::load_part(VGPR dst, bool next, int first_dword, int dwords) {
  if (shape.rows) {
    // Row storage: the part is the lane's own bytes of its row, piece q 16 bytes on.
    const int group = shape.blocks_per_group * shape.block_bytes;
    add64_to(k, pbase_, gbase_, uint32_t((next ? group : 0) + 4 * (first_dword - shape.header_dwords)));
    for (int half = 0; half < 2; ++half) {
      k.s_mov_b32(exec_lo, half ? 0 : -1);
      k.s_mov_b32(exec_hi, half ? -1 : 0);
      for (int q = 0; 4 * q < dwords; ++q) {
        const int w = std::min(4, dwords - 4 * q);
        VGPR d = dst.sub(4 * q, w);
        switch (w) {
          case 1: k.global_load_dword(d, row_ofs_, pbase_, offset(16 * q)); break;
          case 2: k.global_load_dwordx2(d, row_ofs_, pbase_, offset(16 * q)); break;
          case 3: k.global_load_dwordx3(d, row_ofs_, pbase_, offset(16 * q)); break;
          default: k.global_load_dwordx4(d, row_ofs_, pbase_, offset(16 * q)); break;
        }
      }
    }
    k.s_mov_b64(exec, -1);
    return;
  }
  // The part's pieces start at 256 * first_dword; piece q at +1024 q.
  add64_to(k, pbase_, gbase_, uint32_t((next ? shape.group_bytes() : 0) + 256 * first_dword));
  for (int q = 0; 4 * q < dwords; ++q) {
    const int w = std::min(4, dwords - 4 * q);
    VGPR d = dst.sub(4 * q, w);
    switch (w) {
      case 1: k.global_load_dword(d, vofs_[1], pbase_, offset(1024 * q)); break;
      case 2: k.global_load_dwordx2(d, vofs_[2], pbase_, offset(1024 * q)); break;
      case 3: k.global_load_dwordx3(d, vofs_[3], pbase_, offset(1024 * q)); break;
      default: k.global_load_dwordx4(d, vofs_[4], pbase_, offset(1024 * q)); break;
    }
  }
}

void Body::load_header(bool next) {
  if (!shape.rows) return load_part(hdr_, next, 0, shape.header_dwords);
  // Row storage: the group's scales from the scale array (any alignment).
  const int bytes = shape.blocks_per_group * shape.scale_bytes;
  add64_to(k, pbase_, sbase_, uint32_t(next ? bytes : 0));
  if (bytes == 2) {
    k.global_load_ushort(hdr_, scale_ofs_, pbase_);
  } else if (bytes == 4 && shape.scale_bytes == 2 && dec_.sumx_run()) {
    // Two blocks' scales: the second only when the group has its second
    // block (elements left past the first), as a row's last group may not,
    // and its scale would lie past the row's (past the array in the last row).
    k.global_load_ushort(hdr_, scale_ofs_, pbase_);
    Label single = k.label("one scale");
    k.s_cmp_le_u32(elems_left_, shape.block_elems);
    k.s_cbranch_scc1(single);
    k.global_load_short_d16_hi(hdr_, scale_ofs_, pbase_, offset(2));
    k.bind(single);
  } else {
    throw Error("gemv: row storage takes groups of one 2-byte scale, or of two with sums of x");
  }
}

void Body::load_x(int s, bool next) {
  const int b = s % 2;
  const uint32_t at = uint32_t((next ? 4 * shape.group_elems() : 0) + s * step_elems * 4);
  for (int m = 0; m < M; ++m)
    for (size_t c = 0; c < xbuf_[b][size_t(m)].size(); ++c) {
      const SGPR d = xbuf_[b][size_t(m)][c];
      if (d.width == 16) k.s_load_dwordx16(d, xb_[size_t(m)], int(at + 64 * int(c)));
      else k.s_load_dwordx8(d, xb_[size_t(m)], int(at + 4 * xchunk() * int(c)));
    }
}

// x for the sums of the current or next group: lane l reads elements
// 4l..4l+3 of each 256-element chunk; lanes at or past `elems_left_` keep
// what they had (their runs belong to blocks a last group does not have,
// which are never read).
void Body::load_sums(bool next) {
  if (!dec_.sumx_run()) return;
  const SGPR saved = saved_exec_;
  const VGPR elem = sum_elem_;
  for (int c = 0; c < chunks(); ++c) {
    k.v_lshlrev_b32(elem, 2, e_.lane);
    if (c) k.v_add_u32(elem, 256 * c, elem);
    // EXEC by hand: an if_ (one more s_cbranch_execz per chunk) cost up to 1.3 % MODELED (iq1s fused forms)
    k.v_cmp_gt_u32(vcc, elems_left_, elem);
    k.s_and_saveexec_b64(saved, vcc);
    const int at = (next ? 4 * shape.group_elems() : 0) + 1024 * c;
    for (int m = 0; m < M; ++m) k.global_load_dwordx4(raw_[size_t(m)][size_t(c)], vofs_[4], xb_[size_t(m)], offset(at));
    k.s_mov_b64(exec, saved);
  }
}

void Body::reduce_sums() {
  if (!dec_.sumx_run()) return;
  std::vector<std::pair<ReduceOp, VGPR>> values;
  for (int m = 0; m < M; ++m)
    for (int c = 0; c < chunks(); ++c) {
      const VGPR r = raw_[size_t(m)][size_t(c)], s = sum_[size_t(m)][size_t(c)];
      k.v_add_f32(s, r[0], r[1]);
      k.v_add_f32(s, s, r[2]);
      k.v_add_f32(s, s, r[3]);
      values.push_back({ReduceOp::Add, s});
    }
  lane_reduce(k, values, dec_.sumx_run() / 4);
}

void Body::group_body(bool last, Label done) {
  const int n = shape.slices, sps = steps_per_slice(), bps = n / shape.blocks_per_group;  // slices per block
  reduce_sums();
  if (!last && dec_.sumx_run()) {
    k.s_sub_u32(elems_left_, elems_left_, shape.group_elems());
    load_sums(true);
  }
  dec_.header(*this, hdr_);
  const int header_at = std::clamp(dec_.next_header_slice(), 0, n - 1);
  for (int j = 0; j < n; ++j) {
    if (block_shares() && j > 0 && j % bps == 0) k.bind(entry_[last ? 1 : 0][size_t(j / bps)]);
    if (!last && j == header_at) load_header(true);
    if (last && shape.blocks_per_group > 1 && j > 0 && j % bps == 0) {
      k.s_cmp_le_u32(last_present_, j / bps);
      k.s_cbranch_scc1(done);
    }
    // Slices issued so far reach (j - 1) + ahead(j - 1); this one takes them to j + ahead(j).
    for (int jj = j + ahead(j == 0 ? n - 1 : j - 1); jj <= j + ahead(j); ++jj) {
      if (jj < n && last && shape.rows && jj / bps > 0) {
        // row storage: a block the row's last group lacks lies past the row
        Label absent = k.label("block past the row");
        k.s_cmp_le_u32(last_present_, jj / bps);
        k.s_cbranch_scc1(absent);
        load_slice(jj, false);
        k.bind(absent);
      } else if (jj < n) {
        load_slice(jj, false);
      } else if (!last) {
        load_slice(jj - n, true);
      }
    }
    dec_.slice_begin(*this, j, ring_[size_t(j % ring_size_)]);
    for (int q = 0; q < sps; ++q) {
      cur_step_ = j * sps + q;
      k.s_waitcnt(lgkmcnt(0));
      const int next = cur_step_ + 1;
      if (next < n * sps) {
        const int nj = next / sps;
        if (last && shape.blocks_per_group > 1 && nj != j && nj % bps == 0) {
          Label skip = k.label("no x");
          k.s_cmp_le_u32(last_present_, nj / bps);
          k.s_cbranch_scc1(skip);
          load_x(next, false);
          k.bind(skip);
        } else {
          load_x(next, false);
        }
      } else if (!last) {
        load_x(0, true);
      }
      dec_.step(*this, j, q, ring_[size_t(j % ring_size_)]);
    }
    dec_.slice_end(*this, j, totals_);
  }
  if (!last) {
    if (shape.rows) {
      add64(k, gbase_, uint32_t(shape.blocks_per_group * shape.block_bytes), 0);
      add64(k, sbase_, uint32_t(shape.blocks_per_group * shape.scale_bytes), 0);
    } else {
      add64(k, gbase_, uint32_t(shape.group_bytes()), 0);
    }
    for (int m = 0; m < M; ++m) add64(k, xb_[size_t(m)], uint32_t(4 * shape.group_elems()), 0);
  }
}

void Body::enter_blocks() {
  Label start = k.label("share from a group's start");
  std::vector<Label> go;
  for (int b = 1; b < shape.blocks_per_group; ++b) {
    go.push_back(k.label("share from a block"));
    k.s_cmp_eq_u32(skip_, b);
    k.s_cbranch_scc1(go.back());
  }
  k.s_branch(start);
  for (int b = 1; b < shape.blocks_per_group; ++b) {
    k.bind(go[size_t(b - 1)]);
    dec_.header(*this, hdr_);
    k.s_cmp_le_u32(count_, 1);
    k.s_cbranch_scc1(entry_[1][size_t(b)]);
    // the body loads the next group's header at slice header_at, before this entry or after it
    if (std::clamp(dec_.next_header_slice(), 0, shape.slices - 1) < b * slices_per_block())
      load_header(true);
    k.s_branch(entry_[0][size_t(b)]);
  }
  k.bind(start);
}

void Body::emit() {
  const int H = shape.header_dwords, U = shape.slice_dwords, n = shape.slices;
  // Ring of slices: `ahead_` in flight; the ring size divides the slice count.
  ahead_ = std::clamp(in_flight_bytes() / (256 * U), 1, n - 1);
  ahead_odd_ = n % 2 ? ahead_ : std::clamp(in_flight_bytes(true) / (256 * U), 1, n - 1);
  ring_size_ = n;
  for (int r = std::max(ahead_, ahead_odd_) + 1; r <= n; ++r)
    if (n % r == 0) {
      ring_size_ = r;
      break;
    }
  if (block_shares()) {
    if (dec_.sumx_run() || (shape.blocks_per_group - 1) * slices_per_block() + std::max(ahead_, ahead_odd_) > n)
      throw Error("gemv: block shares of " + quant::type_name(shape.type) +
                  " need a decoder without sums of x and the slices in flight inside a group");
    for (auto& labels : entry_)
      for (int b = 0; b < shape.blocks_per_group; ++b) labels.push_back(b ? k.label("block entry") : Label{});
  }
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };

  // This wave's share of the row: groups [g0, g1) of ng, or (decoders with
  // block_shares()) blocks [b0, b1) of nb, its first group entered at block
  // b0 % G (skip_): at 20 blocks and S = 4 the shares are 5, 5, 5, 5 blocks
  // where whole groups of two fall 3, 3, 3, 1.
  const SGPR gpw = s1("share per wave"), g0 = s1("first group"), g1 = s1("end group"), t = s1("t"),
             logw = s1("log2 waves");
  count_ = s1("groups");
  last_present_ = s1("blocks in the last group");
  elems_left_ = s1("elements left");
  const int lg = log2_exact(shape.blocks_per_group);
  const bool shares = e_.shares_tiles();
  const SGPR nb = shares ? e_.nb : s1("blocks per row"), ng = shares ? e_.ng : s1("groups per row");
  if (!shares) row_units(k, e_.kcols, shape, nb, ng);
  k.s_ff1_i32_b32(logw, e_.split);
  // [first, end) = the part's ceil(units / S) share of `units` (in a kernel
  // that shares tiles: of the workgroup's units [unit0, unit1)), clipped.
  auto share = [&](SGPR units, SGPR first, SGPR end) {
    if (shares) k.s_sub_u32(gpw, e_.unit1, e_.unit0);
    k.s_add_u32(gpw, shares ? gpw : units, e_.split);
    k.s_sub_u32(gpw, gpw, 1);
    k.s_lshr_b32(gpw, gpw, logw);
    k.s_mul_i32(first, e_.part, gpw);
    if (shares) k.s_add_u32(first, first, e_.unit0);
    k.s_add_u32(end, first, gpw);
    k.s_min_u32(end, end, shares ? e_.unit1 : units);
  };
  if (block_shares()) {
    const SGPR b0 = s1("first block"), b1 = s1("end block");
    skip_ = s1("blocks skipped in the first group");
    share(nb, b0, b1);
    k.s_lshr_b32(g0, b0, lg);
    k.s_and_b32(skip_, b0, shape.blocks_per_group - 1);
    k.s_add_u32(g1, b1, shape.blocks_per_group - 1);
    k.s_lshr_b32(g1, g1, lg);
    k.s_sub_i32(count_, g1, g0);
    k.s_cmp_lt_u32(b0, b1);
    k.s_cselect_b32(count_, count_, 0);
    // Blocks of the wave's last group: b1 - G (g1 - 1).
    k.s_sub_u32(t, g1, 1);
    k.s_lshl_b32(t, t, lg);
    k.s_sub_u32(last_present_, b1, t);
  } else {
    share(ng, g0, g1);
    k.s_sub_i32(count_, g1, g0);
    k.s_max_i32(count_, count_, 0);
    // Blocks of the wave's last group: the row's remainder when it is the row's last group.
    k.s_mul_i32(t, ng, shape.blocks_per_group);
    k.s_sub_u32(t, t, nb);  // zero blocks in the row's last group
    k.s_cmp_eq_u32(g1, ng);
    k.s_cselect_b32(t, t, 0);
    k.s_sub_u32(last_present_, shape.blocks_per_group, t);
  }
  // Elements of the row from this wave's first group on.
  k.s_mul_i32(t, g0, shape.group_elems());
  k.s_sub_u32(elems_left_, e_.kcols, t);

  // Weights: w + expert * matrix_bytes + table + tile * tile_bytes + g0 * group_bytes.
  const SGPR expert = s1("expert"), tiles = s1("tiles"), tile_bytes = s1("tile bytes"), mat = s1("matrix bytes");
  const uint32_t table = shape.rows ? 0 : uint32_t(quant::gemv_table_bytes(shape.type));
  Label dense = k.label("dense");
  k.s_mov_b32(expert, e_.grp);
  k.s_cmp_eq_u64(e_.ids, 0);
  k.s_cbranch_scc1(dense);
  const SGPR ids_at = offset_address(k, e_.ids, e_.grp, 2);
  k.s_load_dword(expert, ids_at, 0);
  k.bind(dense);
  k.s_add_u32(tiles, e_.n, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_cmp_lt_u32(e_.tile, tiles);  // a workgroup's tiles past the matrix do nothing
  k.s_cselect_b32(count_, count_, 0);
  if (shape.rows) {
    // Row storage: row r of matrix e at w + (e n + r) row_bytes, its scales at
    // scale + (e n + r) scale_row; a lane past the matrix reads its last row.
    const SGPR row_bytes = s1("row bytes"), scale_row = s1("row scale bytes"), last_row = s1("last row of the tile");
    k.s_mul_i32(row_bytes, nb, shape.block_bytes);
    k.s_mul_i32(scale_row, nb, shape.scale_bytes);
    k.s_mul_i32(mat, expert, e_.n);
    k.s_lshl_b32(t, e_.tile, 6);
    k.s_add_u32(mat, mat, t);  // the tile's first row, counted over the experts
    gbase_ = scaled_address(k, e_.w, mat, row_bytes, 0);
    sbase_ = scaled_address(k, e_.scales, mat, scale_row, 0);
    k.s_mul_i32(t, g0, shape.blocks_per_group * shape.block_bytes);
    add64(k, gbase_, t, 0);
    k.s_mul_i32(t, g0, shape.blocks_per_group * shape.scale_bytes);
    add64(k, sbase_, t, 0);
    k.s_lshl_b32(t, e_.tile, 6);
    k.s_sub_u32(last_row, e_.n, t);
    k.s_sub_u32(last_row, last_row, 1);
    row_ofs_ = k.vgpr(1, "row offset");
    scale_ofs_ = k.vgpr(1, "row scale offset");
    k.v_min_u32(row_ofs_, last_row, e_.lane);
    k.v_mul_lo_u32(scale_ofs_, row_ofs_, scale_row);
    k.v_mul_lo_u32(row_ofs_, row_ofs_, row_bytes);
  } else {
    k.s_mul_i32(tile_bytes, ng, shape.group_bytes());
    k.s_mul_i32(mat, tiles, tile_bytes);
    if (table) k.s_add_u32(mat, mat, table);
    gbase_ = scaled_address(k, e_.w, expert, mat, 0);
    k.s_mul_i32(t, e_.tile, tile_bytes);
    if (table) k.s_add_u32(t, t, table);
    add64(k, gbase_, t, 0);
    k.s_mul_i32(t, g0, shape.group_bytes());
    add64(k, gbase_, t, 0);
  }
  pbase_ = k.sgpr(2, "part");
  // x rows: x + (grp * x_stride + m * k + g0 * group_elems) * 4.
  for (int m = 0; m < M; ++m) {
    const SGPR el = s1("x element");
    k.s_mul_i32(el, e_.grp, e_.xstride);
    k.s_mul_i32(t, g0, shape.group_elems());
    k.s_add_u32(el, el, t);
    if (m) {
      k.s_mul_i32(t, e_.kcols, m);
      k.s_add_u32(el, el, t);
    }
    xb_.push_back(offset_address(k, e_.x, el, 2));
  }
  // y rows: y + ((grp * M + m) * n + 64 tile) * 4; lanes past the matrix store nothing.
  const SGPR rows_left = s1("rows left"), yrow = s1("y row"), nbytes = s1("row bytes");
  k.s_lshl_b32(t, e_.tile, 6);
  k.s_sub_u32(rows_left, e_.n, t);
  if (M > 1) {
    k.s_mul_i32(yrow, e_.grp, M);
    k.s_mul_i32(yrow, yrow, e_.n);
  } else {
    k.s_mul_i32(yrow, e_.grp, e_.n);
  }
  k.s_add_u32(yrow, yrow, t);
  const SGPR ybase = offset_address(k, e_.y, yrow, 2);
  k.s_lshl_b32(nbytes, e_.n, 2);
  VGPR stash;
  if (e_.fusion) {
    // the fused variants keep these in VGPR lanes while the body runs (SGPRs are short)
    stash = k.vgpr(1, "store scalars");
    k.v_mov_b32(stash, 0);
    k.v_writelane_b32(stash, rows_left, 0);
    k.v_writelane_b32(stash, ybase[0], 1);
    k.v_writelane_b32(stash, ybase[1], 2);
  }

  hdr_ = k.vgpr(H, "header");
  for (int r = 0; r < ring_size_; ++r) ring_.push_back(k.vgpr(U, "slice"));
  for (int w = 1; w <= 4; ++w) {
    vofs_[w] = k.vgpr(1, "piece offset");
    k.v_mul_u32_u24(vofs_[w], 4 * w, e_.lane);
  }
  for (int b = 0; b < 2; ++b) {
    xbuf_[b].resize(size_t(M));
    for (int m = 0; m < M; ++m)
      for (int e = 0; e < step_elems; e += xchunk())
        xbuf_[b][size_t(m)].push_back(k.sgpr(std::min(xchunk(), step_elems - e), "x"));
  }
  if (dec_.sumx_run()) {
    sum_out_ = k.sgpr(1, "x sum");
    saved_exec_ = k.sgpr(2, "exec");
    sum_elem_ = k.vgpr(1, "sum element");
    raw_.resize(size_t(M));
    sum_.resize(size_t(M));
    for (int m = 0; m < M; ++m)
      for (int c = 0; c < chunks(); ++c) {
        raw_[size_t(m)].push_back(k.vgpr(4, "x for sums"));
        sum_[size_t(m)].push_back(k.vgpr(1, "x sums"));
      }
  }

  // Prologue: the first group's header, slices, sums and first x-step.
  Label skip_all = k.label("no groups"), full = k.label("full groups"), last = k.label("last group"),
        reduce = k.label("reduce");
  const bool early_end = e_.fusion && M == 1;
  Label no_loads = k.label("no first loads");
  k.s_cmp_eq_u32(count_, 0);
  k.s_cbranch_scc1(no_loads);
  load_header(false);
  // The first group's slices and x from the block the share starts at (with
  // block_shares(), one path per block of a group), then the jump into the
  // group's body at that block (enter_blocks).
  const int entries = block_shares() ? shape.blocks_per_group : 1;
  Label loaded = k.label("first loads");
  std::vector<Label> from(static_cast<size_t>(entries));
  for (int b = 1; b < entries; ++b) {
    from[size_t(b)] = k.label("first loads from a block");
    k.s_cmp_eq_u32(skip_, b);
    k.s_cbranch_scc1(from[size_t(b)]);
  }
  for (int b = 0; b < entries; ++b) {
    if (b) k.bind(from[size_t(b)]);
    const int j0 = b * slices_per_block();
    // Slices in flight before decoding j0: the depth of the slice before it.
    for (int j = j0; j < j0 + ahead(j0 == 0 ? n - 1 : j0 - 1); ++j) load_slice(j, false);
    load_sums(false);
    load_x(j0 * steps_per_slice(), false);
    if (b + 1 < entries) k.s_branch(loaded);
  }
  // Every wave of the workgroup passes the table's barrier, on one of two
  // paths: with the first loads in flight its writes wait for the table's
  // loads alone (vector memory returns in order), without them for all.
  k.bind(loaded);
  if (e_.finish_table) {
    Label tabled = k.label("table written");
    e_.finish_table();
    k.s_branch(tabled);
    k.bind(no_loads);
    e_.finish_table();
    k.bind(tabled);
  } else {
    k.bind(no_loads);
  }
  // What the first loads do not need comes after them.
  for (int m = 0; m < M; ++m) {
    totals_.push_back(k.vgpr(1, "total"));
    k.v_mov_b32(totals_.back(), 0);
  }
  dec_.begin(*this);
  if (early_end) early_epilogue(rows_left, ybase);
  k.s_cmp_eq_u32(count_, 0);
  k.s_cbranch_scc1(skip_all);
  if (block_shares()) enter_blocks();
  k.bind(full);
  k.s_cmp_le_u32(count_, 1);
  k.s_cbranch_scc1(last);
  group_body(false, reduce);
  k.s_sub_u32(count_, count_, 1);
  k.s_branch(full);
  k.bind(last);
  group_body(true, reduce);
  k.bind(reduce);
  k.bind(skip_all);
  dec_.finish(*this, totals_);

  // Parts 1.. of a tile hand their sums to part 0 through LDS (regions of
  // S - 1 parts per tile of the workgroup).
  Label store = k.label("store"), gather = k.label("gather"), more = k.label("more parts");
  auto fused_end = [&] {
    load_late_args();
    const SGPR left = s1("rows left"), yb = k.sgpr(2, "y"), nb4 = s1("row bytes");
    k.v_readlane_b32(left, stash, 0);
    k.v_readlane_b32(yb[0], stash, 1);
    k.v_readlane_b32(yb[1], stash, 2);
    k.s_lshl_b32(nb4, late_arg(e_.n_at, 1), 2);
    store_fused(left, yb, nb4);
  };
  if (e_.halves() == 2) {
    gather_halves(store);
    k.bind(store);
    fused_end();
    return;
  }
  const VGPR addr = k.vgpr(1, "lds address"), part = k.vgpr(1, "partial");
  const SGPR region = s1("region");
  k.s_cmp_eq_u32(e_.split, 1);
  k.s_cbranch_scc1(store);
  // The fused variants' stores, and the block shares' bodies, need more
  // SGPRs: they derive log2(S) and the part again here rather than keep them
  // through the body.
  SGPR lw = logw, pt = e_.part, scratch = t;
  if (e_.fusion || block_shares()) {
    lw = s1("log2 split");
    pt = s1("part");
    scratch = s1("t");
    k.s_ff1_i32_b32(lw, e_.split);
    k.s_sub_u32(pt, e_.split, 1);
    k.s_and_b32(pt, pt, e_.wave);
  }
  hand_over(lw, e_.split, pt, region, scratch, addr, gather);
  const SGPR v = s1("part");
  k.s_mov_b32(v, 1);
  k.bind(more);
  for (int m = 0; m < M; ++m) {
    k.ds_read_b32(part, addr, offset(kReduceLds + 256 * m));
    k.v_add_f32(totals_[size_t(m)], totals_[size_t(m)], part);
  }
  k.v_add_u32(addr, 256 * M, addr);
  k.s_add_u32(v, v, 1);
  k.s_cmp_lt_u32(v, e_.split);
  k.s_cbranch_scc1(more);

  k.bind(store);
  Label write = k.label("write y");
  if (e_.shares_tiles()) merge_shares(write);
  k.bind(write);
  if (e_.fusion) {
    fused_end();
    return;
  }
  k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
  k.if_(vcc, [&] {
    for (int m = 0; m < M; ++m) {
      if (m) add64(k, ybase, nbytes, 0);
      k.global_store_dword(vofs_[1], totals_[size_t(m)], ybase);
    }
  });
  k.s_endpgm();
}

// The P = `parts` waves of a tile (adjacent; the tile's index in the
// workgroup is wave >> log_parts): parts 1 .. P-1 write their sums to LDS
// region tile * (P - 1) + part - 1 and end; part 0 waits for them and goes on
// with `addr` at its tile's first region.
void Body::hand_over(SGPR log_parts, SGPR parts, SGPR part, SGPR region, SGPR t, VGPR addr, Label gather) {
  k.s_lshr_b32(region, e_.wave, log_parts);  // tile of the workgroup
  k.s_sub_u32(t, parts, 1);
  k.s_mul_i32(region, region, t);  // its first region
  k.v_lshlrev_b32(addr, 2, e_.lane);
  k.s_cmp_eq_u32(part, 0);
  k.s_cbranch_scc1(gather);
  k.s_add_u32(region, region, part);
  k.s_sub_u32(region, region, 1);
  k.s_mul_i32(t, region, 256 * M);
  k.v_add_u32(addr, t, addr);
  for (int m = 0; m < M; ++m) k.ds_write_b32(addr, totals_[size_t(m)], offset(kReduceLds + 256 * m));
  k.s_barrier();
  k.s_endpgm();
  k.bind(gather);
  k.s_barrier();
  k.s_mul_i32(t, region, 256 * M);
  k.v_add_u32(addr, t, addr);
}

}  // namespace k100::kernels::gguf_gemv::skeleton
