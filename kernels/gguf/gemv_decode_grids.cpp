// Decoders of the grid i-quants for the fast GEMVs: IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_S, IQ3_XXS.
//
// A group is two 256-element blocks; the header is their f16 d and the
// blocks' sub-block scales and high index bits, a slice holds the grid
// indices, then the sign bytes (IQ3_XXS, IQ2_XXS: the scale/sign word; IQ2_XS:
// the index/sign u16 of each 8 elements), of one 32-element sub-block, and
// one slice per wave is in flight. The kernel's
// LDS holds the type's table (quant::gemv_table): the ggml grid, then per
// sign nibble four bytes of 0x00 / 0x80 (16 entries: a half-wave's reads
// never conflict; IQ3_XXS's high half by its 7-bit code, 128 entries, for
// the parity bit; IQ2_XXS and IQ2_XS alike). Per 8 elements: the grid entries
// (one ds_read_b64 for the IQ2 types, two ds_read_b32 for IQ3) and the two
// sign halves (ds_read_b32, or one ds_read2_b32 by a 7-bit code) are read,
// and one v_perm_b32 per pair of elements puts
// two magnitude bytes in the low bytes of the two half-words and two sign
// bytes in their high bytes: two signed f16 denormals (magnitude * 2^-24)
// that v_fma_mix_f32 multiplies by x. The odd integer 2s + 1 of each
// sub-block scale multiplies its run's sum, the block's d the block's sum,
// and 2^24 times the constant (1/4 IQ3_XXS, 1/8 the IQ2 types) the total. IQ3_S's
// ninth index bits: per sub-block its qh byte spread to one byte per index
// (0 or 1), so that one v_perm_b32 per two indices puts them beside their
// index bytes as two 16-bit indices. The waves of a tile share a row by
// blocks (block_shares), and the next group's header is loaded late in the
// group (next_header_slice).
#include <algorithm>

#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using quant::TensorType;

namespace {

const char* const kByteSel[4] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3"};


class Grid final : public GemvDecoder {
 public:
  explicit Grid(TensorType t) : type_(t) {
    switch (t) {
      case TensorType::IQ2_S: entry_elems_ = 8, entries_ = 1024, header_ = 9, run_ = 16, factor_ = 0.125f, header_slice_ = 12; break;
      case TensorType::IQ3_S: entry_elems_ = 4, entries_ = 512, header_ = 7, run_ = 32, factor_ = 1.0f, header_slice_ = 15; break;
      case TensorType::IQ2_XXS: entry_elems_ = 8, entries_ = 256, header_ = 1, run_ = 32, factor_ = 0.125f, header_slice_ = 14; break;
      case TensorType::IQ2_XS: entry_elems_ = 8, entries_ = 512, header_ = 5, run_ = 16, factor_ = 0.125f, header_slice_ = 12; break;
      default: entry_elems_ = 4, entries_ = 256, header_ = 1, run_ = 32, factor_ = 0.25f, header_slice_ = 14; break;
    }
  }
  uint32_t lds_table_bytes() const override { return grid_bytes() + (code_signs() ? 12 * 128 : 64); }
  // One slice ahead (512 or 768 bytes per wave): at 4 waves per tile the
  // reads in flight stay under the HBM's open rows (more in flight costs
  // row activations, docs/PERFORMANCE.md).
  int in_flight_bytes() const override { return 256 * group_shape(type_).slice_dwords; }
  bool block_shares() const override { return true; }
  // IQ2_S: its tiles' LDS reads bound a CU, so the CUs that hold one tile
  // more finish last; shared tiles even that out (17408 x 5120, MODELED:
  // 52.6 -> 48.5 us). IQ3_S and IQ3_XXS keep the HBM busy to the end
  // already, and the sharing workgroups' reads in flight cost them row
  // activations (58.2 -> 69.1 and 51.5 -> 57.2 us).
  // IQ2_XXS and IQ2_XS alike (their u64 grid reads bound a CU's LDS):
  // 56.21 -> 48.09 and 57.70 -> 49.45 us.
  bool shares_tiles() const override {
    return type_ == TensorType::IQ2_S || type_ == TensorType::IQ2_XXS || type_ == TensorType::IQ2_XS;
  }
  // The next group's header late in the group (slice 12, 15 or 14 of 16,
  // the best of 0, 4, 8, 12, 14, 15 at 17408 x 5120, MODELED): with it
  // loaded at the group's start, the HBM queues hold more than the open rows
  // and IQ3_S pays row activations.
  // IQ3_S's SwiGLU form, two matrices in flight, one slice earlier
  // (MODELED: 108.15 us at 15, 107.71 at 14, 109.58 at 12).
  int next_header_slice(std::optional<GemvFusion> f) const override {
    return type_ == TensorType::IQ3_S && f == GemvFusion::SwiGlu ? header_slice_ - 1 : header_slice_;
  }

