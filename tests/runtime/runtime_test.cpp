// k100::Runtime on the emulator: the seed's quick start, 2-D/3-D grids and
// hidden arguments, dynamic launches, several packages, errors (never a
// crash), faults reaching the caller, events, and 8 threads x 200 launches.
#include "k100/runtime/runtime.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "k100/runtime/package_path.h"
#include "runtime_test_support.h"

namespace k100::runtime {
namespace {

using test::emu_options;
using test::package;
using test::package_file;
using test::ScopedEnv;

// Expects `f` to throw RuntimeError with `code` and a message containing every string of `parts`.
template <class F>
void expect_error(F&& f, ErrorCode code, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected " << error_code_name(code);
  } catch (const RuntimeError& e) {
    EXPECT_EQ(int(e.code()), int(code)) << e.what();
    for (const char* p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "missing '" << p << "' in: " << e.what();
  }
}

TEST(Runtime, QuickStartGemvByNameWithGridInWorkgroups) {
  Runtime rt(emu_options());
  EXPECT_EQ(rt.backend_name(), "emu");
  EXPECT_FALSE(rt.on_hardware());
  EXPECT_LT(test::quick_start_gemv(rt, 256, 640), 1e-5);
  EXPECT_LT(test::quick_start_gemv(rt, 33, 100), 1e-5);  // k not a multiple of 64
}

TEST(Runtime, CatalogLookupAndSignature) {
  Runtime rt(emu_options());
  KernelInfo k = rt.kernel("gemv_f32_warp_k");
  EXPECT_EQ(k.explicit_args, 6u);
  EXPECT_EQ(k.group_segment, 256u);
  EXPECT_EQ(k.args[3].type, "u32");
  EXPECT_EQ(k.signature(),
            "gemv_f32_warp_k(w: const f32*, x: const f32*, y: f32*, nrows: u32, k: u32, wg: u32)");
  EXPECT_TRUE(rt.has_kernel("gemv_f32_warp_k"));
  EXPECT_TRUE(rt.has_kernel(" gemv_f32_warp_k "));  // whitespace is ignored
  EXPECT_FALSE(rt.has_kernel("gemv"));
  EXPECT_EQ(rt.kernel_id("nope"), -1);
  int id = rt.kernel_id("saxpy_k");
  ASSERT_GE(id, 0);
  EXPECT_EQ(rt.kernel_by_id(id)->lookup, "saxpy_k");
  EXPECT_EQ(rt.kernels("_k").size(), 6u);
  std::string json = rt.catalog_json();
  EXPECT_NE(json.find("\"type\": \"f32\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"hidden_block_count_x\""), std::string::npos);
}

// ids3d_k writes gx | gy << 10 | gz << 20 for every work-item, using the
// hidden block counts and group sizes, and copies the hidden block.
void check_ids(Runtime& rt, Dim3 groups, Dim3 wg, bool dynamic) {
  uint32_t W = groups.x * wg.x, H = groups.y * wg.y, D = groups.z * wg.z;
  size_t n = size_t(W) * H * D;
  uint64_t out = rt.alloc(n * 4), hid = rt.alloc(64);
  rt.memset(out, 0xff, n * 4);
  auto argv = args(out, hid);
  if (dynamic) {
    KernelInfo k = rt.kernel("ids3d_k");
    DynamicLayout l{k.layout(), k.group_segment, k.private_segment, k.kernarg_size};
    rt.launch_dynamic(k.name, groups, wg, l, argv);
  } else {
    rt.launch("ids3d_k", groups, wg, argv);
  }
  EXPECT_EQ(test::ids3d_mismatches(rt.download<uint32_t>(out, n), groups, wg), 0u)
      << "groups " << groups.x << "x" << groups.y << "x" << groups.z;
  auto h = rt.download<uint32_t>(hid, 16);  // kernarg bytes 16..79: the compact hidden block
  EXPECT_EQ(h[0], groups.x);                // block counts
  EXPECT_EQ(h[1], groups.y);
  EXPECT_EQ(h[2], groups.z);
  EXPECT_EQ(h[3], wg.x | wg.y << 16);                     // group sizes (2 bytes each)
  EXPECT_EQ(h[4], wg.z);                                  // group size z, remainder x = 0
  EXPECT_EQ(h[5], 0u);                                    // remainders y, z
  for (int i = 6; i < 12; ++i) EXPECT_EQ(h[i], 0u) << i;  // global offsets
  uint32_t dims = D > 1 ? 3 : H > 1 ? 2 : 1;
  EXPECT_EQ(h[12] & 0xffff, dims);  // grid dims
  rt.free(out);
  rt.free(hid);
}

TEST(Runtime, Grids2DAnd3DIncludingWorkgroupsPastTheFirstRow) {
  Runtime rt(emu_options());
  for (bool dynamic : {false, true}) {
    check_ids(rt, {4, 1, 1}, {64, 1, 1}, dynamic);
    check_ids(rt, {4, 3, 1}, {16, 4, 1}, dynamic);  // y > 0 workgroups written correctly
    check_ids(rt, {3, 2, 2}, {8, 4, 2}, dynamic);
    check_ids(rt, {1, 5, 3}, {64, 1, 1}, dynamic);
  }
}

// What a test process in another PID namespace with this process's id did
// when the package directory was named after the id: it removed the
// directory at its start and at its exit. The packages must not be in it.
TEST(Runtime, PackagesOfThisProcessAreNotInADirectoryAnotherProcessCanName) {
  namespace fs = std::filesystem;
  std::string path = package_file("runtime_test");
  const fs::path by_pid = fs::temp_directory_path() / ("k100_runtime_test_" + std::to_string(::getpid()));
  EXPECT_NE(fs::path(path).parent_path(), by_pid);
  std::error_code ec;
  fs::remove_all(by_pid, ec);
  Runtime rt(emu_options());  // reads the package from `path` again
  check_ids(rt, {3, 2, 2}, {8, 4, 2}, false);
}

TEST(Runtime, LaunchesRunInOrderWithoutSync) {
  Runtime rt(emu_options());
  const uint32_t n = 300;
  std::vector<float> x(n), zero(n, 0.0f);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i);
  uint64_t px = rt.alloc(n * 4), py = rt.alloc(n * 4);
  rt.upload(px, x.data(), n * 4);
  rt.upload(py, zero.data(), n * 4);
  for (int i = 0; i < 40; ++i) rt.launch("saxpy_k", (n + 127) / 128, 128, args(py, px, 0.25f, n));
  auto y = rt.download<float>(py, n);  // download waits for the queue
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 10.0f * float(i)) << i;
}

