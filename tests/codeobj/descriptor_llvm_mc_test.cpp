// Differential test of compute_descriptor() against llvm-mc: hundreds of random
// `.amdhsa_*` combinations (plus the boundary cases) are assembled into tiny
// `s_endpgm` kernels, linked with ld.lld, read back with our reader, and every
// descriptor must equal what compute_descriptor() makes of the same settings.
// Invalid settings must be rejected by both.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "k100/base/error.h"
#include "k100/codeobj/descriptor_settings.h"
#include "k100/codeobj/reader.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

using Directives = std::vector<std::pair<std::string, int64_t>>;

struct Config {
  const char* label;
  std::string mc, lld;
  std::string mattr;      // "" or e.g. "-xnack"
  std::string target_id;  // for .amdgcn_target and our Target
  bool v5;
  int kernels;
};

const Config kConfigs[] = {
    {"gfx906_any_v4", "llvm-mc-14", "ld.lld-14", "", "amdgcn-amd-amdhsa--gfx906", false, 160},
    {"gfx906_xnack_off_v4", "llvm-mc-14", "ld.lld-14", "-xnack", "amdgcn-amd-amdhsa--gfx906:xnack-",
     false, 80},
    {"gfx906_xnack_on_sramecc_on_v4", "llvm-mc-14", "ld.lld-14", "+xnack,+sramecc",
     "amdgcn-amd-amdhsa--gfx906:sramecc+:xnack+", false, 60},
    {"gfx906_any_v5", "llvm-mc-15", "ld.lld-15", "", "amdgcn-amd-amdhsa--gfx906", true, 80},
};

void PrintTo(const Config& c, std::ostream* os) {
  *os << c.label;
}

struct Range {
  const char* key;
  int64_t max;
};

// Every GFX9 directive with the largest value it accepts.
const Range kRanges[] = {
    {"group_segment_fixed_size", 0xffffffff},
    {"private_segment_fixed_size", 0xffffffff},
    {"kernarg_size", 0xffffffff},
    {"user_sgpr_private_segment_buffer", 1},
    {"user_sgpr_dispatch_ptr", 1},
    {"user_sgpr_queue_ptr", 1},
    {"user_sgpr_kernarg_segment_ptr", 1},
    {"user_sgpr_dispatch_id", 1},
    {"user_sgpr_flat_scratch_init", 1},
    {"user_sgpr_private_segment_size", 1},
    {"system_sgpr_private_segment_wavefront_offset", 1},
    {"system_sgpr_workgroup_id_x", 1},
    {"system_sgpr_workgroup_id_y", 1},
    {"system_sgpr_workgroup_id_z", 1},
    {"system_sgpr_workgroup_info", 1},
    {"system_vgpr_workitem_id", 3},
    {"reserve_vcc", 1},
    {"reserve_flat_scratch", 1},
    {"float_round_mode_32", 3},
    {"float_round_mode_16_64", 3},
    {"float_denorm_mode_32", 3},
    {"float_denorm_mode_16_64", 3},
    {"dx10_clamp", 1},
    {"ieee_mode", 1},
    {"fp16_overflow", 1},
    {"exception_fp_ieee_invalid_op", 1},
    {"exception_fp_denorm_src", 1},
    {"exception_fp_ieee_div_zero", 1},
    {"exception_fp_ieee_overflow", 1},
    {"exception_fp_ieee_underflow", 1},
    {"exception_fp_ieee_inexact", 1},
    {"exception_int_div_zero", 1},
};

std::string kernel_asm(const std::string& name, const Directives& d) {
  std::ostringstream s;
  s << "\t.text\n\t.globl " << name << "\n\t.p2align 8\n\t.type " << name << ",@function\n"
    << name << ":\n\ts_endpgm\n\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel " << name << "\n";
  for (const auto& [k, v] : d) s << "\t\t.amdhsa_" << k << " " << v << "\n";
  s << "\t.end_amdhsa_kernel\n";
  return s.str();
}