  void begin(GemvEmitter& e) override {
    Kernel& k = e.k;
    const int units = std::min(batch_, e.step_elems / 8);
    hdr_ = k.vgpr(header_, "d pair, scales, high bits");
    pairs_ = k.vgpr(4 * units, "signed pairs");
    grid_ = k.vgpr(2 * units, "grid entries");
    signs_v_ = k.vgpr(2 * units, "sign bytes");
    gaddr_ = k.vgpr(1, "grid address");  // one each: an LDS read takes its address at issue
    saddr_ = k.vgpr(1, "sign address");
    bits_ = k.vgpr(1, "high index bits");
    // The slice's sign dwords (IQ3_XXS, IQ2_XXS: scale/sign words) end it:
    // one per 32-element sub-block (IQ2_XS has its signs in the index words).
    sign_dwords_ = type_ == TensorType::IQ2_XS ? 0 : e.shape.slice_elems() / 32;
    sign_at_ = e.shape.slice_dwords - sign_dwords_;
    per_block_ = 256 / e.shape.slice_elems();
    if (!code_signs()) nibble_addr_ = k.vgpr(2 * sign_dwords_, "sign nibble addresses");
    if (type_ == TensorType::IQ3_S) {
      if (e.shape.slice_elems() != 32) throw Error("gemv: IQ3_S slices are one 32-element sub-block");
      high_bytes_ = k.vgpr(2, "ninth index bits as bytes");
      index_pair_ = k.vgpr(1, "two 9-bit indices");
    }
    if (type_ == TensorType::IQ2_XXS || type_ == TensorType::IQ2_XS) {
      grid_at_ = k.sgpr(1, "grid");
      k.s_mov_b32(grid_at_, e.table_offset());
    }
    if (code_signs()) {
      code_signs_at_ = k.sgpr(1, "sign table");
      k.s_mov_b32(code_signs_at_, e.table_offset() + grid_bytes());
    }
    for (int q = 0; q < 2; ++q) {
      // Pair bytes 2q, 2q + 1: magnitudes from the grid dword (src1), signs from the sign dword (src0).
      select_[q] = k.sgpr(1, "pair selector");
      k.s_mov_b32(select_[q], uint32_t(2 * q | (4 + 2 * q) << 8 | (2 * q + 1) << 16 | (5 + 2 * q) << 24));
    }
    runs_ = e.shape.slice_elems() / run_;
    scale_ = k.vgpr(runs_, "run scales");
    acc_.clear();
    gt_.clear();
    for (int m = 0; m < e.M; ++m) {
      acc_.push_back(k.vgpr(1, "run sum"));
      gt_.push_back(k.vgpr(1, "block sum"));
    }
  }

  void header(GemvEmitter& e, VGPR h) override {
    copy_dwords(e.k, hdr_, h, header_);
  }

