// k100-link: many assembly files and code objects -> one code object.
//
//   k100-link [--mcpu=gfx926|gfx906] [--amdhsa-code-object-version=4|5]
//             [--allow-duplicates] -o OUT.hsaco INPUT...
//
// .s inputs are assembled; .hsaco/.co inputs are read. Kernels with the same
// symbol in two inputs are an error naming both; --allow-duplicates keeps the
// later one and says so.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "k100/asm/object_builder.h"
#include "k100/base/error.h"
#include "k100/codeobj/merge.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"

int main(int argc, char** argv) {
  using namespace k100;
  as::Options opts;
  bool allow_duplicates = false;
  std::string output;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strncmp(a, "--mcpu=", 7)) {
      auto t = isa::parse_target(a + 7);
      if (!t) {
        std::fprintf(stderr, "k100-link: unknown --mcpu '%s'\n", a + 7);
        return 2;
      }
      opts.target = *t;
      opts.target_explicit = true;
    } else if (!std::strncmp(a, "--amdhsa-code-object-version=", 29)) {
      opts.code_object_version = std::atoi(a + 29);
    } else if (!std::strcmp(a, "--allow-duplicates")) {
      allow_duplicates = true;
    } else if (!std::strcmp(a, "-o") && i + 1 < argc) {
      output = argv[++i];
    } else if (a[0] == '-') {
      std::fprintf(stderr, "k100-link: unknown option '%s'\n", a);
      return 2;
    } else {
      inputs.push_back(a);
    }
  }
  if (output.empty() || inputs.empty()) {
    std::fprintf(stderr,
                 "usage: k100-link [--mcpu=gfx926|gfx906] [--amdhsa-code-object-version=4|5] "
                 "[--allow-duplicates] -o OUT.hsaco INPUT...\n");
    return 2;
  }
  std::vector<codeobj::CodeObject> objects;
  bool failed = false;
  for (const auto& in : inputs) {
    std::ifstream f(in, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "k100-link: cannot open '%s'\n", in.c_str());
      failed = true;
      continue;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    std::string data = ss.str();
    if (data.size() >= 4 && data.compare(0, 4, "\x7f" "ELF") == 0) {
      try {
        objects.push_back(codeobj::read_code_object(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()), in));
      } catch (const Error& e) {
        std::fprintf(stderr, "k100-link: %s\n", e.what());
        failed = true;
      }
      continue;
    }
    DiagnosticSink diags;
    auto co = as::assemble_code_object(data, in, opts, diags);
    std::fputs(diags.format_all().c_str(), stderr);
    if (!co) {
      failed = true;
      continue;
    }
    objects.push_back(std::move(*co));
  }
  if (failed) return 1;
  try {
    codeobj::MergeOptions mo;
    mo.allow_duplicates = allow_duplicates;
    mo.on_warning = [](const std::string& w) { std::fprintf(stderr, "k100-link: warning: %s\n", w.c_str()); };
    mo.origin = output;
    codeobj::CodeObject merged = codeobj::merge_code_objects(objects, mo);
    codeobj::write_code_object_file(merged, output);
    std::fprintf(stderr, "k100-link: %zu kernels from %zu inputs -> %s\n", merged.kernels.size(), inputs.size(),
                 output.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-link: %s\n", e.what());
    return 1;
  }
  return 0;
}
