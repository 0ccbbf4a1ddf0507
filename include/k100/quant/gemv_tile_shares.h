// k100lc quant: which 64-row tiles of a fast decode GEMV several workgroups
// share, and the workspace they meet in (the plain `*_gemv_k` kernels,
// docs/GGUF.md "Fast GEMVs", "Shared tiles").
//
// A fast GEMV gives each workgroup one 64-row tile. When the tiles are not a
// multiple of the compute units, some CUs hold one tile more than the others
// and finish last (272 tiles on 120 CUs: 32 CUs with three, 88 with two).
// Sharing the last R tiles of a matrix among P workgroups each (P shares of
// each row's block groups) evens that out: the R * P sharing workgroups come
// first in the grid (workgroup P r + q takes share q of tile T - R + r), then
// the whole tiles 0 .. T - R - 1, so that a dispatcher dealing workgroups
// round robin gives every CU its whole tiles plus at most a share.
//
// The shares of a tile meet in a record of the workspace: the P partial sums
// of its M (1..4) rows of x (share q of row m at q * 4 + m, 64 floats each,
// one per tile row; room for 4 rows whatever M, so the counter stays put from
// one launch to the next), then a 64-byte line with the tile's counter (u32). Each share writes
// its partials and increments the counter, which wraps to 0 on the last; the
// last adds the P partials in share order and stores y. The record of tile r
// of group g (grid.y) is number g * R + r. The counters must be zero before a
// launch; every launch leaves them zero.
#pragma once

#include <cstdint>

namespace k100::quant {

// The largest P the kernels take, and the rows of x a record has room for.
inline constexpr int kGemvMaxShares = 8;
inline constexpr int kGemvShareRows = 4;
// The compute units of the K100_LC (docs/PERFORMANCE.md), for callers that
// plan for the card without asking a device.
inline constexpr int kGemvComputeUnits = 120;

struct GemvTileShares {
  int parts = 1;   // P: workgroups per shared tile (1: none shared)
  int tiles = 0;   // R: the shared tiles, the last ones of the matrix
  bool none() const { return parts <= 1 || tiles <= 0; }
  // The kernels' `split` argument: S | P << 8 | R << 16.
  uint32_t split_arg(uint32_t split) const;
  // Workgroups along x for `matrix_tiles` tiles, one tile per workgroup.
  uint32_t workgroups(int64_t matrix_tiles) const;
  // Bytes of one record, and of the workspace for `groups` groups (grid.y).
  uint64_t record_bytes() const;
  uint64_t workspace_bytes(int64_t groups) const;
};

// The sharing that gives the busiest of `compute_units` CUs the least work
// (counted in tiles, a share as 1/P) when workgroups are dealt to them round
// robin, among P = 2 .. max_parts and R = 1 .. min(tiles, 2 x CUs) that give
// no CU more workgroups than the busiest one holds without sharing (so they
// stay resident together); none when every CU already holds the same whole
// number of tiles or there are no more tiles than CUs. Ties go to the fewest
// sharing workgroups. Each share costs
// its workgroup's start and a row split P times more finely, so the default
// stops at 4 (272 tiles on 120 CUs: P = 3, R = 32, the busiest CU 2 1/3
// tiles instead of 3).
GemvTileShares gemv_tile_shares(int64_t tiles, int compute_units, int max_parts = 4);

}  // namespace k100::quant
