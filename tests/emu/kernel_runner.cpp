#include "kernel_runner.h"

#include <limits>

namespace k100::emu::test {

Device& shared_device() {
  static Device dev;
  return dev;
}

std::shared_ptr<const Program> kernel_program(const std::string& stem, bool /*hip*/) {
  static std::map<std::string, std::shared_ptr<const Program>> cache;
  auto it = cache.find(stem);
  if (it != cache.end()) return it->second;
  std::string path = std::string(K100_BINARY_DIR) + "/tests/emu/kernels/" + stem + ".hsaco";
  auto bytes = read_file(path);
  if (!bytes) return nullptr;
  auto p = shared_device().load_code_object(*bytes, stem + ".hsaco");
  cache[stem] = p;
  return p;
}

bool compiler_available(bool hip) { return hip ? K100_EMU_HAVE_HIPCC : K100_EMU_HAVE_CLANG15; }

DispatchResult run_kernel(const Program& p, const std::string& kernel, const LaunchConfig& launch, const Args& args,
                          unsigned threads, uint32_t dynamic_lds) {
  DispatchOptions opt;
  opt.threads = threads;
  LaunchConfig l = launch;
  l.dynamic_lds = dynamic_lds;
  DispatchResult r = shared_device().dispatch(p, kernel, l, args.bytes(), opt);
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->report() : "");
  return r;
}

LaunchConfig global(Dim3 items, Dim3 wg) {
  LaunchConfig l;
  l.grid = items;
  l.workgroup = wg;
  return l;
}

double ulp_error(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  if (std::isinf(want)) return double(got) == want ? 0.0 : std::numeric_limits<double>::infinity();
  float w = float(want);
  float ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  if (ulp == 0 || std::isinf(ulp)) ulp = std::numeric_limits<float>::denorm_min();
  return std::fabs(double(got) - want) / double(ulp);
}

}  // namespace k100::emu::test
