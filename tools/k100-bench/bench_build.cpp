// k100-bench build: how long the authoring layer takes to build the kernel
// library, in CPU time of this process (user + system, getrusage), so what
// else the machine does barely matters: every kernel generated for gfx926
// and gfx906 as k100-build-kernels does (one compilation shared by both
// targets where the IR is the same), then the slowest kernels alone.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/codegen/kernel.h"
#include "k100/kernels/registry.h"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int run(int argc, char** argv) {
  int slowest = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--slowest") && i + 1 < argc) {
      slowest = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: k100-bench build [--slowest N]\n"
                   "CPU seconds (user + system) to generate every kernel of the library for gfx926 and gfx906,\n"
                   "as k100-build-kernels does, and the N kernels that take longest on their own (default 10).\n");
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  using namespace k100;
  const kernels::Registry& reg = kernels::registry();
  std::vector<const kernels::KernelDef*> generated;
  for (const kernels::KernelDef& d : reg.all())
    if (d.generate) generated.push_back(&d);
  // The library, both targets under one cache.
  double t0 = cpu_seconds();
  {
    codegen::BuildCache cache;
    const codegen::ScopedBuildCache use(cache);
    for (isa::Target t : {isa::Target::gfx926, isa::Target::gfx906})
      for (const kernels::KernelDef* d : generated) d->generate(t);
  }
  const double both = cpu_seconds() - t0;
  // Each kernel alone (gfx926, no cache).
  std::vector<std::pair<double, std::string>> each;
  for (const kernels::KernelDef* d : generated) {
    t0 = cpu_seconds();
    d->generate(isa::Target::gfx926);
    each.emplace_back(cpu_seconds() - t0, d->lookup);
  }
  std::sort(each.begin(), each.end(), std::greater<>());
  double one = 0;
  for (const auto& e : each) one += e.first;
  std::printf("k100-bench build: %zu generated kernels\n", generated.size());
  std::printf("  both targets (one compilation where the IR is the same): %.2f s CPU\n", both);
  std::printf("  gfx926 alone, kernel by kernel: %.2f s CPU\n", one);
  std::printf("  slowest kernels (gfx926, s CPU):\n");
  for (int i = 0; i < slowest && size_t(i) < each.size(); ++i)
    std::printf("    %-32s %.3f\n", each[size_t(i)].second.c_str(), each[size_t(i)].first);
  return 0;
}

const k100::bench::Register reg("build", "CPU time of the authoring layer building the kernel library", run);

}  // namespace
