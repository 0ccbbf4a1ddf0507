// The writer's output checked by LLVM's own tools: llvm-readelf parses it without a
// warning, llvm-objdump disassembles the code we put in, and (gfx906) the metadata
// llvm-readelf prints is exactly our document.
#include "k100/codeobj/writer.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

struct Case {
  const char* label;
  const char* processor;
  CodeObjectVersion version;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.label;
}

class WriterOracle : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    for (const char* t : {"llvm-readelf-14", "llvm-objdump-14"})
      if (!test::have_tool(t)) K100_ORACLE_MISSING(std::string(t) + " not found; install llvm to run this oracle");
  }
};

TEST_P(WriterOracle, ReadelfParsesWithoutWarnings) {
  const Case& c = GetParam();
  Target target = default_target(c.processor);
  CodeObject co = test::make_sample_object(target, c.version);
  std::vector<uint8_t> bytes = write_code_object(co);
  test::TempDir dir;
  std::string path = dir.file("k.hsaco");
  test::write_bytes(path, bytes);
  for (const char* readelf : {"llvm-readelf-14", "llvm-readelf-15"}) {
    if (!test::have_tool(readelf)) continue;
    auto r = test::run({readelf, "-h", "-l", "-S", "-s", "--dyn-syms", "-n", "-d", path});
    EXPECT_EQ(r.rc, 0) << readelf;
    EXPECT_EQ(r.err, "") << readelf;
    EXPECT_NE(r.out.find("OS/ABI:                            40"), std::string::npos);
    std::string abi = "ABI Version:                       " +
                      std::to_string(c.version == CodeObjectVersion::V5 ? 3 : 2);
    EXPECT_NE(r.out.find(abi), std::string::npos) << r.out;
    char flags[64];
    std::snprintf(flags, sizeof flags, "Flags:                             0x%X",
                  e_flags_for(target, c.version));
    EXPECT_NE(r.out.find(flags), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FUNC    GLOBAL PROTECTED   7 scale"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("OBJECT  GLOBAL DEFAULT     6 fill.kd"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("NT_AMDGPU_METADATA"), std::string::npos);
    if (std::string(c.processor) == "gfx906") {
      std::string yaml = test::readelf_metadata_yaml(r.out);
      EXPECT_EQ(yaml, to_yaml(make_metadata_document(c.version, target,
                                                     {*co.kernels[0].meta, *co.kernels[1].meta})));
    } else {
      EXPECT_NE(r.out.find(".fp64_status:    0"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("amdhsa.target:   'amdgcn-amd-amdhsa--gfx926:sramecc+'"),
                std::string::npos);
    }
  }
  if (std::string(c.processor) == "gfx906") {
    auto d = test::run({"llvm-objdump-14", "-d", path});
    EXPECT_EQ(d.rc, 0);
    EXPECT_EQ(d.err, "");
    EXPECT_NE(d.out.find("<scale>:"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("s_mov_b32 s0, s1"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("v_add_f32_e32 v0, v1, v2"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<fill>:"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("s_endpgm"), std::string::npos) << d.out;
  }
}

TEST_P(WriterOracle, ReaderGetsBackWhatWasWritten) {
  const Case& c = GetParam();
  CodeObject co = test::make_sample_object(default_target(c.processor), c.version);
  std::vector<uint8_t> bytes = write_code_object(co);
  CodeObject back = read_code_object(bytes, "back");
  EXPECT_EQ(back.target, co.target);
  EXPECT_EQ(back.version, co.version);
  EXPECT_EQ(back.text, co.text);
  EXPECT_TRUE(back.read_info.warnings.empty());
  ASSERT_EQ(back.kernels.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    KernelDescriptor want = co.kernels[i].descriptor;
    KernelDescriptor got = back.kernels[i].descriptor;
    got.kernel_code_entry_byte_offset = 0;
    EXPECT_EQ(got, want);
    EXPECT_EQ(back.kernels[i].code_offset, co.kernels[i].code_offset);
    EXPECT_EQ(back.kernels[i].code_size, co.kernels[i].code_size);
  }
  auto fill_code = back.kernel_code(back.kernels[1]);
  EXPECT_EQ(std::vector<uint8_t>(fill_code.begin(), fill_code.end()), test::encoding_s_endpgm());
  EXPECT_EQ(back.kernels[0].meta->args, co.kernels[0].meta->args);
  // Same bytes again, and again after a read/write cycle.
  EXPECT_EQ(write_code_object(co), bytes);
  EXPECT_EQ(write_code_object(back), bytes);
}

INSTANTIATE_TEST_SUITE_P(Targets, WriterOracle,
                         ::testing::Values(Case{"gfx906_v5", "gfx906", CodeObjectVersion::V5},
                                           Case{"gfx906_v4", "gfx906", CodeObjectVersion::V4},
                                           Case{"gfx926_v5", "gfx926", CodeObjectVersion::V5},
                                           Case{"gfx926_v4", "gfx926", CodeObjectVersion::V4}),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(Writer, SameInputGivesSameBytes) {
  CodeObject a = test::make_sample_object(default_target("gfx926"), CodeObjectVersion::V5);
  CodeObject b = test::make_sample_object(default_target("gfx926"), CodeObjectVersion::V5);
  std::vector<uint8_t> x = write_code_object(a), y = write_code_object(b);
  EXPECT_EQ(x, y);
  std::vector<uint8_t> h = x;  // header identity the vendor loader accepts (ORACLES §2)
  EXPECT_EQ(h[7], 64);
  EXPECT_EQ(h[8], 3);
  EXPECT_EQ(uint32_t(h[48]) | uint32_t(h[49]) << 8, 0xD81u);
}

TEST(Writer, RejectsInconsistentInput) {
  auto err = [](CodeObject co) {
    try {
      write_code_object(co);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CodeObject base = test::make_sample_object(default_target("gfx906"), CodeObjectVersion::V5);
  CodeObject c1 = base;
  c1.kernels[1].code_offset = 4096;
  EXPECT_NE(err(c1).find("kernel 'fill': entry offset 4096 is outside .text"), std::string::npos);
  CodeObject c2 = base;
  c2.kernels[1].name = "scale";
  EXPECT_NE(err(c2).find("duplicate kernel 'scale'"), std::string::npos);
  CodeObject c3 = base;
  c3.symbols.push_back({"scale.kd", SymbolSection::Text, 0, 0});
  EXPECT_NE(err(c3).find("duplicate symbol 'scale.kd'"), std::string::npos);
  CodeObject c4 = base;
  c4.target.processor = "gfx1100";
  EXPECT_NE(err(c4).find("processor 'gfx1100' is not one k100lc writes code for"), std::string::npos);
  c4.target.processor = "gfx999";
  EXPECT_NE(err(c4).find("unknown processor"), std::string::npos);
  CodeObject c5 = base;
  c5.kernels[0].meta.reset();
  EXPECT_NE(err(c5).find("kernel 'scale' has no metadata"), std::string::npos);
  CodeObject c6 = base;
  c6.read_info.unsupported.push_back("section .data (16 bytes)");
  EXPECT_NE(err(c6).find("cannot be re-written: section .data"), std::string::npos);
  CodeObject c7 = base;
  c7.text.clear();
  EXPECT_NE(err(c7).find(".text is empty"), std::string::npos);
}

}  // namespace
}  // namespace k100::codeobj