  // The odd scales 2s + 1 of the slice's runs.
  void slice_begin(GemvEmitter& e, int j, VGPR data) override {
    Kernel& k = e.k;
    // The sign bytes' nibbles. IQ2_S: low ones and high ones in place, each
    // byte's entry address then made by the shift that selects it (batch()).
    // IQ3_S: times 4 byte by byte, selected by a move (two instructions more
    // per slice, but its modeled times were lower so at 17408 x 5120).
    if (type_ == TensorType::IQ2_S)
      for (int d = 0; d < sign_dwords_; ++d) {
        k.v_and_b32(nibble_addr_[2 * d], 0x0F0F0F0Fu, data[sign_at_ + d]);
        k.v_and_b32(nibble_addr_[2 * d + 1], 0xF0F0F0F0u, data[sign_at_ + d]);
      }
    if (type_ == TensorType::IQ3_S)
      for (int d = 0; d < sign_dwords_; ++d) {
        k.v_lshlrev_b32(nibble_addr_[2 * d], 2, data[sign_at_ + d]);
        k.v_and_b32(nibble_addr_[2 * d], 0x3C3C3C3Cu, nibble_addr_[2 * d]);
        k.v_lshrrev_b32(nibble_addr_[2 * d + 1], 2, data[sign_at_ + d]);
        k.v_and_b32(nibble_addr_[2 * d + 1], 0x3C3C3C3Cu, nibble_addr_[2 * d + 1]);
      }
    if (type_ == TensorType::IQ3_S) {
      // The sub-block's qh byte, its bits 4d..4d+3 (of index bytes 4d..4d+3)
      // spread to one byte each: n * 0x204081 puts bit i at bit 8i (the
      // copies do not overlap), the AND keeps those.
      const int b = j / per_block_, ib = j % per_block_;
      for (int d = 0; d < 2; ++d) {
        const VGPR h = high_bytes_[d];
        k.v_bfe_u32(h, hdr_[3 + 2 * b + ib / 4], 8 * (ib % 4) + 4 * d, 4);
        k.v_mul_u32_u24(h, 0x204081u, h);
        k.v_and_b32(h, 0x01010101u, h);
      }
    }
    for (int r = 0; r < runs_; ++r) {
      const VGPR s = scale_[r];
      if (type_ == TensorType::IQ3_XXS || type_ == TensorType::IQ2_XXS) {
        k.v_bfe_u32(s, data[sign_at_ + r], 28, 4);
      } else if (type_ == TensorType::IQ2_XS) {
        const int b = j / per_block_, ib = j % per_block_;
        k.v_bfe_u32(s, hdr_[1 + 2 * b + ib / 4], 8 * (ib % 4) + 4 * r, 4);
      } else if (type_ == TensorType::IQ3_S) {
        const int b = j / per_block_, ib = runs_ * (j % per_block_) + r;
        k.v_bfe_u32(s, hdr_[1 + b], 4 * ib, 4);
      } else {
        const int b = j / per_block_, ib = sign_dwords_ * (j % per_block_) + r / 2;
        k.v_bfe_u32(s, hdr_[1 + 2 * b + ib / 4], 8 * (ib % 4) + 4 * (r % 2), 4);
      }
      k.v_lshl_add_u32(s, s, 1, 1);
      k.v_cvt_f32_u32(s, s);
    }
  }

  // Units of 8 elements, batch_ at a time (their LDS reads overlap).
  void step(GemvEmitter& e, int j, int q, VGPR data) override {
    const int units = e.step_elems / 8;
    for (int b = 0; b < units; b += batch_) batch(e, j, data, q * units + b, std::min(batch_, units - b), b * 8);
  }

