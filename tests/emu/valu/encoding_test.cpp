// Operand fetch and writeback across encodings: DPP (every control against a
// host lane permutation, masks, bound_ctrl), SDWA (selects, sext, dst_sel,
// dst_unused, scalar sources, VOPC destinations), VOP3 modifiers (neg/abs by
// type, op_sel, omod, clamp), inline constants and literals by operand type,
// special source registers, and EXEC-masked writes.
#include <cmath>

#include "harness.h"
#include "k100/base/error.h"
#include "k100/isa/symbolic.h"

namespace k100::emu::valu_test {
namespace {

// ---- DPP ------------------------------------------------------------------

// The lane a DPP control reads for destination lane i, or -1 (host model
// written from the ISA description, independent of the emulator's table).
int dpp_source(unsigned ctrl, int i) {
  int row = i / 16, in_row = i % 16;
  if (ctrl <= 0xff) {
    int sel = (ctrl >> (2 * (i % 4))) & 3;
    return i - i % 4 + sel;
  }
  unsigned n = ctrl & 0xf;
  if (ctrl >= 0x101 && ctrl <= 0x10f) return in_row + int(n) < 16 ? i + int(n) : -1;
  if (ctrl >= 0x111 && ctrl <= 0x11f) return in_row - int(n) >= 0 ? i - int(n) : -1;
  if (ctrl >= 0x121 && ctrl <= 0x12f) return row * 16 + (in_row + 16 - int(n)) % 16;
  switch (ctrl) {
    case 0x130: return i == 63 ? -1 : i + 1;
    case 0x134: return (i + 1) % 64;
    case 0x138: return i == 0 ? -1 : i - 1;
    case 0x13c: return (i + 63) % 64;
    case 0x140: return row * 16 + 15 - in_row;
    case 0x141: return (i / 8) * 8 + 7 - i % 8;
    case 0x142: return row == 0 ? -1 : row * 16 - 1;
    case 0x143: return row < 2 ? -1 : 31;
  }
  return -2;
}

std::vector<unsigned> all_dpp_controls() {
  std::vector<unsigned> c;
  for (unsigned x = 0; x < 0x200; ++x)
    if (isa::dpp::valid_ctrl(uint16_t(x))) c.push_back(x);
  return c;
}

TEST(Dpp, EveryControlMatchesTheHostPermutation) {
  auto ctrls = all_dpp_controls();
  EXPECT_EQ(ctrls.size(), 256u + 15 * 3 + 4 + 2 + 2);
  std::mt19937 rng(97);
  for (unsigned ctrl : ctrls) {
    for (int variant = 0; variant < 3; ++variant) {
      WaveState w = fresh_wave();
      for (int l = 0; l < 64; ++l) {
        w.vgpr[1][l] = 1000 + l;
        w.vgpr[10][l] = 5000 + l;
      }
      LaneMask exec = variant == 0 ? ~0ull : (uint64_t(rng()) << 32) | rng() | 1;
      w.set_exec(exec);
      isa::Modifiers m;
      m.dpp_ctrl = uint16_t(ctrl);
      m.bound_ctrl = variant == 2;
      m.row_mask = uint8_t(variant == 0 ? 0xf : rng() % 16);
      m.bank_mask = uint8_t(variant == 0 ? 0xf : rng() % 16);
      run(w, make("v_mov_b32", Encoding::DPP, {V(10), V(1)}, m));
      for (int i = 0; i < 64; ++i) {
        uint32_t want = 5000 + i;  // unchanged unless written
        bool row_on = (m.row_mask >> (i / 16)) & 1, bank_on = (m.bank_mask >> ((i / 4) % 4)) & 1;
        if (((exec >> i) & 1) && row_on && bank_on) {
          int s = dpp_source(ctrl, i);
          bool valid = s >= 0 && ((exec >> s) & 1);
          if (valid) want = 1000 + s;
          else if (m.bound_ctrl) want = 0;
        }
        ASSERT_EQ(w.vgpr[10][i], want) << isa::dpp::print_ctrl(uint16_t(ctrl)) << " variant " << variant
                                       << " lane " << i;
      }
    }
  }
}

TEST(Dpp, PermutesOnlySrc0AndAppliesModifiers) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(float(l));
    w.vgpr[2][l] = fbits(100.0f * l);
  }
  isa::Modifiers m;
  m.dpp_ctrl = 0x111;  // row_shr:1
  m.bound_ctrl = true;
  m.neg = 1;           // -src0
  m.abs = 2;           // |src1|
  run(w, make("v_add_f32", Encoding::DPP, {V(10), V(1), V(2)}, m));
  for (int l = 0; l < 64; ++l) {
    float s0 = l % 16 == 0 ? 0.0f : float(l - 1);
    EXPECT_EQ(fval(w.vgpr[10][l]), -s0 + 100.0f * l) << l;
  }
}

