#include <gtest/gtest.h>

#include <cstring>

#include "k100/base/error.h"
#include "k100/codegen/signature.h"

namespace {

using namespace k100::codegen;

const Signature kGemv("gemv", {in("w", "f32"), in("x", "f32"), out("y", "f32"), value("nrows", "u32"),
                               value("k", "u32"), value("scale", "f32")});

TEST(Signature, LayoutIsNaturalAndRoundedToEightWithoutHiddenArguments) {
  EXPECT_EQ(kGemv.offset("w"), 0u);
  EXPECT_EQ(kGemv.offset("y"), 16u);
  EXPECT_EQ(kGemv.offset("k"), 28u);
  EXPECT_EQ(kGemv.kernarg_size(), 40u);  // 36 rounded up to 8
  Signature full("f", {out("y", "f32"), value("n", "i64")}, k100::codeobj::HiddenArgLayout::Full);
  EXPECT_EQ(full.layout().hidden_start, 16u);
  EXPECT_EQ(full.kernarg_size(), 16u + 256u);
}

TEST(Signature, PackChecksCountRangeAndKind) {
  auto argv = kGemv.pack({0x1000u, 0x2000u, 0x3000u, 7, 640, 0.5f});
  ASSERT_EQ(argv.size(), 6u);
  float half = 0.5f;
  uint32_t bits;
  std::memcpy(&bits, &half, 4);
  EXPECT_EQ(argv[5], bits);
  EXPECT_EQ(argv[3], 7u);
  try {
    kGemv.pack({1, 2, 3});
    FAIL();
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("takes 6 arguments, 3 given"), std::string::npos);
  }
  try {
    kGemv.pack({1, 2, 3, -1, 640, 1.0});
    FAIL();
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 3 'nrows' (u32): -1 does not fit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kGemv.pack({1, 2, 3, 4, 2.5, 1.0}), k100::Error);  // a float for k
  Signature s("s", {value("delta", "i32")});
  EXPECT_EQ(s.pack({-2})[0], 0xfffffffeu);
}

TEST(Signature, PrototypeAndDocsRows) {
  EXPECT_EQ(kGemv.c_prototype(),
            "void gemv(const float* w, const float* x, float* y, uint32_t nrows, uint32_t k, float scale);");
  auto rows = kGemv.docs_rows();
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[2], "| 2 | `y` | f32* | 16 | 8 |");
  EXPECT_EQ(rows[4], "| 4 | `k` | u32 | 28 | 4 |");
}

TEST(Signature, ErrorsNameTheKernelAndArgument) {
  try {
    Signature bad("bad_k", {in("a", "f32"), value("a", "u32")});
    FAIL();
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'bad_k' argument 1 'a': the name is used twice"), std::string::npos);
  }
  EXPECT_THROW(Signature("bad_k", {value("n", "u33")}), k100::Error);
  EXPECT_THROW(kGemv.offset("nope"), k100::Error);
}

}  // namespace
