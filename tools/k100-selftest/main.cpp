// k100-selftest: every kernel's self-test cases against its host reference,
// on the backend the runtime picks (K100_BACKEND=auto|emu|hsa). See
// include/k100/kernels/selftest.h for the flags and the output.
//
// The names given to --only and --group are checked here first: an unknown
// one is a usage error (exit 2, with the closest name), not a failed test.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "k100/base/closest_match.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/lookup_list.h"
#include "k100/kernels/selftest.h"

extern "C" int k100_selftest_main(int argc, const char* const* argv);

namespace {

// false after reporting an unknown name
bool names_known(int argc, char** argv) {
  const auto& reg = k100::kernels::registry();
  std::vector<std::string> kernels, groups = reg.families();
  for (const auto& d : reg.all()) kernels.push_back(d.lookup);
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], value;
    bool only = a == "--only" || a.rfind("--only=", 0) == 0, group = a == "--group" || a.rfind("--group=", 0) == 0;
    if (!only && !group) continue;
    if (a.find('=') != std::string::npos) value = a.substr(a.find('=') + 1);
    else if (i + 1 < argc) value = argv[++i];
    const auto& known = only ? kernels : groups;
    for (const auto& n : k100::kernels::split_lookup_list(value)) {
      if (std::find(known.begin(), known.end(), n) != known.end()) continue;
      std::string near = k100::closest_match(n, known);
      std::fprintf(stderr, "k100-selftest: no %s '%s'%s\n", only ? "kernel" : "group", n.c_str(),
                   near.empty() ? "" : ("; did you mean '" + near + "'?").c_str());
      ok = false;
    }
  }
  if (!ok) std::fprintf(stderr, "k100-selftest: see 'k100-selftest --list' for the names\n");
  return ok;
}

void print_help() {
  std::printf("k100-selftest: runs every kernel's self-test cases against its host reference\n\n%s"
              "  --version   print the version and exit\n\n"
              "exit status: 0 every case passed, 1 a case failed, 2 usage error (an unknown --only or --group name)\n",
              k100::kernels::kSelftestUsage);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      std::printf("k100-selftest (k100lc) %s\n", K100_VERSION);
      return 0;
    }
    if (a == "--help" || a == "-h") {
      print_help();
      return 0;
    }
  }
  if (!names_known(argc, argv)) return 2;
  return k100_selftest_main(argc, argv);
}
