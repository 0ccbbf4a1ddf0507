// Code objects from assembly: descriptors, compact arguments, register counts,
// and the errors for directives and metadata that disagree with the code.
#include <gtest/gtest.h>

#include "k100/asm/object_builder.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"

namespace k100::as {
namespace {

const char* kKernel = R"(
  .text
  .globl scale
  .p2align 8
  .type scale,@function
scale:
  s_load_dwordx2 s[0:1], s[4:5], 0x0
  s_load_dword s2, s[4:5], 0x8
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[0:1]
  s_waitcnt vmcnt(0)
  v_mul_f32_e32 v2, s2, v2
  global_store_dword v1, v2, s[0:1]
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel scale
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .k100_arg x, global_buffer, f32*, read_write
    .k100_arg s, by_value, f32
    .k100_hidden_args compact
  .end_amdhsa_kernel
)";

std::optional<codeobj::CodeObject> build(const std::string& src, DiagnosticSink& d, int version = 5) {
  Options o;
  o.target = isa::Target::gfx926;
  o.code_object_version = version;
  return assemble_code_object(src, "k.s", o, d);
}

TEST(ObjectBuilder, CompactArgumentsAndRegisterCountsFromTheCode) {
  DiagnosticSink d;
  auto co = build(kKernel, d);
  ASSERT_TRUE(co) << d.format_all();
  ASSERT_EQ(co->kernels.size(), 1u);
  const auto& k = co->kernels[0];
  ASSERT_TRUE(k.meta);
  EXPECT_EQ(k.meta->args.size(), 2u + 13u);  // x, s and the compact hidden block (13 entries)
  EXPECT_EQ(k.meta->args[0].offset, 0u);
  EXPECT_EQ(k.meta->args[0].size, 8u);
  EXPECT_EQ(k.meta->args[1].offset, 8u);
  EXPECT_EQ(k.meta->args[2].offset, 16u);    // hidden block at H = 16
  EXPECT_EQ(k.meta->kernarg_segment_size, 16u + 56u);
  EXPECT_EQ(k.meta->args[0].type_name, "f32*");
  EXPECT_EQ(k.meta->args[1].type_name, "f32");
  EXPECT_GE(k.meta->vgpr_count, 3u);         // v0..v2 used
  EXPECT_EQ(co->target.id(), "amdgcn-amd-amdhsa--gfx926:sramecc+");
  // the written object reads back with the same kernel
  auto bytes = codeobj::write_code_object(*co);
  auto back = codeobj::read_code_object(bytes, "k.hsaco");
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].descriptor.kernarg_size, 72u);
  // same input, same bytes
  DiagnosticSink d2;
  auto again = build(kKernel, d2);
  ASSERT_TRUE(again);
  EXPECT_EQ(codeobj::write_code_object(*again), bytes);
}

TEST(ObjectBuilder, CompactArgumentTypesKeepTheirSpaces) {
  std::string src = kKernel;
  src.replace(src.find("f32*, read_write"), 16, "const f32 *, read_only");
  DiagnosticSink d;
  auto co = build(src, d);
  ASSERT_TRUE(co) << d.format_all();
  EXPECT_EQ(co->kernels[0].meta->args[0].type_name, "const f32 *");
  EXPECT_EQ(co->kernels[0].meta->args[0].access, codeobj::parse_access("read_only"));
}

TEST(ObjectBuilder, UnknownDirectiveKeyIsNamedWithLocation) {
  std::string src = kKernel;
  src.replace(src.find(".amdhsa_user_sgpr_kernarg_segment_ptr 1"), 39, ".amdhsa_user_sgpr_kernarg_segmnt_ptr 1");
  DiagnosticSink d;
  EXPECT_FALSE(build(src, d));
  std::string t = d.format_all();
  EXPECT_NE(t.find("k.s:20:5: error: unknown .amdhsa_kernel directive"), std::string::npos) << t;
  EXPECT_NE(t.find(".amdhsa_user_sgpr_kernarg_segment_ptr"), std::string::npos) << t;  // the suggestion
}

TEST(ObjectBuilder, BadArgumentDeclarations) {
  std::string src = kKernel;
  src.replace(src.find("f32*, read_write"), 16, "f33*, read_wrte");
  src.replace(src.find("by_value, f32"), 13, "by_valu, f32");
  DiagnosticSink d;
  EXPECT_FALSE(build(src, d));
  std::string t = d.format_all();
  EXPECT_NE(t.find("argument 'x'"), std::string::npos) << t;
  EXPECT_NE(t.find("access 'read_wrte'"), std::string::npos) << t;
  EXPECT_NE(t.find("value kind 'by_valu'"), std::string::npos) << t;
}

TEST(ObjectBuilder, KernargSizeAndRegisterCountsSmallerThanNeeded) {
  std::string src = kKernel;
  src.replace(src.find("    .k100_hidden_args compact\n"), 30,
              "    .k100_hidden_args compact\n    .amdhsa_kernarg_size 8\n    .amdhsa_next_free_vgpr 2\n");
  DiagnosticSink d;
  EXPECT_FALSE(build(src, d));
  std::string t = d.format_all();
  EXPECT_NE(t.find("scale"), std::string::npos) << t;
  EXPECT_TRUE(t.find("kernarg") != std::string::npos || t.find("VGPR") != std::string::npos) << t;
}

TEST(ObjectBuilder, MetadataThatDisagreesWithTheCode) {
  std::string src = R"(
  .amdgcn_target "amdgcn-amd-amdhsa--gfx906"
  .text
  .globl k
  .p2align 8
k:
  v_mov_b32 v7, s20
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel k
    .amdhsa_next_free_vgpr 8
    .amdhsa_next_free_sgpr 24
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 4
    .vgpr_count: 2
    .max_flat_workgroup_size: 256
    .args:
      - { .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }
...
  .end_amdgpu_metadata
)";
  DiagnosticSink d;
  EXPECT_FALSE(build(src, d));
  std::string t = d.format_all();
  EXPECT_NE(t.find("kernarg_segment_size 8 is smaller than its arguments (16 bytes)"), std::string::npos) << t;
  EXPECT_NE(t.find(".vgpr_count 2 is smaller than the VGPRs its code uses (8)"), std::string::npos) << t;
  EXPECT_NE(t.find(".sgpr_count 4 is smaller than the SGPRs its code uses (21)"), std::string::npos) << t;
  EXPECT_NE(t.find("k.s:15:"), std::string::npos) << t;
}

TEST(ObjectBuilder, KernelWithoutCodeAndMalformedBlocks) {
  DiagnosticSink d;
  EXPECT_FALSE(build(".rodata\n.amdhsa_kernel ghost\n.end_amdhsa_kernel\n", d));
  EXPECT_NE(d.format_all().find("kernel 'ghost' has no label in .text"), std::string::npos) << d.format_all();
  DiagnosticSink d2;
  EXPECT_FALSE(build(".amdhsa_kernel open\n  s_nop 0\n", d2));
  std::string t = d2.format_all();
  EXPECT_NE(t.find("instructions are not allowed inside .amdhsa_kernel"), std::string::npos) << t;
  EXPECT_NE(t.find("missing .end_amdhsa_kernel"), std::string::npos) << t;
}

}  // namespace
}  // namespace k100::as
