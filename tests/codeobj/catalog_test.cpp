#include "k100/codeobj/catalog.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "k100/base/error.h"
#include "k100/codeobj/demangle.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

TEST(Demangle, FunctionNamesWithTemplateArguments) {
  struct Case {
    const char* mangled;
    const char* name;    // c++filt's spelling, without return type and parameters
    const char* lookup;  // catalog lookup
  } cases[] = {
      {"_Z9gemv_w4a8ILi1ELb1ELi1EEvPKvS1_Pfiii", "gemv_w4a8<1, true, 1>", "gemv_w4a8<1,true,1>"},
      {"_Z10nvfp4_gemvILi2ELi1EEvPKv", "nvfp4_gemv<2, 1>", "nvfp4_gemv<2,1>"},
      {"_Z6gdn_k2ILi32EEvPf", "gdn_k2<32>", "gdn_k2<32>"},
      {"_Z2tkILi1ELb1EEvPKfPfj", "tk<1, true>", "tk<1,true>"},
      {"_Z1fIN2ns1AILi1EEEEvv", "f<ns::A<1> >", "f<ns::A<1>>"},
      {"_ZN2ns3fooIPKfLj3ELin2EEEvT_", "ns::foo<float const*, 3u, -2>",
       "ns::foo<floatconst*,3u,-2>"},
      {"_ZL6staticv", "static", "static"},
      {"_Z3fooIJLi1ELi2EEEvv", "foo<1, 2>", "foo<1,2>"},
      {"_Z3barIfLb0EEvPT_", "bar<float, false>", "bar<float,false>"},
      {"_ZN5outer5innerIcE3runIsEEvv", "outer::inner<char>::run<short>",
       "outer::inner<char>::run<short>"},
      {"_Z4testILl5ELm6ELx7ELy8ELs9ELt10ELa11ELh12ELc65EEvv",
       "test<5l, 6ul, 7ll, 8ull, (short)9, (unsigned short)10, (signed char)11, (unsigned char)12, "
       "(char)65>",
       "test<5l,6ul,7ll,8ull,(short)9,(unsignedshort)10,(signedchar)11,(unsignedchar)12,(char)65>"},
      {"_Z3bazIPKcS1_EvT_", "baz<char const*, char const*>", "baz<charconst*,charconst*>"},
      {"_Z8rmsnormfPfi", "rmsnormf", "rmsnormf"},
  };
  for (const auto& c : cases) {
    auto d = demangle_function_name(c.mangled);
    ASSERT_TRUE(d.has_value()) << c.mangled;
    EXPECT_EQ(*d, c.name);
    EXPECT_EQ(lookup_name(c.mangled), c.lookup);
  }
  EXPECT_EQ(lookup_name("fill_k"), "fill_k");
  EXPECT_EQ(lookup_name("_Z"), "_Z");  // not decodable: unchanged
  EXPECT_EQ(lookup_name("_Z3fooIXadL_Z3barEEEvv"), "_Z3fooIXadL_Z3barEEEvv");
  EXPECT_FALSE(demangle_function_name("_Z999x").has_value());
  EXPECT_FALSE(demangle_function_name("_Z3fooIS9_EEvv").has_value());
}

TEST(Demangle, NeverCrashesOnGarbage) {
  std::string s = "_ZN";
  for (int i = 0; i < 2000; ++i) {
    s.push_back("NEIJLSKPRO0123456789_abcijvZ"[(i * 7919) % 28]);
    (void)lookup_name(s);
  }
}

CodeObject catalog_object() {
  CodeObject co = test::make_sample_object(default_target("gfx926"), CodeObjectVersion::V5);
  // Rename "fill" to a mangled template kernel to exercise lookup and sorting.
  std::string mangled = "_Z9gemv_w4a8ILi1ELb1ELi1EEvPKvS1_Pfiii";
  co.kernels[1].name = mangled;
  co.kernels[1].meta->name = mangled;
  co.kernels[1].meta->symbol = mangled + ".kd";
  co.symbols[1].name = mangled;
  return co;
}

