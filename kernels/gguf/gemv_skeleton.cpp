// The skeleton of the fast decode GEMVs, shared by the eleven block types.
//
//   y[g][m][n] = sum_k W_e[n][k] * x[g][m][k],  e = ids ? ids[g] : g,  m < M (1..4)
//
// Launch: grid = (ceil(n / 64), groups), wg = 64 * S with S = 1, 2, 4 or 8.
// Workgroup (t, g) owns rows 64t .. 64t+63 of matrix e; lane l of every wave
// owns row 64t + l; wave v of the S waves takes the v-th contiguous share of
// the row's block groups (or of its blocks, for decoders with block_shares():
// a share may then start inside its first group), and wave 0 adds the
// others' sums (LDS) and stores.
//
// Per wave:
//  * arguments: wave 0 reads the explicit arguments (the first 64-byte line
//    of the block; a fused variant's longer list two) once over the host
//    link and hands them to the other waves through LDS, so a workgroup costs
//    one kernel-argument read; the wave count is counted in LDS;
//  * weights: the tile's groups in the GEMV layout are contiguous, and every
//    load of a wave reads whole lines (one piece: 64 rows x 4 dwords = 1 KiB);
//    the header of the next group and a fixed number of slices stay in flight
//    while the current slice is decoded (vmcnt waits placed by the layer);
//  * x: lane-uniform, so it lives in SGPRs: one x-step (32, 16 or 8 elements
//    of each of the M rows, as the SGPR budget allows) is decoded while the next
//    one is loaded (s_load), with one hand-placed lgkmcnt(0) per x-step;
//  * sums of x over runs of elements (for formats with an offset or a min):
//    per group one dwordx4 load of x per row (64 lanes x 4 = 256 elements),
//    loaded one group ahead and reduced over the lanes of each run with DPP;
//  * the last group of a row may hold fewer than G blocks: the body of the
//    last group skips the missing blocks (their x is never read).
#include <algorithm>
#include <functional>
#include <string>

#include "gemv_decoder.h"
#include "k100/codegen/division.h"
#include "k100/base/error.h"
#include "k100/quant/gemv_tile_shares.h"
#include "k100/quant/tensor_type.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using as::offset, as::exec, as::vcc, as::exec_lo, as::exec_hi;
using quant::TensorType;

GroupShape group_shape(TensorType type) {
  const quant::GemvLayout l = quant::gemv_layout(type, 1, quant::traits(type).block_elems);
  return GroupShape{type, l.block_elems, l.blocks_per_group, l.header_dwords, l.slice_dwords, l.slices};
}

namespace {

std::string kernel_name(TensorType t) {
  switch (t) {
    case TensorType::Q4_0: return "q4_0_gemv_k";
    case TensorType::Q8_0: return "q8_0_gemv_k";
    case TensorType::Q2_0: return "q2_0_gemv_k";
    case TensorType::Q4_K: return "q4k_gemv_k";
    case TensorType::Q5_K: return "q5k_gemv_k";
    case TensorType::Q6_K: return "q6k_gemv_k";
    case TensorType::IQ4_NL: return "iq4nl_gemv_k";
    case TensorType::IQ4_XS: return "iq4xs_gemv_k";
    case TensorType::IQ2_S: return "iq2s_gemv_k";
    case TensorType::IQ3_S: return "iq3s_gemv_k";
    case TensorType::IQ3_XXS: return "iq3xxs_gemv_k";
    default: throw Error("gemv: no fast GEMV for type " + quant::type_name(t));
  }
}

int log2_exact(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  if ((1 << l) != v) throw Error("gemv: " + std::to_string(v) + " is not a power of two");
  return l;
}

// LDS: the argument block, the partial sums of waves 1..7 (M <= 4), the decoder's table.
constexpr uint32_t kArgsLds = 0;
constexpr uint32_t kReduceLds = 128;
constexpr uint32_t kReduceBytes = 7 * 4 * 256;
constexpr uint32_t kTableLds = kReduceLds + kReduceBytes;
constexpr int kMaxWaves = 8;

struct Entry {
  SGPR w, x, y, ids, n, kcols, m, xstride;  // arguments
  SGPR split;                               // waves per tile (S)
  SGPR wave, part, tile, grp;               // wave in the workgroup, its share of the row, its tile
  // The row's blocks and block groups, and the units (groups, or blocks for
  // decoders with block_shares()) of the row the workgroup's S waves share:
  // [unit0, unit1), the whole row unless the tile is shared (Shared tiles).
  SGPR nb, ng, unit0, unit1;
  bool shares_tiles() const { return unit0.valid(); }
  // The plain kernels' shared tiles: lanes 0-2 hold the record's byte offset
  // (~0: the tile is not shared), the share and P - 1 until the end; the
  // byte offset of the `ws` argument.
  VGPR share;
  uint32_t ws_at = 0;
  VGPR lane;
  // The fused variants (none: the plain kernel) and their arguments.
  std::optional<GemvFusion> fusion;
  // Byte offsets of their arguments (ss, eps; scale, y_scaled, ss) in the
  // argument block: read back from LDS by the storing wave (Body::late_arg),
  // so no SGPR holds them while the body runs; so are n, k and x_stride (the
  // argument block is dead past the last body) and the group index, which
  // wave 0 puts beside them.
  uint32_t s = 0, eps = 0, scale = 0, yscaled = 0, ss_at = 0;
  uint32_t grp_at = 0, n_at = 0, k_at = 0, xstride_at = 0;
  uint32_t lds_dwords = 0;  // dwords of the block in LDS (explicit arguments, lane count, group index)
  // Matrices per tile: 2 for SwiGlu (S waves on the gate, S on the up rows).
  int halves() const { return fusion == GemvFusion::SwiGlu ? 2 : 1; }
  // The decoder's table (none: empty): its loads are issued before the
  // body; the body calls this once its first weight loads are issued (TableCopy).
  std::function<void()> finish_table;
};

// The decoder's table (at the start of the weights) into LDS in two halves.
// issue(): right after the arguments, each thread loads its first `rounds`
// 16-byte pieces (piece = thread + r * threads), before the prologue's weight
// loads, since vector memory returns in order and a load issued after them
// would wait for them. finish(): once the prologue's loads are issued, the
// pieces go to LDS, a loop copies what the rounds did not cover (workgroups
// of fewer waves than the rounds were sized for), and a barrier.
class TableCopy {
 public:
  TableCopy(Kernel& k, uint32_t bytes) : k_(k), pieces_(bytes / 16) {
    rounds_ = std::clamp(int((pieces_ + 255) / 256), 1, 3);  // four waves of 64 threads
  }
  void issue(SGPR wave, VGPR lane, SGPR threads, SGPR w) {
    threads_ = threads;
    w_ = w;
    piece_ = k_.vgpr(1, "piece");
    k_.v_lshl_add_u32(piece_, wave, 6, lane);
    const VGPR p = k_.vgpr(1, "piece");
    k_.v_mov_b32(p, piece_);
    each_round(p, [&](int, VGPR goff) {
      data_.push_back(k_.vgpr(4, "table data"));
      k_.global_load_dwordx4(data_.back(), goff, w_);
    });
  }
  void finish() {
    each_round(piece_, [&](int r, VGPR goff) { k_.ds_write_b128(goff, data_[size_t(r)], offset(kTableLds)); });
    const SGPR pieces = k_.sgpr(1, "table pieces"), saved = k_.sgpr(2, "exec");
    const VGPR goff = k_.vgpr(1, "table offset"), data = k_.vgpr(4, "table data");
    k_.s_mov_b32(pieces, pieces_);
    Label loop = k_.label("table"), copied = k_.label("table copied");
    k_.bind(loop);
    k_.v_cmp_gt_u32(vcc, pieces, piece_);
    k_.s_and_saveexec_b64(saved, vcc);
    k_.s_cbranch_execz(copied);
    k_.v_lshlrev_b32(goff, 4, piece_);
    k_.global_load_dwordx4(data, goff, w_);
    k_.ds_write_b128(goff, data, offset(kTableLds));
    k_.v_add_u32(piece_, threads_, piece_);
    k_.s_mov_b64(exec, saved);
    k_.s_branch(loop);
    k_.bind(copied);
    k_.s_mov_b64(exec, saved);
    k_.s_barrier();
  }