// ---- SDWA -------------------------------------------------------------------

uint32_t sel(uint32_t v, unsigned s, bool sx) {
  if (s == 6) return v;
  if (s <= 3) {
    uint32_t b = (v >> (8 * s)) & 0xff;
    return sx && (b & 0x80) ? b | 0xffffff00u : b;
  }
  uint32_t h = (v >> (16 * (s - 4))) & 0xffff;
  return sx && (h & 0x8000) ? h | 0xffff0000u : h;
}

TEST(Sdwa, SelectsSextDstSelAndUnusedAgainstHostModel) {
  std::mt19937 rng(101);
  for (int iter = 0; iter < 400; ++iter) {
    isa::Modifiers m;
    m.src0_sel = isa::SdwaSel(rng() % 7);
    m.src1_sel = isa::SdwaSel(rng() % 7);
    m.dst_sel = isa::SdwaSel(rng() % 7);
    m.dst_unused = isa::SdwaUnused(rng() % 3);
    m.sext = uint8_t(rng() % 4);
    m.clamp = rng() % 4 == 0;
    if (m.dst_sel == isa::SdwaSel::DWORD) m.dst_unused = isa::SdwaUnused::UNUSED_PAD;
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = rng();
      w.vgpr[2][l] = rng();
      w.vgpr[10][l] = rng();
    }
    WaveState o = w;
    isa::Inst in = make("v_add_u32", Encoding::SDWA, {V(10), V(1), V(2)}, m);
    if (!isa::check(in).empty()) continue;  // combinations llvm rejects
    run(w, in);
    for (int l = 0; l < 64; ++l) {
      uint32_t a = sel(o.vgpr[1][l], unsigned(m.src0_sel), m.sext & 1);
      uint32_t b = sel(o.vgpr[2][l], unsigned(m.src1_sel), m.sext & 2);
      uint64_t sum = uint64_t(a) + b;
      uint32_t r = m.clamp && sum > 0xffffffffull ? 0xffffffffu : uint32_t(sum);
      unsigned ds = unsigned(m.dst_sel);
      uint32_t want;
      if (ds == 6) {
        want = r;
      } else {
        unsigned bits = ds <= 3 ? 8 : 16, sh = ds <= 3 ? 8 * ds : 16 * (ds - 4);
        uint32_t field = (r & ((1u << bits) - 1)) << sh, fmask = ((1u << bits) - 1) << sh;
        if (m.dst_unused == isa::SdwaUnused::UNUSED_PAD) want = field;
        else if (m.dst_unused == isa::SdwaUnused::UNUSED_PRESERVE) want = field | (o.vgpr[10][l] & ~fmask);
        else {
          bool neg = (r >> (bits - 1)) & 1;
          // sign fills above the field, zeros below
          want = field | (neg ? uint32_t(~((1ull << (sh + bits)) - 1)) : 0u);
        }
      }
      ASSERT_EQ(w.vgpr[10][l], want) << isa::print(in) << " lane " << l;
    }
  }
}

