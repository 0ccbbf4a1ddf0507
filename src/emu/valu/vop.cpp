// Operand fetch and result writeback for vector ALU instructions.
#include "vop.h"

#include "host_lanes.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/isa/codec.h"

namespace k100::emu::valu {

using isa::Encoding;
using isa::Family;
using isa::Field;
using isa::OpType;
namespace code = isa::code;

// ---------------------------------------------------------------- layouts

namespace {

Layout build_layout(const isa::InstDesc& d, Encoding e) {
  Layout l;
  if (!d.is_vop()) return l;
  if (e == Encoding::E64 && !d.has_e64()) return l;
  const auto& specs = d.operands_of(e);
  bool vopc = d.family == Family::VOPC;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    switch (s.field) {
      case Field::vdst:
        if (vopc) l.sdst = int8_t(i);
        else l.dst = int8_t(i);
        break;
      case Field::sdst:
      case Field::sdst_vop3b:
        l.sdst = int8_t(i);
        break;
      case Field::vcc:
        if (l.nsrc == 0) {
          l.sdst = int8_t(i);
        } else {
          l.type[l.nsrc] = OpType::B64;
          l.src[l.nsrc++] = int8_t(i);
        }
        break;
      case Field::src0:
      case Field::src1:
      case Field::src2:
      case Field::vsrc1:
        if (l.nsrc < 3) {
          l.type[l.nsrc] = s.type;
          l.src[l.nsrc++] = int8_t(i);
        }
        break;
      case Field::literal:
        l.kimm = int8_t(i);
        break;
      default:
        break;
    }
  }
  // vsrc1 of the 32-bit forms carries no constant type (it is a VGPR field),
  // but SDWA may put an SGPR or constant there: take the e64 form's type.
  if (l.nsrc >= 2 && l.type[1] == OpType::None) {
    OpType t = l.type[0];
    for (const auto& s : d.e64_operands)
      if (s.field == Field::src1) t = s.type;
    l.type[1] = t == OpType::None ? OpType::B32 : t;
  }
  for (auto& t : l.type)
    if (t == OpType::None) t = OpType::B32;
  return l;
}

}  // namespace

const Layout* layout_table() {
  static const std::vector<Layout> table = [] {
    std::vector<Layout> t;
    for (const auto& d : isa::instructions())
      for (int e = 0; e < 4; ++e) t.push_back(build_layout(d, Encoding(e)));
    return t;
  }();
  return table.data();
}

// ---------------------------------------------------------------- masks

namespace {

struct MaskTable {
  uint32_t words[256][8];
  constexpr MaskTable() : words() {
    for (int b = 0; b < 256; ++b)
      for (int k = 0; k < 8; ++k) words[b][k] = (b >> k) & 1 ? 0xffffffffu : 0u;
  }
};
constexpr MaskTable kMaskTable;

inline void blend32(uint32_t* d, const uint32_t* v, LaneMask m) {
  if (m == ~0ull) {
    if (d != v)
      for (int i = 0; i < kLanes; ++i) d[i] = v[i];
    return;
  }
  if (m == 0) return;
  alignas(64) uint32_t mk[kLanes];
  expand_mask(m, mk);
  for (int i = 0; i < kLanes; ++i) d[i] = (v[i] & mk[i]) | (d[i] & ~mk[i]);
}

}  // namespace

void expand_mask(LaneMask m, uint32_t* out) {
  for (int b = 0; b < 8; ++b) std::memcpy(out + 8 * b, kMaskTable.words[(m >> (8 * b)) & 0xff], 32);
}

// ---------------------------------------------------------------- scalars

