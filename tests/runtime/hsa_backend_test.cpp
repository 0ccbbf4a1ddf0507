// The HSA backend without a DCU: every symbol it uses resolves in Debian's
// libhsa-runtime64; K100_BACKEND=hsa fails with a clear message and auto
// falls back to the emulator (saying so once); and the whole backend runs
// against a stand-in HSA runtime backed by the emulator (fake_hsa), which
// executes the AQL packets as written and checks how the API is used.
#include "k100/runtime/hsa_backend.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <cstdio>
#include <thread>

#include "k100/runtime/runtime.h"
#include "runtime_test_support.h"
#include "tools.h"

namespace k100::runtime {
namespace {

using test::ScopedEnv;

bool have_kfd() {
  struct stat st;
  return ::stat("/dev/kfd", &st) == 0;
}

TEST(HsaBackend, EverySymbolResolvesInTheInstalledRuntime) {
  void* h = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    K100_ORACLE_MISSING(std::string("libhsa-runtime64.so.1 is not installed (libhsa-runtime64-1): ") + dlerror());
  auto names = hsa_required_symbols();
  EXPECT_GE(names.size(), 30u);
  for (const char* name : names) EXPECT_NE(dlsym(h, name), nullptr) << name;
  // never used: host memory is taken from the CPU agent's pool instead
  for (const char* name : names) EXPECT_STRNE(name, "hsa_amd_memory_lock");
  dlclose(h);
}

TEST(HsaBackend, LibrarySearchOrder) {
  ScopedEnv env("K100_HSA_LIB", "/custom/libhsa.so");
  auto c = hsa_library_candidates();
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "/custom/libhsa.so");
  EXPECT_EQ(c[1], "/opt/hyhal/lib/libhsa-runtime64.so");
  EXPECT_NE(std::find(c.begin(), c.end(), "/opt/rocm/lib/libhsa-runtime64.so"), c.end());
  EXPECT_EQ(c.back(), "libhsa-runtime64.so");
  EXPECT_EQ(hsa_library_candidates("/x.so")[0], "/x.so");
}

TEST(HsaBackend, RequiringHardwareWithoutADcuFailsClearly) {
  if (have_kfd()) GTEST_SKIP() << "/dev/kfd exists here";
  ScopedEnv lib("K100_HSA_LIB", std::nullopt);
  RuntimeOptions o;
  o.backend = BackendKind::Hsa;
  o.backend_from_environment = false;
  o.default_package = false;
  try {
    Runtime rt(o);
    FAIL() << "a runtime opened on " << rt.backend_description();
  } catch (const RuntimeError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.code(), ErrorCode::Backend);
    // the machine-level cause comes first, the HSA runtime's consequence after it
    EXPECT_EQ(m.rfind("K100_BACKEND=hsa: no usable DCU: /dev/kfd does not exist", 0), 0u) << m;
    EXPECT_NE(m.find("K100_BACKEND=emu or auto"), std::string::npos) << m;
  }
  ScopedEnv env("K100_BACKEND", "hsa");
  RuntimeOptions from_env;
  from_env.default_package = false;
  EXPECT_THROW(Runtime rt(from_env), RuntimeError);
  ScopedEnv bad("K100_BACKEND", "gpu");
  try {
    Runtime rt(from_env);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("K100_BACKEND=gpu is not one of auto, emu, hsa"),
              std::string::npos);
  }
}

