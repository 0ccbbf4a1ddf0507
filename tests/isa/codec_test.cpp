#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "k100/isa/codec.h"

namespace k100::isa {
namespace {

std::vector<uint8_t> bytes_of(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// Encodings from llvm-mc-14 for gfx906 (the list in ../shared/ORACLES.md).
TEST(Codec, DecodesPrintsAndReencodesKnownEncodings) {
  struct K {
    const char* hex;
    const char* text;
  } k[] = {
      {"010080be", "s_mov_b32 s0, s1"},
      {"c101febe", "s_mov_b64 exec, -1"},
      {"01020080", "s_add_u32 s0, s1, s2"},
      {"01ff809208000800", "s_bfe_u32 s0, s1, 0x80008"},
      {"341200b0", "s_movk_i32 s0, 0x1234"},
      {"01f880b8", "s_getreg_b32 s0, hwreg(HW_REG_MODE)"},
      {"000081bf", "s_endpgm"},
      {"050082bf", "s_branch 5"},
      {"70008cbf", "s_waitcnt vmcnt(0) lgkmcnt(0)"},
      {"000002c000000000", "s_load_dword s0, s[0:1], 0x0"},
      {"02000ac010000000", "s_load_dwordx4 s[0:3], s[4:5], 0x10"},
      {"0103007e", "v_mov_b32_e32 v0, v1"},
      {"f202007e", "v_mov_b32_e32 v0, 1.0"},
      {"ff020002db0f4940", "v_add_f32_e32 v0, 0x40490fdb, v1"},
      {"01050032", "v_add_co_u32_e32 v0, vcc, v1, v2"},
      {"0000cad000030200", "v_cmp_eq_u32_e64 s[0:1], v0, v1"},
      {"000019d101050200", "v_add_co_u32_e64 v0, s[0:1], v1, v2"},
      {"0082cbd101050e24", "v_fma_f32 v0, -v1, |v2|, v3 clamp"},
      {"00408ed301050e1c", "v_pk_fma_f16 v0, v1, v2, v3"},
      {"0040aad301050e1c", "v_dot8_i32_i4 v0, v1, v2, v3"},
      {"fa02007e01b100ff", "v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"},
      {"00016ed802000000", "ds_read2_b32 v[0:1], v2 offset1:1"},
      {"1f407ad801000000", "ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)"},
      {"001050e001000080", "buffer_load_dword v0, v1, s[0:3], 0 offen"},
      {"008050dc00007f00", "global_load_dword v0, v[0:1], off"},
      {"f89f50dc00007f00", "global_load_dword v0, v[0:1], off offset:-8"},
      {"084050dc00000000", "scratch_load_dword v0, off, s0 offset:8"},
  };
  int checked = 0;
  for (const auto& c : k) {
    std::string h = c.hex;
    h.erase(std::remove(h.begin(), h.end(), ' '), h.end());
    if (!*c.text) continue;
    auto b = bytes_of(h);
    Decoded dec = decode(b);
    ASSERT_TRUE(dec.ok) << c.hex;
    EXPECT_EQ(dec.size, b.size()) << c.text;
    EXPECT_EQ(print(dec.inst), c.text) << c.hex;
    std::vector<uint8_t> re;
    encode(dec.inst, re);
    EXPECT_EQ(re, b) << c.text;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(Codec, UndecodableWordIsReported) {
  std::vector<uint8_t> b = bytes_of("ffffffff");
  EXPECT_FALSE(decode(b).ok);
}

}  // namespace
}  // namespace k100::isa
