#include "k100/codeobj/arg_layout.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

ExplicitArg ptr(const char* name) {
  ExplicitArg a;
  a.name = name;
  a.kind = ValueKind::GlobalBuffer;
  a.size = 8;
  return a;
}
ExplicitArg val(const char* name, uint32_t size) {
  ExplicitArg a;
  a.name = name;
  a.size = size;
  return a;
}

using Offsets = std::vector<std::tuple<uint32_t, uint32_t, ValueKind>>;
Offsets hidden_of(const ArgLayout& l) {
  Offsets o;
  for (const auto& a : l.args)
    if (is_hidden(a.value_kind)) o.push_back({a.offset, a.size, a.value_kind});
  return o;
}

TEST(ArgLayout, V5FullMatchesClangAtO2) {
  // ORACLES.md §4: in @0, out @8, count @16 -> H = 24, kernarg 280.
  std::vector<ExplicitArg> args = {ptr("in"), ptr("out"), val("count", 4)};
  ArgLayout l = layout_kernel_args(args, CodeObjectVersion::V5,
                                   {HiddenArgLayout::Full, /*runtime_pointers=*/true});
  EXPECT_EQ(l.args[2].offset, 16u);
  EXPECT_EQ(l.hidden_start, 24u);
  EXPECT_EQ(l.kernarg_segment_size, 280u);
  EXPECT_EQ(l.kernarg_segment_align, 8u);
  using V = ValueKind;
  Offsets want = {{24, 4, V::HiddenBlockCountX},       {28, 4, V::HiddenBlockCountY},
                  {32, 4, V::HiddenBlockCountZ},       {36, 2, V::HiddenGroupSizeX},
                  {38, 2, V::HiddenGroupSizeY},        {40, 2, V::HiddenGroupSizeZ},
                  {42, 2, V::HiddenRemainderX},        {44, 2, V::HiddenRemainderY},
                  {46, 2, V::HiddenRemainderZ},        {64, 8, V::HiddenGlobalOffsetX},
                  {72, 8, V::HiddenGlobalOffsetY},     {80, 8, V::HiddenGlobalOffsetZ},
                  {88, 2, V::HiddenGridDims},          {104, 8, V::HiddenHostcallBuffer},
                  {112, 8, V::HiddenMultigridSyncArg}, {120, 8, V::HiddenHeapV1},
                  {224, 8, V::HiddenQueuePtr}};
  EXPECT_EQ(hidden_of(l), want);
  EXPECT_EQ(l.args.back().address_space, AddressSpace::Global);
}

TEST(ArgLayout, FullWithoutPointersIsTheCatalogsHipLayout) {
  // PYTHON_API.md §9: explicit args ending at byte 60 -> H = 64, grid dims at 128.
  std::vector<ExplicitArg> args;
  for (int i = 0; i < 7; ++i) args.push_back(ptr("p"));
  args.push_back(val("a", 4));
  args.push_back(val("b", 4));
  ArgLayout l = layout_kernel_args(args, CodeObjectVersion::V5, {HiddenArgLayout::Full});
  EXPECT_EQ(l.explicit_end, 64u);  // 7*8 + 4 + 4
  std::vector<ExplicitArg> args2(args.begin(), args.end() - 1);
  ArgLayout l2 = layout_kernel_args(args2, CodeObjectVersion::V5, {HiddenArgLayout::Full});
  EXPECT_EQ(l2.explicit_end, 60u);
  EXPECT_EQ(l2.hidden_start, 64u);
  Offsets h = hidden_of(l2);
  ASSERT_EQ(h.size(), 13u);
  EXPECT_EQ(std::get<0>(h[0]), 64u);
  EXPECT_EQ(std::get<0>(h[3]), 76u);
  EXPECT_EQ(std::get<0>(h[6]), 82u);
  EXPECT_EQ(std::get<0>(h[9]), 104u);
  EXPECT_EQ(std::get<0>(h[12]), 128u);
  EXPECT_EQ(l2.kernarg_segment_size, 64u + 256u);
}