TEST(Runtime, F32ScalarsAndMemoryOperations) {
  Runtime rt(emu_options());
  const uint32_t n = 200;
  uint64_t a = rt.alloc(n * 4), b = rt.alloc(n * 4);
  rt.launch("fill_f32_k", (n + 63) / 64, 64, args(a, 2.5f, n));
  rt.copy(b, a, n * 4);
  for (float v : rt.download<float>(b, n)) ASSERT_EQ(v, 2.5f);
  rt.memset(b + 4, 0, 8);
  auto v = rt.download<float>(b, 4);
  EXPECT_EQ(v[0], 2.5f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], 0.0f);
  EXPECT_EQ(v[3], 2.5f);
  EXPECT_EQ(rt.buffer_size(a), n * 4u);
  EXPECT_EQ(rt.buffer_size(a + 4), 0u);
  uint64_t z = rt.alloc(0);  // zero bytes allocate one
  EXPECT_EQ(rt.buffer_size(z), 1u);
  EXPECT_EQ(f32_arg(1.0f), 0x3f800000u);
}

TEST(Runtime, DynamicLaunchBySymbolFromAModuleLoadedAtRunTime) {
  Runtime rt(emu_options());
  int m = rt.load_module(package("extra"), "extra (run-time compiled)");
  EXPECT_FALSE(rt.has_kernel("vscale_k"));  // modules do not join the lookup table
  const uint32_t n = 100;
  uint64_t y = rt.alloc(n * 4);
  rt.launch("fill_f32_k", 2, 64, args(y, 3.0f, n));
  DynamicLayout l{{{0, 8, kExplicit}, {8, 4, kExplicit}, {12, 4, kExplicit}}, 0, 0, 16};
  rt.launch_dynamic("vscale_k", {2, 1, 1}, {64, 1, 1}, l, args(y, 0.5f, n));
  rt.launch_dynamic("vscale_k.kd", {2, 1, 1}, {64, 1, 1}, l, args(y, 4.0f, n), m);
  rt.launch_dynamic("&vscale_k", {2, 1, 1}, {64, 1, 1}, l, args(y, 0.5f, n));
  for (float v : rt.download<float>(y, n)) ASSERT_EQ(v, 3.0f);
  expect_error(
      [&] {
        rt.launch_dynamic("vscale", {1, 1, 1}, {64, 1, 1}, l, args(y, 1.0f, n));
      },
      ErrorCode::UnknownKernel, {"unknown kernel symbol 'vscale'", "did you mean 'vscale_k'"});
  expect_error(
      [&] {
        rt.launch_dynamic("vscale_k", {1, 1, 1}, {64, 1, 1}, l, args(y, 1.0f));
      },
      ErrorCode::WrongArgCount, {"takes 3 explicit arguments, 2 given"});
  DynamicLayout big = l;
  big.kernarg_size = 2048;
  expect_error(
      [&] {
        rt.launch_dynamic("vscale_k", {1, 1, 1}, {64, 1, 1}, big, args(y, 1.0f, n));
      },
      ErrorCode::KernargTooBig, {"2048", "1024"});
  DynamicLayout mixed{{{0, 8, kExplicit}, {8, 4, kBlockCountX}, {12, 4, kExplicit}}, 0, 0, 16};
  expect_error(
      [&] {
        rt.launch_dynamic("vscale_k", {1, 1, 1}, {64, 1, 1}, mixed, args(y));
      },
      ErrorCode::InvalidLaunch, {"explicit but follows hidden"});
}