  void batch(GemvEmitter& e, int j, VGPR data, int first, int units, int first_elem) {
    Kernel& k = e.k;
    const uint32_t grid_at = e.table_offset(), signs_at = grid_at + grid_bytes();
    for (int i = 0; i < units; ++i) {
      const int u = first + i;
      const VGPR g = grid_.sub(2 * i, 2), sv = signs_v_.sub(2 * i, 2);
      // The sign halves: elements 0-3, then 4-7. IQ3_XXS, IQ2_XXS, IQ2_XS:
      // both from one 12-byte entry of its 7-bit code (a stride of three
      // dwords spreads the entries over all 32 banks).
      if (code_signs()) {
        const VGPR sa = saddr_;
        if (type_ == TensorType::IQ2_XS) k.v_bfe_u32(sa, data[u / 2], 16 * (u % 2) + 9, 7);
        else k.v_bfe_u32(sa, data[sign_at_ + u / 4], 7 * (u % 4), 7);
        k.v_mad_u32_u24(sa, sa, 12, code_signs_at_);
        k.ds_read2_b32(sv, sa, as::offset0(0), as::offset1(1));
      } else {
        for (int h = 0; h < 2; ++h) {
          const VGPR sa = saddr_, nib = nibble_addr_[2 * (u / 4) + h];
          if (type_ == TensorType::IQ3_S)
            k.v_mov_b32(sa, nib, as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                        as::sdwa_sel("src0_sel", kByteSel[u % 4]));
          else if (h)  // nibble n's entry at 4n: the high nibble (16n) shifted down by 2
            k.v_lshrrev_b32(sa, 2, nib, as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                            as::sdwa_sel("src0_sel", "DWORD"), as::sdwa_sel("src1_sel", kByteSel[u % 4]));
          else  // the low one up by 2
            sdwa_byte_shift(k, sa, 2, nib, u % 4);
          k.ds_read_b32(sv[h], sa, as::offset(signs_at));
        }
      }
      // The grid entries: dword 0 holds elements 0-3, dword 1 elements 4-7.
      if (type_ == TensorType::IQ2_S) {
        const int b = j / per_block_, ib = sign_dwords_ * (j % per_block_) + u / 4, l = u % 4;
        const VGPR ga = gaddr_;
        sdwa_byte_shift(k, ga, 3, data[u / 4], l);
        k.v_bfe_u32(bits_, hdr_[5 + 2 * b + ib / 4], 8 * (ib % 4) + 2 * l, 2);
        k.v_lshl_or_b32(ga, bits_, 11, ga);
        k.ds_read_b64(g, ga, as::offset(grid_at));
      } else if (type_ == TensorType::IQ2_XXS || type_ == TensorType::IQ2_XS) {
        const VGPR ga = gaddr_;
        if (type_ == TensorType::IQ2_XXS) k.v_bfe_u32(ga, data[u / 4], 8 * (u % 4), 8);
        else k.v_bfe_u32(ga, data[u / 2], 16 * (u % 2), 9);
        k.v_mad_u32_u24(ga, ga, 12, grid_at_);
        k.ds_read2_b32(g, ga, as::offset0(0), as::offset1(1));
      } else if (type_ == TensorType::IQ3_S) {
        // Index bytes 2u, 2u + 1 with their ninth bits: one v_perm_b32 makes
        // the two 16-bit indices, each then times 4 (SDWA word select).
        const int d = (2 * u) / 4;
        k.v_perm_b32(index_pair_, high_bytes_[d], data[d], select_[u % 2]);
        for (int h = 0; h < 2; ++h) {
          const VGPR ga = gaddr_;
          k.v_lshlrev_b32(ga, 2, index_pair_, as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                          as::sdwa_sel("src0_sel", "DWORD"), as::sdwa_sel("src1_sel", h ? "WORD_1" : "WORD_0"));
          k.ds_read_b32(g[h], ga, as::offset(grid_at));
        }
      } else {
        for (int h = 0; h < 2; ++h) {
          const int byte = 2 * u + h;  // of the slice's 16 index bytes
          const VGPR ga = gaddr_;
          sdwa_byte_shift(k, ga, 2, data[byte / 4], byte % 4);
          k.ds_read_b32(g[h], ga, as::offset(grid_at));
        }
      }
    }
    for (int i = 0; i < units; ++i)
      for (int c = 0; c < 4; ++c)
        k.v_perm_b32(pairs_[4 * i + c], signs_v_[2 * i + c / 2], grid_[2 * i + c / 2], select_[c % 2]);
    // A run's sum is folded into the block sum (times the run's scale) as
    // soon as the run ends: one accumulator per row, not one per run.
    for (int m = 0; m < e.M; ++m)
      for (int i = 0; i < units; ++i) {
        const int u = first + i, r = 8 * u / run_;
        const bool run_start = (8 * u) % run_ == 0, run_end = (8 * (u + 1)) % run_ == 0;
        const VGPR acc = acc_[size_t(m)], gt = gt_[size_t(m)];
        for (int c = 0; c < 4; ++c)
          for (int h = 0; h < 2; ++h)
            e.fma_half(acc, pairs_[4 * i + c], h, m, first_elem + 8 * i + 2 * c + h, run_start && c == 0 && h == 0);
        if (run_end) {
          if (j % per_block_ == 0 && r == 0) k.v_mul_f32(gt, scale_[r], acc);
          else k.v_fmac_f32(gt, scale_[r], acc);
        }
      }
  }