uint32_t scalar_value32(const WaveState& w, const isa::Operand& o, OpType type) {
  uint16_t c = o.code;
  if (c <= code::kExecHi) return c == 125 ? 0u : w.sgpr[c];
  if (c >= code::kZero && c <= code::kIntNegLast) return uint32_t(isa::inline_int_value(c));
  if (c >= code::kFloatFirst && c <= code::kInvTwoPi) {
    switch (type) {
      case OpType::F16: case OpType::I16: case OpType::V2F16: case OpType::V2I16:
        return isa::inline_float_bits16(c);
      case OpType::F64: case OpType::B64:
        return uint32_t(isa::inline_float_bits64(c) >> 32);
      default:
        return isa::inline_float_bits32(c);
    }
  }
  switch (c) {
    case code::kLiteral: return o.value;
    case code::kSharedBase: return uint32_t(w.shared_base >> 32);
    case code::kSharedLimit: return uint32_t(w.shared_limit >> 32);
    case code::kPrivateBase: return uint32_t(w.private_base >> 32);
    case code::kPrivateLimit: return uint32_t(w.private_limit >> 32);
    case code::kVccz: return w.vcc() == 0;
    case code::kExecz: return w.exec() == 0;
    case code::kScc: return w.scc;
    case code::kLdsDirect:
      throw Error("lds_direct reaches the VALU only as the value the dispatch loop read from LDS");
    default: return 0;  // reserved codes, pops_exiting_wave_id
  }
}

uint64_t scalar_value64(const WaveState& w, const isa::Operand& o, OpType type, bool signed_literal) {
  uint16_t c = o.code;
  if (c <= code::kExecHi) {
    uint64_t lo = c == 125 ? 0u : w.sgpr[c];
    uint64_t hi = (c + 1 <= code::kExecHi && c + 1 != 125) ? w.sgpr[c + 1u] : 0u;
    return lo | hi << 32;
  }
  if (c >= code::kZero && c <= code::kIntNegLast) return uint64_t(int64_t(isa::inline_int_value(c)));
  if (c >= code::kFloatFirst && c <= code::kInvTwoPi) {
    switch (type) {
      case OpType::F16: case OpType::I16: case OpType::V2F16: case OpType::V2I16:
        return isa::inline_float_bits16(c);
      case OpType::B32:
        return isa::inline_float_bits32(c);
      default:
        return isa::inline_float_bits64(c);
    }
  }
  switch (c) {
    case code::kLiteral:
      if (type == OpType::F64) return uint64_t(o.value) << 32;  // the literal is the high dword
      return signed_literal ? uint64_t(int64_t(int32_t(o.value))) : uint64_t(o.value);
    case code::kSharedBase: return w.shared_base;
    case code::kSharedLimit: return w.shared_limit;
    case code::kPrivateBase: return w.private_base;
    case code::kPrivateLimit: return w.private_limit;
    case code::kVccz: return w.vcc() == 0;
    case code::kExecz: return w.exec() == 0;
    case code::kScc: return w.scc;
    case code::kLdsDirect:
      throw Error("lds_direct reaches the VALU only as the value the dispatch loop read from LDS");
    default: return 0;
  }
}

// ---------------------------------------------------------------- DPP

