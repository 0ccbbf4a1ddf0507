// k100lc quant: the load-time layout the fast decode GEMVs read (the
// `*_gemv_k` kernels, docs/GGUF.md "Fast GEMVs").
//
// A GGUF weight matrix stores each row as consecutive blocks. A GEMV whose
// lanes each own one output row wants the opposite: when the 64 lanes of a
// wave load "dword j of their row's block group", the 64 dwords should be
// adjacent in memory, so that one load instruction reads whole 64-byte lines.
// `repack_for_gemv` rearranges the bytes of a matrix that way, without
// changing a single value: it is a bijection on bits, `unpack_from_gemv`
// undoes it, and the repacked matrix has exactly the GGUF size plus the
// padding of the last 64-row tile (rows past the matrix are zero blocks).
//
// The arrangement, from the outside in:
//   table           types whose codes index a table (IQ4_NL, IQ4_XS, MXFP4,
//                   IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_S, IQ3_XXS) start
//                   with it, in the form the kernels copy into LDS
//                   (`gemv_table`), padded to 256 bytes
//   tile t          rows 64t .. 64t+63, tiles one after the other
//   group g         blocks G·g .. G·g+G-1 of every row of the tile (G blocks
//                   along the row, chosen so a group is a whole number of
//                   dwords); a row whose block count is not a multiple of G
//                   ends with zero blocks
//   parts           the header (H dwords per row: the group's f16 scales and
//                   the like) then `slices` slices of U dwords per row (the
//                   codes of a run of consecutive elements)
//   pieces          each part in pieces of 4 dwords (the last one 1-3) per row;
//                   a piece stores the 64 rows one after the other, so piece q of
//                   a part starts 1024 bytes after piece q-1
// Inside a row's H + slices·U dwords the fields are transcoded per type into
// an order the kernels decode cheaply (for 4-bit codes: the two codes of a
// 16-bit half-word pair in bits 0-3 and 4-7 of each half); gemv_layout.cpp
// documents each type's bit positions, and docs/GGUF.md lists them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "k100/quant/tensor_type.h"

namespace k100::quant {

// Rows per tile: the lanes of one wave.
inline constexpr int kGemvTileRows = 64;

struct GemvLayout {
  TensorType type = TensorType::F32;
  int64_t rows = 0, cols = 0;
  int block_elems = 0, block_bytes = 0;
  int blocks_per_group = 0;  // G
  int header_dwords = 0;     // H
  int slice_dwords = 0;      // U
  int slices = 0;            // per group
  int64_t blocks_per_row = 0, groups = 0, tiles = 0;
  int64_t table_bytes = 0;   // the table at the start (0: none)

  int lane_dwords() const { return header_dwords + slices * slice_dwords; }
  int group_elems() const { return blocks_per_group * block_elems; }
  int slice_elems() const { return group_elems() / slices; }
  int64_t group_bytes() const { return int64_t(kGemvTileRows) * 4 * lane_dwords(); }
  int64_t tile_bytes() const { return groups * group_bytes(); }
  int64_t bytes() const { return table_bytes + tiles * tile_bytes(); }
  // Byte offset, inside a group's tile, of lane dword `dword` of row `row`.
  int64_t lane_dword_offset(int row, int dword) const;
};

// The block types the GEMVs read: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_0, Q2_K,
// Q3_K, Q4_K, Q5_K, Q6_K, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS,
// IQ3_S, IQ4_NL, IQ4_XS, MXFP4, TQ2_0.
bool has_gemv_layout(TensorType type);

// The layout of a rows x cols matrix; k100::Error for another type, a column
// count that is not a whole number of blocks, or an empty matrix.
GemvLayout gemv_layout(TensorType type, int64_t rows, int64_t cols);

// `src` holds the matrix as in a GGUF file (row-major, rows * row_bytes);
// `dst` has room for layout.bytes(). Any alignment.
void repack_for_gemv(const GemvLayout& layout, const void* src, void* dst);
// The inverse: the GGUF bytes back from a repacked matrix.
void unpack_from_gemv(const GemvLayout& layout, const void* src, void* dst);

// Checked convenience: the bytes must be exactly the matrix.
std::vector<uint8_t> repack_for_gemv(TensorType type, int64_t rows, int64_t cols, std::span<const uint8_t> bytes);

// The decode table of a type (empty for types without one): IQ4_NL, IQ4_XS
// and MXFP4 256 dwords, entry b = the two codebook values of the nibbles of
// byte b as f16 sign-magnitude denormals (value * 2^-24; low nibble in the
// low half); IQ2_XXS, IQ2_XS, IQ2_S, IQ3_S, IQ3_XXS their ggml grids (u64 /
// u32 entries of magnitude bytes; IQ2_XXS's and IQ2_XS's each followed by
// four zero bytes) followed by a sign table, byte j of an
// entry = 0x80 when sign j is set: IQ2_S / IQ3_S 16 four-byte entries by a
// sign nibble (either nibble of a sign byte), IQ2_XXS, IQ2_XS, IQ3_XXS 128
// twelve-byte entries by the 7-bit sign code (signs 0-7 of ggml's ksigns,
// then four zero bytes); IQ1_S and IQ1_M the 2048 grid entries as dwords,
// grid value + 1 (0..2) of element j in bits {0, 16, 2, 18, 4, 20, 6, 22}[j].
std::vector<uint8_t> gemv_table(TensorType type);
// Its size rounded up to 256 bytes (0 without one).
int64_t gemv_table_bytes(TensorType type);

// Transcoding of one row's group: G blocks (GGUF bytes, consecutive) to the
// row's lane dwords and back. `blocks` may hold fewer than G blocks
// (`present`); the missing ones are zero.
void encode_gemv_group(TensorType type, const uint8_t* blocks, int present, uint32_t* lane);
void decode_gemv_group(TensorType type, const uint32_t* lane, uint8_t* blocks);

// The types whose transcoding only moves whole bytes (Q8_0, IQ1_S, IQ1_M,
// IQ2_XXS, IQ2_XS, IQ2_S, IQ3_S, IQ3_XXS) as runs: `bytes` bytes from byte `group_byte` of a row's G GGUF
// blocks to byte `lane_byte` of its lane dwords; a run never crosses a lane
// dword, and the runs cover every lane byte once. Empty for the other types
// (their fields are 2- to 6-bit codes). The device repack kernels
// (`*_gemv_repack_k`) are built from these runs.
struct GemvByteRun {
  int group_byte, lane_byte, bytes;
};
std::vector<GemvByteRun> gemv_byte_runs(TensorType type);

}  // namespace k100::quant