TEST(Runtime, SeveralPackagesAndDuplicateNames) {
  RuntimeOptions o = emu_options();
  o.packages.push_back(package_file("extra"));
  Runtime rt(o);
  EXPECT_EQ(rt.packages().size(), 2u);
  EXPECT_TRUE(rt.has_kernel("vscale_k"));
  EXPECT_EQ(rt.kernel("vscale_k").package, 1);
  EXPECT_EQ(rt.kernel_id("vscale_k"), 6);  // after the first package's 6 kernels
  size_t before = rt.kernels().size();
  expect_error([&] { rt.load_package(package("runtime_test"), "again.hsaco"); }, ErrorCode::Package,
               {"again.hsaco", "'fault_k' is already defined by", "runtime_test.hsaco"});
  EXPECT_EQ(rt.kernels().size(), before);  // nothing half-loaded
  uint64_t y = rt.alloc(64 * 4);
  rt.launch("fill_f32_k", 1, 64, args(y, 2.0f, 64u));
  rt.launch("vscale_k", 1, 64, args(y, 1.5f, 64u));
  EXPECT_EQ(rt.download<float>(y, 64)[63], 3.0f);
  expect_error(
      [&] {
        rt.load_package(std::vector<uint8_t>{1, 2, 3}, "junk.hsaco");
      },
      ErrorCode::Package, {"junk.hsaco"});
  expect_error([&] { rt.load_package("/nonexistent/k.hsaco"); }, ErrorCode::Package,
               {"/nonexistent/k.hsaco"});
}

