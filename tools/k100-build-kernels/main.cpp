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
// --no-automatic-waits (and --no-automatic-wait-states) build the generated
// kernels without the s_waitcnt (s_nop) the authoring layer inserts: an
// experiment package for the emulator's checks to report, never one to run.
//
// The outputs of --out-dir are removed first and written only once both
// targets' packages are built (each through a temporary file renamed into
// place): a build that fails leaves no package behind, so nothing can go on
// running the kernels of an earlier build as if they were the current ones.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "k100/base/error.h"
#include "k100/codegen/kernel.h"
#include "k100/codeobj/writer.h"
#include "k100/kernels/docs.h"
#include "k100/kernels/package.h"
#include "option_table.h"

namespace {

void write_file(const std::string& path, const std::string& data) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out || !out.write(data.data(), std::streamsize(data.size())) || !out.flush())
      throw k100::Error("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw k100::Error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

std::string suffix_of(k100::isa::Target t) { return t == k100::isa::Target::gfx926 ? "" : "_gfx906"; }

std::vector<std::string> package_outputs(const std::string& out_dir, k100::isa::Target t) {
  const std::string base = out_dir + "/k100lc_kernels" + suffix_of(t);
  return {base + ".hsaco", out_dir + "/catalog" + suffix_of(t) + ".json", base + ".h"};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  std::string kernels_dir, out_dir, docs, check_docs;
  codegen::BuildOverrides off;
  tools::OptionTable options(
      "k100-build-kernels", "builds the kernel package (code objects, catalogs, C headers) and its reference page from the registry",
      {"k100-build-kernels --kernels-dir DIR --out-dir DIR", "k100-build-kernels --kernels-dir DIR --docs FILE",
       "k100-build-kernels --kernels-dir DIR --check-docs FILE"});
  options.value({"--kernels-dir"}, "DIR", "the kernels/ folder (hand-written .s sources and their .inc files, if any)",
                [&](const std::string& v) { kernels_dir = v; })
      .value({"--out-dir"}, "DIR",
             "write k100lc_kernels{,_gfx906}.hsaco, catalog{,_gfx906}.json and k100lc_kernels{,_gfx906}.h there",
             [&](const std::string& v) { out_dir = v; })
      .value({"--docs"}, "FILE", "write the kernel reference (markdown) generated from the catalog and registry",
             [&](const std::string& v) { docs = v; })
      .value({"--check-docs"}, "FILE", "fail (exit 1) when FILE differs from the generated kernel reference",
             [&](const std::string& v) { check_docs = v; })
      .flag({"--no-automatic-waits"}, "build the generated kernels without the layer's automatic s_waitcnt (an experiment package for the emulator's checks)",
            [&] { off.no_automatic_waits = true; })
      .flag({"--no-automatic-wait-states"}, "build the generated kernels without the layer's automatic s_nop (the same)",
            [&] { off.no_automatic_wait_states = true; })
      .epilog("exit status: 0 success, 1 a kernel that does not build or a stale --check-docs file, 2 a usage error\n");
  std::vector<std::string> extra;
  if (int status = options.parse(argc, argv, [&](const std::string& a) { extra.push_back(a); }); status >= 0)
    return status;
  if (!extra.empty()) return options.usage_error("unexpected argument '" + extra[0] + "'");
  if (kernels_dir.empty()) return options.usage_error("--kernels-dir is required");
  if (out_dir.empty() && docs.empty() && check_docs.empty())
    return options.usage_error("nothing to do: give --out-dir, --docs or --check-docs");
  const isa::Target targets[] = {isa::Target::gfx926, isa::Target::gfx906};
  try {
    if (!out_dir.empty())
      for (isa::Target t : targets)
        for (const std::string& path : package_outputs(out_dir, t)) {
          std::error_code ec;
          std::filesystem::remove(path, ec);
          if (ec) throw Error("cannot remove the earlier " + path + ": " + ec.message());
        }
    std::vector<std::pair<isa::Target, kernels::Package>> built;
    codegen::BuildCache cache;  // both targets: one compilation of a kernel whose IR is the same
    const codegen::ScopedBuildCache use_cache(cache);
    for (isa::Target t : targets) {
      kernels::Package pkg = kernels::build_package(kernels::registry(), t, kernels_dir, codeobj::CodeObjectVersion::V5, false, off);
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
      if (!out_dir.empty()) built.emplace_back(t, std::move(pkg));
    }
    for (const auto& [t, pkg] : built) {
      const std::vector<std::string> paths = package_outputs(out_dir, t);
      auto bytes = codeobj::write_code_object(pkg.code_object);
      write_file(paths[0], std::string(bytes.begin(), bytes.end()));
      write_file(paths[1], codeobj::catalog_json(pkg.catalog));
      write_file(paths[2], codeobj::catalog_header(pkg.catalog, "k100lc_kernels" + suffix_of(t) + ".hsaco"));
      std::printf("k100-build-kernels: %zu kernels -> %s (%s, %zu bytes)\n", pkg.catalog.size(), paths[0].c_str(),
                  isa::target_name(t), bytes.size());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-build-kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
