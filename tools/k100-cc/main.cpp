// k100-cc: the kernel DSL compiler (.kkl files, restricted Python).
//
//   k100-cc check FILE.kkl [-v]   parse and type-check every kernel; print each
//                                 kernel's signature (and with -v its typed tree)
//   k100-cc build FILE.kkl [-o DIR] [--kernel NAME] [--emit-asm] [--time]
//                                 compile: <name>.s, <name>.hsaco and
//                                 <name>.catalog.json per kernel (DSL.md §9)
//   k100-cc export FILE.kkl --kernel NAME [-o DIR] [--install [--tree DIR]]
//                                 compile one kernel and print its spec entry
//                                 (DSL.md §9.4); --install adds it to a tree's
//                                 package DSL kernels
// Exit status: 0 no errors, 1 errors in the file (diagnostics on standard
// error as file:line:col with the source line and a caret) or an unreadable
// file, 2 a usage error.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "command_table.h"
#include "export.h"
#include "k100/base/error.h"
#include "k100/codeobj/input_file.h"
#include "k100/dsl/compiler.h"
#include "k100/dsl/typing.h"

namespace {

const k100::tools::CommandTable kCommands(
    "k100-cc", "compiles kernels written in the kernel DSL (.kkl, restricted Python)",
    {{"check", "parse and type-check every kernel of a file; print their signatures"},
     {"build", "compile every kernel of a file into <name>.s, <name>.hsaco and <name>.catalog.json"},
     {"export", "compile one kernel, print its spec entry; --install adds it to the package's DSL kernels"}},
    "'k100-cc COMMAND --help' shows a command's arguments.\n"
    "exit status: 0 success, 1 errors in the file (file:line:col, the line and a caret) or an unreadable\n"
    "file, 2 a usage error.\n");

const char kCheckUsage[] =
    "usage: k100-cc check FILE.kkl [-v] [--time]\n"
    "  parses and type-checks every kernel in FILE (- for standard input), prints one line per\n"
    "  kernel with its signature and LDS bytes; errors go to standard error.\n"
    "  -v       also print each kernel's typed tree (types; ' marks per-lane values)\n"
    "  --time   print the front end's time (lex, parse and check of the whole file)\n";

const char kBuildUsage[] =
    "usage: k100-cc build FILE.kkl [-o DIR] [--kernel NAME] [--emit-asm] [--time]\n"
    "  compiles every kernel in FILE (- for standard input) into DIR (default build/compiler):\n"
    "  <name>.s (assembly), <name>.hsaco (code object), <name>.catalog.json (catalog entry);\n"
    "  prints each .hsaco path; errors go to standard error.\n"
    "  --kernel NAME  only the kernel NAME\n"
    "  --emit-asm     also print each kernel's assembly after its path\n"
    "  --time         print each kernel's compile time (IR, lowering, register allocation, encoding)\n";

const char kExportUsage[] =
    "usage: k100-cc export FILE.kkl --kernel NAME [-o DIR] [--install [--tree DIR]]\n"
    "  compiles the kernel NAME of FILE into DIR (default build/compiler) as build does and prints its\n"
    "  spec entry, read from the code object: {name, source, asm, args, kernarg_size, kernarg_align,\n"
    "  sgpr_count, vgpr_count, group_segment, private_segment} (JSON).\n"
    "  --install   also copy FILE to TREE/kernels/dsl/NAME.kkl and add the entry to (or replace it in)\n"
    "              TREE/kernels/dsl/installed.json, so the next build of TREE ships NAME in its package;\n"
    "              a name the package has for a kernel of its own is refused\n"
    "  --tree DIR  the source tree to install into (default: the one this k100-cc was built from)\n";

bool read_source(const std::string& path, std::string& text) {
  try {
    auto bytes = k100::codeobj::read_input_file(path == "-" ? "/dev/stdin" : path, "kernel source");
    text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return true;
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "k100-cc: %s\n", e.what());
    return false;
  }
}