TEST(Sdwa, ScalarAndConstantSourcesAndF16Words) {
  WaveState w = fresh_wave();
  w.sgpr[8] = 0x00120034;
  for (int l = 0; l < 64; ++l) w.vgpr[2][l] = 0x3c004000;  // hi 1.0, lo 2.0 (f16)
  isa::Modifiers m;
  m.src0_sel = isa::SdwaSel::WORD_1;
  run(w, make("v_add_u32", Encoding::SDWA, {V(10), S(8), V(2)}, m));
  EXPECT_EQ(w.vgpr[10][0], 0x12u + 0x3c004000u);
  // f16 add of the high halves, result to the high half with the low half kept
  isa::Modifiers h;
  h.src0_sel = isa::SdwaSel::WORD_1;
  h.src1_sel = isa::SdwaSel::WORD_1;
  h.dst_sel = isa::SdwaSel::WORD_1;
  h.dst_unused = isa::SdwaUnused::UNUSED_PRESERVE;
  for (int l = 0; l < 64; ++l) w.vgpr[11][l] = 0xabcd1234;
  run(w, make("v_add_f16", Encoding::SDWA, {V(11), V(2), V(2)}, h));
  EXPECT_EQ(w.vgpr[11][5], 0x40001234u);  // 1.0 + 1.0 = 2.0 in the high half
  // SDWA compare to an SGPR pair
  isa::Modifiers c;
  c.src0_sel = isa::SdwaSel::WORD_0;
  for (int l = 0; l < 64; ++l) w.vgpr[3][l] = l < 10 ? 0x00007 : 0x10003;
  isa::Inst in = make("v_cmp_gt_u32", Encoding::SDWA, {S(30, 2), V(3), V(4)}, c);
  for (int l = 0; l < 64; ++l) w.vgpr[4][l] = 5;
  run(w, in);
  EXPECT_EQ(w.sgpr64(30), 0x3ffull);
}

TEST(Sdwa, OmodAndClampOnFloatResults) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(0.375f);
    w.vgpr[2][l] = fbits(0.25f);
  }
  isa::Modifiers m;
  m.omod = 1;  // *2
  run(w, make("v_add_f32", Encoding::SDWA, {V(10), V(1), V(2)}, m));
  EXPECT_EQ(fval(w.vgpr[10][0]), 1.25f);
  m.clamp = true;
  run(w, make("v_add_f32", Encoding::SDWA, {V(10), V(1), V(2)}, m));
  EXPECT_EQ(fval(w.vgpr[10][0]), 1.0f);
}

// ---- VOP3 modifiers ------------------------------------------------------------

TEST(Vop3, NegAbsByOperandType) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(-3.0f);
    w.vgpr[2][l] = fbits(5.0f);
    set64(w, 4, l, dbits(-3.0));
    set64(w, 6, l, dbits(5.0));
    w.vgpr[8][l] = 0x4000c200;  // f16: hi 2.0, lo -3.0
  }
  isa::Modifiers m;
  m.abs = 1;
  m.neg = 3;
  run(w, make("v_add_f32", Encoding::E64, {V(10), V(1), V(2)}, m));  // -|-3| + -5
  EXPECT_EQ(fval(w.vgpr[10][0]), -8.0f);
  run(w, make("v_add_f64", Encoding::Native, {V(12, 2), V(4, 2), V(6, 2)}, m));
  EXPECT_EQ(dval(get64(w, 12, 0)), -8.0);
  run(w, make("v_add_f16", Encoding::E64, {V(14), V(8), V(8)}, m));  // -|-3| + 3 = 0 (+0)
  EXPECT_EQ(w.vgpr[14][0], 0x0000u);
}

TEST(Vop3, OpSelPicksHalvesAndDestinationHalf) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = 0x00050007;  // hi 5, lo 7
    w.vgpr[2][l] = 0x00030002;  // hi 3, lo 2
    w.vgpr[10][l] = 0xaaaabbbb;
  }
  isa::Modifiers m;
  m.op_sel = 1 | 8;  // src0 high half, write the high half of the destination
  run(w, make("v_add_i16", Encoding::Native, {V(10), V(1), V(2)}, m));
  EXPECT_EQ(w.vgpr[10][0], 0x0007bbbbu);  // 5 + 2 into the high half
  m.op_sel = 2;  // src1 high half, low destination half
  run(w, make("v_add_i16", Encoding::Native, {V(10), V(1), V(2)}, m));
  EXPECT_EQ(w.vgpr[10][0], 0x0007000au);  // 7 + 3 in the low half, high kept
  // f16 fma with op_sel on all sources
  for (int l = 0; l < 64; ++l) w.vgpr[3][l] = 0x3c004400;  // hi 1.0, lo 4.0
  for (int l = 0; l < 64; ++l) w.vgpr[4][l] = 0x40003800;  // hi 2.0, lo 0.5
  m.op_sel = 7;
  run(w, make("v_fma_f16", Encoding::Native, {V(11), V(3), V(4), V(3)}, m));  // 1*2+1 = 3 -> 0x4200, low half kept
  EXPECT_EQ(w.vgpr[11][0] & 0xffff, 0x4200u);
}