namespace {

struct DppTable {
  int8_t src[0x200][kLanes];
  LaneMask exists[0x200];  // lanes whose source lane exists
  DppTable() {
    for (int ctrl = 0; ctrl < 0x200; ++ctrl) {
      exists[ctrl] = 0;
      for (int i = 0; i < kLanes; ++i) {
        src[ctrl][i] = int8_t(source(uint16_t(ctrl), i));
        if (src[ctrl][i] >= 0) exists[ctrl] |= 1ull << i;
      }
    }
  }
  static int source(uint16_t ctrl, int i) {
    int row = i & ~15, r = i & 15;
    if (ctrl <= 0xff) return (i & ~3) | ((ctrl >> ((i & 3) * 2)) & 3);
    if (ctrl >= 0x101 && ctrl <= 0x10f) {  // row_shl: lane i reads lane i + n of its row
      int j = r + (ctrl & 15);
      return j < 16 ? row + j : -1;
    }
    if (ctrl >= 0x111 && ctrl <= 0x11f) {  // row_shr: lane i reads lane i - n
      int j = r - (ctrl & 15);
      return j >= 0 ? row + j : -1;
    }
    if (ctrl >= 0x121 && ctrl <= 0x12f) return row + ((r - (ctrl & 15)) & 15);  // row_ror
    switch (ctrl) {
      case 0x130: return i + 1 < kLanes ? i + 1 : -1;  // wave_shl:1
      case 0x134: return (i + 1) & 63;                  // wave_rol:1
      case 0x138: return i - 1;                         // wave_shr:1 (-1 for lane 0)
      case 0x13c: return (i - 1) & 63;                  // wave_ror:1
      case 0x140: return row + 15 - r;                  // row_mirror
      case 0x141: return (i & ~7) + 7 - (i & 7);        // row_half_mirror
      case 0x142: return row > 0 ? row - 1 : -1;        // row_bcast:15 (lane 15 of the previous row)
      case 0x143: return row >= 32 ? 31 : -1;           // row_bcast:31 (rows 2 and 3)
      default: return -1;
    }
  }
};

const DppTable& dpp_table() {
  static const DppTable* table = new DppTable();
  return *table;
}

}  // namespace

const int8_t* dpp_sources(uint16_t ctrl) { return dpp_table().src[ctrl & 0x1ff]; }

// ---------------------------------------------------------------- Vop

void Vop::apply_dpp_write_mask() {
  const isa::Modifiers& m = in.mods;
  LaneMask rows = 0, banks = 0;
  for (int r = 0; r < 4; ++r)
    if ((m.row_mask >> r) & 1) rows |= 0xffffull << (16 * r);
  for (int b = 0; b < 4; ++b)
    if ((m.bank_mask >> b) & 1) banks |= 0x000f000f000f000full << (4 * b);
  // A source lane is invalid when it does not exist or is disabled in EXEC.
  const DppTable& t = dpp_table();
  uint16_t ctrl = m.dpp_ctrl & 0x1ff;
  LaneMask active = w.exec(), valid = t.exists[ctrl];
  if (active != ~0ull) {
    const int8_t* src = t.src[ctrl];
    alignas(64) uint8_t ok[kLanes];
    for (int i = 0; i < kLanes; ++i) ok[i] = src[i] >= 0 && ((active >> (src[i] & 63)) & 1);
    valid = pack_lanes(ok);
  }
  dpp_valid_ = valid;
  exec &= rows & banks;
  if (!m.bound_ctrl) exec &= valid;  // without bound_ctrl, lanes reading an invalid source are not written
}

const uint32_t* Vop::dpp_permute(const uint32_t* p) {
  const int8_t* src = dpp_sources(in.mods.dpp_ctrl);
  uint32_t* out = buf32_[0];
  alignas(64) uint32_t tmp[kLanes];
  for (int i = 0; i < kLanes; ++i) tmp[i] = ((dpp_valid_ >> i) & 1) ? p[src[i] & 63] : 0u;
  for (int i = 0; i < kLanes; ++i) out[i] = tmp[i];
  return out;
}

uint32_t* Vop::vgpr_row(int operand_index, int /*role*/) {
  // VGPR index mode (s_set_gpr_idx_on) is applied by the core, which rewrites
  // the operands before calling the semantic function.
  unsigned idx = in.ops[operand_index].vgpr_index();
  unsigned width = in.ops[operand_index].width ? in.ops[operand_index].width : 1;
  if (idx + width > 256)
    throw Error("VGPR range v" + std::to_string(idx) + " of " + std::to_string(width) +
                " registers runs past v255");
  return w.vgpr[idx].data();
}

uint32_t* Vop::own32(int s, const uint32_t* p) {
  uint32_t* b = buf32_[s];
  if (p != b)
    for (int i = 0; i < kLanes; ++i) b[i] = p[i];
  return b;
}