TEST(Catalog, JsonFollowsThePythonApiFormat) {
  CodeObject co = catalog_object();
  auto entries = make_catalog(co);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "_Z9gemv_w4a8ILi1ELb1ELi1EEvPKvS1_Pfiii");  // sorted by name
  EXPECT_EQ(entries[0].lookup, "gemv_w4a8<1,true,1>");
  auto j = nlohmann::json::parse(catalog_json(entries));
  EXPECT_EQ(j["version"], 1);
  const auto& scale = j["kernels"][1];
  EXPECT_EQ(scale["name"], "scale");
  EXPECT_EQ(scale["lookup"], "scale");
  EXPECT_EQ(scale["kernarg_size"], 80);  // compact layout: H = 24, size H + 56
  EXPECT_EQ(scale["args"][0]["name"], "in");
  EXPECT_EQ(scale["args"][0]["off"], 0);
  EXPECT_EQ(scale["args"][0]["kind"], "global_buffer");
  EXPECT_EQ(scale["args"][3]["kind"], "hidden_block_count_x");
  EXPECT_EQ(scale["args"][3]["off"], 24);
  EXPECT_FALSE(scale["args"][3].contains("name"));
  EXPECT_EQ(j["kernels"][0]["group_segment"], 1024);
  EXPECT_TRUE(scale.contains("sgpr_count"));
  EXPECT_TRUE(scale.contains("vgpr_count"));
  // Key order as in the spec.
  std::string text = catalog_json(entries);
  EXPECT_LT(text.find("\"name\""), text.find("\"lookup\""));
  EXPECT_LT(text.find("\"kernarg_size\""), text.find("\"group_segment\""));
}

TEST(Catalog, HeaderCompilesAndHasTheTable) {
  auto entries = make_catalog(catalog_object());
  std::string h = catalog_header(entries, "sample.hsaco");
  EXPECT_NE(h.find("#define MAX_KERNARG 1024"), std::string::npos);
  EXPECT_NE(h.find("{\"_Z9gemv_w4a8ILi1ELb1ELi1EEvPKvS1_Pfiii\", \"gemv_w4a8<1,true,1>\", 0,"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("{24, 4, 1}"), std::string::npos);   // hidden_block_count_x
  EXPECT_NE(h.find("{72, 2, 13}"), std::string::npos);  // hidden_grid_dims (compact: H + 48)
  EXPECT_NE(h.find("k_table_n = 2;"), std::string::npos);
  EXPECT_EQ(kind_code("by_value"), 0);
  EXPECT_EQ(kind_code("hidden_remainder_z"), 9);
  EXPECT_EQ(kind_code("hidden_grid_dims"), 13);
  if (!test::have_tool("gcc") || !test::have_tool("g++")) K100_ORACLE_MISSING("gcc / g++ not found: the generated header cannot be compiled");
  test::TempDir dir;
  test::write_text(dir.file("k.h"), h);
  test::write_text(dir.file("use.c"),
                   "#include \"k.h\"\nint main(void) { return k_table[1].args[3].kind == 1 && "
                   "k_table_n == 2 ? 0 : 1; }\n");
  for (const char* cc : {"gcc", "g++"}) {
    std::vector<std::string> cmd = {cc,   "-Wall",         "-Werror",
                                    "-o", dir.file("use"), dir.file("use.c")};
    if (std::string(cc) == "g++") cmd.insert(cmd.begin() + 1, {"-x", "c++"});
    auto r = test::run(cmd);
    ASSERT_EQ(r.rc, 0) << cc << ": " << r.err;
    EXPECT_EQ(test::run({dir.file("use")}).rc, 0) << cc;
  }
}

TEST(Catalog, OversizedKernargIsRejectedForTheHeader) {
  auto entries = make_catalog(catalog_object());
  entries[1].kernarg_size = 2000;
  EXPECT_THROW(catalog_header(entries, "x"), Error);
}

TEST(Catalog, ToolWritesJsonAndHeader) {
  std::string tool = std::string(K100_TOOLS_BIN) + "/k100-catalog";
  ASSERT_TRUE(test::have_tool(tool)) << tool << " is not built";
  test::TempDir dir;
  test::write_bytes(dir.file("k.hsaco"), write_code_object(catalog_object()));
  auto r =
      test::run({tool, dir.file("k.hsaco"), "-o", dir.file("c.json"), "--header", dir.file("k.h")});
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(test::read_bytes(dir.file("c.json")));
  EXPECT_EQ(j["kernels"].size(), 2u);
  EXPECT_FALSE(test::read_bytes(dir.file("k.h")).empty());
  auto bad = test::run({tool, dir.file("missing.hsaco")});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("missing.hsaco': No such file or directory"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace k100::codeobj
