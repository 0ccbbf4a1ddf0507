// k100-cc export --install into a temporary tree (never the source tree):
// the kernel's source and entry land in <tree>/kernels/dsl, a second install
// replaces the entry, a name the package has is refused; the installed list
// then registers the kernels as package kernels, whose self-tests pass and
// which launch from the package on the emulator.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dsl/dsl_build.h"
#include "dsl_run_support.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"

namespace {

namespace fs = std::filesystem;
using k100::dsl::testing::read_text;

struct ToolRun {
  int status = -1;
  std::string out;  // standard output and error
};

ToolRun k100_cc(const std::string& args) {
  const std::string cmd = std::string(K100_TOOLS_BIN) + "/k100-cc " + args + " 2>&1";
  ToolRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DslInstall, ExportInstallReplaceRefuseAndRegister) {
  const fs::path tree = fs::path(K100_BINARY_DIR) / "tests" / "dsl_install_tree";
  fs::remove_all(tree);
  fs::create_directories(tree / "kernels" / "dsl");
  fs::copy_file(fs::path(K100_SOURCE_DIR) / "kernels" / "dsl" / "q4k_dequant.kkl", tree / "kernels" / "dsl" / "q4k_dequant.kkl");
  const std::string kkl = std::string(K100_SOURCE_DIR) + "/tests/dsl/kkl/";
  const std::string at = " --tree " + tree.string() + " -o " + (tree / "out").string();

  ToolRun r = k100_cc("export " + kkl + "vadd.kkl --kernel vadd" + at);  // no --install: prints the entry only
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"kernarg_size\": 88"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"vgpr_count\""), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(tree / "kernels" / "dsl" / "installed.json"));

  for (int i = 0; i < 2; ++i) {  // the second install replaces the entry
    r = k100_cc("export " + kkl + "vadd.kkl --kernel vadd --install" + at);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(i ? "replaced vadd" : "installed vadd"), std::string::npos) << r.out;
  }
  r = k100_cc("export " + kkl + "axpy.kkl --kernel axpy --install" + at);
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string list = read_text((tree / "kernels" / "dsl" / "installed.json").string());
  EXPECT_EQ(count_of(list, "\"name\": \"vadd\""), 1u) << list;
  EXPECT_EQ(count_of(list, "\"name\": \"axpy\""), 1u) << list;
  EXPECT_EQ(read_text((tree / "kernels" / "dsl" / "vadd.kkl").string()), read_text(kkl + "vadd.kkl"));

  // Names the package has for kernels of its own: a hand-written one, and a package DSL kernel of the tree.
  r = k100_cc("export " + kkl + "rope_apply_k.kkl --kernel rope_apply_k --install" + at);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("'rope_apply_k' is a kernel of the package"), std::string::npos) << r.out;
  fs::copy_file(fs::path(K100_SOURCE_DIR) / "kernels" / "dsl" / "q4k_dequant.kkl", tree / "q4k_dequant.kkl");
  r = k100_cc("export " + (tree / "q4k_dequant.kkl").string() + " --kernel q4k_dequant --install" + at);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("'q4k_dequant'"), std::string::npos) << r.out;
  EXPECT_EQ(count_of(read_text((tree / "kernels" / "dsl" / "installed.json").string()), "\"source\""), 2u);  // one per entry

  // The next build of the tree: its installed list registers both kernels.
  k100::kernels::Registry reg;
  auto source = [&](const std::string& file) { return read_text((tree / "kernels" / "dsl" / (file + ".kkl")).string()); };
  k100::kernels::dsl_package::register_installed(reg, list, source);
  ASSERT_NE(reg.find("vadd"), nullptr);
  ASSERT_NE(reg.find("axpy"), nullptr);
  k100::kernels::EmuTestDevice dev(reg, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  for (const char* name : {"vadd", "axpy"}) {
    const k100::kernels::KernelDef& d = *reg.find(name);
    const k100::kernels::CaseResult res = d.run(dev, d.cases(false).at(0));
    EXPECT_TRUE(res.pass) << name << ": " << res.note;
    EXPECT_GT(res.compared, 0u);
  }
  const uint32_t n = 100;
  const auto a = k100::dsl::testing::wobble(n, 1), b = k100::dsl::testing::wobble(n, 2);
  k100::kernels::DeviceBuffer<float> da(dev, a), db(dev, b), dout(dev, n);
  dev.launch("vadd", {2}, {64}, reg.find("vadd")->signature->pack({da.addr(), db.addr(), dout.addr(), n}));
  const auto out = dout.download();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << i;

  // An entry that no longer matches its source fails the self-test, naming what differs.
  std::string stale = list;
  const size_t k = stale.find("\"kernarg_size\": 88");
  ASSERT_NE(k, std::string::npos);
  stale.replace(k, 18, "\"kernarg_size\": 96");
  k100::kernels::Registry reg2;
  k100::kernels::dsl_package::register_installed(reg2, stale, source);
  const k100::kernels::KernelDef& d = *reg2.find("vadd");
  const k100::kernels::CaseResult res = d.run(dev, d.cases(false).at(0));
  EXPECT_FALSE(res.pass);
  EXPECT_NE(res.note.find("kernarg_size is 88, the installed entry records 96"), std::string::npos) << res.note;
  fs::remove_all(tree);
}

}  // namespace
