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
#include "k100/codeobj/target.h"
#include "option_table.h"

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw k100::Error(path + ": cannot open for writing");
  f << text;
  if (!f) throw k100::Error(path + ": write failed");
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, json_out, header_out;
  int inputs = 0;
  k100::tools::OptionTable table("k100-catalog", "writes the kernel catalog (JSON) and a C kernel table of a code "
                                 "object, from its metadata",
                                 {"k100-catalog CODE_OBJECT [-o CATALOG.json] [--header KERNELS.h]"});
  table.value({"-o", "--output"}, "FILE", "write the JSON catalog to FILE ('-' or none: standard output)",
              [&](const std::string& v) { json_out = v == "-" ? "" : v; })
      .value({"--header"}, "FILE", "also write a C header with one entry per kernel",
             [&](const std::string& v) { header_out = v; })
      .epilog("example:\n  k100-catalog k100lc_kernels.hsaco -o catalog.json --header k100lc_kernels.h\n\n"
              "exit status: 0 success, 1 the code object could not be read or a file written, 2 usage error\n");
  int rc = table.parse(argc, argv, [&](const std::string& a) {
    input = a;
    ++inputs;
  });
  if (rc >= 0) return rc;
  if (inputs != 1) return table.usage_error(inputs ? "more than one input given" : "no code object given");
  try {
    k100::codeobj::CodeObject co = k100::codeobj::read_code_object_file(input);
    k100::codeobj::require_toolkit_target(co.target, input);
    auto entries = k100::codeobj::make_catalog(co);
    std::string json = k100::codeobj::catalog_json(entries);
    if (json_out.empty())
      std::cout << json;
    else
      write_text(json_out, json);
    if (!header_out.empty()) write_text(header_out, k100::codeobj::catalog_header(entries, input));
  } catch (const std::exception& e) {
    std::cerr << "k100-catalog: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