const uint32_t* Vop::raw32(int s) {
  const isa::Operand& o = in.ops[lay.src[s]];
  if (o.is_vgpr()) return vgpr_row(lay.src[s], s);
  uint32_t v = scalar_value32(w, o, lay.type[s]);
  uint32_t* b = buf32_[s];
  for (int i = 0; i < kLanes; ++i) b[i] = v;
  return b;
}

const uint32_t* Vop::b32_slow(int s) {
  const uint32_t* p = raw32(s);
  if (enc == Encoding::SDWA && s < 2) {
    isa::SdwaSel sel = s == 0 ? in.mods.src0_sel : in.mods.src1_sel;
    if (sel != isa::SdwaSel::DWORD) {
      bool sx = (in.mods.sext >> s) & 1;
      uint32_t* b = buf32_[s];
      unsigned k = unsigned(sel);
      if (k <= 3) {
        unsigned sh = 8 * k;
        if (sx) for (int i = 0; i < kLanes; ++i) b[i] = uint32_t(int32_t(int8_t(p[i] >> sh)));
        else for (int i = 0; i < kLanes; ++i) b[i] = (p[i] >> sh) & 0xffu;
      } else {
        unsigned sh = 16 * (k - 4);
        if (sx) for (int i = 0; i < kLanes; ++i) b[i] = uint32_t(int32_t(int16_t(p[i] >> sh)));
        else for (int i = 0; i < kLanes; ++i) b[i] = (p[i] >> sh) & 0xffffu;
      }
      p = b;
    }
  } else if (enc == Encoding::DPP && s == 0) {
    p = dpp_permute(p);
  }
  return p;
}

const uint32_t* Vop::mods32_slow(int s) {
  const uint32_t* p = b32(s);
  bool a = abs(s), n = neg(s);
  if (a || n) {
    uint32_t and_mask = a ? 0x7fffffffu : 0xffffffffu, xor_mask = n ? kF32Sign : 0u;
    uint32_t* b = own32(s, p);
    for (int i = 0; i < kLanes; ++i) b[i] = (b[i] & and_mask) ^ xor_mask;
    p = b;
  }
  return p;
}

const uint32_t* Vop::f32_slow(int s, bool force_flush) {
  const uint32_t* p = mods32(s);
  if (force_flush || mode.flush_in32()) {
    uint32_t* b = own32(s, p);
    for (int i = 0; i < kLanes; ++i) b[i] = flush_f32(b[i]);
    p = b;
  }
  return p;
}

const uint32_t* Vop::b16(int s) {
  const uint32_t* p = b32(s);
  if ((in.mods.op_sel >> s) & 1) {
    uint32_t* b = own32(s, p);
    for (int i = 0; i < kLanes; ++i) b[i] >>= 16;
    p = b;
  }
  return p;
}

const uint32_t* Vop::mods16(int s) {
  const uint32_t* p = b16(s);
  bool a = abs(s), n = neg(s);
  if (a || n) {
    uint32_t and_mask = a ? ~kLoSign16 : 0xffffffffu, xor_mask = n ? kLoSign16 : 0u;
    uint32_t* b = own32(s, p);
    for (int i = 0; i < kLanes; ++i) b[i] = (b[i] & and_mask) ^ xor_mask;
    p = b;
  }
  return p;
}

const uint32_t* Vop::f16(int s, bool force_flush) {
  const uint32_t* p = mods16(s);
  if (force_flush || mode.flush_in16_64()) {
    uint32_t* b = own32(s, p);
    for (int i = 0; i < kLanes; ++i) b[i] = flush_f16(b[i]);
    p = b;
  }
  return p;
}

const uint64_t* Vop::b64(int s, bool signed_literal) {
  const isa::Operand& o = in.ops[lay.src[s]];
  uint64_t* b = buf64_[s];
  if (o.is_vgpr()) {
    const uint32_t* lo = vgpr_row(lay.src[s], s);
    const uint32_t* hi = lo + kLanes;
    for (int i = 0; i < kLanes; ++i) b[i] = uint64_t(lo[i]) | uint64_t(hi[i]) << 32;
  } else {
    uint64_t v = scalar_value64(w, o, lay.type[s], signed_literal);
    for (int i = 0; i < kLanes; ++i) b[i] = v;
  }
  return b;
}