std::vector<std::string> mc_command(const Config& c, const std::string& in,
                                    const std::string& out) {
  std::vector<std::string> cmd = {
      c.mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx906", "-filetype=obj", "-o", out, in};
  if (!c.mattr.empty()) cmd.push_back("-mattr=" + c.mattr);
  if (c.v5) cmd.push_back("--amdhsa-code-object-version=5");
  return cmd;
}

Directives random_directives(std::mt19937& rng, const Target& target, bool v5) {
  Directives d;
  auto pick = [&](uint64_t n) { return static_cast<int64_t>(rng() % n); };
  for (const auto& r : kRanges) {
    if (pick(100) >= 35) continue;
    int64_t v;
    if (r.max == 0xffffffff)
      v = pick(4) == 0 ? int64_t(rng()) : pick(65536);
    else
      v = pick(uint64_t(r.max) + 1);
    d.push_back({r.key, v});
  }
  if (pick(3) == 0) {
    bool xnack = target.xnack == FeatureSetting::Any || target.xnack == FeatureSetting::On;
    d.push_back({"reserve_xnack_mask", xnack ? 1 : 0});
  }
  if (v5 && pick(2) == 0) d.push_back({"uses_dynamic_stack", pick(2)});
  // Register counts: often small, sometimes at the limits.
  int64_t vgpr = pick(5) == 0 ? 256 - pick(4) : pick(257);
  int64_t sgpr = pick(5) == 0 ? 102 - pick(4) : pick(103);
  d.push_back({"next_free_vgpr", vgpr});
  d.push_back({"next_free_sgpr", sgpr});
  std::shuffle(d.begin(), d.end(), rng);
  if (pick(4) == 0) {
    // An explicit user SGPR count at or above the implied one.
    DescriptorSettings probe;
    for (const auto& [k, v] : d) set_amdhsa_directive(probe, k, v, target);
    uint32_t implied = implied_user_sgpr_count(probe);
    d.push_back({"user_sgpr_count", implied + pick(32 - implied)});
  }
  return d;
}

class DescriptorVsLlvmMc : public ::testing::TestWithParam<Config> {
 protected:
  void SetUp() override {
    for (const auto& t : {GetParam().mc, GetParam().lld})
      if (!test::have_tool(t))
        K100_ORACLE_MISSING(std::string(t) + " not found; install llvm/lld to run this oracle");
  }
};

TEST_P(DescriptorVsLlvmMc, RandomCombinationsMatch) {
  const Config& c = GetParam();
  Target target = parse_target_id(c.target_id);
  std::mt19937 rng(0x6b313030u + unsigned(c.kernels));
  std::vector<Directives> all;
  // Fixed cases first: defaults only, every flag on, the largest register counts.
  all.push_back({{"next_free_vgpr", 0}, {"next_free_sgpr", 0}});
  Directives every;
  for (const auto& r : kRanges) every.push_back({r.key, r.max == 0xffffffff ? 0x12345 : r.max});
  every.push_back({"next_free_vgpr", 256});
  every.push_back({"next_free_sgpr", 102});
  all.push_back(every);
  all.push_back({{"next_free_vgpr", 5},
                 {"next_free_sgpr", 9},
                 {"reserve_vcc", 0},
                 {"reserve_flat_scratch", 0}});
  all.push_back({{"next_free_vgpr", 4}, {"next_free_sgpr", 17}, {"reserve_flat_scratch", 0}});
  while (int(all.size()) < c.kernels) all.push_back(random_directives(rng, target, c.v5));

  std::string src = "\t.amdgcn_target \"" + c.target_id + "\"\n";
  for (size_t i = 0; i < all.size(); ++i) src += kernel_asm("k" + std::to_string(i), all[i]);
  test::TempDir dir;
  test::write_text(dir.file("k.s"), src);
  auto r = test::run(mc_command(c, dir.file("k.s"), dir.file("k.o")));
  ASSERT_EQ(r.rc, 0) << r.err;
  r = test::run({c.lld, "-shared", "-o", dir.file("k.hsaco"), dir.file("k.o")});
  ASSERT_EQ(r.rc, 0) << r.err;
  CodeObject co = read_code_object_file(dir.file("k.hsaco"));
  EXPECT_EQ(co.target, target);
  ASSERT_EQ(co.kernels.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Kernel* k = co.find_kernel("k" + std::to_string(i));
    ASSERT_NE(k, nullptr);
    DescriptorSettings s;
    for (const auto& [key, v] : all[i]) set_amdhsa_directive(s, key, v, target);
    KernelDescriptor want = compute_descriptor(s, target);
    KernelDescriptor got = k->descriptor;
    // The entry offset is the linker's business; the reader checked it points at the kernel.
    EXPECT_EQ(co.read_info.text_address + k->code_offset,
              co.read_info.rodata_address + i * 64 + uint64_t(got.kernel_code_entry_byte_offset));
    got.kernel_code_entry_byte_offset = 0;
    std::string what;
    for (const auto& [key, v] : all[i]) what += " ." + key + "=" + std::to_string(v);
    EXPECT_EQ(got, want) << "kernel k" << i << ":" << what << "\n  llvm rsrc1 " << std::hex
                         << got.compute_pgm_rsrc1 << " rsrc2 " << got.compute_pgm_rsrc2 << " props "
                         << got.kernel_code_properties << "\n  ours rsrc1 "
                         << want.compute_pgm_rsrc1 << " rsrc2 " << want.compute_pgm_rsrc2
                         << " props " << want.kernel_code_properties;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, DescriptorVsLlvmMc, ::testing::ValuesIn(kConfigs),
                         [](const auto& info) { return std::string(info.param.label); });

// Settings llvm-mc rejects must be rejected by us, and the controls accepted by both.
TEST(DescriptorVsLlvmMcErrors, SameSettingsAreRejected) {
  const Config& c = kConfigs[0];
  for (const auto& t : {c.mc})
    if (!test::have_tool(t)) K100_ORACLE_MISSING(std::string(t) + " not found; install llvm to run this oracle");
  Target target = parse_target_id(c.target_id);
  struct Case {
    const char* what;
    Directives d;
    bool valid;
  };
  const Directives base = {{"next_free_vgpr", 4}, {"next_free_sgpr", 8}};
  auto with = [&](Directives extra, bool front = false) {
    Directives d = front ? extra : base;
    for (const auto& e : front ? base : extra) d.push_back(e);
    return d;
  };
  const Case cases[] = {
      {"control", base, true},
      {"workitem id 3", with({{"system_vgpr_workitem_id", 3}}), true},
      {"user sgpr count 31", with({{"user_sgpr_count", 31}}), true},
      {"vgpr 256 sgpr 102", {{"next_free_vgpr", 256}, {"next_free_sgpr", 102}}, true},
      {"unknown key", with({{"next_free_vgp", 4}}), false},
      {"round mode 4", with({{"float_round_mode_32", 4}}), false},
      {"dx10 clamp 2", with({{"dx10_clamp", 2}}), false},
      {"negative", with({{"kernarg_size", -1}}), false},
      {"group segment 2^32", with({{"group_segment_fixed_size", int64_t(1) << 32}}), false},
      {"workitem id 4", with({{"system_vgpr_workitem_id", 4}}), false},
      {"sgpr 103", {{"next_free_vgpr", 4}, {"next_free_sgpr", 103}}, false},
      {"vgpr 257", {{"next_free_vgpr", 257}, {"next_free_sgpr", 8}}, false},
      {"user sgpr count 32", with({{"user_sgpr_count", 32}}), false},
      {"user sgpr count below implied",
       with({{"user_sgpr_kernarg_segment_ptr", 1}, {"user_sgpr_count", 1}}), false},
      {"xnack mask 0 with xnack any", with({{"reserve_xnack_mask", 0}}), false},
      {"repeated", with({{"ieee_mode", 0}, {"ieee_mode", 0}}), false},
      {"gfx90a only", with({{"accum_offset", 4}}), false},
      {"gfx10 only", with({{"wavefront_size32", 1}}), false},
      {"architected flat scratch only", with({{"enable_private_segment", 1}}), false},
      {"missing next_free_sgpr", {{"next_free_vgpr", 4}}, false},
      {"missing next_free_vgpr", {{"next_free_sgpr", 4}}, false},
  };
  test::TempDir dir;
  for (const auto& cs : cases) {
    SCOPED_TRACE(cs.what);
    std::string src = "\t.amdgcn_target \"" + c.target_id + "\"\n" + kernel_asm("k", cs.d);
    test::write_text(dir.file("e.s"), src);
    auto r = test::run(mc_command(c, dir.file("e.s"), dir.file("e.o")));
    EXPECT_EQ(r.rc == 0, cs.valid) << "llvm-mc: " << r.err;
    bool ours_ok = true;
    std::string msg;
    try {
      DescriptorSettings s;
      for (const auto& [k, v] : cs.d) set_amdhsa_directive(s, k, v, target);
      compute_descriptor(s, target);
    } catch (const Error& e) {
      ours_ok = false;
      msg = e.what();
    }
    EXPECT_EQ(ours_ok, cs.valid) << "ours: " << msg;
  }
}

}  // namespace
}  // namespace k100::codeobj