 private:
  // f(r, byte offset) for each round r under the mask of the threads that
  // have a piece in it, the piece counted in p (past the rounds afterwards).
  template <class F>
  void each_round(VGPR p, F f) {
    const SGPR saved = k_.sgpr(2, "exec"), pieces = k_.sgpr(1, "table pieces");
    const VGPR goff = k_.vgpr(1, "table offset");
    k_.s_mov_b32(pieces, pieces_);
    for (int r = 0; r < rounds_; ++r) {
      if (r) k_.v_add_u32(p, threads_, p);
      k_.v_cmp_gt_u32(vcc, pieces, p);
      k_.s_and_saveexec_b64(saved, vcc);
      k_.v_lshlrev_b32(goff, 4, p);
      f(r, goff);
      k_.s_mov_b64(exec, saved);
    }
    k_.v_add_u32(p, threads_, p);
  }
  Kernel& k_;
  uint32_t pieces_;
  int rounds_ = 1;
  SGPR threads_, w_;
  VGPR piece_;
  std::vector<VGPR> data_;
};

// dst[0..w) = the LDS dwords at kArgsLds + 4 * first_dword (w = 1..4, one read).
void read_arg_dwords(Kernel& k, VGPR dst, VGPR zero, int first_dword, int w) {
  const auto at = offset(kArgsLds + 4 * uint32_t(first_dword));
  switch (w) {
    case 1: k.ds_read_b32(dst, zero, at); break;
    case 2: k.ds_read_b64(dst, zero, at); break;
    case 3: k.ds_read_b96(dst, zero, at); break;
    default: k.ds_read_b128(dst, zero, at); break;
  }
}

// The row's blocks (nb) and block groups (ng) for k columns.
void row_units(Kernel& k, SGPR kcols, const GroupShape& shape, SGPR nb, SGPR ng) {
  k.s_lshr_b32(nb, kcols, log2_exact(shape.block_elems));
  k.s_add_u32(ng, nb, shape.blocks_per_group - 1);
  k.s_lshr_b32(ng, ng, log2_exact(shape.blocks_per_group));
}

// dst = src + imm (64-bit).
void add64_to(Kernel& k, SGPR dst, SGPR src, uint32_t imm) {
  k.s_add_u32(dst[0], src[0], imm);
  k.s_addc_u32(dst[1], src[1], 0);
}

class Body final : public GemvEmitter {
 public:
  Body(Kernel& kernel, const GroupShape& s, GemvDecoder& d, int rows, const Entry& en)
      : GemvEmitter(kernel, s, rows, rows == 1 ? 32 : rows == 2 ? 16 : 8), dec_(d), e_(en) {}

  // Ends the wave (s_endpgm) itself: bodies of large types are longer than a branch reaches.
  void emit();

  SGPR x(int m, int e) override {
    const int b = cur_step_ % 2;
    return xbuf_[b][size_t(m)][size_t(e / xchunk())][e % xchunk()];
  }
  SGPR sumx(int m, int run) override {
    const int lanes = dec_.sumx_run() / 4;
    const int chunk = run * dec_.sumx_run() / 256, lane = (run * lanes) % 64;
    k.v_readlane_b32(sum_out_, sum_[size_t(m)][size_t(chunk)], lane);
    return sum_out_;
  }
  void fma_half(VGPR acc, VGPR pair, int high, int m, int e, bool first) override {
    if (first)
      k.v_fma_mix_f32(acc, pair, x(m, e), 0, as::op_sel({high, 0, 0}), as::op_sel_hi({1, 0, 0}));
    else
      k.v_fma_mix_f32(acc, pair, x(m, e), acc, as::op_sel({high, 0, 0}), as::op_sel_hi({1, 0, 0}));
  }
  void fma_f32(VGPR acc, VGPR value, int m, int e, bool first) override {
    if (first) k.v_mul_f32(acc, x(m, e), value);
    else k.v_fmac_f32(acc, x(m, e), value);
  }
  uint32_t table_offset() const override { return kTableLds; }

 private:
  // The fused variants' ends (see "Fused variants" below).
  void hand_over(SGPR log_parts, SGPR parts, SGPR part, SGPR region, SGPR t, VGPR addr, Label gather);
  void merge_shares(Label write);
  void gather_halves(Label store);
  VGPR rms_factor(int m, const std::vector<int>& in_flight = {8, 1});
  void early_epilogue(SGPR rows_left, SGPR ybase);
  SGPR late_arg(uint32_t offset, int dwords) { return late_args({{offset, dwords}})[0]; }
  // Several at once: their LDS reads are all issued before the first use.
  std::vector<SGPR> late_args(const std::vector<std::pair<uint32_t, int>>& args);
  void load_late_args();
  std::vector<VGPR> late_copy_;  // the argument block in VGPRs for the fused end, 4 dwords each (load_late_args)
  void partial_squares(SGPR rows_left);
  void store_fused(SGPR rows_left, SGPR ybase, SGPR nbytes);
  std::vector<VGPR> utotals_;  // SwiGlu: the up matrix's totals
  // One row (M = 1): what the fused end needs, loaded while the body runs
  // (early_epilogue): the RMS factor; Accumulate's old y and scale.
  VGPR early_r_, early_y_, early_scale_;
  int in_flight_bytes(bool odd = false) const {
    const int bytes = odd ? dec_.in_flight_bytes_odd() : dec_.in_flight_bytes();
    return e_.fusion && *e_.fusion != GemvFusion::Accumulate ? bytes / 2 : bytes;
  }
  int steps_per_slice() const { return shape.slice_elems() / step_elems; }
  int slices_per_block() const { return shape.slices / shape.blocks_per_group; }
  bool block_shares() const { return dec_.block_shares(); }
  // The jump of a share that starts inside its first group to that block of the body.
  void enter_blocks();
  // SGPRs per x tuple: the fused variants keep more SGPRs live past the body
  // and take x in 8-dword tuples, which fit where a 16-dword one does not.
  int xchunk() const { return e_.fusion && M > 1 ? 8 : 16; }
  int chunks() const { return std::max(1, shape.group_elems() / 256); }
  // A part of the current group (next = false) or of the next one.
  void load_part(VGPR dst, bool next, int first_dword, int dwords);
  void load_slice(int j, bool next) {
    load_part(ring_[size_t(j % ring_size_)], next, shape.header_dwords + j * shape.slice_dwords, shape.slice_dwords);
  }
  // The x-step s of a group (s counts the steps of all slices) into buffer s % 2.
  void load_x(int s, bool next);
  void load_sums(bool next);
  void reduce_sums();
  void group_body(bool last, Label done);

