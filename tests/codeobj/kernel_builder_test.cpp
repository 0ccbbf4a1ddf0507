#include "k100/codeobj/kernel_builder.h"

#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

ExplicitArg buffer(const char* name) {
  ExplicitArg a;
  a.name = name;
  a.kind = ValueKind::GlobalBuffer;
  a.size = 8;
  return a;
}

std::string error_of(const KernelSpec& spec) {
  try {
    build_kernel(spec, default_target("gfx906"), CodeObjectVersion::V5);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(KernelBuilder, FillsLayoutDescriptorAndMetadataConsistently) {
  Target t = default_target("gfx926");
  KernelSpec spec;
  spec.name = "copy";
  set_amdhsa_directive(spec.settings, "user_sgpr_kernarg_segment_ptr", 1, t);
  spec.args = {buffer("src"), buffer("dst")};
  spec.layout.hidden = HiddenArgLayout::Full;
  spec.usage = RegisterUsage{5, 12};
  Kernel k = build_kernel(spec, t, CodeObjectVersion::V5);
  ASSERT_TRUE(k.meta.has_value());
  EXPECT_EQ(k.meta->kernarg_segment_size, 16u + 256u);
  EXPECT_EQ(k.descriptor.kernarg_size, 272u);
  EXPECT_EQ(k.meta->vgpr_count, 6u);
  EXPECT_EQ(k.meta->sgpr_count, 13u + 6u);  // next_free_sgpr 13 + VCC/FLAT_SCRATCH/XNACK
  EXPECT_EQ(rsrc2::kUserSgprCount.get(k.descriptor.compute_pgm_rsrc2), 2u);
  EXPECT_EQ(k.meta->symbol, "copy.kd");
  // gfx926 documents carry the vendor key.
  MetaNode doc = make_metadata_document(CodeObjectVersion::V5, t, {*k.meta});
  EXPECT_NE(doc.find("amdhsa.kernels")->items()[0].find(".fp64_status"), nullptr);
}

TEST(KernelBuilder, RejectsCountsThatDisagreeWithTheCode) {
  KernelSpec small_kernarg;
  small_kernarg.name = "k";
  small_kernarg.args = {buffer("a"), buffer("b")};
  small_kernarg.layout.hidden = HiddenArgLayout::None;
  set_amdhsa_directive(small_kernarg.settings, "kernarg_size", 8, default_target("gfx906"));
  set_amdhsa_directive(small_kernarg.settings, "next_free_vgpr", 1, default_target("gfx906"));
  set_amdhsa_directive(small_kernarg.settings, "next_free_sgpr", 1, default_target("gfx906"));
  EXPECT_NE(
      error_of(small_kernarg).find("kernel 'k': .amdhsa_kernarg_size 8 is smaller than the 16"),
      std::string::npos);

  KernelSpec few_vgprs;
  few_vgprs.name = "v";
  set_amdhsa_directive(few_vgprs.settings, "next_free_vgpr", 4, default_target("gfx906"));
  few_vgprs.usage = RegisterUsage{7, 0};
  EXPECT_NE(error_of(few_vgprs).find("the code uses v7"), std::string::npos);

  KernelSpec no_counts;
  no_counts.name = "n";
  EXPECT_NE(error_of(no_counts).find("kernel 'n': missing .amdhsa_next_free_vgpr"),
            std::string::npos);
}

TEST(KernelBuilder, SyncMetadataRebuildsTheKernelList) {
  CodeObject co = test::make_sample_object(default_target("gfx906"), CodeObjectVersion::V5);
  co = read_code_object(write_code_object(co), "x");
  co.metadata.set("amdhsa.printf", MetaNode::array({MetaNode::string("1:1:4:%d")}));
  co.kernels[0].meta->max_flat_workgroup_size = 64;
  sync_metadata(co);
  CodeObject back = read_code_object(write_code_object(co), "y");
  EXPECT_EQ(back.find_kernel("scale")->meta->max_flat_workgroup_size, 64u);
  EXPECT_NE(back.metadata.find("amdhsa.printf"), nullptr);
}

}  // namespace
}  // namespace k100::codeobj
