// The shared tiles of the fast GEMVs (k100/quant/gemv_tile_shares.h).
#include "k100/quant/gemv_tile_shares.h"

#include <algorithm>

#include "k100/base/error.h"
#include "k100/quant/gemv_layout.h"

namespace k100::quant {

uint32_t GemvTileShares::split_arg(uint32_t split) const {
  if (split == 0 || split > 255) throw Error("gemv tile shares: split " + std::to_string(split) + " is not 1..255");
  if (none()) return split;
  if (parts > kGemvMaxShares || tiles > 0xffff)
    throw Error("gemv tile shares: " + std::to_string(parts) + " shares of " + std::to_string(tiles) +
                " tiles exceed the kernels' " + std::to_string(kGemvMaxShares) + " shares of 65535 tiles");
  return split | uint32_t(parts) << 8 | uint32_t(tiles) << 16;
}

uint32_t GemvTileShares::workgroups(int64_t matrix_tiles) const {
  if (none()) return uint32_t(matrix_tiles);
  if (tiles > matrix_tiles)
    throw Error("gemv tile shares: " + std::to_string(tiles) + " shared tiles of a matrix of " +
                std::to_string(matrix_tiles));
  return uint32_t(matrix_tiles + int64_t(tiles) * (parts - 1));
}

uint64_t GemvTileShares::record_bytes() const {
  return uint64_t(parts) * kGemvShareRows * kGemvTileRows * 4 + 64;
}

uint64_t GemvTileShares::workspace_bytes(int64_t groups) const {
  return none() ? 0 : uint64_t(groups) * uint64_t(tiles) * record_bytes();
}

namespace {

// Workgroups w in [a, b) that land on CU c (w % cus == c).
int64_t on_cu(int64_t a, int64_t b, int cus, int c) {
  auto below = [&](int64_t e) { return e / cus + (e % cus > c ? 1 : 0); };  // w < e with w % cus == c
  return below(b) - below(a);
}

// The busiest CU's work, in 1/P tiles, with the R * P shares dealt first.
int64_t busiest(int64_t tiles, int cus, int parts, int64_t shared) {
  const int64_t sharing = shared * parts, total = sharing + (tiles - shared);
  int64_t most = 0;
  for (int c = 0; c < cus; ++c)
    most = std::max(most, on_cu(0, sharing, cus, c) + parts * on_cu(sharing, total, cus, c));
  return most;
}

}  // namespace

GemvTileShares gemv_tile_shares(int64_t tiles, int compute_units, int max_parts) {
  if (max_parts < 1 || max_parts > kGemvMaxShares)
    throw Error("gemv tile shares: at most " + std::to_string(max_parts) + " shares, not 1.." + std::to_string(kGemvMaxShares));
  if (compute_units < 1) throw Error("gemv tile shares: " + std::to_string(compute_units) + " compute units");
  if (tiles <= compute_units || tiles % compute_units == 0) return {};
  // Compared across P as fractions of a tile: load / P, cross-multiplied.
  GemvTileShares best;
  int64_t best_load = busiest(tiles, compute_units, 1, 0);  // in tiles (P = 1)
  int best_parts = 1;
  for (int p = 2; p <= max_parts; ++p)
    for (int64_t r = 1; r <= tiles && r <= 2 * int64_t(compute_units); ++r) {
      // no CU holds more workgroups than the busiest one did (they stay resident together)
      if (r * p + (tiles - r) > (tiles + compute_units - 1) / compute_units * compute_units) continue;
      const int64_t load = busiest(tiles, compute_units, p, r);
      const int64_t lhs = load * best_parts, rhs = best_load * p;  // load / p vs best_load / best_parts
      const bool fewer = int64_t(r) * p < int64_t(best.tiles) * best.parts;
      if (lhs < rhs || (lhs == rhs && !best.none() && fewer)) {
        best = {p, int(r)};
        best_load = load;
        best_parts = p;
      }
    }
  return best;
}

}  // namespace k100::quant
