// k100-build-kernels: builds the kernel package from the registry.
//
//   k100-build-kernels --kernels-dir kernels --out-dir build
//   k100-build-kernels --kernels-dir kernels --docs docs/KERNELS.md
//   k100-build-kernels --kernels-dir kernels --check-docs docs/KERNELS.md
//
// With --out-dir it writes, for gfx926 (the default target) and gfx906:
//   k100lc_kernels.hsaco        catalog.json        k100lc_kernels.h
//   k100lc_kernels_gfx906.hsaco catalog_gfx906.json k100lc_kernels_gfx906.h
// --docs writes the kernel reference generated from the catalog and the
// registry; --check-docs fails when the given file differs from it.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/codeobj/writer.h"
#include "k100/kernels/docs.h"
#include "k100/kernels/package.h"
#include "option_table.h"

namespace {

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(data.data(), std::streamsize(data.size())))
    throw k100::Error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  std::string kernels_dir, out_dir, docs, check_docs;
  tools::OptionTable options(
      "k100-build-kernels", "builds the kernel package (code objects, catalogs, C headers) and its reference page from the registry",
      {"k100-build-kernels --kernels-dir DIR --out-dir DIR", "k100-build-kernels --kernels-dir DIR --docs FILE",
       "k100-build-kernels --kernels-dir DIR --check-docs FILE"});
  options.value({"--kernels-dir"}, "DIR", "the kernels/ folder (hand-written .s sources and their .inc files)",
                [&](const std::string& v) { kernels_dir = v; })
      .value({"--out-dir"}, "DIR",
             "write k100lc_kernels{,_gfx906}.hsaco, catalog{,_gfx906}.json and k100lc_kernels{,_gfx906}.h there",
             [&](const std::string& v) { out_dir = v; })
      .value({"--docs"}, "FILE", "write the kernel reference (markdown) generated from the catalog and registry",
             [&](const std::string& v) { docs = v; })
      .value({"--check-docs"}, "FILE", "fail (exit 1) when FILE differs from the generated kernel reference",
             [&](const std::string& v) { check_docs = v; })
      .epilog("exit status: 0 success, 1 a kernel that does not build or a stale --check-docs file, 2 a usage error\n");
  std::vector<std::string> extra;
  if (int status = options.parse(argc, argv, [&](const std::string& a) { extra.push_back(a); }); status >= 0)
    return status;
  if (!extra.empty()) return options.usage_error("unexpected argument '" + extra[0] + "'");
  if (kernels_dir.empty()) return options.usage_error("--kernels-dir is required");
  if (out_dir.empty() && docs.empty() && check_docs.empty())
    return options.usage_error("nothing to do: give --out-dir, --docs or --check-docs");
  try {
    for (isa::Target t : {isa::Target::gfx926, isa::Target::gfx906}) {
      kernels::Package pkg = kernels::build_package(kernels::registry(), t, kernels_dir);
      if (t == isa::Target::gfx926 && (!docs.empty() || !check_docs.empty())) {
        std::string md = kernels::kernels_markdown(kernels::registry(), pkg.catalog);
        if (!docs.empty()) {
          write_file(docs, md);
          std::printf("k100-build-kernels: wrote %s\n", docs.c_str());
        }
        if (!check_docs.empty()) {
          std::ifstream in(check_docs, std::ios::binary);
          std::stringstream have;
          have << in.rdbuf();
          if (!in || have.str() != md) {
            std::fprintf(stderr,
                         "k100-build-kernels: %s is not up to date with the registry and catalog; regenerate it with\n"
                         "  build/bin/k100-build-kernels --kernels-dir kernels --docs %s\n",
                         check_docs.c_str(), check_docs.c_str());
            return 1;
          }
          std::printf("k100-build-kernels: %s is up to date\n", check_docs.c_str());
        }
      }
      if (out_dir.empty()) continue;
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
