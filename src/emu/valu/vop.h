// k100lc emu/valu: operand access for one vector ALU instruction.
//
// A Vop is built on the stack for every executed VALU instruction. It knows
// where the row's sources and destinations live in Inst::ops (a per-row
// Layout computed once), and turns each source into an array of 64 lane
// values: a VGPR row is used in place, a scalar, inline constant or literal
// is broadcast once; SDWA selects, DPP lane permutations, VOP3 op_sel and
// neg/abs modifiers (by operand type) and the MODE register's input denormal
// flush are applied in that order into a per-source scratch row. Results are
// computed into a scratch row and written back under the EXEC mask (narrowed
// by DPP row/bank masks and invalid DPP source lanes), with SDWA dst_sel,
// 16-bit half selection, output modifiers and clamping applied on the way.
//
// Everything is straight-line code over 64-element arrays so the compiler
// vectorises the lane loops; nothing allocates.
#pragma once

#include <cfenv>
#include <cstdint>

#include "float_bits.h"
#include "k100/emu/wave.h"
#include "k100/isa/inst.h"

namespace k100::emu::valu {

constexpr int kLanes = kWaveSize;

// Where a row's operands live in Inst::ops, for one encoding.
struct Layout {
  int8_t src[3] = {-1, -1, -1};  // source 0..2: src0, src1/vsrc1, src2 (or the implicit vcc read)
  int8_t dst = -1;               // vdst: a VGPR, or the SGPR of readlane/readfirstlane
  int8_t sdst = -1;              // lane-mask destination: VOPC result, carry-out, VOP3B sdst
  int8_t kimm = -1;              // madmk/madak constant
  uint8_t nsrc = 0;
  isa::OpType type[3] = {};      // constant type of each source
};
// All layouts, indexed [id * 4 + encoding]; built once.
const Layout* layout_table();
inline const Layout& layout(const isa::Inst& in) {
  static const Layout* const table = layout_table();
  return table[size_t(in.id) * 4 + size_t(in.encoding)];
}

// MODE register fields the VALU reads.
struct Mode {
  uint32_t bits = 0;
  int round32() const { return int(bits & 3); }
  int round16_64() const { return int((bits >> 2) & 3); }
  bool flush_in32() const { return !(bits & 0x10); }
  bool flush_out32() const { return !(bits & 0x20); }
  bool flush_in16_64() const { return !(bits & 0x40); }
  bool flush_out16_64() const { return !(bits & 0x80); }
  bool dx10_clamp() const { return bits & ModeBits::kDx10Clamp; }
  bool ieee() const { return bits & ModeBits::kIeee; }
};

// Installs the host rounding mode for the MODE encoding `rm` for its lifetime
// (nothing to do for round-to-nearest-even, the host default).
class HostRounding {
 public:
  explicit HostRounding(int rm) : rm_(rm) {
    if (rm_) {
      saved_ = std::fegetround();
      static const int host[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
      std::fesetround(host[rm_ & 3]);
    }
  }
  ~HostRounding() {
    if (rm_) std::fesetround(saved_);
  }
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;

 private:
  int rm_;
  int saved_ = FE_TONEAREST;
};

// Reads a scalar operand (SGPR, special register, inline constant, literal)
// as a 32- or 64-bit value typed by `type` for inline float constants.
uint32_t scalar_value32(const WaveState& w, const isa::Operand& o, isa::OpType type);
uint64_t scalar_value64(const WaveState& w, const isa::Operand& o, isa::OpType type, bool signed_literal);

// How a 16-bit result lands in its 32-bit destination.
enum class Half : uint8_t {
  Full,      // a 32-bit result
  Lo16Zero,  // low half written, high half zeroed (most GFX9 16-bit VOP1/VOP2 ops)
  Lo16Keep,  // low half written, high half preserved (v_mac_f16, v_madak/madmk_f16)
  OpSelDst,  // VOP3 op_sel[3] picks the half; the other half is preserved
  Hi16Keep,  // high half written, low half preserved (v_fma_mixhi_f16)
};

// Sign-magnitude masks of a 32-bit register holding one f16 in its low half.
constexpr uint32_t kLoSign16 = 0x8000u;

// Expands a lane mask to 64 all-ones/all-zeros words.
void expand_mask(LaneMask m, uint32_t* out);

// Packs 64 bytes that are each 0 or 1 into a lane mask (bit i = byte i).
inline LaneMask pack_lanes(const uint8_t* b) {
  LaneMask m = 0;
  for (int k = 0; k < 8; ++k) {
    uint64_t x;
    __builtin_memcpy(&x, b + 8 * k, 8);
    m |= ((x * 0x0102040810204080ull) >> 56) << (8 * k);
  }
  return m;
}

class Vop {
 public:
  Vop(WaveState& wave, const isa::Inst& inst)
      : w(wave), in(inst), lay(layout(inst)), mode{wave.mode}, enc(inst.encoding), exec(wave.exec()) {
    plain_ = enc == isa::Encoding::Native || enc == isa::Encoding::E64;
    if (enc == isa::Encoding::DPP) apply_dpp_write_mask();
  }

  WaveState& w;
  const isa::Inst& in;
  const Layout& lay;
  Mode mode;
  isa::Encoding enc;
  LaneMask exec;  // lanes this instruction writes