const uint64_t* Vop::f64(int s, bool force_flush) {
  b64(s);
  uint64_t* b = buf64_[s];
  bool a = abs(s), n = neg(s);
  if (a || n) {
    uint64_t and_mask = a ? ~kF64Sign : ~0ull, xor_mask = n ? kF64Sign : 0ull;
    for (int i = 0; i < kLanes; ++i) b[i] = (b[i] & and_mask) ^ xor_mask;
  }
  if (force_flush || mode.flush_in16_64())
    for (int i = 0; i < kLanes; ++i) b[i] = flush_f64(b[i]);
  return b;
}

LaneMask Vop::mask_src(int s) const {
  const isa::Operand& o = in.ops[lay.src[s]];
  return scalar_value64(w, o, OpType::B64, false);
}

uint32_t Vop::scalar_src(int s) const {
  const isa::Operand& o = in.ops[lay.src[s]];
  if (o.is_vgpr()) throw Error("a scalar operand of " + in.desc().name + " is a VGPR");
  return scalar_value32(w, o, lay.type[s]);
}

// ---------------------------------------------------------------- results

void Vop::write32_slow(const uint32_t* r, Half h) {
  uint32_t* d = vgpr_row(lay.dst, 3);
  alignas(64) uint32_t v[kLanes];
  const uint32_t* src = r;
  if (enc == Encoding::SDWA && in.family() != Family::VOPC && in.mods.dst_sel != isa::SdwaSel::DWORD) {
    unsigned k = unsigned(in.mods.dst_sel);
    unsigned sh = k <= 3 ? 8 * k : 16 * (k - 4);
    uint32_t field = k <= 3 ? 0xffu : 0xffffu;
    uint32_t keep = ~(field << sh);
    switch (in.mods.dst_unused) {
      case isa::SdwaUnused::UNUSED_PAD:
        for (int i = 0; i < kLanes; ++i) v[i] = (r[i] & field) << sh;
        break;
      case isa::SdwaUnused::UNUSED_SEXT:
        if (k <= 3) for (int i = 0; i < kLanes; ++i) v[i] = uint32_t(int32_t(int8_t(r[i])) << sh);
        else for (int i = 0; i < kLanes; ++i) v[i] = uint32_t(int32_t(int16_t(r[i])) << sh);
        break;
      default:
        for (int i = 0; i < kLanes; ++i) v[i] = ((r[i] & field) << sh) | (d[i] & keep);
        break;
    }
    src = v;
  } else if (enc != Encoding::SDWA || in.mods.dst_sel == isa::SdwaSel::DWORD) {
    switch (h) {
      case Half::Full:
        break;
      case Half::Lo16Zero:
        for (int i = 0; i < kLanes; ++i) v[i] = r[i] & 0xffffu;
        src = v;
        break;
      case Half::Lo16Keep:
        for (int i = 0; i < kLanes; ++i) v[i] = (d[i] & 0xffff0000u) | (r[i] & 0xffffu);
        src = v;
        break;
      case Half::Hi16Keep:
        for (int i = 0; i < kLanes; ++i) v[i] = (d[i] & 0xffffu) | (r[i] << 16);
        src = v;
        break;
      case Half::OpSelDst:
        if ((in.mods.op_sel >> 3) & 1) for (int i = 0; i < kLanes; ++i) v[i] = (d[i] & 0xffffu) | (r[i] << 16);
        else for (int i = 0; i < kLanes; ++i) v[i] = (d[i] & 0xffff0000u) | (r[i] & 0xffffu);
        src = v;
        break;
    }
  }
  blend32(d, src, exec);
}

