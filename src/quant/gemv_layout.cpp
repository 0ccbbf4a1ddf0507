// The tile / group / piece arrangement of gemv_layout.h (the per-type
// transcoding of one row's group is in gemv_transcode.cpp).
#include "k100/quant/gemv_layout.h"

#include <algorithm>
#include <cstring>

#include "gemv_transcode.h"
#include "k100/base/error.h"

namespace k100::quant {

int64_t GemvLayout::lane_dword_offset(int row, int dword) const {
  // The part the dword belongs to: the header, or one of the slices.
  int first = 0, size = header_dwords;
  if (dword >= header_dwords) {
    const int s = (dword - header_dwords) / slice_dwords;
    first = header_dwords + s * slice_dwords;
    size = slice_dwords;
  }
  const int i = dword - first, piece = i / 4, width = std::min(4, size - 4 * piece);
  return int64_t(kGemvTileRows) * 4 * first + 1024 * int64_t(piece) + 4 * int64_t(row * width + i % 4);
}

bool has_gemv_layout(TensorType type) { return detail::gemv_geometry(type) != nullptr; }

GemvLayout gemv_layout(TensorType type, int64_t rows, int64_t cols) {
  const detail::GemvGeometry* g = detail::gemv_geometry(type);
  if (!g) throw Error("gemv layout: type " + type_name(type) + " has no GEMV layout (the block types with a fast GEMV do)");
  const TypeTraits& t = traits(type);
  if (rows <= 0 || cols <= 0)
    throw Error("gemv layout: a " + std::to_string(rows) + " x " + std::to_string(cols) + " " + type_name(type) +
                " matrix is empty");
  if (cols % t.block_elems)
    throw Error("gemv layout: " + std::to_string(cols) + " columns are not a whole number of " + type_name(type) +
                " blocks (" + std::to_string(t.block_elems) + " elements)");
  GemvLayout l;
  l.type = type;
  l.rows = rows;
  l.cols = cols;
  l.block_elems = int(t.block_elems);
  l.block_bytes = int(t.block_bytes);
  l.blocks_per_group = g->blocks_per_group;
  l.header_dwords = g->header_dwords;
  l.slice_dwords = g->slice_dwords;
  l.slices = g->slices;
  l.blocks_per_row = cols / t.block_elems;
  l.groups = (l.blocks_per_row + l.blocks_per_group - 1) / l.blocks_per_group;
  l.tiles = (rows + kGemvTileRows - 1) / kGemvTileRows;
  l.table_bytes = gemv_table_bytes(type);
  return l;
}

namespace {

// Offsets, inside a group's tile, of every lane dword of every row, computed
// once per matrix rather than per dword.
std::vector<int64_t> lane_offsets(const GemvLayout& l) {
  std::vector<int64_t> at(size_t(kGemvTileRows) * size_t(l.lane_dwords()));
  for (int r = 0; r < kGemvTileRows; ++r)
    for (int d = 0; d < l.lane_dwords(); ++d) at[size_t(r * l.lane_dwords() + d)] = l.lane_dword_offset(r, d);
  return at;
}

// Calls f(row in tile, group tile offset, source row offset or -1, blocks
// present) group tile by group tile: the writes of one group stay within
// its 64 x lane bytes while the 64 rows are read front to back.
template <class F>
void for_each_row_group(const GemvLayout& l, F&& f) {
  const int64_t row_bytes = l.blocks_per_row * l.block_bytes;
  for (int64_t t = 0; t < l.tiles; ++t)
    for (int64_t g = 0; g < l.groups; ++g) {
      const int64_t first = g * l.blocks_per_group;
      const int blocks = int(std::min<int64_t>(l.blocks_per_group, l.blocks_per_row - first));
      for (int r = 0; r < kGemvTileRows; ++r) {
        const int64_t row = t * kGemvTileRows + r;
        const bool in_matrix = row < l.rows;
        f(r, t * l.tile_bytes() + g * l.group_bytes(), in_matrix ? row * row_bytes + first * l.block_bytes : -1,
          in_matrix ? blocks : 0);
      }
    }
}

}  // namespace

void repack_for_gemv(const GemvLayout& l, const void* src, void* dst) {
  const std::vector<int64_t> at = lane_offsets(l);
  const int dwords = l.lane_dwords();
  auto* out = static_cast<uint8_t*>(dst);
  const auto* in = static_cast<const uint8_t*>(src);
  const std::vector<uint8_t> table = gemv_table(l.type);
  std::memset(out, 0, size_t(l.table_bytes));
  if (!table.empty()) std::memcpy(out, table.data(), table.size());
  out += l.table_bytes;
  uint8_t group[detail::kGemvGroupBuffer] = {};
  uint32_t lane[detail::kGemvGroupBuffer / 4];
  const size_t full = size_t(l.blocks_per_group) * size_t(l.block_bytes);
  int last_present = l.blocks_per_group;
  for_each_row_group(l, [&](int r, int64_t group_at, int64_t src_at, int present) {
    const size_t n = size_t(present) * size_t(l.block_bytes);
    if (n) std::memcpy(group, in + src_at, n);
    if (present != last_present) std::memset(group + n, 0, full - n);  // missing blocks are zero
    last_present = present;
    detail::encode_padded_group(l.type, group, lane);
    uint8_t* base = out + group_at;
    const int64_t* row_at = &at[size_t(r * dwords)];
    for (int d = 0; d < dwords; ++d) std::memcpy(base + row_at[d], &lane[d], 4);
  });
}

void unpack_from_gemv(const GemvLayout& l, const void* src, void* dst) {
  const std::vector<int64_t> at = lane_offsets(l);
  const int dwords = l.lane_dwords();
  const auto* in = static_cast<const uint8_t*>(src) + l.table_bytes;
  auto* out = static_cast<uint8_t*>(dst);
  uint32_t lane[detail::kGemvGroupBuffer / 4] = {};
  uint8_t blocks[detail::kGemvGroupBuffer];
  for_each_row_group(l, [&](int r, int64_t group_at, int64_t dst_at, int present) {
    if (!present) return;
    const uint8_t* base = in + group_at;
    const int64_t* row_at = &at[size_t(r * dwords)];
    for (int d = 0; d < dwords; ++d) std::memcpy(&lane[d], base + row_at[d], 4);
    detail::decode_to_padded_group(l.type, reinterpret_cast<const uint8_t*>(lane), blocks);
    std::memcpy(out + dst_at, blocks, size_t(present) * size_t(l.block_bytes));
  });
}

std::vector<uint8_t> repack_for_gemv(TensorType type, int64_t rows, int64_t cols, std::span<const uint8_t> bytes) {
  const GemvLayout l = gemv_layout(type, rows, cols);
  const int64_t want = rows * l.blocks_per_row * l.block_bytes;
  if (int64_t(bytes.size()) != want)
    throw Error("gemv repack: a " + std::to_string(rows) + " x " + std::to_string(cols) + " " + type_name(type) +
                " matrix has " + std::to_string(want) + " bytes, not " + std::to_string(bytes.size()));
  std::vector<uint8_t> out(size_t(l.bytes()));
  repack_for_gemv(l, bytes.data(), out.data());
  return out;
}

}  // namespace k100::quant
