// Nearest-entry search in an i-quant grid (IQ2_S: 1024 entries of 8
// magnitudes; IQ3_S: 512 of 4; IQ3_XXS: 256 of 4).
//
// Every grid coordinate takes one of a few magnitudes, so the nearest point
// of the full product lattice is found coordinate by coordinate; when that
// point is a grid entry it is also the nearest entry, which is the common
// case and a hash lookup. Otherwise every entry is tried.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace k100::quant::detail {

template <int Dim>
class GridSearch {
 public:
  template <class Word>
  explicit GridSearch(std::span<const Word> grid) {
    entries_.reserve(grid.size());
    for (size_t i = 0; i < grid.size(); ++i) {
      std::array<uint8_t, Dim> e;
      for (int j = 0; j < Dim; ++j) e[size_t(j)] = uint8_t((uint64_t(grid[i]) >> (8 * j)) & 0xff);
      entries_.push_back(e);
      index_.emplace(key(e), int(i));
      for (uint8_t v : e) {
        bool seen = false;
        for (uint8_t l : levels_) seen = seen || l == v;
        if (!seen) levels_.push_back(v);
      }
    }
  }

  const std::array<uint8_t, Dim>& entry(int i) const { return entries_[size_t(i)]; }

  // Index of the entry nearest (least squares) to the magnitudes t[0..Dim).
  int nearest(const float* t) const {
    std::array<uint8_t, Dim> p;
    for (int j = 0; j < Dim; ++j) {
      uint8_t best = levels_[0];
      for (uint8_t l : levels_)
        if (std::abs(t[j] - float(l)) < std::abs(t[j] - float(best))) best = l;
      p[size_t(j)] = best;
    }
    if (auto it = index_.find(key(p)); it != index_.end()) return it->second;
    int best_i = 0;
    float best_e = -1.0f;
    for (size_t i = 0; i < entries_.size(); ++i) {
      float e = 0.0f;
      for (int j = 0; j < Dim; ++j) {
        const float r = t[j] - float(entries_[i][size_t(j)]);
        e += r * r;
      }
      if (best_e < 0.0f || e < best_e) best_e = e, best_i = int(i);
    }
    return best_i;
  }

 private:
  static uint64_t key(const std::array<uint8_t, Dim>& e) {
    uint64_t k = 0;
    for (int j = 0; j < Dim; ++j) k |= uint64_t(e[size_t(j)]) << (8 * j);
    return k;
  }
  std::vector<std::array<uint8_t, Dim>> entries_;
  std::vector<uint8_t> levels_;
  std::unordered_map<uint64_t, int> index_;
};

}  // namespace k100::quant::detail
