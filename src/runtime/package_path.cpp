#include "k100/runtime/package_path.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "k100/codeobj/input_file.h"
#include "k100/runtime/error.h"

namespace fs = std::filesystem;

namespace k100::runtime {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// Directory of the binary holding this code (libfm_engine.so, or the executable
// the runtime is linked into) and of the running executable.
std::vector<std::string> binary_dirs() {
  std::vector<std::string> out;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_default_package), &info) && info.dli_fname &&
      info.dli_fname[0]) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    if (!ec) out.push_back(p.parent_path().string());
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) out.push_back(exe.parent_path().string());
  return out;
}

void add(PackageSearch& s, const fs::path& p) {
  std::string text = p.lexically_normal().string();
  for (const auto& t : s.tried)
    if (t == text) return;
  s.tried.push_back(text);
  if (s.found.empty() && is_file(text)) s.found = text;
}

}  // namespace

PackageSearch find_default_package(const std::string& installed) {
  PackageSearch s;
  std::string rt_hsaco = env("RT_HSACO");
  if (!rt_hsaco.empty()) {
    add(s, rt_hsaco);
    return s;  // an explicit override is the only candidate
  }
  std::string build = env("K100_BUILD_DIR");
  if (build.empty()) build = "build";
  fs::path b(build);
  add(s, b / kPackageFileName);
  if (!installed.empty()) add(s, installed);
  // An installed engine or program: <prefix>/lib or <prefix>/bin, the package
  // in <prefix>/share/k100lc (before any build tree this runtime was compiled in).
  for (const auto& d : binary_dirs()) {
    fs::path shared = fs::path(d) / ".." / "share" / "k100lc" / kPackageFileName;
    if (is_file(shared.lexically_normal().string())) add(s, shared);
  }
  if (b.is_relative()) {
#ifdef K100_RUNTIME_SOURCE_DIR
    add(s, fs::path(K100_RUNTIME_SOURCE_DIR) / b / kPackageFileName);
#endif
  }
#ifdef K100_RUNTIME_BINARY_DIR
  add(s, fs::path(K100_RUNTIME_BINARY_DIR) / kPackageFileName);
#endif
  for (const auto& d : binary_dirs()) {
    add(s, fs::path(d) / kPackageFileName);
    add(s, fs::path(d) / ".." / kPackageFileName);  // tools live in <build>/bin
  }
  return s;
}

std::string default_package_path(const std::string& installed) {
  PackageSearch s = find_default_package(installed);
  if (!s.found.empty()) return s.found;
  std::string msg = "kernel package " + std::string(kPackageFileName) + " not found; tried:";
  for (const auto& t : s.tried) msg += "\n  " + t;
  msg +=
      "\nbuild the kernel library into ${K100_BUILD_DIR:-build}, set K100_BUILD_DIR to the build "
      "directory, or name a package with RT_HSACO";
  throw RuntimeError(ErrorCode::Package, msg);
}

namespace {

// Why `path` is not a package: what it is (a directory, a FIFO: the words every tool
// uses, from read_input_file) or that it does not exist. `what` names where it came from.
[[noreturn]] void not_a_package(const std::string& path, const std::string& what) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (fs::is_directory(st) || fs::is_fifo(st) || fs::is_socket(st)) {
    try {
      codeobj::read_input_file(path, what);
    } catch (const Error& e) {
      throw RuntimeError(ErrorCode::Package, e.what());
    }
  }
  throw RuntimeError(ErrorCode::Package,
                     what + " '" + path + "': " + (fs::exists(st) ? "not a regular file" : "no such file"));
}

}  // namespace

std::string resolve_package_path(const std::string& requested, bool env_override, const std::string& installed) {
  std::string rt_hsaco = env_override ? env("RT_HSACO") : std::string();
  if (!rt_hsaco.empty()) {
    if (is_file(rt_hsaco)) return rt_hsaco;
    not_a_package(rt_hsaco, "RT_HSACO code object");
  }
  if (requested.empty()) return default_package_path(installed);
  if (is_file(requested)) return requested;
  if (fs::path(requested).filename() == kPackageFileName) {
    // The kernel package by name: also look where the build puts it.
    PackageSearch s = find_default_package(installed);
    if (!s.found.empty()) return s.found;
    std::string msg = requested + ": no such file; kernel package " + kPackageFileName +
                      " not found; also tried:";
    for (const auto& t : s.tried) msg += "\n  " + t;
    msg +=
        "\nbuild the kernel library into ${K100_BUILD_DIR:-build}, set K100_BUILD_DIR to the build "
        "directory, or name a package with RT_HSACO";
    throw RuntimeError(ErrorCode::Package, msg);
  }
  not_a_package(requested, "code object");
}

std::string catalog_path_for(const std::string& package) {
  fs::path p(package);
  if (p.extension() == ".hsaco" || p.extension() == ".co") p.replace_extension();
  return p.string() + ".catalog.json";
}

}  // namespace k100::runtime
