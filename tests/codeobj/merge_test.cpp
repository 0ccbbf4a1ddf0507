#include "k100/codeobj/merge.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

CodeObject sample(const std::string& origin, const std::string& rename_fill = "fill") {
  CodeObject co = test::make_sample_object(default_target("gfx906"), CodeObjectVersion::V5);
  co.origin = origin;
  for (auto& k : co.kernels)
    if (k.name == "fill") {
      k.name = rename_fill;
      k.meta->name = rename_fill;
      k.meta->symbol = rename_fill + ".kd";
    }
  for (auto& s : co.symbols)
    if (s.name == "fill") s.name = rename_fill;
  return co;
}

CodeObject only_scale(const std::string& origin, uint8_t marker) {
  CodeObject co = sample(origin);
  co.kernels.pop_back();
  co.symbols.erase(co.symbols.begin() + 1);
  co.text.resize(256);
  co.text[12] = marker;  // distinguishes the two definitions' code
  return co;
}

TEST(Merge, CombinesKernelsAndKeepsCodeIntact) {
  std::vector<CodeObject> in = {sample("a.hsaco", "fill_a"), sample("b.hsaco", "fill_b")};
  in[1].kernels[0].name = "scale_b";
  in[1].kernels[0].meta->name = "scale_b";
  in[1].kernels[0].meta->symbol = "scale_b.kd";
  in[1].symbols[0].name = "scale_b";
  CodeObject m = merge_code_objects(in);
  ASSERT_EQ(m.kernels.size(), 4u);
  CodeObject back = read_code_object(write_code_object(m), "merged");
  ASSERT_EQ(back.kernels.size(), 4u);
  for (const auto& k : back.kernels) {
    ASSERT_TRUE(k.meta.has_value()) << k.name;
    EXPECT_EQ(k.meta->name, k.name);
    // Each kernel still starts with its own first instruction.
    const CodeObject& src = k.name.find("_b") != std::string::npos ? in[1] : in[0];
    std::string local = k.name.substr(0, k.name.find('_')) == "scale" ? "scale" : "fill";
    uint64_t off = local == "scale" ? 0 : 256;
    EXPECT_TRUE(std::equal(src.text.begin() + ptrdiff_t(off), src.text.begin() + ptrdiff_t(off) + 4,
                           back.text.begin() + ptrdiff_t(k.code_offset)))
        << k.name;
  }
  EXPECT_EQ(back.metadata.find("amdhsa.kernels")->size(), 4u);
}

TEST(Merge, DuplicateKernelNamesBothOrigins) {
  std::vector<CodeObject> in = {only_scale("first.hsaco", 1), only_scale("second.hsaco", 2)};
  try {
    merge_code_objects(in);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("duplicate kernel 'scale'"), std::string::npos) << m;
    EXPECT_NE(m.find("first.hsaco"), std::string::npos) << m;
    EXPECT_NE(m.find("second.hsaco"), std::string::npos) << m;
  }
}

TEST(Merge, AllowDuplicatesKeepsTheLaterOneAndWarns) {
  std::vector<CodeObject> in = {only_scale("first.hsaco", 1), only_scale("second.hsaco", 2)};
  std::vector<std::string> warnings;
  MergeOptions opt;
  opt.allow_duplicates = true;
  opt.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  CodeObject m = merge_code_objects(in, opt);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("first.hsaco"), std::string::npos);
  EXPECT_NE(warnings[0].find("second.hsaco"), std::string::npos);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.text[m.kernels[0].code_offset + 12], 2);  // the later definition
  EXPECT_EQ(m.metadata.find("amdhsa.kernels")->size(), 1u);
  CodeObject back = read_code_object(write_code_object(m), "merged");
  EXPECT_EQ(back.kernels.size(), 1u);
  EXPECT_TRUE(back.read_info.warnings.empty());
}

TEST(Merge, RejectsMixedTargetsAndVersions) {
  CodeObject a = sample("a.hsaco", "fa");
  CodeObject b = test::make_sample_object(default_target("gfx926"), CodeObjectVersion::V5);
  b.origin = "b.hsaco";
  std::vector<CodeObject> in = {a, b};
  EXPECT_THROW(merge_code_objects(in), Error);
  CodeObject c = test::make_sample_object(default_target("gfx906"), CodeObjectVersion::V4);
  std::vector<CodeObject> in2 = {a, c};
  EXPECT_THROW(merge_code_objects(in2), Error);
  EXPECT_THROW(merge_code_objects(std::vector<CodeObject>{}), Error);
}

TEST(Merge, WeakDataSymbolsAreDeduplicatedLikeALinker) {
  std::vector<CodeObject> in = {sample("a.hsaco", "fa"), sample("b.hsaco", "fb")};
  in[1].kernels[0].name = "scale2";
  in[1].kernels[0].meta->name = "scale2";
  in[1].kernels[0].meta->symbol = "scale2.kd";
  in[1].symbols[0].name = "scale2";
  for (auto& co : in) {
    co.rodata_data = {0, 0};
    co.symbols.push_back({"coord", SymbolSection::Data, 0, 1, SymbolType::Object,
                          SymbolBinding::Weak, SymbolVisibility::Protected});
  }
  CodeObject m = merge_code_objects(in);
  int coords = 0;
  for (const auto& s : m.symbols) coords += s.name == "coord";
  EXPECT_EQ(coords, 1);
  EXPECT_NO_THROW(write_code_object(m));
  in[0].symbols.back().binding = SymbolBinding::Global;  // strong data: may be PC-addressed
  EXPECT_THROW(merge_code_objects(in), Error);
}

}  // namespace
}  // namespace k100::codeobj