// Runs the probe (two runtimes with K100_BACKEND=auto) in a fresh process and returns its
// stderr+stdout.
std::string run_probe(const std::string& env) {
  std::string cmd = env + " " + std::string(K100_RUNTIME_PROBE) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  std::array<char, 512> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int rc = pclose(p);
  return out + "\n[rc " + std::to_string(rc) + "]";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(HsaBackend, AutoFallsBackToTheEmulatorSayingSoOnce) {
  if (have_kfd()) GTEST_SKIP() << "/dev/kfd exists here";
  std::string out = run_probe("K100_BACKEND=auto");
  EXPECT_EQ(count(out, "running kernels on the emulator"), 1u) << out;
  EXPECT_NE(out.find("/dev/kfd does not exist"), std::string::npos) << out;
  EXPECT_NE(out.find("backend emu emu"), std::string::npos) << out;
  EXPECT_NE(out.find("[rc 0]"), std::string::npos) << out;
  std::string quiet = run_probe("K100_BACKEND=emu");
  EXPECT_EQ(count(quiet, "emulator ("), 0u) << quiet;
  EXPECT_NE(quiet.find("backend emu emu"), std::string::npos) << quiet;
  std::string hsa = run_probe("K100_BACKEND=hsa");
  EXPECT_NE(hsa.find("K100_BACKEND=hsa: no usable DCU"), std::string::npos) << hsa;
  EXPECT_EQ(hsa.find("[rc 0]"), std::string::npos) << hsa;
}

// ------------------------------------------------------------ fake runtime

const char* fake_violations() {
  void* h = dlopen(K100_FAKE_HSA, RTLD_NOW | RTLD_LOCAL);
  if (!h) return "cannot open the fake runtime";
  auto f = reinterpret_cast<const char* (*)()>(dlsym(h, "k100_fake_hsa_violations"));
  return f ? f() : "no k100_fake_hsa_violations";
}

RuntimeOptions fake_options() {
  RuntimeOptions o;
  o.backend = BackendKind::Hsa;
  o.backend_from_environment = false;
  o.hsa_library = K100_FAKE_HSA;
  o.packages = {test::package_file("runtime_test")};
  return o;
}

TEST(HsaBackendOnFakeRuntime, QuickStartGridsHiddenArgumentsAndOrdering) {
  Runtime rt(fake_options());
  EXPECT_EQ(rt.backend_name(), "hsa");
  EXPECT_TRUE(rt.on_hardware());
  EXPECT_NE(rt.backend_description().find("gfx926"), std::string::npos);
  EXPECT_LT(test::quick_start_gemv(rt, 256, 640), 1e-5);
  // Static launches: the fake runtime does not fill hidden arguments, so what
  // the kernel reads is the runtime's packing, and the grid is the packet's.
  for (auto [groups, wg] : {std::pair<Dim3, Dim3>{{4, 3, 1}, {16, 4, 1}},
                            {{3, 2, 2}, {8, 4, 2}},
                            {{5, 1, 1}, {64, 1, 1}}}) {
    uint32_t W = groups.x * wg.x, H = groups.y * wg.y, D = groups.z * wg.z;
    size_t n = size_t(W) * H * D;
    uint64_t out = rt.alloc(n * 4), hid = rt.alloc(64);
    rt.launch("ids3d_k", groups, wg, args(out, hid));
    EXPECT_EQ(test::ids3d_mismatches(rt.download<uint32_t>(out, n), groups, wg), 0u);
    auto h = rt.download<uint32_t>(hid, 16);
    EXPECT_EQ(h[0], groups.x);
    EXPECT_EQ(h[1], groups.y);
    EXPECT_EQ(h[2], groups.z);
    EXPECT_EQ(h[3], wg.x | wg.y << 16);
    EXPECT_EQ(h[12] & 0xffff, D > 1 ? 3u : H > 1 ? 2u : 1u);
  }
  // More launches than kernarg slots and queue packets, without a sync.
  const uint32_t n = 256;
  std::vector<float> x(n, 2.0f), zero(n, 0.0f);
  uint64_t px = rt.alloc(n * 4), py = rt.alloc(n * 4);
  rt.upload(px, x.data(), n * 4);
  rt.upload(py, zero.data(), n * 4);
  for (int i = 0; i < 150; ++i) rt.launch("saxpy_k", 4, 64, args(py, px, 0.5f, n));
  Event a = rt.record_event();
  rt.launch("saxpy_k", 4, 64, args(py, px, 0.5f, n));
  Event b = rt.record_event();
  for (float v : rt.download<float>(py, n)) ASSERT_EQ(v, 151.0f);
  EXPECT_GE(rt.elapsed_ms(a, b), 0.0);
  rt.memset(py, 0, n * 4);
  rt.copy(px, py, n * 4);
  for (float v : rt.download<float>(px, n)) ASSERT_EQ(v, 0.0f);
  // Dynamic launch with the caller's layout.
  KernelInfo k = rt.kernel("fill_f32_k");
  rt.launch_dynamic("fill_f32_k", {4, 1, 1}, {64, 1, 1}, {k.layout(), 0, 0, k.kernarg_size},
                    args(py, 7.0f, n));
  for (float v : rt.download<float>(py, n)) ASSERT_EQ(v, 7.0f);
  EXPECT_STREQ(fake_violations(), "");
}

TEST(HsaBackendOnFakeRuntime, ThreadsShareTheQueue) {
  Runtime rt(fake_options());
  constexpr uint32_t n = 64;
  std::vector<std::thread> ts;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      std::vector<float> x(n, float(t + 1)), zero(n, 0.0f);
      uint64_t px = rt.alloc(n * 4), py = rt.alloc(n * 4);
      rt.upload(px, x.data(), n * 4);
      rt.upload(py, zero.data(), n * 4);
      for (int i = 0; i < 50; ++i) rt.launch("saxpy_k", 1, 64, args(py, px, 1.0f, n));
      for (float v : rt.download<float>(py, n)) bad += v != 50.0f * float(t + 1);
    });
  for (auto& th : ts) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_STREQ(fake_violations(), "");
}

