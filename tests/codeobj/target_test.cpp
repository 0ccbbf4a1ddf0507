#include "k100/codeobj/target.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using FS = FeatureSetting;
constexpr auto V3 = CodeObjectVersion::V3;
constexpr auto V4 = CodeObjectVersion::V4;
constexpr auto V5 = CodeObjectVersion::V5;

TEST(Target, DefaultsComeFromTheTable) {
  Target g906 = default_target("gfx906");
  EXPECT_EQ(g906.id(), "amdgcn-amd-amdhsa--gfx906");
  EXPECT_EQ(e_flags_for(g906, V4), 0x52Fu);
  EXPECT_EQ(e_flags_for(g906, V5), 0x52Fu);
  Target g926 = default_target("gfx926");
  EXPECT_EQ(g926.id(), "amdgcn-amd-amdhsa--gfx926:sramecc+");
  EXPECT_EQ(e_flags_for(g926, V5), 0xD81u);
  EXPECT_THROW(default_target("gfx1234"), Error);
}

TEST(Target, E_flagsForEveryFeatureCombination) {
  // Values from ORACLES.md §2 (llvm-mc -mattr=...).
  struct Case {
    const char* id;
    uint32_t flags;
  } cases[] = {{"gfx906", 0x52F},
               {"gfx906:xnack-", 0x62F},
               {"gfx906:xnack+", 0x72F},
               {"gfx906:sramecc+", 0xD2F},
               {"gfx906:sramecc-", 0x92F},
               {"gfx906:sramecc-:xnack-", 0xA2F},
               {"gfx906:sramecc+:xnack+", 0xF2F}};
  for (const auto& c : cases) {
    Target t = parse_target_id(c.id);
    EXPECT_EQ(e_flags_for(t, V4), c.flags) << c.id;
    EXPECT_EQ(target_from_e_flags(c.flags, V4), t) << c.id;
    EXPECT_EQ(t.name(), c.id);
    EXPECT_EQ(parse_target_id(t.id()), t);
  }
  EXPECT_EQ(target_from_e_flags(0xD81, V5), default_target("gfx926"));
}

TEST(Target, CodeObjectV3Flags) {
  EXPECT_EQ(target_from_e_flags(0x32F, V3).name(), "gfx906:sramecc+:xnack+");
  EXPECT_EQ(target_from_e_flags(0x22F, V3).name(), "gfx906:sramecc+:xnack-");
  EXPECT_EQ(target_from_e_flags(0x02F, V3).name(), "gfx906:sramecc-:xnack-");
  EXPECT_EQ(e_flags_for(parse_target_id("gfx906:sramecc+:xnack+"), V3), 0x32Fu);
  EXPECT_THROW(e_flags_for(default_target("gfx906"), V3), Error);  // "any" is not v3
  Target v3 = parse_target_id("amdgcn-amd-amdhsa--gfx906+xnack+sram-ecc");
  EXPECT_EQ(v3.xnack, FS::On);
  EXPECT_EQ(v3.sramecc, FS::On);
  EXPECT_EQ(parse_target_id("gfx906+xnack").sramecc, FS::Off);
}

TEST(Target, ParseErrorsNameTheText) {
  auto msg = [](const char* text) {
    try {
      parse_target_id(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("gfx999").find("unknown processor 'gfx999'"), std::string::npos);
  EXPECT_NE(msg("gfx906:foo+").find("unknown feature 'foo'"), std::string::npos);
  EXPECT_NE(msg("gfx906:xnack").find("must end in '+' or '-'"), std::string::npos);
  EXPECT_NE(msg("gfx906:xnack+:xnack-").find("more than once"), std::string::npos);
  EXPECT_NE(msg("gfx900:sramecc+").find("has no sramecc"), std::string::npos);
  EXPECT_NE(msg("x86_64-linux--gfx906").find("expected the triple"), std::string::npos);
}

TEST(Target, UnknownMachIsReadableButNotWritable) {
  Target t = target_from_e_flags(0x57e, V5);
  EXPECT_EQ(t.processor, "mach-0x7e");
  EXPECT_THROW(e_flags_for(t, V5), Error);
  EXPECT_THROW(target_from_e_flags(0x52C | 0x400, V4), Error);  // gfx900 has no sramecc
}

TEST(Target, OtherProcessorsAreNamedAndRefused) {
  EXPECT_EQ(target_from_e_flags(0x36, V4).processor, "gfx1030");
  EXPECT_EQ(target_from_e_flags(0x41, V5).processor, "gfx1100");
  EXPECT_EQ(target_from_e_flags(0x530, V4).processor, "gfx908");
  EXPECT_TRUE(is_toolkit_target(default_target("gfx906")));
  EXPECT_TRUE(is_toolkit_target(parse_target_id("gfx926:sramecc-:xnack+")));
  for (const char* id : {"gfx900", "gfx908", "gfx90a", "gfx1030", "gfx1100", "mach-0x7e"}) {
    Target t;
    t.processor = id;
    EXPECT_FALSE(is_toolkit_target(t)) << id;
    try {
      require_toolkit_target(t, "x.hsaco");
      ADD_FAILURE() << id << " accepted";
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find(std::string("x.hsaco: a code object for ") + id), std::string::npos) << m;
      EXPECT_NE(m.find("gfx906 and gfx926"), std::string::npos) << m;
    }
  }
}

TEST(Target, CombinedTargetTreatsAnyAsLlvmDoes) {
  Target plain = parse_target_id("gfx926:xnack-");  // sramecc not given: any
  auto t = combined_target(plain, default_target("gfx926"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->name(), "gfx926:sramecc+:xnack-");
  EXPECT_EQ(combined_target(default_target("gfx906"), default_target("gfx906"))->name(), "gfx906");
  EXPECT_FALSE(combined_target(parse_target_id("gfx906:xnack+"), parse_target_id("gfx906:xnack-")));
  EXPECT_FALSE(combined_target(default_target("gfx906"), default_target("gfx926")));
}

TEST(Target, VersionsAndAbi) {
  EXPECT_EQ(abi_version(V4), 2);
  EXPECT_EQ(abi_version(V5), 3);
  EXPECT_EQ(version_from_abi(1), V3);
  EXPECT_THROW(version_from_abi(0), Error);
  EXPECT_THROW(version_from_abi(4), Error);
  EXPECT_EQ(metadata_version(V4), std::make_pair(1, 1));
  EXPECT_EQ(metadata_version(V5), std::make_pair(1, 2));
}

}  // namespace
}  // namespace k100::codeobj