bool write_file(const std::filesystem::path& p, const void* data, size_t size) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(size));
  if (!f) {
    std::fprintf(stderr, "k100-cc: cannot write %s\n", p.string().c_str());
    return false;
  }
  return true;
}

int build(int argc, char** argv) {
  std::string path, out_dir = "build/compiler";
  k100::dsl::CompileOptions options;
  bool emit_asm = false, timing = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kBuildUsage, stdout);
      return 0;
    }
    if ((a == "-o" || a == "--kernel") && i + 1 >= argc) {
      std::fprintf(stderr, "k100-cc build: %s needs a value\n%s", a.c_str(), kBuildUsage);
      return 2;
    }
    if (a == "-o") {
      out_dir = argv[++i];
    } else if (a == "--kernel") {
      options.only = argv[++i];
    } else if (a == "--emit-asm") {
      emit_asm = true;
    } else if (a == "--time") {
      timing = true;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "k100-cc build: %s\n%s",
                   k100::tools::unknown_option(a, {"-o", "--kernel", "--emit-asm", "--time", "--help"}).c_str(),
                   kBuildUsage);
      return 2;
    } else if (path.empty()) {
      path = a;
    } else {
      std::fprintf(stderr, "k100-cc build: one file at a time ('%s' and '%s' given)\n", path.c_str(), a.c_str());
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "k100-cc build: no file given\n%s", kBuildUsage);
    return 2;
  }
  std::string text;
  if (!read_source(path, text)) return 1;
  const std::string file = path == "-" ? "<stdin>" : path;
  k100::dsl::CompileResult r = k100::dsl::compile(text, file, options);
  std::fputs(r.diagnostics.c_str(), stderr);
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %zu error%s\n", file.c_str(), r.errors, r.errors == 1 ? "" : "s");
    return 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "k100-cc: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  for (const auto& k : r.kernels) {
    const std::filesystem::path base = std::filesystem::path(out_dir) / k.name;
    if (!write_file(base.string() + ".s", k.assembly.data(), k.assembly.size()) ||
        !write_file(base.string() + ".hsaco", k.code_object.data(), k.code_object.size()) ||
        !write_file(base.string() + ".catalog.json", k.catalog_json.data(), k.catalog_json.size()))
      return 1;
    std::printf("%s.hsaco\n", base.string().c_str());
    if (timing)
      std::printf("%s: compiled in %.2f ms (%d VGPR and %d SGPR dwords spilled)\n", k.name.c_str(), k.compile_ms,
                  k.vgpr_spills, k.sgpr_spills);
    if (emit_asm) std::fputs(k.assembly.c_str(), stdout);
  }
  return 0;
}

