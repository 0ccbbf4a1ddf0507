#include "runtime_test_support.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "k100/asm/object_builder.h"
#include "k100/codeobj/writer.h"

namespace k100::runtime::test {

const std::vector<uint8_t>& package(const std::string& name) {
  static std::mutex m;
  static std::map<std::string, std::vector<uint8_t>> cache;
  std::lock_guard lock(m);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::string path = std::string(K100_SOURCE_DIR) + "/tests/runtime/kernels/" + name + ".s";
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  DiagnosticSink diags;
  as::Options o;
  o.target = isa::Target::gfx926;
  auto co = as::assemble_code_object(ss.str(), path, o, diags);
  if (!co) throw std::runtime_error("assembling " + path + " failed:\n" + diags.format_all());
  return cache[name] = codeobj::write_code_object(*co);
}

// The packages this process wrote, in a directory of its own that goes
// away when the process ends. The directory is made by mkdtemp, not named
// after the process id: test processes in other PID namespaces (containers
// sharing /tmp) have the same ids at the same time, and one that named its
// directory k100_runtime_test_<pid> removed another's package at its start
// and its end, so that a later Runtime of the other process could not read
// it (or read another build's package) - an intermittent failure of
// whichever test came next, often Runtime.Grids2DAnd3D...
namespace {
struct PackageFiles {
  std::mutex m;
  std::filesystem::path dir;
  std::map<std::string, std::string> written;
  pid_t owner = 0;  // a forked child that exits leaves the parent's files alone
  ~PackageFiles() {
    std::error_code ec;
    if (!dir.empty() && ::getpid() == owner) std::filesystem::remove_all(dir, ec);
  }
};
PackageFiles& package_files() {
  static PackageFiles f;
  return f;
}
}  // namespace

std::string package_file(const std::string& name) {
  namespace fs = std::filesystem;
  const std::vector<uint8_t>& bytes = package(name);
  PackageFiles& files = package_files();
  std::lock_guard lock(files.m);
  if (auto it = files.written.find(name); it != files.written.end()) return it->second;
  if (files.dir.empty()) {
    std::string dir = (fs::temp_directory_path() / "k100_runtime_test_XXXXXX").string();
    if (!::mkdtemp(dir.data())) throw std::runtime_error("cannot create a directory like " + dir);
    files.dir = dir;
    files.owner = ::getpid();
  }
  const fs::path p = files.dir / (name + ".hsaco");
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  f.close();
  if (!f) throw std::runtime_error("cannot write " + p.string());
  return files.written[name] = p.string();
}

RuntimeOptions emu_options() {
  RuntimeOptions o;
  o.backend = BackendKind::Emu;
  o.backend_from_environment = false;
  o.packages = {package_file("runtime_test")};
  return o;
}

ScopedEnv::ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
  if (const char* v = std::getenv(name)) old_ = v;
  if (value)
    ::setenv(name, value->c_str(), 1);
  else
    ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (old_)
    ::setenv(name_.c_str(), old_->c_str(), 1);
  else
    ::unsetenv(name_.c_str());
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

std::vector<double> gemv_reference(const std::vector<float>& w, const std::vector<float>& x,
                                   size_t n, size_t k) {
  std::vector<double> y(n, 0.0);
  for (size_t r = 0; r < n; ++r)
    for (size_t i = 0; i < k; ++i) y[r] += double(w[r * k + i]) * x[i];
  return y;
}

double quick_start_gemv(Runtime& rt, size_t n, size_t k) {
  auto w = random_floats(n * k, 0), x = random_floats(k, 1);
  uint64_t pw = rt.alloc(w.size() * 4), px = rt.alloc(x.size() * 4), py = rt.alloc(n * 4);
  rt.upload(pw, w.data(), w.size() * 4);
  rt.upload(px, x.data(), x.size() * 4);
  // The grid is the number of workgroups, not of work-items.
  rt.launch("gemv_f32_warp_k", uint32_t(n), 64, args(pw, px, py, uint32_t(n), uint32_t(k), 64u));
  rt.sync();
  auto y = rt.download<float>(py, n);
  auto ref = gemv_reference(w, x, n, k);
  double scale = 0, err = 0;
  for (size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::fabs(ref[i]));
    err = std::max(err, std::fabs(ref[i] - y[i]));
  }
  rt.free(pw);
  rt.free(px);
  rt.free(py);
  return err / scale;
}

size_t ids3d_mismatches(const std::vector<uint32_t>& ids, Dim3 groups, Dim3 wg) {
  uint32_t W = groups.x * wg.x, H = groups.y * wg.y, D = groups.z * wg.z;
  size_t bad = 0;
  for (uint32_t z = 0; z < D; ++z)
    for (uint32_t y = 0; y < H; ++y)
      for (uint32_t x = 0; x < W; ++x)
        bad += ids[(size_t(z) * H + y) * W + x] != (x | y << 10 | z << 20);
  return bad;
}

}  // namespace k100::runtime::test
