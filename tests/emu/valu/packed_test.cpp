// Unit tests of the VOP3P rows: packed 16-bit arithmetic with op_sel /
// op_sel_hi / neg_lo / neg_hi, the mix FMAs and the dot products.
#include <algorithm>
#include <cmath>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

bool nan16(uint16_t h) { return (h & 0x7fff) > 0x7c00; }
bool snan16(uint16_t h) { return nan16(h) && !(h & 0x200); }
q128 Q(uint16_t h) { return q_of_f16(h); }

// Element e (0 low, 1 high) of packed source s under the instruction's
// op_sel / op_sel_hi / neg modifiers.
uint16_t elem(uint32_t v, int s, int e, const isa::Modifiers& m, bool is_float) {
  int sel = e == 0 ? (m.op_sel >> s) & 1 : (m.op_sel_hi >> s) & 1;
  uint16_t x = uint16_t(v >> (16 * sel));
  int neg = e == 0 ? (m.neg >> s) & 1 : (m.neg_hi >> s) & 1;
  if (is_float && neg) x ^= 0x8000;
  return x;
}

using Elem3 = std::function<uint16_t(uint16_t, uint16_t, uint16_t)>;

void packed(const std::string& row, int n, bool is_float, Elem3 ref) {
  std::mt19937 rng(uint32_t(std::hash<std::string>{}(row)));
  const isa::InstDesc* d = isa::find_instruction(row);
  for (int variant = 0; variant < 6; ++variant) {
    isa::Modifiers m;
    m.op_sel_hi = 7;
    if (variant >= 1) {
      m.op_sel = uint8_t(rng() % 8);
      m.op_sel_hi = uint8_t(rng() % 8);
    }
    if (variant >= 3 && d->has(isa::kFlagNegLo) && is_float) {
      m.neg = uint8_t(rng() % 8);
      m.neg_hi = uint8_t(rng() % 8);
    }
    if (n == 2) {
      m.op_sel &= 3;
      m.op_sel_hi &= 3;
      m.neg &= 3;
      m.neg_hi &= 3;
    }
    m.clamp = variant == 5;
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l)
      for (int s = 0; s < 3; ++s)
        w.vgpr[1 + s][l] = is_float ? (uint32_t(pick_f16(rng)) << 16) | pick_f16(rng) : gen_u32(rng, s);
    WaveState o = w;
    isa::Inst in = n == 2 ? make(row, Encoding::Native, {V(10), V(1), V(2)}, m, false)
                          : make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}, m, false);
    run(w, in);
    for (int l = 0; l < 64; ++l) {
      for (int e = 0; e < 2; ++e) {
        uint16_t x = elem(o.vgpr[1][l], 0, e, m, is_float), y = elem(o.vgpr[2][l], 1, e, m, is_float),
                 z = elem(o.vgpr[3][l], 2, e, m, is_float);
        uint16_t want = ref(x, y, z);
        if (m.clamp) {
          if (is_float) {
            if (nan16(want)) want = 0;  // dx10_clamp
            else if (want & 0x8000) want = 0;
            else if (want > 0x3c00) want = 0x3c00;
          }
        }
        uint16_t got = uint16_t(w.vgpr[10][l] >> (16 * e));
        bool ok = got == want || (is_float && nan16(got) && nan16(want));
        if (!ok) {
          ADD_FAILURE() << row << " variant " << variant << " lane " << l << " elem " << e << std::hex << " in "
                        << x << " " << y << " " << z << " got " << got << " want " << want;
          return;
        }
      }
    }
  }
}

