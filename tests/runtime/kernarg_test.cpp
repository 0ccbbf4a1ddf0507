// Kernarg packing: explicit slots (low `size` bytes), hidden values per kind
// with their own widths, zero for unknown kinds, and the errors.
#include "k100/runtime/kernarg.h"

#include <gtest/gtest.h>

#include <cstring>

#include "k100/runtime/error.h"

namespace k100::runtime {
namespace {

template <class T>
T at(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

// The "full" (HIP) hidden layout after 9 explicit arguments ending at 60.
std::vector<LayoutEntry> hip_layout() {
  std::vector<LayoutEntry> l;
  for (uint32_t i = 0; i < 7; ++i) l.push_back({i * 8, 8, kExplicit});
  l.push_back({56, 4, kExplicit});
  l.push_back({60, 4, kExplicit});  // ends at 64 below, H = 64
  l.push_back({64, 4, kBlockCountX});
  l.push_back({68, 4, kBlockCountY});
  l.push_back({72, 4, kBlockCountZ});
  l.push_back({76, 2, kGroupSizeX});
  l.push_back({78, 2, kGroupSizeY});
  l.push_back({80, 2, kGroupSizeZ});
  l.push_back({82, 2, kRemainderX});
  l.push_back({84, 2, kRemainderY});
  l.push_back({86, 2, kRemainderZ});
  l.push_back({104, 8, kGlobalOffsetX});
  l.push_back({112, 8, kGlobalOffsetY});
  l.push_back({120, 8, kGlobalOffsetZ});
  l.push_back({128, 2, kGridDims});
  l.push_back({136, 8, kHostcallBuffer});
  l.push_back({144, 8, kQueuePtr});
  l.push_back({152, 2, kDynamicLdsSize});
  return l;
}

TEST(Kernarg, ExplicitSlotsAndHiddenValues) {
  auto layout = hip_layout();
  std::vector<uint64_t> argv = {0x1111,        0x2222, 0x3333, 0x4444,
                                0x5555,        0x6666, 0x7777, 0xffffffff00000005ull,
                                f32_arg(-2.0f)};
  Geometry g{{7, 3, 2}, {64, 2, 1}, 512};
  auto b = pack_kernarg(layout, 320, argv, g, "k");
  ASSERT_EQ(b.size(), 320u);
  EXPECT_EQ(at<uint64_t>(b, 8), 0x2222u);
  EXPECT_EQ(at<uint32_t>(b, 56), 5u);  // only the low 4 bytes of the slot
  float f;
  std::memcpy(&f, b.data() + 60, 4);
  EXPECT_EQ(f, -2.0f);
  EXPECT_EQ(at<uint32_t>(b, 64), 7u);
  EXPECT_EQ(at<uint32_t>(b, 68), 3u);
  EXPECT_EQ(at<uint32_t>(b, 72), 2u);
  EXPECT_EQ(at<uint16_t>(b, 76), 64u);
  EXPECT_EQ(at<uint16_t>(b, 78), 2u);
  EXPECT_EQ(at<uint16_t>(b, 80), 1u);
  EXPECT_EQ(at<uint16_t>(b, 82), 0u);
  EXPECT_EQ(at<uint64_t>(b, 104), 0u);
  EXPECT_EQ(at<uint16_t>(b, 128), 3u);  // z has 2 work-items
  EXPECT_EQ(at<uint64_t>(b, 136), 0u);  // unknown to the runtime: zero
  EXPECT_EQ(at<uint64_t>(b, 144), 0u);  // the backend did not say
  EXPECT_EQ(at<uint16_t>(b, 152), 512u);
  for (size_t i = 154; i < 320; ++i) ASSERT_EQ(b[i], 0) << i;
  BackendHidden extra{0xabcdef, 1, 2, true};
  auto c = pack_kernarg(layout, 320, argv, g, "k", extra);
  EXPECT_EQ(at<uint64_t>(c, 144), 0xabcdefu);
}

TEST(Kernarg, GridDimsFollowTheWorkItemGrid) {
  EXPECT_EQ((Geometry{{5, 1, 1}, {64, 1, 1}}.dims()), 1u);
  EXPECT_EQ((Geometry{{5, 2, 1}, {64, 1, 1}}.dims()), 2u);
  EXPECT_EQ((Geometry{{5, 1, 1}, {8, 8, 1}}.dims()),
            2u);  // one workgroup row, but 8 work-items in y
  EXPECT_EQ((Geometry{{1, 1, 2}, {64, 1, 1}}.dims()), 3u);
  Geometry g{{3, 4, 5}, {16, 2, 2}};
  EXPECT_EQ(g.grid_items(), (Dim3{48, 8, 10}));
}

TEST(Kernarg, Errors) {
  std::vector<LayoutEntry> l = {{0, 8, kExplicit}, {8, 4, kExplicit}, {16, 4, kBlockCountX}};
  Geometry g{{1, 1, 1}, {64, 1, 1}};
  try {
    pack_kernarg(l, 24, std::vector<uint64_t>{1}, g, "gemv");
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.code(), ErrorCode::WrongArgCount);
    EXPECT_STREQ(e.what(), "kernel 'gemv' takes 2 explicit arguments, 1 given");
  }
  try {
    pack_kernarg(l, 2000, std::vector<uint64_t>{1, 2}, g, "big");
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.code(), ErrorCode::KernargTooBig);
  }
  std::vector<LayoutEntry> wide = {{0, 16, kExplicit}};
  EXPECT_THROW(pack_kernarg(wide, 16, std::vector<uint64_t>{1}, g, "w"), RuntimeError);
  std::vector<LayoutEntry> bad = {{0, 8, kGridDims}, {8, 8, kExplicit}};
  EXPECT_THROW(explicit_count(bad, "b"), RuntimeError);
  EXPECT_THROW(check_geometry(Geometry{{1, 1, 1}, {1025, 1, 1}}, "k"), RuntimeError);
  EXPECT_THROW(check_geometry(Geometry{{0x1000000, 1, 1}, {1024, 1, 1}}, "k"),
               RuntimeError);  // 2^34 work-items
  EXPECT_NO_THROW(check_geometry(Geometry{{0x3fffff, 1, 1}, {1024, 1, 1}}, "k"));
}

}  // namespace
}  // namespace k100::runtime
