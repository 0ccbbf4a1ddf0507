// Differential test against llvm-mc + ld.lld: objects lld links (v4 with lld-14, v5
// with lld-15) are read and written again; the result must be the same file, byte for
// byte. A second path builds the object from scratch the way k100-as will (text bytes,
// .amdhsa_* settings, YAML metadata) and must also reproduce lld's file.
#include <gtest/gtest.h>

#include "k100/codeobj/descriptor_settings.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

using test::run;

struct Toolchain {
  std::string mc, lld;
  CodeObjectVersion version;
  std::string metadata_version;  // "[ 1, 1 ]" / "[ 1, 2 ]"
};

void PrintTo(const Toolchain& t, std::ostream* os) {
  *os << t.mc << " + " << t.lld;
}

const Toolchain kV4{"llvm-mc-14", "ld.lld-14", CodeObjectVersion::V4, "[ 1, 1 ]"};
const Toolchain kV5{"llvm-mc-15", "ld.lld-15", CodeObjectVersion::V5, "[ 1, 2 ]"};

struct Source {
  const char* name;
  // Assembly with @VERSION@ for the metadata version. Kernel settings are repeated in
  // `settings` so the from-scratch path can compute descriptors.
  const char* text;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, int64_t>>>> settings;
  const char* yaml;
};

const char* kVaddYaml = R"(---
amdhsa.version: @VERSION@
amdhsa.target: amdgcn-amd-amdhsa--gfx906
amdhsa.kernels:
  - .name: vadd
    .symbol: vadd.kd
    .kernarg_segment_size: 28
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 21
    .vgpr_count: 4
    .max_flat_workgroup_size: 256
    .args:
      - { .name: a, .size: 8, .offset: 0,  .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: b, .size: 8, .offset: 8,  .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: c, .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }
      - { .name: count, .size: 4, .offset: 24, .value_kind: by_value }
...
)";

const Source kVadd{"vadd",
                   R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
	.text
	.globl	vadd
	.p2align	8
	.type	vadd,@function
vadd:
	s_load_dword s5, s[0:1], 0x4
	s_load_dwordx4 s[8:11], s[2:3], 0x0
	s_load_dwordx2 s[12:13], s[2:3], 0x10
	s_load_dword s14, s[2:3], 0x18
	s_waitcnt lgkmcnt(0)
	s_and_b32 s5, s5, 0xffff
	s_mul_i32 s5, s5, s4
	v_add_u32 v0, s5, v0
	v_cmp_gt_u32 vcc, s14, v0
	s_and_saveexec_b64 s[6:7], vcc
	s_cbranch_execz .Lend
	v_lshlrev_b32 v1, 2, v0
	global_load_dword v2, v1, s[8:9]
	global_load_dword v3, v1, s[10:11]
	s_waitcnt vmcnt(0)
	v_add_f32 v2, v2, v3
	global_store_dword v1, v2, s[12:13]
.Lend:
	s_endpgm
.Lfunc_end0:
	.size	vadd, .Lfunc_end0-vadd
	.rodata
	.p2align 6
	.amdhsa_kernel vadd
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 28
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 15
		.amdhsa_reserve_vcc 1
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
	.end_amdhsa_kernel
)",
                   {{"vadd",
                     {{"user_sgpr_dispatch_ptr", 1},
                      {"user_sgpr_kernarg_segment_ptr", 1},
                      {"kernarg_size", 28},
                      {"system_sgpr_workgroup_id_x", 1},
                      {"system_vgpr_workitem_id", 0},
                      {"next_free_vgpr", 4},
                      {"next_free_sgpr", 15},
                      {"reserve_vcc", 1},
                      {"group_segment_fixed_size", 0},
                      {"private_segment_fixed_size", 0}}}},
                   kVaddYaml};