void Vop::write64(const uint64_t* r) {
  uint32_t* lo = vgpr_row(lay.dst, 3);
  uint32_t* hi = lo + kLanes;
  alignas(64) uint32_t a[kLanes], b[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    a[i] = uint32_t(r[i]);
    b[i] = uint32_t(r[i] >> 32);
  }
  blend32(lo, a, exec);
  blend32(hi, b, exec);
}

void Vop::finish_f32_slow(uint32_t* r, bool force_flush) {
  if (in.mods.omod) {
    static const float factor[4] = {1.0f, 2.0f, 4.0f, 0.5f};
    float f = factor[in.mods.omod & 3];
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(as_f32(r[i]) * f);
  }
  if (in.mods.clamp) {
    bool dx10 = mode.dx10_clamp();
    for (int i = 0; i < kLanes; ++i) {
      uint32_t x = r[i];
      uint32_t c = (x & kF32Sign) ? 0u : (x > 0x3f800000u ? 0x3f800000u : x);
      r[i] = is_nan_f32(x) ? (dx10 ? 0u : x) : c;
    }
  }
  if (force_flush || mode.flush_out32())
    for (int i = 0; i < kLanes; ++i) r[i] = flush_f32(r[i]);
  write32(r);
}

void Vop::finish_f64(uint64_t* r, bool force_flush) {
  if (in.mods.omod) {
    static const double factor[4] = {1.0, 2.0, 4.0, 0.5};
    double f = factor[in.mods.omod & 3];
    for (int i = 0; i < kLanes; ++i) r[i] = bits_of(as_f64(r[i]) * f);
  }
  if (in.mods.clamp) {
    bool dx10 = mode.dx10_clamp();
    for (int i = 0; i < kLanes; ++i) {
      uint64_t x = r[i];
      uint64_t c = (x & kF64Sign) ? 0u : (x > 0x3ff0000000000000ull ? 0x3ff0000000000000ull : x);
      r[i] = is_nan_f64(x) ? (dx10 ? 0u : x) : c;
    }
  }
  if (force_flush || mode.flush_out16_64())
    for (int i = 0; i < kLanes; ++i) r[i] = flush_f64(r[i]);
  write64(r);
}

void Vop::finish_f16(const double* r, Half h, bool force_flush) {
  double f = 1.0;
  if (in.mods.omod) {
    static const double factor[4] = {1.0, 2.0, 4.0, 0.5};
    f = factor[in.mods.omod & 3];
  }
  int rm = mode.round16_64();
  bool flush = force_flush || mode.flush_out16_64();
  uint32_t* out = res32_;
  if (rm == kRoundNearestEven && !flush && f == 1.0) {
    f16_from_f64_rne_lanes(out, r, kLanes);
  } else {
    for (int i = 0; i < kLanes; ++i) out[i] = f16_from_f64(r[i] * f, rm, flush);
  }
  finish_f16_bits(out, h);
}

void Vop::finish_f16_bits(uint32_t* r, Half h) {
  if (in.mods.clamp) {
    bool dx10 = mode.dx10_clamp();
    for (int i = 0; i < kLanes; ++i) {
      uint32_t x = r[i] & 0xffffu;
      uint32_t c = (x & kF16Sign) ? 0u : (x > 0x3c00u ? 0x3c00u : x);
      r[i] = is_nan_f16(x) ? (dx10 ? 0u : x) : c;
    }
  }
  write32(r, h);
}

uint16_t Vop::sdst_code() const { return in.ops[lay.sdst].code; }

void Vop::write_sdst(LaneMask m) {
  m &= exec;
  uint16_t c = sdst_code();
  if (c > code::kExecHi) throw Error(in.desc().name + ": lane-mask destination is not a scalar register");
  w.sgpr[c] = uint32_t(m);
  if (c + 1u <= code::kExecHi) w.sgpr[c + 1u] = uint32_t(m >> 32);
}

}  // namespace k100::emu::valu
