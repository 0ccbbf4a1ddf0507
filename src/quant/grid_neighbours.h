// Nearest-entry search in the 8-element i-quant grids whose coordinates take
// one of three levels (IQ2_XXS and IQ2_XS: magnitudes 8, 25, 43; IQ1_S and
// IQ1_M: signed -1, 0, 1).
//
// These grids hold 256 to 2048 of the 3^8 = 6561 points of their lattice,
// so the lattice point nearest to a target is often not an entry. Every
// lattice point gets, once, its candidate list: the entries nearest to it
// (all at the smallest distance and, up to kCandidates, the next ones); a
// search rounds the target to its lattice point and tries that point's
// candidates against the target itself.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace k100::quant::detail {

class GridNeighbours {
 public:
  static constexpr int kDim = 8;
  static constexpr int kCandidates = 16;

  // `grid`: u64 entries of 8 bytes; `signed_bytes`: the bytes are int8.
  GridNeighbours(std::span<const uint64_t> grid, bool signed_bytes) {
    for (uint64_t e : grid) {
      std::array<float, kDim> v;
      for (int j = 0; j < kDim; ++j) {
        const uint8_t b = uint8_t(e >> (8 * j));
        v[size_t(j)] = signed_bytes ? float(int8_t(b)) : float(b);
        if (std::find(levels_.begin(), levels_.end(), v[size_t(j)]) == levels_.end()) levels_.push_back(v[size_t(j)]);
      }
      entries_.push_back(v);
    }
    std::sort(levels_.begin(), levels_.end());
    int points = 1;
    for (int j = 0; j < kDim; ++j) points *= int(levels_.size());
    first_.reserve(size_t(points) + 1);
    std::vector<std::pair<float, int>> by_distance(entries_.size());
    for (int p = 0; p < points; ++p) {
      std::array<float, kDim> at;
      for (int j = 0, rest = p; j < kDim; ++j, rest /= int(levels_.size()))
        at[size_t(j)] = levels_[size_t(rest % int(levels_.size()))];
      for (size_t i = 0; i < entries_.size(); ++i) by_distance[i] = {distance(at.data(), entries_[i]), int(i)};
      const size_t keep = std::min<size_t>(kCandidates, by_distance.size());
      std::partial_sort(by_distance.begin(), by_distance.begin() + std::ptrdiff_t(keep), by_distance.end());
      first_.push_back(uint32_t(candidates_.size()));
      for (size_t i = 0; i < keep; ++i) candidates_.push_back(uint16_t(by_distance[i].second));
    }
    first_.push_back(uint32_t(candidates_.size()));
  }

  const std::array<float, kDim>& entry(int i) const { return entries_[size_t(i)]; }

  // The entry nearest (least squares) to t[0..8) among the candidates of
  // t's lattice point.
  int nearest(const float* t) const {
    int p = 0;
    for (int j = kDim - 1; j >= 0; --j) p = p * int(levels_.size()) + level_of(t[j]);
    int best = candidates_[first_[size_t(p)]];
    float best_d = -1.0f;
    for (uint32_t c = first_[size_t(p)]; c < first_[size_t(p) + 1]; ++c) {
      const float dd = distance(t, entries_[candidates_[c]]);
      if (best_d < 0.0f || dd < best_d) best_d = dd, best = candidates_[c];
    }
    return best;
  }

 private:
  static float distance(const float* t, const std::array<float, kDim>& e) {
    float s = 0.0f;
    for (int j = 0; j < kDim; ++j) s += (t[j] - e[size_t(j)]) * (t[j] - e[size_t(j)]);
    return s;
  }
  int level_of(float v) const {
    int best = 0;
    for (int k = 1; k < int(levels_.size()); ++k)
      if (std::abs(v - levels_[size_t(k)]) < std::abs(v - levels_[size_t(best)])) best = k;
    return best;
  }

  std::vector<float> levels_;
  std::vector<std::array<float, kDim>> entries_;
  std::vector<uint32_t> first_;
  std::vector<uint16_t> candidates_;
};

}  // namespace k100::quant::detail