TEST(Vop3, OmodAndClampWithDx10) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(3.0f);
    w.vgpr[2][l] = l == 1 ? 0x7fc00000u : fbits(-1.0f);
  }
  isa::Modifiers m;
  for (auto [omod, want] : {std::pair{1, 4.0f}, {2, 8.0f}, {3, 1.0f}}) {
    m.omod = uint8_t(omod);
    run(w, make("v_add_f32", Encoding::E64, {V(10), V(1), V(2)}, m));
    EXPECT_EQ(fval(w.vgpr[10][0]), want) << "omod " << omod;
  }
  m.omod = 0;
  m.clamp = true;
  run(w, make("v_mul_f32", Encoding::E64, {V(10), V(1), V(2)}, m));  // -3 -> 0, NaN -> 0 (dx10)
  EXPECT_EQ(w.vgpr[10][0], 0u);
  EXPECT_EQ(w.vgpr[10][1], 0u);
  w.mode &= ~ModeBits::kDx10Clamp;
  run(w, make("v_mul_f32", Encoding::E64, {V(10), V(1), V(2)}, m));
  EXPECT_TRUE(std::isnan(fval(w.vgpr[10][1])));
}

// ---- constants, literals, special sources --------------------------------------

TEST(Constants, InlineConstantsTakeTheOperandTypesPattern) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = 0;
    set64(w, 2, l, 0);
  }
  // f32: 1/(2pi) and -4.0
  run(w, make("v_add_f32", Encoding::Native, {V(10), FConst(isa::code::kInvTwoPi), V(1)}));
  EXPECT_EQ(w.vgpr[10][0], 0x3e22f983u);
  run(w, make("v_add_f32", Encoding::Native, {V(10), FConst(247), V(1)}));
  EXPECT_EQ(fval(w.vgpr[10][0]), -4.0f);
  // f16: 0.5 is 0x3800; integer constants are integer bit patterns
  run(w, make("v_add_f16", Encoding::Native, {V(10), FConst(240), V(1)}));
  EXPECT_EQ(w.vgpr[10][0], 0x3800u);
  run(w, make("v_add_u16", Encoding::Native, {V(10), Int(-2), V(1)}));
  EXPECT_EQ(w.vgpr[10][0], 0xfffeu);
  // f64: 2.0 as an f64 pattern; -1 as a 64-bit integer pattern
  run(w, make("v_add_f64", Encoding::Native, {V(12, 2), FConst(244), V(2, 2)}));
  EXPECT_EQ(dval(get64(w, 12, 0)), 2.0);
  run(w, make("v_lshlrev_b64", Encoding::Native, {V(12, 2), Int(4), Int(-1)}));
  EXPECT_EQ(get64(w, 12, 0), 0xfffffffffffffff0ull);
  // packed f16: the constant lands in the low half only
  run(w, make("v_pk_add_f16", Encoding::Native, {V(10), FConst(242), V(1)}));
  EXPECT_EQ(w.vgpr[10][0], 0x00003c00u);
  isa::Modifiers lo;
  lo.op_sel_hi = 0;  // both halves read the low half of each source
  run(w, make("v_pk_add_f16", Encoding::Native, {V(10), FConst(242), V(1)}, lo, false));
  EXPECT_EQ(w.vgpr[10][0], 0x3c003c00u);
}

