// The C++ kernel builder produces what the assembler produces for the same program.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "k100/asm/builder.h"
#include "k100/asm/object_builder.h"
#include "k100/base/error.h"

namespace k100::as {
namespace {

TEST(KernelBuilder, SameBytesAsTheAssemblerForExampleVadd) {
  KernelBuilder b("vadd");
  b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
  b.s_load_dwordx2(s(12, 2), s(4, 2), 0x10);
  b.s_load_dword(s(14), s(4, 2), 0x18);
  b.s_lshl_b32(s(15), s(6), 6);
  b.v_add_u32(v(0), s(15), v(0));
  b.s_waitcnt(waitcnt(63, 7, 0));
  b.v_cmp_gt_u32(vcc, s(14), v(0));
  b.s_and_saveexec_b64(s(16, 2), vcc);
  Label done = b.label("done");
  b.s_cbranch_execz(done);
  b.v_lshlrev_b32(v(1), 2, v(0));
  b.global_load_dword(v(2), v(1), s(8, 2));
  b.global_load_dword(v(3), v(1), s(10, 2));
  b.s_waitcnt(waitcnt(0));
  b.v_add_f32(v(2), v(2), v(3));
  b.global_store_dword(v(1), v(2), s(12, 2));
  b.bind(done);
  b.s_endpgm();
  b.setting(".amdhsa_user_sgpr_private_segment_buffer", 1)
      .setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1)
      .setting(".amdhsa_system_sgpr_workgroup_id_x", 1)
      .arg("a", "global_buffer", "const f32*", "read_only")
      .arg("b", "global_buffer", "const f32*", "read_only")
      .arg("c", "global_buffer", "f32*", "write_only")
      .arg("count", "by_value", "u32");

  std::ifstream f(std::string(K100_SOURCE_DIR) + "/examples/vadd.s");
  std::stringstream ss;
  ss << f.rdbuf();
  DiagnosticSink d;
  auto co = assemble_code_object(ss.str(), "vadd.s", Options{}, d);
  ASSERT_TRUE(co) << d.format_all();
  auto built = b.code_object();
  EXPECT_EQ(built.text, co->text);
  ASSERT_EQ(built.kernels.size(), 1u);
  EXPECT_EQ(built.kernels[0].descriptor.compute_pgm_rsrc1, co->kernels[0].descriptor.compute_pgm_rsrc1);
  EXPECT_EQ(built.kernels[0].descriptor.compute_pgm_rsrc2, co->kernels[0].descriptor.compute_pgm_rsrc2);
  EXPECT_EQ(built.kernels[0].descriptor.kernarg_size, 28u);
  EXPECT_NE(b.assembly().find("s_cbranch_execz .Ldone_0"), std::string::npos) << b.assembly();
}

TEST(KernelBuilder, ModifiersSourceModifiersAndConstants) {
  KernelBuilder b("mods");
  b.v_fma_f32(v(0), neg(v(1)), abs(v(2)), v(3), clamp(), mul(2));
  b.v_add_f32(v(4), 0.5, v(5));
  b.v_mul_f32(v(6), 1.5f, v(7));                     // a literal
  b.v_add_u32(v(8), v(9), v(10), row_shr(1), bound_ctrl());  // promoted to DPP
  b.ds_read2_b32(v(0, 2), v(1), offset1(4), offset0(1));  // any order
  b.s_endpgm();
  std::string text = b.assembly();
  EXPECT_NE(text.find("v_fma_f32 v0, -v1, |v2|, v3 clamp mul:2"), std::string::npos) << text;
  EXPECT_NE(text.find("v_add_f32_e32 v4, 0.5, v5"), std::string::npos) << text;
  EXPECT_NE(text.find("v_mul_f32_e32 v6, 0x3fc00000, v7"), std::string::npos) << text;
  EXPECT_NE(text.find("row_shr:1"), std::string::npos) << text;
  EXPECT_NE(text.find("ds_read2_b32 v[0:1], v1 offset0:1 offset1:4"), std::string::npos) << text;
}

TEST(KernelBuilder, ErrorsNameKernelAndInstruction) {
  KernelBuilder b("bad");
  b.s_nop(0);
  try {
    b.v_mad_f32(v(0), v(1), v(2), 0x12345678);  // literal in VOP3
    FAIL() << "accepted a literal in VOP3";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kernel 'bad', instruction 1 (v_mad_f32)"), std::string::npos) << m;
    EXPECT_NE(m.find("literal"), std::string::npos) << m;
  }
  Label never = b.label();
  b.s_branch(never);
  EXPECT_THROW(b.code(), Error);
}

}  // namespace
}  // namespace k100::as