TEST(Runtime, DefaultPackageIsLookedForAndMissingIsAClearError) {
  ScopedEnv hsaco("RT_HSACO", std::nullopt);
  ScopedEnv build("K100_BUILD_DIR", "/nonexistent-build-dir");
  PackageSearch s = find_default_package();
  ASSERT_FALSE(s.tried.empty());
  EXPECT_EQ(s.tried[0], "/nonexistent-build-dir/k100lc_kernels.hsaco");
  RuntimeOptions o;
  o.backend = BackendKind::Emu;
  o.backend_from_environment = false;
  if (s.found.empty())
    expect_error([&] { Runtime rt(o); }, ErrorCode::Package,
                 {"k100lc_kernels.hsaco not found", "/nonexistent-build-dir/k100lc_kernels.hsaco",
                  "RT_HSACO"});
  {
    ScopedEnv env("RT_HSACO", package_file("runtime_test"));
    Runtime rt(o);  // RT_HSACO names the default package
    EXPECT_TRUE(rt.has_kernel("gemv_f32_warp_k"));
    EXPECT_EQ(resolve_package_path("/elsewhere/other.hsaco"), package_file("runtime_test"));
  }
  {
    ScopedEnv env("K100_BUILD_DIR",
                  std::filesystem::path(package_file("runtime_test")).parent_path().string());
    std::filesystem::copy_file(
        package_file("runtime_test"),
        std::filesystem::path(package_file("runtime_test")).parent_path() / kPackageFileName,
        std::filesystem::copy_options::overwrite_existing);
    Runtime rt(o);
    EXPECT_TRUE(rt.has_kernel("saxpy_k"));
  }
  EXPECT_EQ(catalog_path_for("build/k100lc_kernels.hsaco"), "build/k100lc_kernels.catalog.json");
}

TEST(Runtime, BadInputBecomesErrorsThatNameWhatIsWrong) {
  Runtime rt(emu_options());
  uint64_t buf = rt.alloc(1024);
  uint64_t x = rt.alloc(64), y = rt.alloc(64);
  std::vector<uint8_t> host(2048);
  expect_error([&] { rt.launch("gemv_f32_wrap_k", 1, 64, args(x, x, y, 1u, 1u, 64u)); },
               ErrorCode::UnknownKernel,
               {"unknown kernel 'gemv_f32_wrap_k'", "did you mean 'gemv_f32_warp_k'"});
  expect_error([&] { rt.launch("zzzzzzzzzzzzzzzzzzzzzzzzzz", 1, 64, args(x)); },
               ErrorCode::UnknownKernel, {"6 kernels loaded from"});
  expect_error([&] { rt.launch("gemv_f32_warp_k", 1, 64, args(x, x, y, 1u, 1u)); },
               ErrorCode::WrongArgCount, {"'gemv_f32_warp_k' takes 6 explicit arguments, 5 given"});
  expect_error([&] { rt.download(host.data(), buf, 1028); }, ErrorCode::BadPointer,
               {"download of 1028 bytes", "runs 4 bytes past the end of buffer"});
  expect_error([&] { rt.upload(buf + 1000, host.data(), 100); }, ErrorCode::BadPointer,
               {"runs 76 bytes past the end", "offset 1000"});
  expect_error([&] { rt.download(host.data(), 0x1234, 4); }, ErrorCode::BadPointer,
               {"0x1234 is not inside any buffer"});
  expect_error(
      [&] {
        rt.launch("ids3d_k", {0, 1, 1}, {64, 1, 1}, args(x, y));
      },
      ErrorCode::InvalidLaunch, {"grid x is 0 workgroups"});
  expect_error(
      [&] {
        rt.launch("ids3d_k", {1, 1, 1}, {64, 32, 1}, args(x, y));
      },
      ErrorCode::InvalidLaunch, {"2048 work-items exceeds 1024"});
  expect_error(
      [&] {
        rt.launch("gemv_f32_warp_k", {1, 1, 1}, {64, 1, 1}, args(x, x, y, 1u, 1u, 64u), 65536);
      },
      ErrorCode::InvalidLaunch, {"LDS"});
  // Use after free and double free.
  rt.free(y);
  expect_error([&] { rt.upload(y, host.data(), 4); }, ErrorCode::BadPointer,
               {"use after free", "was freed"});
  expect_error([&] { rt.launch("fill_f32_k", 1, 64, args(y, 1.0f, 16u)); },
               ErrorCode::InvalidLaunch,
               {"'fill_f32_k' argument 0 (y)", "which was freed (use after free)"});
  expect_error([&] { rt.free(y); }, ErrorCode::BadPointer, {"double free"});
  expect_error([&] { rt.free(buf + 8); }, ErrorCode::BadPointer, {"not the start of a buffer"});
  expect_error([&] { rt.free(0x42); }, ErrorCode::BadPointer,
               {"not a buffer allocated by this runtime"});
  // The runtime still works afterwards.
  EXPECT_LT(test::quick_start_gemv(rt, 8, 64), 1e-5);
}