  GemvDecoder& dec_;
  const Entry& e_;
  int ring_size_ = 0, ahead_ = 0, ahead_odd_ = 0, cur_step_ = 0;
  // Slices in flight while slice j is decoded (whole slices; even and odd j may differ).
  int ahead(int j) const { return j % 2 ? ahead_odd_ : ahead_; }
  VGPR hdr_;
  std::vector<VGPR> ring_;
  VGPR vofs_[5];
  std::vector<std::vector<SGPR>> xbuf_[2];  // [buffer][m][16-dword chunk]
  std::vector<std::vector<VGPR>> raw_, sum_;  // [m][chunk]
  std::vector<VGPR> totals_;
  SGPR gbase_, pbase_, count_, last_present_, elems_left_, sum_out_, saved_exec_, skip_;
  // With block_shares(): per block b > 0 of a group, where the full group's
  // body (entry_[0][b]) and the last group's (entry_[1][b]) decode it.
  std::vector<Label> entry_[2];
  VGPR sum_elem_;
  std::vector<SGPR> xb_;
};

void Body::load_part(VGPR dst, bool next, int first_dword, int dwords) {
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
    if (!last && j == header_at) load_part(hdr_, true, 0, shape.header_dwords);
    if (last && shape.blocks_per_group > 1 && j > 0 && j % bps == 0) {
      k.s_cmp_le_u32(last_present_, j / bps);
      k.s_cbranch_scc1(done);
    }
    // Slices issued so far reach (j - 1) + ahead(j - 1); this one takes them to j + ahead(j).
    for (int jj = j + ahead(j == 0 ? n - 1 : j - 1); jj <= j + ahead(j); ++jj) {
      if (jj < n) load_slice(jj, false);
      else if (!last) load_slice(jj - n, true);
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
    add64(k, gbase_, uint32_t(shape.group_bytes()), 0);
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
      load_part(hdr_, true, 0, shape.header_dwords);
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
  const uint32_t table = uint32_t(quant::gemv_table_bytes(shape.type));
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
  k.s_mul_i32(tile_bytes, ng, shape.group_bytes());
  k.s_mul_i32(mat, tiles, tile_bytes);
  if (table) k.s_add_u32(mat, mat, table);
  gbase_ = scaled_address(k, e_.w, expert, mat, 0);
  k.s_mul_i32(t, e_.tile, tile_bytes);
  if (table) k.s_add_u32(t, t, table);
  add64(k, gbase_, t, 0);
  k.s_mul_i32(t, g0, shape.group_bytes());
  add64(k, gbase_, t, 0);
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
  load_part(hdr_, false, 0, H);
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
  k.s_and_b64(exec, exec, vcc);
  for (int m = 0; m < M; ++m) {
    if (m) add64(k, ybase, nbytes, 0);
    k.global_store_dword(vofs_[1], totals_[size_t(m)], ybase);
  }
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

// Shared tiles (k100/quant/gemv_tile_shares.h), the end of wave 0 of a
// share: its partial sums into the tile's record of ws, then the counter;
// the share that brings the counter round (its old value P - 1) adds the P
// partials in share order, whatever order the shares came in, and goes on to
// the store; the others end. Wave 0 of a tile that is not shared branches
// to the store, and so do the storing waves of workgroups with several
// tiles (never shared).
void Body::merge_shares(Label write) {
  // a shared tile is a workgroup's only one: other waves storing hold whole tiles
  k.s_cmp_lg_u32(e_.wave, 0);
  k.s_cbranch_scc1(write);
  const SGPR record = k.sgpr(1, "record"), q = k.sgpr(1, "share"), last = k.sgpr(1, "shares - 1"),
             t = k.sgpr(1, "t");
  k.v_readlane_b32(record, e_.share, 0);
  k.v_readlane_b32(q, e_.share, 1);
  k.v_readlane_b32(last, e_.share, 2);
  k.s_cmp_eq_u32(record, ~0u);
  k.s_cbranch_scc1(write);
  const SGPR base = k.sgpr(2, "record address");
  {
    // ws: asked for only now, over the host link (the first request leaves it
    // out, as every workgroup makes one; a share ends early, while whole
    // tiles still run, so the round trip is hidden)
    const SGPR kp = k.sgpr(2, "kernel arguments"), ws = k.sgpr(2, "ws");
    k.v_readlane_b32(kp[0], e_.share, 3);
    k.v_readlane_b32(kp[1], e_.share, 4);
    k.s_load_dwordx2(ws, kp, int(e_.ws_at));
    k.s_waitcnt(lgkmcnt(0));
    k.s_add_u32(base[0], ws[0], record);
    k.s_addc_u32(base[1], ws[1], 0);
  }
  // share q's rows: q * kGemvShareRows + m
  const uint32_t rows_bytes = quant::kGemvShareRows * 256;  // a share's rows: whatever M, the counter stays put
  const VGPR addr = k.vgpr(1, "partial offset");
  k.s_mul_i32(t, q, rows_bytes);
  k.v_add_u32(addr, t, vofs_[1]);
  for (int m = 0; m < M; ++m) k.global_store_dword(addr, totals_[size_t(m)], base, offset(256 * m));
  k.s_waitcnt(vmcnt(0));  // the partials are in the L2 before the counter says so
  const VGPR at = k.vgpr(1, "counter offset"), wrap = k.vgpr(1, "wrap"), old = k.vgpr(1, "count before");
  k.s_add_u32(t, last, 1);
  k.s_mul_i32(t, t, rows_bytes);
  k.v_mov_b32(at, t);
  k.v_mov_b32(wrap, last);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.global_atomic_inc(old, at, wrap, base, as::glc());
  const SGPR before = k.sgpr(1, "count before");
  k.v_readfirstlane_b32(before, old);
  k.s_mov_b64(exec, -1);
  Label mine = k.label("last share");
  k.s_cmp_eq_u32(before, last);
  k.s_cbranch_scc1(mine);
  k.s_endpgm();
  k.bind(mine);
  // Every share's partials (glc: past this CU's L1), then their sum in share order.
  std::vector<std::vector<VGPR>> parts(size_t(quant::kGemvMaxShares));
  Label loaded = k.label("partials loaded"), added = k.label("partials added");
  for (int p = 0; p < quant::kGemvMaxShares; ++p) {
    if (p) {
      k.s_cmp_lt_u32(last, p);
      k.s_cbranch_scc1(loaded);
    }
    const VGPR a = k.vgpr(1, "partial offset");
    k.v_add_u32(a, uint32_t(p) * rows_bytes, vofs_[1]);
    for (int m = 0; m < M; ++m) {
      parts[size_t(p)].push_back(k.vgpr(1, "partial"));
      k.global_load_dword(parts[size_t(p)].back(), a, base, offset(256 * m), as::glc());
    }
  }
  k.bind(loaded);
  k.s_waitcnt(vmcnt(0));
  for (int m = 0; m < M; ++m) k.v_mov_b32(totals_[size_t(m)], parts[0][size_t(m)]);
  for (int p = 1; p < quant::kGemvMaxShares; ++p) {
    k.s_cmp_lt_u32(last, p);
    k.s_cbranch_scc1(added);
    for (int m = 0; m < M; ++m) k.v_add_f32(totals_[size_t(m)], totals_[size_t(m)], parts[size_t(p)][size_t(m)]);
  }
  k.bind(added);
}

// ---- Fused variants: the ends of the bodies of `<type>_gemv_<fusion>_k`.

// SwiGlu: a tile has 2S waves, part p = half * S + (share of the row), the
// waves of a tile adjacent; parts 1 .. 2S-1 hand their sums to part 0 through
// LDS (2S - 1 regions per tile), which adds the gate's into the totals and
// the up matrix's into utotals_.
void Body::gather_halves(Label store) {
  auto s1 = [&](const char* name) { return k.sgpr(1, name); };
  const SGPR logp = s1("log2 parts"), parts = s1("parts"), pidx = s1("part of the tile"), region = s1("region"),
             t = s1("t"), v = s1("part");
  const VGPR addr = k.vgpr(1, "lds address"), partial = k.vgpr(1, "partial");
  k.s_ff1_i32_b32(logp, e_.split);
  k.s_add_u32(logp, logp, 1);
  k.s_lshl_b32(parts, e_.split, 1);
  k.s_sub_u32(pidx, parts, 1);
  k.s_and_b32(pidx, pidx, e_.wave);
  Label gather = k.label("gather"), gate = k.label("gate parts"), up = k.label("up parts");
  hand_over(logp, parts, pidx, region, t, addr, gather);
  for (int m = 0; m < M; ++m) {
    utotals_.push_back(k.vgpr(1, "up total"));
    k.v_mov_b32(utotals_.back(), 0);
  }
  k.s_mov_b32(v, 1);
  auto loop = [&](Label top, SGPR end, const std::vector<VGPR>& into, Label done) {
    k.bind(top);
    k.s_cmp_ge_u32(v, end);
    k.s_cbranch_scc1(done);
    for (int m = 0; m < M; ++m) {
      k.ds_read_b32(partial, addr, offset(kReduceLds + 256 * m));
      k.v_add_f32(into[size_t(m)], into[size_t(m)], partial);
    }
    k.v_add_u32(addr, 256 * M, addr);
    k.s_add_u32(v, v, 1);
    k.s_branch(top);
  };
  loop(gate, e_.split, totals_, up);
  loop(up, parts, utotals_, store);
}

// The whole block from LDS into VGPRs at the fused end: its late_arg()s
// then cost no LDS round trip each.
void Body::load_late_args() {
  const int n = int(e_.lds_dwords);
  const VGPR zero = k.vgpr(1, "zero");
  k.v_mov_b32(zero, 0);
  for (int d = 0; d < n;) {
    const int w = std::min(4, n - d);
    late_copy_.push_back(k.vgpr(w, "argument copy"));
    read_arg_dwords(k, late_copy_.back(), zero, d, w);
    d += w;
  }
}

// Arguments of the block in LDS (Entry's offsets), read into SGPRs by the storing wave.
std::vector<SGPR> Body::late_args(const std::vector<std::pair<uint32_t, int>>& args) {
  std::vector<SGPR> out;
  if (!late_copy_.empty()) {
    for (auto [at, dwords] : args) {
      out.push_back(k.sgpr(dwords, "argument"));
      for (int i = 0; i < dwords; ++i) {
        const int d = int(at / 4) + i;
        k.v_readfirstlane_b32(out.back()[i], late_copy_[size_t(d / 4)][d % 4]);
      }
    }
    return out;
  }
  const VGPR zero = k.vgpr(1, "zero");
  k.v_mov_b32(zero, 0);
  std::vector<VGPR> copies;
  for (auto [at, dwords] : args) {
    copies.push_back(k.vgpr(dwords, "argument"));
    if (dwords == 2) k.ds_read_b64(copies.back(), zero, offset(kArgsLds + at));
    else k.ds_read_b32(copies.back(), zero, offset(kArgsLds + at));
  }
  for (size_t a = 0; a < args.size(); ++a) {
    out.push_back(k.sgpr(args[a].second, "argument"));
    for (int i = 0; i < args[a].second; ++i) k.v_readfirstlane_b32(out.back()[i], copies[a][i]);
  }
  return out;
}

// One row: the fused end's inputs, read right after the prologue's loads so
// their round trips overlap the body instead of following it (a wave's end
// would otherwise wait for them once the last weights are in): the RMS
// factor (its partial sums two loads at a time; the VGPRs of the body are
// live here), or Accumulate's old y and, with y_scaled, the scale of the
// lane's row (lanes past the matrix read nothing).
void Body::early_epilogue(SGPR rows_left, SGPR ybase) {
  if (*e_.fusion != GemvFusion::Accumulate) {
    early_r_ = rms_factor(0, {2, 1});
    return;
  }
  early_y_ = k.vgpr(1, "old y");
  early_scale_ = k.vgpr(1, "scale");
  const SGPR saved = k.sgpr(2, "exec");
  Label no_scale = k.label("no scale");
  k.v_mov_b32(early_y_, 0);
  k.v_mov_b32(early_scale_, 0);
  k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
  k.s_and_saveexec_b64(saved, vcc);
  k.global_load_dword(early_y_, vofs_[1], ybase);
  const std::vector<SGPR> a = late_args({{e_.yscaled, 2}, {e_.scale, 2}});
  k.s_cmp_eq_u64(a[0], 0);
  k.s_cbranch_scc1(no_scale);
  const SGPR row = k.sgpr(1, "row");
  k.s_sub_u32(row, e_.n, rows_left);  // 64 tile
  const SGPR sbase = offset_address(k, a[1], row, 2);
  k.global_load_dword(early_scale_, vofs_[1], sbase);
  k.bind(no_scale);
  k.s_mov_b64(exec, saved);
}

// r = 1 / sqrt(sum_p ss[row][p] / k + eps) over the P = ceil(k / 64)
// partial sums of squares of x row m's source (1 when ss = 0), in every
// lane: lane l reads partials l, l + 64, ... (eight loads in flight), and the
// lanes add them up. Row (g, m) of the partials is g * M + m, or m when
// x_stride is 0 (x shared by the groups).
VGPR Body::rms_factor(int m, const std::vector<int>& in_flight) {
  const VGPR r = k.vgpr(1, "rms factor"), sum = k.vgpr(1, "sum of squares"), elem = k.vgpr(1, "partial index"),
             voff = k.vgpr(1, "offset"), t = k.vgpr(1, "t");
  const SGPR row = k.sgpr(1, "partials row"), left = k.sgpr(1, "partials left"), count = k.sgpr(1, "rounds"),
             total = k.sgpr(1, "sum"), saved = k.sgpr(2, "exec"), p = k.sgpr(1, "partials");
  Label none = k.label("no rms");
  const std::vector<SGPR> a =
      late_args({{e_.s, 2}, {e_.eps, 1}, {e_.k_at, 1}, {e_.grp_at, 1}, {e_.xstride_at, 1}});
  const SGPR ss = a[0], eps = a[1], kcols = a[2];
  k.v_mov_b32(r, 1.0f);
  k.s_cmp_eq_u64(ss, 0);
  k.s_cbranch_scc1(none);
  k.s_mul_i32(row, a[3], M);
  k.s_cmp_eq_u32(a[4], 0);
  k.s_cselect_b32(row, 0, row);
  if (m) k.s_add_u32(row, row, m);
  k.s_add_u32(p, kcols, 63);
  k.s_lshr_b32(p, p, 6);
  k.s_mul_i32(row, row, p);
  const SGPR base = offset_address(k, ss, row, 2);
  k.s_mov_b32(left, p);
  k.s_add_u32(count, p, 63);
  k.s_lshr_b32(count, count, 6);
  k.v_mov_b32(sum, 0);
  countdown_groups(k, count, in_flight, [&](int n) {
    std::vector<VGPR> v;
    for (int j = 0; j < n; ++j) {
      v.push_back(k.vgpr(1, "partial"));
      k.v_mov_b32(v.back(), 0);
      if (j) k.v_add_u32(elem, 64 * j, e_.lane);
      k.v_cmp_gt_u32(vcc, left, j ? elem : e_.lane);
      k.s_and_saveexec_b64(saved, vcc);
      k.v_add_u32(voff, 256 * j, vofs_[1]);
      k.global_load_dword(v.back(), voff, base);
      k.s_mov_b64(exec, saved);
    }
    for (int j = 0; j < n; ++j) k.v_add_f32(sum, sum, v[size_t(j)]);
    add64(k, base, uint32_t(256 * n), 0);
    k.s_sub_u32(left, left, 64 * n);
  });
  lane_reduce(k, {{ReduceOp::Add, sum}});
  k.v_readlane_b32(total, sum, 63);
  k.v_cvt_f32_u32(t, kcols);
  k.v_rcp_f32(t, t);
  k.v_mul_f32(t, total, t);
  k.v_add_f32(t, eps, t);
  k.v_rsq_f32(r, t);
  k.bind(none);
  return r;
}

// The stores of the fused variants (wave 0 of a tile, the sums gathered).
void Body::store_fused(SGPR rows_left, SGPR ybase, SGPR nbytes) {
  const GemvFusion f = *e_.fusion;
  if (f != GemvFusion::Accumulate)
    for (int m = 0; m < M; ++m) {
      const VGPR r = early_r_.valid() ? early_r_ : rms_factor(m);  // needs the whole wave: before the row mask
      k.v_mul_f32(totals_[size_t(m)], totals_[size_t(m)], r);
      if (f == GemvFusion::SwiGlu) k.v_mul_f32(utotals_[size_t(m)], utotals_[size_t(m)], r);
    }
  k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
  k.s_and_b64(exec, exec, vcc);
  const VGPR old = k.vgpr(1, "y"), t = k.vgpr(1, "t");
  for (int m = 0; m < M; ++m) {
    const VGPR y = totals_[size_t(m)];
    if (m) add64(k, ybase, nbytes, 0);
    if (f == GemvFusion::Accumulate) {
      if (early_y_.valid()) {
        k.v_add_f32(y, early_y_, y);
      } else {
        k.global_load_dword(old, vofs_[1], ybase);
        k.v_add_f32(y, old, y);
      }
    } else if (f == GemvFusion::SwiGlu) {
      // silu(g) * u = g * u / (1 + 2^(-g log2 e))
      k.v_mul_f32(t, -1.4426950408889634f, y);
      k.v_exp_f32(t, t);
      k.v_add_f32(t, 1.0f, t);
      k.v_rcp_f32(t, t);
      k.v_mul_f32(y, y, utotals_[size_t(m)]);
      k.v_mul_f32(y, y, t);
    }
    k.global_store_dword(vofs_[1], y, ybase);
  }
  if (f == GemvFusion::Accumulate) {
    // y_scaled rows beside y's: (grp * M + m) * n + 64 tile; scale by the row within n
    Label done = k.label("no scaled copy");
    const SGPR zptr = late_arg(e_.yscaled, 2);
    k.s_cmp_eq_u64(zptr, 0);
    k.s_cbranch_scc1(done);
    const SGPR row = k.sgpr(1, "row"), yrow = k.sgpr(1, "y row");
    const SGPR n = late_arg(e_.n_at, 1);
    k.s_sub_u32(row, n, rows_left);  // 64 tile
    k.s_mul_i32(yrow, late_arg(e_.grp_at, 1), M);
    k.s_mul_i32(yrow, yrow, n);
    k.s_add_u32(yrow, yrow, row);
    const SGPR zbase = offset_address(k, zptr, yrow, 2);
    if (early_scale_.valid()) {
      k.v_mov_b32(t, early_scale_);
    } else {
      const SGPR sbase = offset_address(k, late_arg(e_.scale, 2), row, 2);
      k.global_load_dword(t, vofs_[1], sbase);
    }
    for (int m = 0; m < M; ++m) {
      if (m) add64(k, zbase, nbytes, 0);
      k.v_mul_f32(old, totals_[size_t(m)], t);
      k.global_store_dword(vofs_[1], old, zbase);
    }
    k.bind(done);
    partial_squares(rows_left);
  }
  k.s_endpgm();
}

// Accumulate with ss != 0: ss[(g * M + m) * tiles + tile] = the sum of the
// squares of the tile's new y rows (the RMS-scaled forms' partials). The
// lanes past the matrix add zeros; lane 0 stores; a wave whose tile is past
// the matrix stores nothing.
void Body::partial_squares(SGPR rows_left) {
  Label done = k.label("no partials");
  const SGPR ss = late_arg(e_.ss_at, 2);
  k.s_cmp_eq_u64(ss, 0);
  k.s_cbranch_scc1(done);
  k.s_cmp_le_i32(rows_left, 0);  // a tile past the matrix has no partial
  k.s_cbranch_scc1(done);
  const SGPR n = late_arg(e_.n_at, 1), tiles = k.sgpr(1, "tiles"), first = k.sgpr(1, "partial"),
             step = k.sgpr(1, "partial row bytes"), v = k.sgpr(1, "sum");
  const VGPR sq = k.vgpr(1, "square"), zero = k.vgpr(1, "zero");
  k.s_add_u32(tiles, n, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_lshl_b32(step, tiles, 2);
  k.s_mul_i32(first, late_arg(e_.grp_at, 1), M);
  k.s_mul_i32(first, first, tiles);
  k.s_sub_u32(v, n, rows_left);
  k.s_lshr_b32(v, v, 6);  // the tile
  k.s_add_u32(first, first, v);
  const SGPR at = offset_address(k, ss, first, 2);
  k.s_mov_b64(exec, -1);
  k.v_mov_b32(zero, 0);
  for (int m = 0; m < M; ++m) {
    if (m) add64(k, at, step, 0);
    k.v_cmp_gt_i32(vcc, rows_left, e_.lane);
    k.v_mul_f32(sq, totals_[size_t(m)], totals_[size_t(m)]);
    k.v_cndmask_b32(sq, zero, sq, vcc);
    lane_reduce(k, {{ReduceOp::Add, sq}});
    k.v_readlane_b32(v, sq, 63);
    k.v_mov_b32(sq, v);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.global_store_dword(zero, sq, at);
    k.s_mov_b64(exec, -1);
  }
  k.bind(done);
}

}  // namespace

Signature gemv_signature(TensorType type) {
  std::vector<codegen::Param> p = {in("w", "u8"),       in("x", "f32"),      out("y", "f32"),
                                   in("ids", "u32"),    value("n", "u32"),   value("k", "u32"),
                                   value("m", "u32"),   value("x_stride", "u32"), value("split", "u32")};
  // the kernels that share tiles: their workspace (read at the end, not with the others)
  if (gemv_shares_tiles(type)) p.push_back(inout("ws", "u8"));
  return Signature(kernel_name(type), p, codeobj::HiddenArgLayout::Compact);
}

bool gemv_shares_tiles(TensorType type, std::optional<GemvFusion> fusion) {
  return fusion != GemvFusion::SwiGlu && make_decoder(type)->shares_tiles();
}

std::string gemv_fused_name(TensorType type, GemvFusion fusion) {
  const std::string base = kernel_name(type);  // "<type>_gemv_k"
  const char* suffix = fusion == GemvFusion::Accumulate ? "acc" : fusion == GemvFusion::RmsScale ? "rms" : "swiglu";
  return base.substr(0, base.size() - 1) + suffix + "_k";
}

Signature gemv_fused_signature(TensorType type, GemvFusion fusion) {
  std::vector<codegen::Param> p = {in("w", "u8")};
  if (fusion == GemvFusion::SwiGlu) p.push_back(in("up", "u8"));
  p.push_back(in("x", "f32"));
  p.push_back(fusion == GemvFusion::Accumulate ? inout("y", "f32") : out("y", "f32"));
  for (codegen::Param q : {in("ids", "u32"), value("n", "u32"), value("k", "u32"), value("m", "u32"),
                           value("x_stride", "u32"), value("split", "u32")})
    p.push_back(std::move(q));
  if (fusion == GemvFusion::Accumulate) {
    p.push_back(in("scale", "f32"));
    p.push_back(out("y_scaled", "f32"));
    p.push_back(out("ss", "f32"));
  } else {
    p.push_back(in("ss", "f32"));
    p.push_back(value("eps", "f32"));
  }
  if (gemv_shares_tiles(type, fusion)) p.push_back(inout("ws", "u8"));
  return Signature(gemv_fused_name(type, fusion), p, codeobj::HiddenArgLayout::Compact);
}

namespace {

// dst[0..n) = the kernel-argument dwords from byte `at` on, in loads of 8, 4, 2 and 1 dwords.
void load_kernarg_dwords(Kernel& k, SGPR dst, int at, int n) {
  for (int d = 0; d < n;) {
    const int w = n - d >= 8 ? 8 : n - d >= 4 ? 4 : n - d >= 2 ? 2 : 1;
    const SGPR part = dst.sub(d, w);
    switch (w) {
      case 8: k.s_load_dwordx8(part, k.kernarg_pointer(), at + 4 * d); break;
      case 4: k.s_load_dwordx4(part, k.kernarg_pointer(), at + 4 * d); break;
      case 2: k.s_load_dwordx2(part, k.kernarg_pointer(), at + 4 * d); break;
      default: k.s_load_dword(part, k.kernarg_pointer(), at + 4 * d); break;
    }
    d += w;
  }
}

// Shared tiles (k100/quant/gemv_tile_shares.h): with split = S | P << 8 |
// R << 16, P > 1 (at most kGemvMaxShares), 0 < R <= the tiles and one tile
// per workgroup (ws, read at the end, must then be the workspace), workgroup w = P r + q < R P takes share q of the
// tile T - R + r: units [q c, q c + c) of the row, c = ceil(units / P); the
// others take tile w - R P whole. Every wave works it out and keeps the
// record's offset (g R + r) * record bytes, q and P - 1 in lanes 0-2 of a
// VGPR for the end (the offset ~0 when the tile is not shared): a VGPR
// costs the body nothing (the SGPRs are short) and its lanes come back
// without an LDS round trip.
void share_tile(Kernel& k, Entry& en, SGPR split, SGPR per, SGPR units) {
  const SGPR p = k.sgpr(1, "shares"), r = k.sgpr(1, "shared tiles"), tiles = k.sgpr(1, "tiles"),
             t = k.sgpr(1, "t"), record = k.sgpr(1, "record"), q = k.sgpr(1, "share");
  Label whole = k.label("tile not shared");
  k.s_mov_b32(record, ~0u);
  k.s_mov_b32(q, 0);
  k.s_bfe_u32(p, split, 8 | 8 << 16);
  k.s_min_u32(p, p, quant::kGemvMaxShares);
  k.s_lshr_b32(r, split, 16);
  k.s_add_u32(tiles, en.n, 63);
  k.s_lshr_b32(tiles, tiles, 6);
  k.s_cmp_lt_u32(p, 2);
  k.s_cbranch_scc1(whole);
  k.s_cmp_eq_u32(r, 0);
  k.s_cbranch_scc1(whole);
  k.s_cmp_gt_u32(r, tiles);
  k.s_cbranch_scc1(whole);
  k.s_cmp_lg_u32(per, 1);
  k.s_cbranch_scc1(whole);
  k.s_mul_i32(t, r, p);
  Label sharing = k.label("a share");
  k.s_cmp_lt_u32(k.workgroup_id(0), t);
  k.s_cbranch_scc1(sharing);
  k.s_sub_u32(en.tile, k.workgroup_id(0), t);  // the whole tiles after the shares
  k.s_branch(whole);
  k.bind(sharing);
  {
    const Divider d = make_divider(k, p);
    const SGPR rt = divide_scalar(k, d, k.workgroup_id(0));  // the shared tile
    k.s_mul_i32(t, rt, p);
    k.s_sub_u32(q, k.workgroup_id(0), t);
    k.s_sub_u32(en.tile, tiles, r);
    k.s_add_u32(en.tile, en.tile, rt);
    // units [q c, q c + c), clipped to the row
    k.s_add_u32(t, units, p);
    k.s_sub_u32(t, t, 1);
    const SGPR c = divide_scalar(k, d, t);
    k.s_mul_i32(en.unit0, q, c);
    k.s_min_u32(en.unit0, en.unit0, units);
    k.s_add_u32(en.unit1, en.unit0, c);
    k.s_min_u32(en.unit1, en.unit1, units);
    // record (g R + rt) of P 4 256 + 64 bytes
    k.s_mul_i32(record, en.grp, r);
    k.s_add_u32(record, record, rt);
    k.s_mul_i32(t, p, quant::kGemvShareRows * 256);
    k.s_add_u32(t, t, 64);
    k.s_mul_i32(record, record, t);
  }
  k.bind(whole);
  en.share = k.vgpr(1, "share");
  k.s_sub_u32(t, p, 1);
  k.v_mov_b32(en.share, record);
  k.v_writelane_b32(en.share, q, 1);
  k.v_writelane_b32(en.share, t, 2);
  k.v_writelane_b32(en.share, k.kernarg_pointer()[0], 3);
  k.v_writelane_b32(en.share, k.kernarg_pointer()[1], 4);
}

codeobj::CodeObject build_kernel(isa::Target target, TensorType type, std::optional<GemvFusion> fusion) {
  const GroupShape shape = group_shape(type);
  std::unique_ptr<GemvDecoder> dec = make_decoder(type);
  const Signature sig = fusion ? gemv_fused_signature(type, *fusion) : gemv_signature(type);
  // The explicit arguments: 16 dwords, or 20 for a fused variant's longer list.
  // The arguments read first: all but ws (of the kernels that share tiles,
  // read at the end by the shares alone).
  const bool shares = gemv_shares_tiles(type, fusion);
  uint32_t args_end = 0;
  for (const codegen::Param& q : sig.params())
    if (q.name != "ws") args_end = std::max(args_end, sig.offset(q.name) + sig.size(q.name));
  const int block_dwords = args_end > 64 ? 20 : 16;
  if (args_end > uint32_t(4 * block_dwords))
    throw Error("gemv: the argument block of " + sig.kernel() + " is not " + std::to_string(4 * block_dwords) + " bytes");
  const uint32_t lds = kTableLds + dec->lds_table_bytes();
  Kernel k(sig, target, {.waves_per_simd = dec->waves_per_simd(), .lds_bytes = lds, .max_workgroup = 64 * kMaxWaves, .workgroup_dims = 2});

  // Arguments: wave 0 reads the explicit block (one host-link request: the
  // first 64-byte line) and passes it on through LDS: one argument read per
  // workgroup. The wave count comes from LDS too rather than from the hidden
  // group size, which lies in the next line and would cost a second request
  // queued behind every workgroup's first: wave 0 clears a counter with the
  // arguments, after a barrier every wave adds its lanes to it, and after a
  // second one every wave reads it.
  Entry en;
  en.wave = wave_index(k);
  const SGPR block = k.sgpr(16, "argument block"), lanes = k.sgpr(1, "lanes");
  const int used = int((args_end + 3) / 4);
  SGPR tail;  // dwords 16..19 of a fused variant's longer list
  if (block_dwords > 16) tail = k.sgpr(4, "argument block tail");
  {
    // Wave 0 asks first thing: the link serves the workgroups' requests in
    // the order they are made, so a few instructions more before it, slower
    // on a CU that holds more waves, would put the workgroups of the CUs
    // with the most work at the end of the queue.
    Label asked = k.label("arguments asked for");
    k.s_cmp_lg_u32(en.wave, 0);
    k.s_cbranch_scc1(asked);
    // Only the dwords the arguments occupy: the host link carries every
    // byte asked for, and a dispatch's workgroups ask one after the other.
    load_kernarg_dwords(k, block, 0, std::min(used, 16));
    if (block_dwords > 16) load_kernarg_dwords(k, tail, 64, used - 16);
    k.bind(asked);
  }
  const SGPR mine = k.sgpr(1, "lanes of the wave");
  k.s_bcnt1_i32_b64(mine, exec);  // the launch's lanes, before whole_wave_lane_id sets them all
  en.lane = whole_wave_lane_id(k);
  const VGPR staging = k.vgpr(4, "argument staging"), zero = k.vgpr(1, "zero");
  const uint32_t count_at = kArgsLds + 4 * uint32_t(block_dwords);
  k.v_mov_b32(zero, 0);
  Label read = k.label("read arguments");
  k.s_cmp_lg_u32(en.wave, 0);
  k.s_cbranch_scc1(read);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_write_b32(zero, zero, offset(count_at));
  for (int d = 0; d < used; d += 4) {
    const int w = std::min(4, used - d);
    for (int i = 0; i < w; ++i) k.v_mov_b32(staging[i], d + i < 16 ? block[d + i] : tail[d + i - 16]);
    const auto at = offset(kArgsLds + 4 * uint32_t(d));
    switch (w) {
      case 1: k.ds_write_b32(zero, staging[0], at); break;
      case 2: k.ds_write_b64(zero, staging.sub(0, 2), at); break;
      case 3: k.ds_write_b96(zero, staging.sub(0, 3), at); break;
      default: k.ds_write_b128(zero, staging, at); break;
    }
  }
  if (fusion) {
    k.v_mov_b32(staging[0], k.workgroup_id(1));
    k.ds_write_b32(zero, staging[0], offset(kArgsLds + 4 * block_dwords + 4));
  }
  k.s_mov_b64(exec, -1);
  k.bind(read);
  k.s_barrier();
  {
    // the counter is clear: every wave adds its lanes
    const VGPR v = k.vgpr(1, "lanes of the wave");
    k.v_mov_b32(v, mine);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.ds_add_u32(zero, v, offset(count_at));
    k.s_mov_b64(exec, -1);
  }
  {
    // Wave 0 has the arguments in SGPRs already; the others read the ones
    // that go into SGPRs (the rest of a fused variant's list stays in LDS
    // for Body::late_arg) into registers of their own, so one LDS round
    // trip covers them, while the counter fills up.
    const int n = std::min(used, 16);
    const VGPR copy = k.vgpr(n, "argument copy"), ccopy = k.vgpr(1, "lane count copy");
    Label have = k.label("arguments in SGPRs"), copied = k.label("arguments copied");
    k.s_cmp_eq_u32(en.wave, 0);
    k.s_cbranch_scc1(have);
    for (int d = 0; d < n; d += 4) {
      const int w = std::min(4, n - d);
      read_arg_dwords(k, copy.sub(d, w), zero, d, w);
    }
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(count_at));
    for (int i = 0; i < n; ++i) k.v_readfirstlane_b32(block[i], copy[i]);
    k.s_branch(copied);
    k.bind(have);
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(count_at));
    k.bind(copied);
    k.v_readfirstlane_b32(lanes, ccopy);
  }
  auto arg = [&](const char* name) {
    const uint32_t off = sig.offset(name);
    if (off >= 64) throw Error("gemv: argument " + std::string(name) + " of " + sig.kernel() + " is read from LDS");
    return block.sub(int(off / 4), std::max(1, int(sig.size(name) / 4)));
  };
  en.w = arg("w");
  en.x = arg("x");
  en.y = arg("y");
  en.ids = arg("ids");
  en.n = arg("n");
  en.kcols = arg("k");
  en.m = arg("m");
  en.xstride = arg("x_stride");
  en.fusion = fusion;
  en.grp_at = uint32_t(4 * block_dwords + 4);
  en.lds_dwords = uint32_t(block_dwords + 2);
  en.n_at = sig.offset("n");
  en.k_at = sig.offset("k");
  en.xstride_at = sig.offset("x_stride");
  if (fusion == GemvFusion::Accumulate) {
    en.scale = sig.offset("scale");
    en.yscaled = sig.offset("y_scaled");
    en.ss_at = sig.offset("ss");
  } else if (fusion) {
    en.s = sig.offset("ss");
    en.eps = sig.offset("eps");
  }
  // Waves W = (lanes of the workgroup) / 64 and split S, each rounded down to a power of
  // two, S <= W <= 8; waves past W do nothing. Wave v: tile W/S * wg + v / S, part v % S.
  auto pow2_floor = [&](SGPR r) {
    const SGPR hi = k.sgpr(1, "top bit");
    k.s_max_u32(r, r, 1);
    k.s_flbit_i32_b32(hi, r);  // leading zeros
    k.s_sub_u32(hi, 31, hi);
    k.s_lshl_b32(r, 1, hi);
  };
  const SGPR waves = k.sgpr(1, "waves");
  k.s_lshr_b32(waves, lanes, 6);
  k.s_min_u32(waves, waves, kMaxWaves);
  pow2_floor(waves);
  Label active = k.label("active wave");
  k.s_cmp_lt_u32(en.wave, waves);
  k.s_cbranch_scc1(active);
  k.s_endpgm();
  k.bind(active);
  en.split = k.sgpr(1, "split");
  SGPR tiles_per_group;
  SGPR wanted = arg("split");
  if (shares) {
    wanted = k.sgpr(1, "split asked for");
    k.s_and_b32(wanted, arg("split"), 0xff);  // S; the shared tiles above it
  }
  SGPR half;  // SwiGlu: the wave's matrix (0 gate, 1 up)
  if (en.halves() == 2) {
    // 2S waves per tile: a one-wave workgroup has no tile and writes nothing
    Label two = k.label("two waves");
    k.s_cmp_ge_u32(waves, 2);
    k.s_cbranch_scc1(two);
    k.s_endpgm();
    k.bind(two);
    k.s_lshr_b32(en.split, waves, 1);
    k.s_min_u32(en.split, wanted, en.split);
  } else {
    k.s_min_u32(en.split, wanted, waves);
  }
  pow2_floor(en.split);
  {
    const SGPR logs = k.sgpr(1, "log2 split"), per = k.sgpr(1, "tiles per workgroup");
    k.s_ff1_i32_b32(logs, en.split);
    if (en.halves() == 2) {
      half = k.sgpr(1, "half");
      k.s_lshr_b32(half, en.wave, logs);
      k.s_and_b32(half, half, 1);
      k.s_add_u32(logs, logs, 1);  // log2 of the waves per tile
    }
    k.s_lshr_b32(per, waves, logs);
    tiles_per_group = per;
    en.part = k.sgpr(1, "part");
    k.s_sub_u32(en.part, en.split, 1);
    k.s_and_b32(en.part, en.part, en.wave);
    en.tile = k.sgpr(1, "tile");
    k.s_lshr_b32(en.tile, en.wave, logs);
    const SGPR first = k.sgpr(1, "first tile");
    k.s_mul_i32(first, k.workgroup_id(0), per);
    k.s_add_u32(en.tile, en.tile, first);
  }
  en.grp = k.workgroup_id(1);
  const SGPR threads = k.sgpr(1, "threads");
  k.s_lshl_b32(threads, waves, 6);

  std::optional<TableCopy> table;
  if (const uint32_t bytes = dec->lds_table_bytes()) {
    table.emplace(k, bytes);
    table->issue(en.wave, en.lane, threads, en.w);
  }
  if (table) en.finish_table = [&] { table->finish(); };
  if (shares) {
    // The row in blocks and block groups, and the units the workgroup's
    // waves share (after the table's loads, which wait for nothing of this).
    en.nb = k.sgpr(1, "blocks per row");
    en.ng = k.sgpr(1, "groups per row");
    row_units(k, en.kcols, shape, en.nb, en.ng);
    const SGPR units = dec->block_shares() ? en.nb : en.ng;
    en.unit0 = k.sgpr(1, "first unit");
    en.unit1 = k.sgpr(1, "end unit");
    k.s_mov_b32(en.unit0, 0);
    k.s_mov_b32(en.unit1, units);
    en.ws_at = sig.offset("ws");
    share_tile(k, en, arg("split"), tiles_per_group, units);
  }
  if (en.halves() == 2) {
    // the up matrix's waves read the rows at `up` (the table stays the one at w)
    const SGPR w = k.sgpr(2, "matrix");
    k.s_cmp_eq_u32(half, 1);
    k.s_cselect_b64(w, arg("up"), en.w);
    en.w = w;
  }

  // One body per M, each a hop from the previous one (a body can be longer
  // than half a branch's reach); m outside 1..4 ends after the last hop.
  for (int m = 1; m <= 4; ++m) {
    Label next = k.label("next body");
    k.s_cmp_lg_u32(en.m, m);
    k.s_cbranch_scc1(next);
    Body body(k, shape, *dec, m, en);
    body.emit();
    k.bind(next);
  }
  k.s_endpgm();
  return k.build();
}

}  // namespace

codeobj::CodeObject build_gemv(isa::Target target, TensorType type) { return build_kernel(target, type, std::nullopt); }

codeobj::CodeObject build_gemv_fused(isa::Target target, TensorType type, GemvFusion fusion) {
  return build_kernel(target, type, fusion);
}

}  // namespace k100::kernels::gguf_gemv
