// The parts of the fast GEMVs' skeleton (gemv_decoder.h) that its files
// share: the LDS plan, what the entry hands the body (Entry), and the body
// (Body, one per M rows) with its ends. The skeleton's files, one concept each:
//   gemv_body.cpp           the body: a wave's share of the row, the load
//                           pipeline, x in SGPRs, the sums of x, the decoder's
//                           calls, the reduction over the waves and the store
//   gemv_shared_tiles.cpp   shared tiles (k100/quant/gemv_tile_shares.h): the
//                           share a workgroup takes, the merge of the shares
//   gemv_fused_ends.cpp     the fused forms' ends (accumulate, RMS scale, SwiGLU)
//   gemv_entries.cpp        the kernels' signatures and entry: arguments
//                           through LDS, waves, tiles, the decoder's table
//
// The skeleton, shared by every block type:
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
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv::skeleton {

using namespace codegen;
using quant::TensorType;

inline int log2_exact(int v) {
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
  SGPR scales;                              // row storage (GroupShape::rows): the scale array
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

// dst[0..w) = the LDS dwords at kArgsLds + 4 * first_dword (w = 1..4, one read).
inline void read_arg_dwords(Kernel& k, VGPR dst, VGPR zero, int first_dword, int w) {
  const auto at = as::offset(kArgsLds + 4 * uint32_t(first_dword));
  switch (w) {
    case 1: k.ds_read_b32(dst, zero, at); break;
    case 2: k.ds_read_b64(dst, zero, at); break;
    case 3: k.ds_read_b96(dst, zero, at); break;
    default: k.ds_read_b128(dst, zero, at); break;
  }
}

// The row's blocks (nb) and block groups (ng) for k columns.
inline void row_units(Kernel& k, SGPR kcols, const GroupShape& shape, SGPR nb, SGPR ng) {
  k.s_lshr_b32(nb, kcols, log2_exact(shape.block_elems));
  k.s_add_u32(ng, nb, shape.blocks_per_group - 1);
  k.s_lshr_b32(ng, ng, log2_exact(shape.blocks_per_group));
}

// The share of a shared tile a workgroup takes (gemv_shared_tiles.cpp):
// sets en.tile, en.unit0, en.unit1 and en.share.
void share_tile(Kernel& k, Entry& en, SGPR split, SGPR per, SGPR units);

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
    // runs of 8..64 elements: every lane of a run's group holds its sum; 256: lane 63 (lane_reduce)
    const int lanes = dec_.sumx_run() / 4;
    const int chunk = run * dec_.sumx_run() / 256, lane = lanes == 64 ? 63 : (run * lanes) % 64;
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
  // The header of the current group (next = false) or of the next one.
  void load_header(bool next);
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
  // Row storage: the lane's row (the tile's last one past the matrix) in
  // bytes of codes and of scales, and the current group's scales.
  VGPR row_ofs_, scale_ofs_;
  SGPR sbase_;
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

}  // namespace k100::kernels::gguf_gemv::skeleton