// Saturating variants take the clamp bit from the instruction; the packed
// tests run variant 5 with clamp, so integer refs are built per variant.
void packed_int(const std::string& row, int n, std::function<int64_t(int64_t, int64_t, int64_t)> f, bool sgn,
                bool saturating) {
  for (bool clamp : {false, true}) {
    if (clamp && !saturating) continue;
    std::mt19937 rng(61 + clamp);
    for (int variant = 0; variant < 3; ++variant) {
      isa::Modifiers m;
      m.op_sel = uint8_t(variant == 0 ? 0 : rng() % (n == 2 ? 4 : 8));
      m.op_sel_hi = uint8_t(variant == 0 ? (n == 2 ? 3 : 7) : rng() % (n == 2 ? 4 : 8));
      m.clamp = clamp;
      WaveState w = fresh_wave();
      for (int l = 0; l < 64; ++l)
        for (int s = 0; s < 3; ++s) w.vgpr[1 + s][l] = gen_u32(rng, s);
      WaveState o = w;
      isa::Inst in = n == 2 ? make(row, Encoding::Native, {V(10), V(1), V(2)}, m, false)
                            : make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}, m, false);
      run(w, in);
      for (int l = 0; l < 64; ++l)
        for (int e = 0; e < 2; ++e) {
          auto val = [&](int s) -> int64_t {
            uint16_t x = elem(o.vgpr[1 + s][l], s, e, m, false);
            return sgn ? int64_t(int16_t(x)) : int64_t(x);
          };
          int64_t r = f(val(0), val(1), val(2));
          if (clamp) r = sgn ? std::clamp<int64_t>(r, -32768, 32767) : std::clamp<int64_t>(r, 0, 65535);
          uint16_t want = uint16_t(r), got = uint16_t(w.vgpr[10][l] >> (16 * e));
          if (got != want) {
            ADD_FAILURE() << row << " clamp " << clamp << " lane " << l << " elem " << e << " got " << got
                          << " want " << want;
            return;
          }
        }
    }
  }
}

ROW_CHECK(pk_int, "v_pk_add_u16", "v_pk_sub_u16", "v_pk_add_i16", "v_pk_sub_i16", "v_pk_mul_lo_u16",
          "v_pk_mad_u16", "v_pk_mad_i16", "v_pk_lshlrev_b16", "v_pk_lshrrev_b16", "v_pk_ashrrev_i16",
          "v_pk_max_i16", "v_pk_min_i16", "v_pk_max_u16", "v_pk_min_u16") {
  bool sgn = row.find("i16") != std::string::npos;
  int n = row.find("mad") != std::string::npos ? 3 : 2;
  bool sat = row.find("add") != std::string::npos || row.find("sub") != std::string::npos ||
             row.find("mad") != std::string::npos;
  packed_int(row, n, [row](int64_t a, int64_t b, int64_t c) -> int64_t {
    if (row.find("add") != std::string::npos) return a + b;
    if (row.find("sub") != std::string::npos) return a - b;
    if (row == "v_pk_mul_lo_u16") return a * b;
    if (row.find("mad") != std::string::npos) return a * b + c;
    if (row == "v_pk_lshlrev_b16") return (b << (a & 15)) & 0xffff;
    if (row == "v_pk_lshrrev_b16") return b >> (a & 15);
    if (row == "v_pk_ashrrev_i16") return b >> (a & 15);
    if (row.find("max") != std::string::npos) return std::max(a, b);
    return std::min(a, b);
  }, sgn || row == "v_pk_ashrrev_i16", sat);
}

ROW_CHECK(pk_f16, "v_pk_add_f16", "v_pk_mul_f16", "v_pk_fma_f16", "v_pk_min_f16", "v_pk_max_f16") {
  int n = row == "v_pk_fma_f16" ? 3 : 2;
  packed(row, n, true, [row](uint16_t a, uint16_t b, uint16_t c) -> uint16_t {
    if (row == "v_pk_min_f16" || row == "v_pk_max_f16") {
      bool mx = row == "v_pk_max_f16";
      if (snan16(a)) return a | 0x200;
      if (snan16(b)) return b | 0x200;
      if (nan16(a)) return b;
      if (nan16(b)) return a;
      if (Q(a) == Q(b)) return mx ? ((a & 0x8000) ? b : a) : ((a & 0x8000) ? a : b);
      return (Q(a) < Q(b)) != mx ? a : b;
    }
    if (nan16(a) || nan16(b) || (row == "v_pk_fma_f16" && nan16(c))) return 0x7e00;
    q128 r;
    if (row == "v_pk_add_f16") r = Q(a) + Q(b);
    else if (row == "v_pk_mul_f16") r = Q(a) * Q(b);
    else r = sum_to_odd(Q(a) * Q(b), Q(c));
    if (r != r) return 0x7e00;
    return f16_round_q(r);
  });
}

