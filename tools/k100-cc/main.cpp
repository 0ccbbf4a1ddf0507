// k100-cc: the kernel DSL compiler (.kkl files, restricted Python).
//
//   k100-cc check FILE.kkl [-v]   parse and type-check every kernel; print each
//                                 kernel's signature (and with -v its typed tree)
// Exit status: 0 no errors, 1 errors in the file (diagnostics on standard
// error as file:line:col with the source line and a caret) or an unreadable
// file, 2 a usage error.
#include <chrono>
#include <cstdio>
#include <string>

#include "command_table.h"
#include "k100/base/error.h"
#include "k100/codeobj/input_file.h"
#include "k100/dsl/typing.h"

namespace {

const k100::tools::CommandTable kCommands(
    "k100-cc", "compiles kernels written in the kernel DSL (.kkl, restricted Python)",
    {{"check", "parse and type-check every kernel of a file; print their signatures"}},
    "'k100-cc check --help' shows the command's arguments.\n"
    "exit status: 0 success, 1 errors in the file (file:line:col, the line and a caret) or an unreadable\n"
    "file, 2 a usage error.\n");

const char kCheckUsage[] =
    "usage: k100-cc check FILE.kkl [-v] [--time]\n"
    "  parses and type-checks every kernel in FILE (- for standard input), prints one line per\n"
    "  kernel with its signature and LDS bytes; errors go to standard error.\n"
    "  -v       also print each kernel's typed tree (types; ' marks per-lane values)\n"
    "  --time   print the front end's time (lex, parse and check of the whole file)\n";

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
  return check(argc, argv);
}