  // ---- sources (64 lanes each; pointers stay valid until the Vop dies)
  // 32-bit integer view: SDWA select/sext and DPP applied, no modifiers.
  const uint32_t* b32(int s) {
    const isa::Operand& o = in.ops[lay.src[s]];
    if (plain_) {
      if (o.is_vgpr()) return w.vgpr[o.vgpr_index()].data();
      uint32_t v = o.code <= isa::code::kSgprLast ? w.sgpr[o.code] : scalar_value32(w, o, lay.type[s]);
      uint32_t* b = buf32_[s];
      for (int i = 0; i < kLanes; ++i) b[i] = v;
      return b;
    }
    return b32_slow(s);
  }
  // True when source s is the same value in every lane (a scalar source in
  // a form without SDWA/DPP).
  bool uniform(int s) const { return plain_ && !in.ops[lay.src[s]].is_vgpr(); }
  // b32 + abs/neg on bit 31 (moves and selects keep denormals).
  const uint32_t* mods32(int s) {
    if (!(((in.mods.abs | in.mods.neg) >> s) & 1)) return b32(s);
    return mods32_slow(s);
  }
  // f32 view: mods32 + the MODE input flush (or forced).
  const uint32_t* f32(int s, bool force_flush = false) {
    if (!force_flush && !mode.flush_in32()) return mods32(s);
    return f32_slow(s, force_flush);
  }
  // 16-bit integer view in the low half (VOP3 op_sel picks the high half).
  const uint32_t* b16(int s);
  // b16 + abs/neg on bit 15 (no flush).
  const uint32_t* mods16(int s);
  // f16 view in the low half: mods16 + input flush.
  const uint32_t* f16(int s, bool force_flush = false);
  // 64-bit views (VGPR pairs, SGPR pairs, constants; no SDWA/DPP on GFX9).
  const uint64_t* b64(int s, bool signed_literal = false);
  const uint64_t* f64(int s, bool force_flush = false);
  // A lane mask source (the vcc / SGPR-pair carry-in or condition).
  LaneMask mask_src(int s) const;
  // The value of a scalar source (readlane's lane select, writelane's data).
  uint32_t scalar_src(int s) const;
  // The VGPR row of a source or destination operand (role: source number,
  // or 3 for the destination; kept for diagnostics).
  uint32_t* vgpr_row(int operand_index, int role);

  // Modifier bits of source s.
  bool neg(int s) const { return (in.mods.neg >> s) & 1; }
  bool abs(int s) const { return (in.mods.abs >> s) & 1; }

  // ---- results
  uint32_t* out32() { return res32_; }
  // The destination row itself when the result can be written in place (no
  // SDWA/DPP, all lanes active): for lane-wise ops whose lane i only reads
  // lane i of the sources, which then may alias the destination.
  uint32_t* out32_direct() {
    const isa::Operand& o = in.ops[lay.dst];
    if (plain_ && exec == ~0ull && o.is_vgpr()) return w.vgpr[o.vgpr_index()].data();
    return res32_;
  }
  uint64_t* out64() { return res64_; }
  double* outd() { return resd_; }
  // Writes 32-bit lane values to vdst (SDWA dst_sel or 16-bit half placement).
  void write32(const uint32_t* r, Half h = Half::Full) {
    const isa::Operand& o = in.ops[lay.dst];
    if (h == Half::Full && plain_ && o.is_vgpr() && exec == ~0ull) {
      uint32_t* d = w.vgpr[o.vgpr_index()].data();
      if (d != r)
        for (int i = 0; i < kLanes; ++i) d[i] = r[i];
      return;
    }
    write32_slow(r, h);
  }
  // Writes 64-bit lane values to a VGPR pair.
  void write64(const uint64_t* r);
  // f32 result: omod, clamp, output flush (MODE or forced), write.
  void finish_f32(uint32_t* r, bool force_flush = false) {
    if (!in.mods.omod && !in.mods.clamp && !force_flush && !mode.flush_out32()) return write32(r);
    finish_f32_slow(r, force_flush);
  }
  void finish_f64(uint64_t* r, bool force_flush = false);
  // f16 results given as exact (or round-to-odd) doubles: omod, rounding with
  // MODE, clamp, write.
  void finish_f16(const double* r, Half h, bool force_flush = false);
  // f16 results already rounded (low 16 bits): clamp and write.
  void finish_f16_bits(uint32_t* r, Half h);
  // Lane-mask result to the mask destination (bits outside exec are 0).
  void write_sdst(LaneMask m);
  // The lane-mask destination's register code.
  uint16_t sdst_code() const;

 private:
  const uint32_t* b32_slow(int s);
  const uint32_t* mods32_slow(int s);
  const uint32_t* f32_slow(int s, bool force_flush);
  void write32_slow(const uint32_t* r, Half h);
  void finish_f32_slow(uint32_t* r, bool force_flush);
  uint32_t* own32(int s, const uint32_t* p);  // copy into scratch s unless already there
  const uint32_t* raw32(int s);
  const uint32_t* dpp_permute(const uint32_t* p);
  void apply_dpp_write_mask();

  alignas(64) uint32_t buf32_[3][kLanes];
  alignas(64) uint64_t buf64_[3][kLanes];
  alignas(64) uint32_t res32_[kLanes];
  alignas(64) uint64_t res64_[kLanes];
  alignas(64) double resd_[kLanes];
  LaneMask dpp_valid_ = ~0ull;
  bool plain_ = true;  // neither SDWA nor DPP
};


// The 64-entry source lane table of a DPP control (-1: no source lane).
const int8_t* dpp_sources(uint16_t ctrl);

}  // namespace k100::emu::valu
