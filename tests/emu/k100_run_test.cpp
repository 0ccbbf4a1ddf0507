// The k100-run command line: arguments from files and scalars, --grid and
// --global, output files, --profile/--json, --trace, and fault exit codes.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>

#include "kernel_runner.h"

namespace k100::emu::test {

namespace {

struct ToolRun {
  int status;
  std::string out;
};

ToolRun run_tool(const std::string& args) {
  std::string cmd = std::string(K100_TOOLS_BIN) + "/k100-run " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ToolRun r{-1, {}};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int rc = pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

template <class T>
void write_vec(const std::string& path, const std::vector<T>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}

std::string kernels(const std::string& stem) { return std::string(K100_BINARY_DIR) + "/tests/emu/kernels/" + stem + ".hsaco"; }

class K100Run : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!compiler_available(false)) K100_ORACLE_MISSING("clang-15 is not installed: no test kernels");
    dir_ = work_dir() + "/k100run_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string mk = "mkdir -p " + dir_;
    ASSERT_EQ(std::system(mk.c_str()), 0);
  }
  std::string dir_;
};

}  // namespace

TEST_F(K100Run, RunsAKernelWithFilesAndScalars) {
  Rng rng(5);
  const uint32_t n = 1000;
  auto a = rng.floats(n, -5, 5), b = rng.floats(n, -5, 5);
  write_vec(dir_ + "/a.bin", a);
  write_vec(dir_ + "/b.bin", b);
  for (const char* v : {"v4", "v5"}) {
    std::string out = dir_ + "/c_" + v + ".bin";
    ToolRun r = run_tool(kernels(std::string("elementwise_") + v) + " vadd_f32 --global 1000 --wg 256 in:" + dir_ + "/a.bin in:" +
                     dir_ + "/b.bin out:4000:" + out + " u32:1000");
    ASSERT_EQ(r.status, 0) << r.out;
    auto c = read_file(out);
    ASSERT_TRUE(c.has_value());
    auto cf = from_bytes<float>(*c);
    ASSERT_EQ(cf.size(), n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(cf[i], a[i] + b[i]) << i;
  }
  // io: the buffer is read and written back (saxpy: y = 2x + y), --grid in workgroups.
  write_vec(dir_ + "/y.bin", b);
  ToolRun r = run_tool(kernels("elementwise_v5") + " saxpy --grid 4 --wg 256 f32:2.0 in:" + dir_ + "/a.bin io:" + dir_ +
                   "/y.bin:" + dir_ + "/y_out.bin u32:1000");
  ASSERT_EQ(r.status, 0) << r.out;
  auto y = from_bytes<float>(*read_file(dir_ + "/y_out.bin"));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], std::fma(2.0f, a[i], b[i])) << i;
}

TEST_F(K100Run, ProfileAndJson) {
  std::vector<float> a(256, 1.0f);
  write_vec(dir_ + "/a.bin", a);
  ToolRun r = run_tool(kernels("reductions_v4") + " reduce_sum_f32 --grid 1 --wg 256 --profile in:" + dir_ + "/a.bin out:4:" +
                   dir_ + "/o.bin u32:256");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* part : {"wave-instructions", "valu", "lds", "bank-conflict", "distinct 64-byte lines"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  EXPECT_EQ(from_bytes<float>(*read_file(dir_ + "/o.bin"))[0], 256.0f);
  ToolRun j = run_tool(kernels("reductions_v4") + " reduce_sum_f32 --grid 1 --wg 256 --json in:" + dir_ + "/a.bin out:4:" +
                   dir_ + "/o.bin u32:256");
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_EQ(j.out.rfind("{\"kernel\":\"reduce_sum_f32\",\"ok\":true", 0), 0u) << j.out;
  EXPECT_NE(j.out.find("\"by_class\":{"), std::string::npos);
}

TEST_F(K100Run, FaultsExitNonZeroWithTheReport) {
  std::vector<float> a(100, 1.0f);
  write_vec(dir_ + "/a.bin", a);
  // The input buffers hold 100 floats, the kernel is told 1000.
  ToolRun r = run_tool(kernels("elementwise_v4") + " vadd_f32 --global 1000 --wg 256 in:" + dir_ + "/a.bin in:" + dir_ +
                   "/a.bin out:4000:" + dir_ + "/c.bin u32:1000");
  EXPECT_EQ(r.status, 1) << r.out;
  for (const char* part : {"emulator fault: out-of-bounds access", "kernel:      vadd_f32", "lane", "allocation:", "past its end",
                           "global_load_dword"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  ToolRun j = run_tool(kernels("elementwise_v4") + " vadd_f32 --global 1000 --wg 256 --json in:" + dir_ + "/a.bin in:" + dir_ +
                   "/a.bin out:4000:" + dir_ + "/c.bin u32:1000");
  EXPECT_EQ(j.status, 1);
  EXPECT_NE(j.out.find("\"ok\":false"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"fault\":{\"kind\":\"out-of-bounds access\""), std::string::npos) << j.out;
}

TEST_F(K100Run, UsageErrors) {
  EXPECT_EQ(run_tool("").status, 2);
  ToolRun r = run_tool(kernels("elementwise_v4") + " vadd_f32 --grid 1 --wg 64 u32:1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("takes 4 arguments"), std::string::npos) << r.out;
  r = run_tool(kernels("elementwise_v4") + " nope --grid 1 --wg 64");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no kernel 'nope'"), std::string::npos) << r.out;
  r = run_tool(kernels("elementwise_v4") + " vadd_f32 --grid 1 --global 64 --wg 64 u32:1 u32:1 u32:1 u32:1");
  EXPECT_EQ(r.status, 2);
  r = run_tool(kernels("elementwise_v4") + " vadd_f32 --grid 1 --wg 64 u64:1 u64:1 u64:1 u64:1");
  EXPECT_EQ(r.status, 2);  // the last argument is 4 bytes
  EXPECT_NE(r.out.find("is 4 bytes"), std::string::npos) << r.out;
}

TEST_F(K100Run, Trace) {
  std::vector<int32_t> in(64, 3);
  write_vec(dir_ + "/in.bin", in);
  ToolRun r = run_tool(kernels("control_v5") + " divergent_if --global 64 --wg 64 --trace=wg=0,wave=0,lanes=0-1 in:" + dir_ +
                   "/in.bin out:256:" + dir_ + "/o.bin u32:64");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("[wg 0 wave 0]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("s_endpgm"), std::string::npos);
  EXPECT_NE(r.out.find("[0]=0x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[1]=0x"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[2]=0x"), std::string::npos) << r.out;
}

}  // namespace k100::emu::test
