// k100-build-kernels: builds the kernel package from the registry.
//
//   k100-build-kernels --kernels-dir kernels --out-dir build
//
// Writes, for gfx926 (the default target) and gfx906:
//   k100lc_kernels.hsaco        catalog.json        k100lc_kernels.h
//   k100lc_kernels_gfx906.hsaco catalog_gfx906.json k100lc_kernels_gfx906.h
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "k100/base/error.h"
#include "k100/codeobj/writer.h"
#include "k100/kernels/package.h"

namespace {

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(data.data(), std::streamsize(data.size())))
    throw k100::Error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  std::string kernels_dir, out_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernels-dir") && i + 1 < argc) kernels_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--out-dir") && i + 1 < argc) out_dir = argv[++i];
    else {
      std::fprintf(stderr, "usage: k100-build-kernels --kernels-dir DIR --out-dir DIR\n");
      return 2;
    }
  }
  if (kernels_dir.empty() || out_dir.empty()) {
    std::fprintf(stderr, "usage: k100-build-kernels --kernels-dir DIR --out-dir DIR\n");
    return 2;
  }
  try {
    for (isa::Target t : {isa::Target::gfx926, isa::Target::gfx906}) {
      kernels::Package pkg = kernels::build_package(kernels::registry(), t, kernels_dir);
      std::string suffix = t == isa::Target::gfx926 ? "" : "_gfx906";
      auto bytes = codeobj::write_code_object(pkg.code_object);
      std::string base = out_dir + "/k100lc_kernels" + suffix;
      write_file(base + ".hsaco", std::string(bytes.begin(), bytes.end()));
      write_file(out_dir + "/catalog" + suffix + ".json", codeobj::catalog_json(pkg.catalog));
      write_file(base + ".h", codeobj::catalog_header(pkg.catalog, "k100lc_kernels" + suffix + ".hsaco"));
      std::printf("k100-build-kernels: %zu kernels -> %s.hsaco (%s, %zu bytes)\n", pkg.catalog.size(), base.c_str(),
                  isa::target_name(t), bytes.size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-build-kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