// ---- mix

void mix(const std::string& row) {
  std::mt19937 rng(67);
  for (int variant = 0; variant < 8; ++variant) {
    isa::Modifiers m;
    m.op_sel_hi = uint8_t(variant == 0 ? 0 : variant == 1 ? 7 : rng() % 8);
    m.op_sel = uint8_t(rng() % 8);
    m.neg = uint8_t(variant >= 4 ? rng() % 8 : 0);
    m.neg_hi = uint8_t(variant >= 6 ? rng() % 8 : 0);  // abs
    m.clamp = variant == 7;
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l)
      for (int s = 0; s < 3; ++s)
        w.vgpr[1 + s][l] = ((m.op_sel_hi >> s) & 1) ? (uint32_t(pick_f16(rng)) << 16) | pick_f16(rng) : pick_f32(rng);
    for (int l = 0; l < 64; ++l) w.vgpr[10][l] = rng();
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}, m, false));
    for (int l = 0; l < 64; ++l) {
      q128 x[3];
      bool any_nan = false;
      for (int s = 0; s < 3; ++s) {
        uint32_t v = o.vgpr[1 + s][l];
        q128 q;
        if ((m.op_sel_hi >> s) & 1) q = q_of_f16(uint16_t(v >> (16 * ((m.op_sel >> s) & 1))));
        else q = (q128)fval(v);
        if (q != q) any_nan = true;
        if ((m.neg_hi >> s) & 1) q = q < 0 || (q == 0 && std::signbit((double)q)) ? -q : q;
        if ((m.neg >> s) & 1) q = -q;
        x[s] = q;
      }
      q128 p = x[0] * x[1];  // exact
      q128 r = any_nan ? (q128)NAN : sum_to_odd(p, x[2]);
      uint32_t got = w.vgpr[10][l];
      if (row == "v_fma_mix_f32") {
        float want = (r != r) ? NAN : (float)r;
        if (m.clamp) want = std::isnan(want) ? 0.0f : std::clamp(want, 0.0f, 1.0f);
        EXPECT_TRUE(got == fbits(want) || (std::isnan(fval(got)) && std::isnan(want)) ||
                    (want == 0 && fval(got) == 0 && m.clamp))
            << row << " variant " << variant << " lane " << l << std::hex << " got " << got << " want "
            << fbits(want) << " srcs " << o.vgpr[1][l] << " " << o.vgpr[2][l] << " " << o.vgpr[3][l];
      } else {
        uint16_t want = (r != r) ? 0x7e00 : f16_round_q(r);
        if (m.clamp) want = nan16(want) || (want & 0x8000) ? 0 : std::min<uint16_t>(want, 0x3c00);
        bool hi = row == "v_fma_mixhi_f16";
        uint16_t g = uint16_t(got >> (hi ? 16 : 0));
        uint16_t kept = uint16_t(got >> (hi ? 0 : 16)), kept_old = uint16_t(o.vgpr[10][l] >> (hi ? 0 : 16));
        EXPECT_TRUE(g == want || (nan16(g) && nan16(want))) << row << " variant " << variant << " lane " << l
                                                             << std::hex << " got " << g << " want " << want;
        EXPECT_EQ(kept, kept_old) << row << " other half kept";
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}
ROW_CHECK(mixr, "v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16") { mix(row); }

// ---- dot products

ROW_CHECK(dot_int, "v_dot2_i32_i16", "v_dot2_u32_u16", "v_dot4_i32_i8", "v_dot4_u32_u8", "v_dot8_i32_i4",
          "v_dot8_u32_u4") {
  int bits = row.find("dot2") != std::string::npos ? 16 : row.find("dot4") != std::string::npos ? 8 : 4;
  bool sgn = row.find("_i32_") != std::string::npos;
  std::mt19937 rng(71);
  for (int variant = 0; variant < 4; ++variant) {
    isa::Modifiers m;
    m.op_sel_hi = 7;
    if (bits == 16 && variant >= 2) {
      m.op_sel = uint8_t(rng() % 4);
      m.op_sel_hi = uint8_t(4 | rng() % 4);
    }
    m.clamp = variant & 1;
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = rng();
      w.vgpr[2][l] = rng();
      w.vgpr[3][l] = l % 4 == 0 ? (sgn ? 0x7ffffff0u : 0xfffffff0u) : rng();
    }
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}, m, false));
    for (int l = 0; l < 64; ++l) {
      int64_t acc = sgn ? int64_t(int32_t(o.vgpr[3][l])) : int64_t(o.vgpr[3][l]);
      int n = 32 / bits;
      for (int k = 0; k < n; ++k) {
        auto get = [&](uint32_t v, int s) -> int64_t {
          uint64_t raw;
          if (bits == 16) {
            int sel = k == 0 ? (m.op_sel >> s) & 1 : (m.op_sel_hi >> s) & 1;
            raw = (v >> (16 * sel)) & 0xffff;
          } else {
            raw = (v >> (bits * k)) & ((1u << bits) - 1);
          }
          if (sgn && (raw >> (bits - 1)) & 1) return int64_t(raw) - (int64_t(1) << bits);
          return int64_t(raw);
        };
        acc += get(o.vgpr[1][l], 0) * get(o.vgpr[2][l], 1);
      }
      if (m.clamp) acc = sgn ? std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX) : std::clamp<int64_t>(acc, 0, UINT32_MAX);
      ASSERT_EQ(w.vgpr[10][l], uint32_t(acc)) << row << " variant " << variant << " lane " << l;
    }
  }
}