TEST(Constants, LiteralsOf64BitOperands) {
  WaveState w = fresh_wave();
  // f64 literal: the 32 bits are the high dword
  run(w, make("v_cvt_f32_f64", Encoding::Native, {V(10), Lit(0x40080000)}));
  EXPECT_EQ(fval(w.vgpr[10][0]), 3.0f);
  // i64 compare: sign-extended (-2^31 < 0); u64 compare: zero-extended (2^31 > 0)
  for (int l = 0; l < 64; ++l) set64(w, 2, l, 0);
  run(w, make("v_cmp_lt_i64", Encoding::Native, {VCC(), Lit(0x80000000u), V(2, 2)}));
  EXPECT_EQ(w.vcc(), ~0ull);
  run(w, make("v_cmp_lt_u64", Encoding::Native, {VCC(), Lit(0x80000000u), V(2, 2)}));
  EXPECT_EQ(w.vcc(), 0ull);
  run(w, make("v_cmp_gt_u64", Encoding::Native, {VCC(), Lit(0x80000000u), V(2, 2)}));
  EXPECT_EQ(w.vcc(), ~0ull);
}

TEST(Constants, SpecialSourceRegisters) {
  WaveState w = fresh_wave();
  w.scc = true;
  w.set_vcc(0);
  w.shared_base = 0x0001000000000000ull;
  run(w, make("v_mov_b32", Encoding::Native, {V(10), Operand::reg(isa::code::kScc)}));
  EXPECT_EQ(w.vgpr[10][3], 1u);
  run(w, make("v_mov_b32", Encoding::Native, {V(10), Operand::reg(isa::code::kVccz)}));
  EXPECT_EQ(w.vgpr[10][3], 1u);
  run(w, make("v_mov_b32", Encoding::Native, {V(10), Operand::reg(isa::code::kExecz)}));
  EXPECT_EQ(w.vgpr[10][3], 0u);
  run(w, make("v_mov_b32", Encoding::Native, {V(10), Operand::reg(isa::code::kSharedBase)}));
  EXPECT_EQ(w.vgpr[10][3], 0x00010000u);
}

TEST(Exec, InactiveLanesKeepTheirValues) {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(1.0f);
    w.vgpr[10][l] = 77;
    set64(w, 12, l, 99);
  }
  w.set_exec(0xf0f0f0f0f0f0f0f0ull);
  run(w, make("v_add_f32", Encoding::Native, {V(10), V(1), V(1)}));
  run(w, make("v_cvt_f64_f32", Encoding::Native, {V(12, 2), V(1)}));
  for (int l = 0; l < 64; ++l) {
    bool on = (l / 4) % 2;
    EXPECT_EQ(w.vgpr[10][l], on ? fbits(2.0f) : 77u) << l;
    EXPECT_EQ(get64(w, 12, l), on ? dbits(1.0) : 99u) << l;
  }
}

}  // namespace
}  // namespace k100::emu::valu_test

namespace k100::emu::valu_test {
namespace {

TEST(Sdwa, F16ResultIntoTheHighWordKeepsTheLowWord) {
  // The compiler packs halves like this: v_cvt_f16_f32_sdwa ... dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(float(l) * 0.5f);
    w.vgpr[10][l] = 0x1234u;
  }
  isa::Modifiers m;
  m.dst_sel = isa::SdwaSel::WORD_1;
  m.dst_unused = isa::SdwaUnused::UNUSED_PRESERVE;
  run(w, make("v_cvt_f16_f32", Encoding::SDWA, {V(10), V(1)}, m));
  for (int l = 0; l < 64; ++l)
    EXPECT_EQ(w.vgpr[10][l], (uint32_t(f16_round(float(l) * 0.5f)) << 16) | 0x1234u) << l;
}

TEST(Errors, LdsDirectAndRegisterRangesAreReported) {
  WaveState w = fresh_wave();
  isa::Inst lds = make("v_mov_b32", Encoding::Native, {V(10), Operand::reg(isa::code::kLdsDirect)});
  EXPECT_THROW(valu_semantics()[lds.id](w, lds), k100::Error);
  // a 64-bit destination starting at v255 runs past the register file
  isa::Inst wide = make("v_cvt_f64_f32", Encoding::Native, {V(255, 2), V(1)});
  EXPECT_THROW(valu_semantics()[wide.id](w, wide), k100::Error);
}

}  // namespace
}  // namespace k100::emu::valu_test