  void slice_end(GemvEmitter& e, int j, const std::vector<VGPR>& totals) override {
    Kernel& k = e.k;
    const int per_block = per_block_, b = j / per_block, sub = j % per_block;
    for (int m = 0; m < e.M; ++m) {
      const VGPR gt = gt_[size_t(m)];
      if (sub == per_block - 1) {
        const VGPR total = totals[size_t(m)];
        k.v_fma_mix_f32(total, hdr_[0], gt, total, as::op_sel({b, 0, 0}), as::op_sel_hi({1, 0, 0}));
      }
    }
  }

  float total_factor() const override { return factor_ * kDenormalScale; }

 private:
  // The IQ2_XXS / IQ2_XS grids take 12 bytes an entry (8 magnitudes, 4 zero
  // bytes): a half-wave's random entries then spread over all 32 banks.
  uint32_t entry_bytes() const { return code_signs() && entry_elems_ == 8 ? 12 : uint32_t(entry_elems_); }
  uint32_t grid_bytes() const { return uint32_t(entries_) * entry_bytes(); }
  // Sign halves by a 7-bit code (ggml's ksigns with its parity bit), not by sign nibbles.
  bool code_signs() const {
    return type_ == TensorType::IQ3_XXS || type_ == TensorType::IQ2_XXS || type_ == TensorType::IQ2_XS;
  }
  // dst = byte `byte` of src << shift.
  static void sdwa_byte_shift(Kernel& k, VGPR dst, int shift, VGPR src, int byte) {
    k.v_lshlrev_b32(dst, shift, src, as::sdwa_sel("dst_sel", "DWORD"), as::sdwa_sel("dst_unused", "UNUSED_PAD"),
                    as::sdwa_sel("src0_sel", "DWORD"), as::sdwa_sel("src1_sel", kByteSel[byte]));
  }

  TensorType type_;
  int header_slice_ = 0;
  int batch_ = 4, entry_elems_ = 0, entries_ = 0, header_ = 0, run_ = 0, runs_ = 0, sign_at_ = 0, sign_dwords_ = 0, per_block_ = 0;
  float factor_ = 1.0f;
  VGPR hdr_, pairs_, grid_, signs_v_, gaddr_, saddr_, bits_, scale_, nibble_addr_, high_bytes_, index_pair_;
  SGPR select_[2], code_signs_at_, grid_at_;
  std::vector<VGPR> acc_, gt_;
};

}  // namespace

std::unique_ptr<GemvDecoder> make_grid_decoder(TensorType type) {
  switch (type) {
    case TensorType::IQ2_XXS:
    case TensorType::IQ2_XS:
    case TensorType::IQ2_S:
    case TensorType::IQ3_S:
    case TensorType::IQ3_XXS: return std::make_unique<Grid>(type);
    default: throw Error("gemv: " + quant::type_name(type) + " is not a grid i-quant type");
  }
}

}  // namespace k100::kernels::gguf_gemv