ROW_CHECK(dot2f, "v_dot2_f32_f16") {
  std::mt19937 rng(73);
  for (int variant = 0; variant < 4; ++variant) {
    isa::Modifiers m;
    m.op_sel_hi = 7;
    if (variant >= 1) {
      m.op_sel = uint8_t(rng() % 4);
      m.op_sel_hi = uint8_t(4 | rng() % 4);
      m.neg = uint8_t(rng() % 4);
      m.neg_hi = uint8_t(rng() % 4);
    }
    m.clamp = variant == 3;
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = (uint32_t(pick_f16(rng)) << 16) | pick_f16(rng);
      w.vgpr[2][l] = (uint32_t(pick_f16(rng)) << 16) | pick_f16(rng);
      w.vgpr[3][l] = pick_f32(rng);
    }
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10), V(1), V(2), V(3)}, m, false));
    for (int l = 0; l < 64; ++l) {
      q128 p = 0;
      bool nan = false;
      for (int e = 0; e < 2; ++e) {
        q128 x = Q(elem(o.vgpr[1][l], 0, e, m, true)), y = Q(elem(o.vgpr[2][l], 1, e, m, true));
        q128 t = x * y;
        if (t != t) nan = true;
        p += t;  // exact: both products and their sum fit binary128
      }
      q128 c = (q128)fval(o.vgpr[3][l]);
      q128 r = nan || p != p || c != c ? p + c : sum_to_odd(p, c);
      float want = (r != r) ? NAN : (float)r;
      if (m.clamp) want = std::isnan(want) ? 0.0f : std::clamp(want, 0.0f, 1.0f);
      uint32_t got = w.vgpr[10][l];
      ASSERT_TRUE(got == fbits(want) || (std::isnan(fval(got)) && std::isnan(want)) || (m.clamp && want == 0 && fval(got) == 0))
          << row << " variant " << variant << " lane " << l << std::hex << " got " << got << " want " << fbits(want)
          << " srcs " << o.vgpr[1][l] << " " << o.vgpr[2][l] << " " << o.vgpr[3][l];
    }
  }
}

}  // namespace
}  // namespace k100::emu::valu_test