TEST(HsaBackendOnFakeRuntime, AFaultBreaksTheQueueAndIsReported) {
  Runtime rt(fake_options());
  uint64_t p = rt.alloc(256);
  rt.launch("fault_k", 1, 64, args(p));
  try {
    rt.sync();
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_EQ(e.code(), ErrorCode::Backend);
    EXPECT_NE(std::string(e.what()).find("HSA queue error"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rt.launch("fill_f32_k", 1, 64, args(p, 1.0f, 4u)),
               RuntimeError);  // the queue is gone
}

TEST(HsaBackendOnFakeRuntime, ClearErrorsForMissingPieces) {
  {
    ScopedEnv env("K100_FAKE_HSA_GPU_NAME", "gfx1030");
    try {
      Runtime rt(fake_options());
      FAIL();
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(
                    "no gfx926/gfx906 agent found (agents: Fake Host CPU, gfx1030 (GPU))"),
                std::string::npos)
          << e.what();
    }
  }
  {
    ScopedEnv env("K100_FAKE_HSA_FAIL_INIT", "1");
    try {
      Runtime rt(fake_options());
      FAIL();
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("hsa_init failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES"),
                std::string::npos)
          << e.what();
    }
  }
  RuntimeOptions o = fake_options();
  o.hsa_library = "/nonexistent/libhsa-runtime64.so";
  ScopedEnv lib("K100_HSA_LIB", std::nullopt);
  if (!have_kfd()) {
    try {
      Runtime rt(o);  // falls through the search list to Debian's library, whose hsa_init fails
      FAIL();
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("K100_BACKEND=hsa"), std::string::npos) << e.what();
    }
  }
}

TEST(HsaBackendOnFakeRuntime, AFailedCopyIsAnError) {
  Runtime rt(fake_options());
  uint64_t p = rt.alloc(64);
  ScopedEnv fails("K100_FAKE_HSA_COPY_FAILS", "1");
  std::vector<float> host(16);
  try {
    rt.upload(p, host.data(), 64);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("asynchronous copy of 64 bytes failed"), std::string::npos)
        << e.what();
  }
}

TEST(HsaBackendOnFakeRuntime, CopyFallbackAndScratchInfo) {
  ScopedEnv nocopy("K100_FAKE_HSA_NO_ASYNC_COPY", "1");
  ScopedEnv info("RT_HSART_SCRATCH_INFO", "1");
  testing::internal::CaptureStderr();
  {
    Runtime rt(fake_options());
    EXPECT_LT(test::quick_start_gemv(rt, 16, 128), 1e-5);
    uint64_t p = rt.alloc(64);
    rt.launch("scratch_k", 1, 64, args(p));
    rt.sync();
  }
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("scratch after queue creation"), std::string::npos) << err;
  EXPECT_NE(err.find("scratch before scratch_k"), std::string::npos) << err;
  EXPECT_NE(err.find("scratch after wait"), std::string::npos) << err;
  EXPECT_STREQ(fake_violations(), "");
}

}  // namespace
}  // namespace k100::runtime