// Five kernels (enough for two GNU hash buckets), a local label, kernels without .size.
const Source kMulti{
    "multi",
    R"(	.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
	.text
	.globl zeta
	.p2align 8
	.type zeta,@function
zeta:
	s_endpgm
helper_local:
	s_nop 0
	s_endpgm
.Lfe0:
	.size zeta, .Lfe0-zeta
	.globl alpha
	.p2align 8
	.type alpha,@function
alpha:
	v_add_f32 v0, v1, v2
	s_endpgm
	.globl mid
	.p2align 8
	.type mid,@function
mid:
	v_mov_b32 v7, 1.0
	s_endpgm
	.globl beta
	.p2align 8
	.type beta,@function
beta:
	s_endpgm
	.globl gamma
	.p2align 8
	.type gamma,@function
gamma:
	s_endpgm
	.rodata
	.p2align 6
	.amdhsa_kernel zeta
	.amdhsa_next_free_vgpr 1
	.amdhsa_next_free_sgpr 0
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel alpha
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 0
	.amdhsa_ieee_mode 0
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel mid
	.amdhsa_next_free_vgpr 8
	.amdhsa_next_free_sgpr 20
	.amdhsa_group_segment_fixed_size 4096
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel beta
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 0
	.amdhsa_user_sgpr_private_segment_buffer 1
	.end_amdhsa_kernel
	.p2align 6
	.amdhsa_kernel gamma
	.amdhsa_next_free_vgpr 3
	.amdhsa_next_free_sgpr 0
	.end_amdhsa_kernel
)",
    {{"zeta", {{"next_free_vgpr", 1}, {"next_free_sgpr", 0}}},
     {"alpha", {{"next_free_vgpr", 3}, {"next_free_sgpr", 0}, {"ieee_mode", 0}}},
     {"mid", {{"next_free_vgpr", 8}, {"next_free_sgpr", 20}, {"group_segment_fixed_size", 4096}}},
     {"beta",
      {{"next_free_vgpr", 3}, {"next_free_sgpr", 0}, {"user_sgpr_private_segment_buffer", 1}}},
     {"gamma", {{"next_free_vgpr", 3}, {"next_free_sgpr", 0}}}},
    R"(---
amdhsa.version: @VERSION@
amdhsa.kernels:
  - .name: zeta
    .symbol: zeta.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 0
    .vgpr_count: 1
    .max_flat_workgroup_size: 256
    .fp64_status: 0
  - .name: mid
    .symbol: mid.kd
    .kernarg_segment_size: 0
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 4096
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 26
    .vgpr_count: 8
    .max_flat_workgroup_size: 1024
...
)"};