TEST(ArgLayout, V4FullMatchesClang) {
  std::vector<ExplicitArg> args = {ptr("in"), ptr("out"), val("count", 4)};
  ArgLayout plain = layout_kernel_args(args, CodeObjectVersion::V4, {HiddenArgLayout::Full});
  using V = ValueKind;
  Offsets want = {{24, 8, V::HiddenGlobalOffsetX}, {32, 8, V::HiddenGlobalOffsetY},
                  {40, 8, V::HiddenGlobalOffsetZ}, {48, 8, V::HiddenNone},
                  {56, 8, V::HiddenNone},          {64, 8, V::HiddenNone},
                  {72, 8, V::HiddenNone}};
  EXPECT_EQ(hidden_of(plain), want);  // OpenCL -O2 (ORACLES §3)
  EXPECT_EQ(plain.kernarg_segment_size, 80u);
  ArgLayout ptrs = layout_kernel_args(args, CodeObjectVersion::V4, {HiddenArgLayout::Full, true});
  Offsets want2 = {{24, 8, V::HiddenGlobalOffsetX},
                   {32, 8, V::HiddenGlobalOffsetY},
                   {40, 8, V::HiddenGlobalOffsetZ},
                   {48, 8, V::HiddenHostcallBuffer},
                   {56, 8, V::HiddenNone},
                   {64, 8, V::HiddenNone},
                   {72, 8, V::HiddenMultigridSyncArg}};
  EXPECT_EQ(hidden_of(ptrs), want2);  // HIP -O0 (ORACLES §4)
}

TEST(ArgLayout, CompactIsTheDslLayout) {
  // DSL.md §2.1: three pointers plus one u32 end at 28, H = 32, G = 56, kernarg 88.
  std::vector<ExplicitArg> args = {ptr("a"), ptr("b"), ptr("c"), val("n", 4)};
  ArgLayout l = layout_kernel_args(args, CodeObjectVersion::V5, {HiddenArgLayout::Compact});
  EXPECT_EQ(l.hidden_start, 32u);
  EXPECT_EQ(l.kernarg_segment_size, 88u);
  Offsets h = hidden_of(l);
  ASSERT_EQ(h.size(), 13u);
  EXPECT_EQ(h[9], std::make_tuple(56u, 8u, ValueKind::HiddenGlobalOffsetX));
  EXPECT_EQ(h[12], std::make_tuple(80u, 2u, ValueKind::HiddenGridDims));
  // The DSL clamp_scale example: n@16, lo@20, hi@24, k@28, hidden block at 32, size 88.
  std::vector<ExplicitArg> cs = {ptr("src"),   ptr("dst"),   val("n", 4),
                                 val("lo", 4), val("hi", 4), val("k", 4)};
  ArgLayout l2 = layout_kernel_args(cs, CodeObjectVersion::V5, {HiddenArgLayout::Compact});
  EXPECT_EQ(l2.args[5].offset, 28u);
  EXPECT_EQ(l2.kernarg_segment_size, 88u);
}

TEST(ArgLayout, NoneAndNaturalAlignment) {
  std::vector<ExplicitArg> args = {val("c", 1), val("s", 2), val("i", 4),
                                   val("l", 8), ptr("p"),    val("tail", 4)};
  ArgLayout l = layout_kernel_args(args, CodeObjectVersion::V5, {HiddenArgLayout::None});
  std::vector<uint32_t> offs;
  for (const auto& a : l.args) offs.push_back(a.offset);
  EXPECT_EQ(offs, (std::vector<uint32_t>{0, 2, 4, 8, 16, 24}));
  EXPECT_EQ(l.kernarg_segment_size, 28u);
  EXPECT_EQ(l.kernarg_segment_align, 8u);
  ArgLayout r =
      layout_kernel_args(args, CodeObjectVersion::V5, {HiddenArgLayout::None, false, true});
  EXPECT_EQ(r.kernarg_segment_size, 32u);
  EXPECT_EQ(l.args[4].address_space, AddressSpace::Global);
  ExplicitArg bad = val("h", 4);
  bad.kind = ValueKind::HiddenGridDims;
  EXPECT_THROW(layout_kernel_args(std::vector<ExplicitArg>{bad}, CodeObjectVersion::V5), Error);
  ExplicitArg odd = val("o", 4);
  odd.align = 3;
  EXPECT_THROW(layout_kernel_args(std::vector<ExplicitArg>{odd}, CodeObjectVersion::V5), Error);
}

}  // namespace
}  // namespace k100::codeobj