TEST(Runtime, FaultReportReachesTheSubmittingThreadAtSync) {
  Runtime rt(emu_options());
  uint64_t p = rt.alloc(256);
  rt.launch("fault_k", 1, 64, args(p));
  rt.launch("fill_f32_k", 1, 64, args(p, 1.0f, 64u));  // later launches still run
  std::atomic<bool> other_threw{false};
  std::thread([&] {
    try {
      rt.sync();  // waits for everything, but the fault is not this thread's
    } catch (...) {
      other_threw = true;
    }
  }).join();
  EXPECT_FALSE(other_threw);
  expect_error([&] { rt.sync(); }, ErrorCode::DeviceFault,
               {"kernel 'fault_k' faulted on the emulator", "emulator fault: out-of-bounds access",
                "global_store_dword v1, v2, s[8:9]", "0x1000"});
  rt.sync();  // reported once
  EXPECT_EQ(rt.download<float>(p, 1)[0], 1.0f);
  rt.launch("fault_k", 1, 64, args(p));
  std::vector<float> host(1);
  expect_error([&] { rt.download(host.data(), p, 4); }, ErrorCode::DeviceFault, {"fault_k"});
}

TEST(Runtime, NoScratchSwitchRefusesScratchKernels) {
  uint64_t p;
  {
    Runtime rt(emu_options());
    p = rt.alloc(64);
    rt.launch("scratch_k", 1, 64, args(p));
    rt.sync();
  }
  ScopedEnv env("RT_HSART_NO_SCRATCH", "1");
  Runtime rt(emu_options());
  p = rt.alloc(64);
  expect_error([&] { rt.launch("scratch_k", 1, 64, args(p)); }, ErrorCode::InvalidLaunch,
               {"'scratch_k' uses 16 bytes of scratch", "RT_HSART_NO_SCRATCH"});
}

TEST(Runtime, DebugSwitchPrintsSymbolsAndDispatches) {
  ScopedEnv env("RT_HSART_DEBUG", "1");
  testing::internal::CaptureStderr();
  {
    Runtime rt(emu_options());
    uint64_t p = rt.alloc(64 * 4);
    rt.launch("fill_f32_k", 1, 64, args(p, 1.0f, 64u));
    rt.sync();
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("gemv_f32_warp_k"), std::string::npos) << err;
  EXPECT_NE(err.find("dispatch fill_f32_k grid=(1,1,1) wg=(64,1,1)"), std::string::npos) << err;
}

TEST(Runtime, EventsTimeTheQueue) {
  Runtime rt(emu_options());
  uint64_t y = rt.alloc(4096 * 4);
  Event a = rt.record_event();
  for (int i = 0; i < 5; ++i) rt.launch("fill_f32_k", 64, 64, args(y, 1.0f, 4096u));
  Event b = rt.record_event();
  double ms = rt.elapsed_ms(a, b);
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 60000.0);
  rt.wait(b);
  EXPECT_GE(rt.elapsed_ms(b, rt.record_event()), 0.0);
  expect_error([&] { rt.elapsed_ms(a, Event{}); }, ErrorCode::InvalidArgument, {"never recorded"});
}

TEST(Runtime, EightThreadsTimesTwoHundredLaunches) {
  RuntimeOptions o = emu_options();
  o.emu_threads = 1;  // the queue's worker runs each small dispatch on one host thread
  Runtime rt(o);
  constexpr int kThreads = 8, kLaunches = 200;
  constexpr uint32_t n = 128;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        std::vector<float> x(n, float(t + 1)), zero(n, 0.0f);
        uint64_t px = rt.alloc(n * 4), py = rt.alloc(n * 4);
        rt.upload(px, x.data(), n * 4);
        rt.upload(py, zero.data(), n * 4);
        for (int i = 0; i < kLaunches; ++i) {
          rt.launch("saxpy_k", 2, 64, args(py, px, 0.5f, n));
          if (i % 50 == 49) rt.sync();
        }
        auto y = rt.download<float>(py, n);
        for (float v : y)
          if (v != 100.0f * float(t + 1)) ++failures;
        rt.free(px);
        rt.free(py);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << t << ": " << e.what();
        ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace k100::runtime