int export_kernel(int argc, char** argv) {
  std::string path, out_dir = "build/compiler", name, tree = K100_SOURCE_TREE;
  bool do_install = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kExportUsage, stdout);
      return 0;
    }
    if ((a == "-o" || a == "--kernel" || a == "--tree") && i + 1 >= argc) {
      std::fprintf(stderr, "k100-cc export: %s needs a value\n%s", a.c_str(), kExportUsage);
      return 2;
    }
    if (a == "-o") {
      out_dir = argv[++i];
    } else if (a == "--kernel") {
      name = argv[++i];
    } else if (a == "--tree") {
      tree = argv[++i];
    } else if (a == "--install") {
      do_install = true;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "k100-cc export: %s\n%s",
                   k100::tools::unknown_option(a, {"-o", "--kernel", "--install", "--tree", "--help"}).c_str(),
                   kExportUsage);
      return 2;
    } else if (path.empty()) {
      path = a;
    } else {
      std::fprintf(stderr, "k100-cc export: one file at a time ('%s' and '%s' given)\n", path.c_str(), a.c_str());
      return 2;
    }
  }
  if (path.empty() || name.empty() || path == "-") {
    std::fprintf(stderr, "k100-cc export: %s\n%s",
                 path.empty() || path == "-" ? "a source file is needed (standard input cannot be installed)"
                                             : "--kernel NAME is needed",
                 kExportUsage);
    return 2;
  }
  std::string text;
  if (!read_source(path, text)) return 1;
  k100::dsl::CompileOptions options;
  options.only = name;
  k100::dsl::CompileResult r = k100::dsl::compile(text, path, options);
  std::fputs(r.diagnostics.c_str(), stderr);
  if (!r.ok() || r.kernels.size() != 1) {
    std::fprintf(stderr, "%s: %zu error%s\n", path.c_str(), r.errors, r.errors == 1 ? "" : "s");
    return 1;
  }
  const k100::dsl::CompiledKernel& k = r.kernels[0];
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const std::string base = (std::filesystem::path(out_dir) / k.name).string();
  if (ec || !write_file(base + ".s", k.assembly.data(), k.assembly.size()) ||
      !write_file(base + ".hsaco", k.code_object.data(), k.code_object.size()) ||
      !write_file(base + ".catalog.json", k.catalog_json.data(), k.catalog_json.size())) {
    if (ec) std::fprintf(stderr, "k100-cc: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  try {
    const auto entry = k100::cc::spec_entry(k.code_object, k.name, base + ".s");
    std::printf("%s\n", entry.dump(2).c_str());
    if (do_install) std::fprintf(stderr, "k100-cc export: %s\n", k100::cc::install(path, text, entry, tree).c_str());
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "k100-cc export: %s\n", e.what());
    return 1;
  }
  return 0;
}

int check(int argc, char** argv) {
  std::string path;
  bool verbose = false, timing = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kCheckUsage, stdout);
      return 0;
    }
    if (a == "-v") {
      verbose = true;
    } else if (a == "--time") {
      timing = true;
    } else if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "k100-cc check: %s\n%s", k100::tools::unknown_option(a, {"-v", "--time", "--help"}).c_str(),
                   kCheckUsage);
      return 2;
    } else if (path.empty()) {
      path = a;
    } else {
      std::fprintf(stderr, "k100-cc check: one file at a time ('%s' and '%s' given)\n", path.c_str(), a.c_str());
      return 2;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "k100-cc check: no file given\n%s", kCheckUsage);
    return 2;
  }
  std::vector<uint8_t> bytes;
  try {
    bytes = k100::codeobj::read_input_file(path == "-" ? "/dev/stdin" : path, "kernel source");
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "k100-cc: %s\n", e.what());
    return 1;
  }
  k100::dsl::SourceText src(path == "-" ? "<stdin>" : path,
                            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  k100::DiagnosticSink sink;
  auto t0 = std::chrono::steady_clock::now();
  auto kernels = k100::dsl::check_source(src, sink);
  auto t1 = std::chrono::steady_clock::now();
  std::fputs(sink.format_all().c_str(), stderr);
  if (sink.has_errors()) {
    std::fprintf(stderr, "%s: %zu error%s\n", src.file().c_str(), sink.error_count(),
                 sink.error_count() == 1 ? "" : "s");
    return 1;
  }
  for (const auto& k : kernels) {
    std::printf("kernel %s", k.signature().c_str());
    if (k.lds_bytes) std::printf(" lds %u bytes", k.lds_bytes);
    std::printf("\n");
    if (verbose) std::printf("  %s\n", k100::dsl::dump(k.body, true).c_str());
  }
  if (timing) {
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("front end: %.3f ms for %zu kernel%s\n", ms, kernels.size(), kernels.size() == 1 ? "" : "s");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  int cmd = kCommands.dispatch(argc, argv, status);
  if (cmd < 0) return status;
  return cmd == 1 ? build(argc, argv) : cmd == 2 ? export_kernel(argc, argv) : check(argc, argv);
}