// 150 kernels (300 dynamic symbols): many GNU hash buckets and bloom words.
Source make_many() {
  static std::string text = [] {
    std::string t = "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n";
    for (int i = 0; i < 150; ++i) {
      std::string n = "_Z6kernelILi" + std::to_string(i) + "EEvPf";
      t += "\t.text\n\t.globl " + n + "\n\t.p2align 8\n\t.type " + n + ",@function\n" + n +
           ":\n\ts_endpgm\n\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel " + n +
           "\n\t.amdhsa_next_free_vgpr " + std::to_string(i % 200) + "\n\t.amdhsa_next_free_sgpr " +
           std::to_string(i % 90) + "\n\t.end_amdhsa_kernel\n";
    }
    return t;
  }();
  Source s{"many",
           text.c_str(),
           {},
           "---\namdhsa.version: @VERSION@\namdhsa.kernels:\n  - .name: _Z6kernelILi0EEvPf\n"
           "    .symbol: _Z6kernelILi0EEvPf.kd\n    .kernarg_segment_size: 8\n"
           "    .kernarg_segment_align: 8\n    .group_segment_fixed_size: 0\n"
           "    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n    .sgpr_count: 6\n"
           "    .vgpr_count: 0\n    .max_flat_workgroup_size: 256\n...\n"};
  for (int i = 0; i < 150; ++i)
    s.settings.push_back({"_Z6kernelILi" + std::to_string(i) + "EEvPf",
                          {{"next_free_vgpr", i % 200}, {"next_free_sgpr", i % 90}}});
  return s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

class LldDifferential : public ::testing::TestWithParam<Toolchain> {
 protected:
  void SetUp() override {
    for (const auto& t : {GetParam().mc, GetParam().lld})
      if (!test::have_tool(t))
        K100_ORACLE_MISSING(std::string(t) + " not found; install llvm/lld to run this oracle");
  }

  // Assembles and links `src`; returns lld's bytes.
  std::vector<uint8_t> build_with_lld(const Source& src, test::TempDir& dir) {
    const Toolchain& tc = GetParam();
    std::string yaml = replace_all(src.yaml, "@VERSION@", tc.metadata_version);
    std::string text =
        std::string(src.text) + "\t.amdgpu_metadata\n" + yaml + "\t.end_amdgpu_metadata\n";
    test::write_text(dir.file("k.s"), text);
    std::vector<std::string> mc = {tc.mc,          "-triple=amdgcn-amd-amdhsa",
                                   "-mcpu=gfx906", "-filetype=obj",
                                   "-o",           dir.file("k.o"),
                                   dir.file("k.s")};
    if (tc.version == CodeObjectVersion::V5) mc.push_back("--amdhsa-code-object-version=5");
    auto r = run(mc);
    EXPECT_EQ(r.rc, 0) << r.err;
    r = run({tc.lld, "-shared", "-o", dir.file("k.hsaco"), dir.file("k.o")});
    EXPECT_EQ(r.rc, 0) << r.err;
    return test::read_bytes(dir.file("k.hsaco"));
  }
};

TEST_P(LldDifferential, RewritingLldOutputGivesTheSameBytes) {
  static const Source many = make_many();
  for (const Source* src : {&kVadd, &kMulti, &many}) {
    SCOPED_TRACE(src->name);
    test::TempDir dir;
    std::vector<uint8_t> lld = build_with_lld(*src, dir);
    CodeObject co = read_code_object(lld, src->name);
    EXPECT_TRUE(co.read_info.unsupported.empty());
    EXPECT_EQ(co.version, GetParam().version);
    std::vector<uint8_t> ours = write_code_object(co);
    ASSERT_EQ(ours.size(), lld.size());
    for (size_t i = 0; i < lld.size(); ++i)
      ASSERT_EQ(ours[i], lld[i]) << "first difference at byte offset " << i;
  }
}

TEST_P(LldDifferential, FromScratchMatchesLld) {
  const Toolchain& tc = GetParam();
  static const Source many = make_many();
  for (const Source* src : {&kVadd, &kMulti, &many}) {
    SCOPED_TRACE(src->name);
    test::TempDir dir;
    std::vector<uint8_t> lld = build_with_lld(*src, dir);
    CodeObject linked = read_code_object(lld, src->name);

    // What k100-as will have: the assembled .text, the symbols it defined, the
    // .amdhsa_kernel settings, and the YAML metadata block.
    CodeObject co;
    co.origin = src->name;
    co.target = default_target("gfx906");
    co.version = tc.version;
    co.text = linked.text;
    co.symbols = linked.symbols;
    co.comment = linked.comment;  // only the linker's signature differs otherwise
    // llvm-mc orders symbols by creation; with each .amdhsa_kernel right after its
    // function (as in "many") that interleaves NAME and NAME.kd, which the assembler
    // reproduces through symbol_order. The other sources use the default order.
    if (src == &many) co.symbol_order = linked.symbol_order;
    for (const auto& [name, directives] : src->settings) {
      DescriptorSettings s;
      for (const auto& [key, value] : directives) set_amdhsa_directive(s, key, value, co.target);
      Kernel k;
      k.name = name;
      k.descriptor = compute_descriptor(s, co.target);
      const Kernel* lk = linked.find_kernel(name);
      ASSERT_NE(lk, nullptr);
      k.code_offset = lk->code_offset;
      co.kernels.push_back(k);
    }
    co.metadata =
        parse_metadata_yaml(replace_all(src->yaml, "@VERSION@", tc.metadata_version), src->name);
    std::vector<uint8_t> ours = write_code_object(co);
    ASSERT_EQ(ours.size(), lld.size());
    for (size_t i = 0; i < lld.size(); ++i)
      ASSERT_EQ(ours[i], lld[i]) << "first difference at byte offset " << i;

    // And the reader sees the same kernels in both.
    CodeObject again = read_code_object(ours, "ours");
    ASSERT_EQ(again.kernels.size(), linked.kernels.size());
    for (size_t i = 0; i < again.kernels.size(); ++i) {
      EXPECT_EQ(again.kernels[i].descriptor, linked.kernels[i].descriptor);
      EXPECT_EQ(again.kernels[i].meta, linked.kernels[i].meta);
    }
    EXPECT_EQ(again.metadata, linked.metadata);
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, LldDifferential, ::testing::Values(kV4, kV5),
                         [](const auto& info) {
                           return info.param.version == CodeObjectVersion::V4 ? "v4_lld14"
                                                                              : "v5_lld15";
                         });

}  // namespace
}  // namespace k100::codeobj
