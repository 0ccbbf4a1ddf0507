// The 24 GGUF kernels of the catalog specification (KERNELS.md sections 3.3
// and 3.4) as registered: lookup names, argument names, types and kernarg
// offsets in order, kernarg sizes and hidden-argument layouts, written down
// here as the specification's tables give them. (tests/kernels/
// declaration_test checks the package's catalog entries against the same
// declarations.)
#include <gtest/gtest.h>

#include <sstream>

#include "k100/kernels/registry.h"

namespace k100::kernels {
namespace {

struct SpecEntry {
  const char* lookup;
  const char* args;  // "name:type@offset, ..." in order
  uint32_t kernarg_size;
  bool compact_hidden = false;
};

#define K100_DOT_HEAD \
  "w:const u8*@0, x:const f32*@8, partial:f32*@16, nblocks:u32@24, group_size:u32@28, nbpr:u32@32, magic_nbpr:u32@36, " \
  "rows_per_exp:u32@40, magic_rpe:u32@44, "
#define K100_DOT_TAIL "ids:const u32*@48, stride:u32@56, rows_per_w:u32@60, magic_rpw:u32@64"
#define K100_DEQUANT "w:const u8*@0, y:f32*@8, nblocks:u32@16, group_size:u32@20"

const SpecEntry kSpec[] = {
    {"iq2s_dot_k", K100_DOT_HEAD "grid:const u64*@48, ids:const u32*@56, stride:u32@64, rows_per_w:u32@68, magic_rpw:u32@72", 80},
    {"iq3s_dot_k", K100_DOT_HEAD "grid:const u32*@48, ids:const u32*@56, stride:u32@64, rows_per_w:u32@68, magic_rpw:u32@72", 80},
    {"iq3xxs_dot_k",
     K100_DOT_HEAD "grid:const u32*@48, ksigns:const u8*@56, ids:const u32*@64, stride:u32@72, rows_per_w:u32@76, magic_rpw:u32@80",
     88},
    {"iq4nl_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"iq4xs_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q2_0_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q4_0_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q4k_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q5k_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q6k_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"q8_0_dot_k", K100_DOT_HEAD K100_DOT_TAIL, 72},
    {"reduce_blocks_k", "partial:const f32*@0, y:f32*@8, nrows:u32@16, nbpr:u32@20", 24},
    {"iq4nl_dequant_k", K100_DEQUANT, 24},
    {"iq4xs_dequant_k", K100_DEQUANT, 24},
    {"q2_0_dequant_k", K100_DEQUANT, 24},
    {"q4_0_dequant_k", K100_DEQUANT, 24},
    {"q8_0_dequant_k", K100_DEQUANT, 24},
    {"iq2s_dequant_k", "w:const u8*@0, y:f32*@8, grid:const u64*@16, nblocks:u32@24, group_size:u32@28", 32},
    {"iq3s_dequant_k", "w:const u8*@0, y:f32*@8, grid:const u32*@16, nblocks:u32@24, group_size:u32@28", 32},
    {"iq3xxs_dequant_k",
     "w:const u8*@0, y:f32*@8, grid:const u32*@16, ksigns:const u8*@24, nblocks:u32@32, group_size:u32@36", 40},
    {"iq4nl_to_i8_k", "w:const u8*@0, out:i8*@8, scale:f32*@16, nblocks:u32@24, group_size:u32@28", 32},
    {"q4k_dequant", "w:const u8*@0, y:f32*@8, nblocks:u32@16", 80, true},
    {"q5k_dequant", "w:const u8*@0, y:f32*@8, nblocks:u32@16", 80, true},
    {"q6k_dequant", "w:const u8*@0, y:f32*@8, nblocks:u32@16", 80, true},
};

class GgufCatalog : public ::testing::TestWithParam<SpecEntry> {};

TEST_P(GgufCatalog, KernelIsRegisteredAsSpecified) {
  const SpecEntry& s = GetParam();
  const KernelDef* d = registry().find(s.lookup);
  ASSERT_NE(d, nullptr) << s.lookup << " is not registered";
  ASSERT_TRUE(d->signature.has_value()) << s.lookup;
  EXPECT_EQ(d->family, "gguf") << s.lookup;
  const codegen::Signature& sig = *d->signature;
  std::istringstream in(s.args);
  std::string item;
  size_t i = 0;
  while (std::getline(in >> std::ws, item, ',')) {
    const size_t colon = item.find(':'), at = item.rfind('@');
    ASSERT_LT(i, sig.params().size()) << s.lookup << ": fewer arguments than specified";
    const codegen::Param& p = sig.params()[i];
    EXPECT_EQ(p.name, item.substr(0, colon)) << s.lookup << " argument " << i;
    EXPECT_EQ(p.type, item.substr(colon + 1, at - colon - 1)) << s.lookup << " argument " << p.name;
    EXPECT_EQ(sig.offset(p.name), std::stoul(item.substr(at + 1))) << s.lookup << " argument " << p.name;
    ++i;
  }
  EXPECT_EQ(i, sig.params().size()) << s.lookup << ": more arguments than specified";
  EXPECT_EQ(sig.kernarg_size(), s.kernarg_size) << s.lookup;
  EXPECT_EQ(sig.hidden() == codeobj::HiddenArgLayout::Compact, s.compact_hidden) << s.lookup;
  if (s.compact_hidden) {
    EXPECT_EQ(sig.layout().hidden_start, 24u) << s.lookup;
  }
  EXPECT_FALSE(d->description.empty() || d->semantics.empty() || d->geometry.empty()) << s.lookup;
}

std::string entry_name(const ::testing::TestParamInfo<SpecEntry>& info) { return info.param.lookup; }

INSTANTIATE_TEST_SUITE_P(Spec, GgufCatalog, ::testing::ValuesIn(kSpec), entry_name);

}  // namespace
}  // namespace k100::kernels
