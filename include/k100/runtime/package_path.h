// k100lc runtime: where the kernel package is found.
//
// The kernel library is built into ${K100_BUILD_DIR:-build}/k100lc_kernels.hsaco
// (with catalog.json and k100lc_kernels.h beside it). A runtime
// opened without a package path loads that file: RT_HSACO when set, else the
// build directory (K100_BUILD_DIR, or "build" in the working directory), else
// the installed package (<prefix>/share/k100lc, found from the directory of
// libfm_engine.so or of the program: <prefix>/lib or <prefix>/bin), else the
// source tree's "build" and the build tree this runtime was compiled in. A package that is
// not found is a RuntimeError listing every path tried - never a crash.
#pragma once

#include <string>
#include <vector>

namespace k100::runtime {

inline constexpr const char* kPackageFileName = "k100lc_kernels.hsaco";

struct PackageSearch {
  std::string found;               // "" when no candidate exists
  std::vector<std::string> tried;  // in order
};

// `installed`: an installed package a program was built against (see
// RuntimeOptions::installed_package), tried after K100_BUILD_DIR.
PackageSearch find_default_package(const std::string& installed = {});

// find_default_package().found, or RuntimeError(Package) naming the paths tried.
std::string default_package_path(const std::string& installed = {});

// A requested package path resolved: RT_HSACO overrides `requested` when
// `env_override` (as fm_init does; empty = the default package); a missing
// file named k100lc_kernels.hsaco is also looked for where the default
// package would be. Throws RuntimeError(Package).
std::string resolve_package_path(const std::string& requested, bool env_override = true,
                                 const std::string& installed = {});

// The catalog written beside a package: "x.hsaco" -> "x.catalog.json".
std::string catalog_path_for(const std::string& package);

}  // namespace k100::runtime
