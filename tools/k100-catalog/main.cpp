// k100-catalog: kernel catalog (JSON) and C kernel table from a code object.
//
//   k100-catalog x.hsaco [-o catalog.json] [--header k.h]
//
// Without -o the JSON goes to standard output.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "k100/base/error.h"
#include "k100/codeobj/catalog.h"
#include "k100/codeobj/reader.h"

namespace {

int usage() {
  std::cerr << "usage: k100-catalog CODE_OBJECT [-o CATALOG.json] [--header KERNELS.h]\n";
  return 2;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw k100::Error(path + ": cannot open for writing");
  f << text;
  if (!f) throw k100::Error(path + ": write failed");
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, json_out, header_out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-o" || a == "--output") && i + 1 < argc) {
      json_out = argv[++i];
    } else if (a == "--header" && i + 1 < argc) {
      header_out = argv[++i];
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "k100-catalog: unknown option '" << a << "'\n";
      return usage();
    } else if (input.empty()) {
      input = a;
    } else {
      std::cerr << "k100-catalog: more than one input given\n";
      return usage();
    }
  }
  if (input.empty()) return usage();
  try {
    k100::codeobj::CodeObject co = k100::codeobj::read_code_object_file(input);
    auto entries = k100::codeobj::make_catalog(co);
    std::string json = k100::codeobj::catalog_json(entries);
    if (json_out.empty())
      std::cout << json;
    else
      write_text(json_out, json);
    if (!header_out.empty()) write_text(header_out, k100::codeobj::catalog_header(entries, input));
  } catch (const k100::Error& e) {
    std::cerr << "k100-catalog: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
