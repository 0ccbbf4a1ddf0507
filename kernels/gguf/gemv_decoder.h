// The fast decode GEMVs (`*_gemv_k`): one skeleton (gemv_skeleton.h and its files) shared
// by the block types, and per type a decoder that turns the codes of
// the GEMV layout (k100/quant/gemv_layout.h) into products with x.
//
// The skeleton owns the wave's work: one lane per row of a 64-row tile, the
// load pipeline of the tile's groups (header, then slices, a fixed number of
// slices in flight), the activation rows in SGPRs (s_load, two buffers of one
// x-step each), the sums of x over runs of elements, the M totals per lane,
// the reduction over the waves of a workgroup that split the row, and the
// store. A decoder sees one group at a time: its header dwords, then each
// slice's dwords, step by step, and adds into accumulators of its own that it
// folds into the totals at the end of a slice.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"
#include "k100/quant/gemv_layout.h"

namespace k100::kernels::gguf_gemv {

using codegen::Kernel;
using codegen::SGPR;
using codegen::VGPR;

// 2^24: an f16 denormal half-word with code c in its low bits is c * 2^-24;
// decoders that multiply such codes scale their totals back by this at the end.
inline constexpr float kDenormalScale = 16777216.0f;

// The per-type constants of the GEMV layout (one row's group).
struct GroupShape {
  quant::TensorType type;
  int block_elems = 0, blocks_per_group = 0, header_dwords = 0, slice_dwords = 0, slices = 0;
  // Row storage (rows = true): the matrix as a checkpoint stores it, row n
  // the row's blocks one after the other (block_bytes each, the lane dwords
  // of a group = its blocks' bytes in order), the blocks' scales in an array
  // of their own ([n][k / block_elems], scale_bytes each), which the header
  // (header_dwords = 1: the group's scales from its low bytes) comes from.
  // The tile's lanes then read 64 rows apart, not whole lines per load.
  bool rows = false;
  int block_bytes = 0, scale_bytes = 0;
  int group_elems() const { return block_elems * blocks_per_group; }
  int slice_elems() const { return group_elems() / slices; }
  int lane_dwords() const { return header_dwords + slices * slice_dwords; }
  int group_bytes() const { return 256 * lane_dwords(); }
};
GroupShape group_shape(quant::TensorType type);

// What the skeleton offers a decoder while it emits the body for M rows.
class GemvEmitter {
 public:
  virtual ~GemvEmitter() = default;
  Kernel& k;
  const GroupShape shape;
  const int M;           // activation rows (1..4)
  const int step_elems;  // elements of one x-step: 32, 16 or 8

  // x[m][e] of the current x-step (e < step_elems, counted from the step's first element).
  virtual SGPR x(int m, int e) = 0;
  // The sum of x[m] over run r of the group (runs of decoder.sumx_run() elements), as an SGPR.
  virtual SGPR sumx(int m, int run) = 0;
  // acc = (first ? 0 : acc) + f16(half `high` of `pair`) * x[m][e].
  virtual void fma_half(VGPR acc, VGPR pair, int high, int m, int e, bool first) = 0;
  // acc = (first ? 0 : acc) + value (f32) * x[m][e].
  virtual void fma_f32(VGPR acc, VGPR value, int m, int e, bool first) = 0;
  // The LDS byte offset of the decoder's table (lds_table_bytes()).
  virtual uint32_t table_offset() const = 0;

 protected:
  GemvEmitter(Kernel& kernel, GroupShape s, int m, int step) : k(kernel), shape(s), M(m), step_elems(step) {}
};

class GemvDecoder {
 public:
  virtual ~GemvDecoder() = default;
  // Elements per x-sum run: 8, 16, 32, 64 or 256 (0: the decoder needs no sums of x).
  virtual int sumx_run() const { return 0; }
  // Bytes of the type's table (quant::gemv_table, at the start of the
  // weights) the skeleton copies into LDS at table_offset().
  virtual uint32_t lds_table_bytes() const { return 0; }
  // Waves per SIMD the kernel's register budget is sized for (VGPRs = 256 / this).
  virtual int waves_per_simd() const { return 3; }
  // Bytes of weights per wave the skeleton keeps in flight ahead of the
  // slice being decoded (whole slices, at least one).
  virtual int in_flight_bytes() const { return 2048; }
  // The same while an odd-numbered slice of the group is decoded (groups of
  // an even slice count): two depths that alternate put a wave's average
  // between two whole slices.
  virtual int in_flight_bytes_odd() const { return in_flight_bytes(); }
  // Whether the S waves of a tile split the row by blocks rather than by
  // whole groups (a share may start inside its first group; the decoder then
  // sees header() and the slices from that block on). Needs sumx_run() == 0.
  virtual bool block_shares() const { return false; }
  // Whether the plain kernel shares tiles among workgroups when its `split`
  // asks for it (k100/quant/gemv_tile_shares.h); the others take every tile
  // whole and ignore `ws`. Only where the measured benefit is.
  virtual bool shares_tiles() const { return false; }
  // The slice of a group at whose start the next group's header is loaded
  // (0: with the group's first slice). Later keeps it out of the reads in
  // flight for most of the group.
  virtual int next_header_slice() const { return 0; }
  // Registers for one body (M rows); called once before the body is emitted.
  virtual void begin(GemvEmitter& e) = 0;
  // The group's header dwords (valid until the next group's are loaded, right after this).
  virtual void header(GemvEmitter& e, VGPR header) = 0;
  // Slice j: `data` holds its slice_dwords. step() is called for each x-step q.
  virtual void slice_begin(GemvEmitter&, int /*j*/, VGPR /*data*/) {}
  virtual void step(GemvEmitter& e, int j, int q, VGPR data) = 0;
  // Fold the slice's accumulators into the totals (one per row m).
  virtual void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) = 0;
  // The factor of the totals before they are stored: the 2^24 of f16
  // denormal codes (the default), times a type's constant scale.
  virtual float total_factor() const { return kDenormalScale; }
  void finish(GemvEmitter& e, const std::vector<VGPR>& totals) const {
    if (total_factor() != 1.0f)
      for (const VGPR t : totals) e.k.v_mul_f32(t, total_factor(), t);
  }
};

// dst[0..n) = src[0..n): a decoder's copy of header dwords it needs past header().
inline void copy_dwords(Kernel& k, VGPR dst, VGPR src, int n) {
  for (int i = 0; i < n; ++i) k.v_mov_b32(dst[i], src[i]);
}

// The pair whose code bits are bit 15 (element 2p) and bit 31 (element
// 2p + 1) of data[0..n), bit b of the codes from data[b] (the sixteenth
// pair of Q5_K's, Q5_0's, Q5_1's and Q3_K's slices), as two f16 denormals
// in dst; masks[b] = 0x00010001 << b (b >= 1, SGPRs).
inline void gather_top_bits(Kernel& k, VGPR dst, VGPR data, int n, VGPR scratch, const SGPR* masks) {
  k.v_lshrrev_b32(dst, 15, data[0]);
  k.v_and_b32(dst, 0x00010001u, dst);
  for (int b = 1; b < n; ++b) {
    k.v_lshrrev_b32(scratch, 15 - b, data[b]);
    k.v_and_or_b32(dst, scratch, masks[b], dst);
  }
}

std::unique_ptr<GemvDecoder> make_decoder(quant::TensorType type);

// Decoders by family (gemv_decode_*.cpp).
std::unique_ptr<GemvDecoder> make_legacy_decoder(quant::TensorType type);      // Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_0, IQ4_NL, MXFP4
std::unique_ptr<GemvDecoder> make_kquant_decoder(quant::TensorType type);      // Q4_K, Q5_K, Q6_K
std::unique_ptr<GemvDecoder> make_low_kquant_decoder(quant::TensorType type);  // Q2_K, Q3_K
std::unique_ptr<GemvDecoder> make_iquant_decoder(quant::TensorType type);      // IQ4_XS and the grid types
std::unique_ptr<GemvDecoder> make_grid_decoder(quant::TensorType type);        // IQ2_XXS, IQ2_XS, IQ2_S, IQ3_S, IQ3_XXS
std::unique_ptr<GemvDecoder> make_iq1_decoder(quant::TensorType type);         // IQ1_S, IQ1_M
std::unique_ptr<GemvDecoder> make_ternary_decoder(quant::TensorType type);     // TQ2_0

// The kernel of one type: signature and generator. The types whose kernels
// share tiles (GemvDecoder::shares_tiles) take one more argument, the
// workspace `ws` (gemv_shares_tiles below).
codegen::Signature gemv_signature(quant::TensorType type);
codeobj::CodeObject build_gemv(isa::Target target, quant::TensorType type);

// The kernel of a format in row storage (GroupShape::rows) and its decoder,
// with signature `sig`: w, scale, x, y, nrows, k, m (pointers, then u32s;
// other names are the caller's). Dense, x rows k apart, y rows nrows apart,
// `split` waves per 64-row tile (fewer when the workgroup has fewer; the
// rest take tiles of their own).
codeobj::CodeObject build_gemv_rows(isa::Target target, const codegen::Signature& sig, const GroupShape& shape,
                                    GemvDecoder& dec, int split);

// The fused variants (kernels of their own, `<type>_gemv_<fusion>_k`): what a
// decode layer does around a GEMV folded into its prologue or epilogue, so
// the layer needs no launch for it.
//   Accumulate  y += W x; when y_scaled != 0 also y_scaled = y * scale, and
//               when ss != 0 the sums of y^2 over each 64-row tile (the
//               residual add, and the next RMSNorm's weight and partial sums
//               on the new residual row)
//   RmsScale    y = r W x, r = 1 / sqrt(sum(ss row) / k + eps) over the
//               ceil(k / 64) partial sums of squares of each x row's source
//               (ss = 0: r = 1): with x = norm weight * s and the partials of
//               s, the RMSNorm of s folded in
//   SwiGlu      y = silu(r W_gate x) * (r W_up x), r as for RmsScale: the
//               gate and up projections and the activation in one launch
enum class GemvFusion { Accumulate, RmsScale, SwiGlu };
std::string gemv_fused_name(quant::TensorType type, GemvFusion fusion);
codegen::Signature gemv_fused_signature(quant::TensorType type, GemvFusion fusion);
// Whether the type's plain kernel (no fusion) or fused form shares tiles and
// takes `ws` last: the types whose decoder asks for it, but not SwiGlu (its
// tiles' two matrices).
bool gemv_shares_tiles(quant::TensorType type, std::optional<GemvFusion> fusion = std::nullopt);
codeobj::CodeObject build_gemv_fused(isa::Target target, quant::TensorType type, GemvFusion fusion);

}  // namespace k100::kernels::gguf_gemv
