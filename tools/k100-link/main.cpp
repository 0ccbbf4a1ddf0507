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
#include "option_table.h"
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/target.h"
#include "k100/codeobj/writer.h"

int main(int argc, char** argv) {
  using namespace k100;
  as::Options opts;
  bool allow_duplicates = false;
  std::string output;
  std::vector<std::string> inputs;
  using tools::OptionTable;
  OptionTable table("k100-link", "links assembly files and code objects into one AMDGPU code object; a kernel "
                    "defined twice is an error naming both inputs",
                    {"k100-link [options] -o OUT.hsaco INPUT..."});
  table.value({"--mcpu"}, "gfx926|gfx906", "target for the .s inputs (default gfx926)",
              [&](const std::string& v) {
                auto t = isa::parse_target(v);
                if (!t) throw OptionTable::UsageProblem{"unknown --mcpu '" + v + "' (expected gfx926 or gfx906)"};
                opts.target = *t;
                opts.target_explicit = true;
              })
      .value({"--amdhsa-code-object-version"}, "4|5", "code object version of the .s inputs (default 5)",
             [&](const std::string& v) {
               opts.code_object_version = std::atoi(v.c_str());
               opts.code_object_version_explicit = true;
               if (opts.code_object_version != 4 && opts.code_object_version != 5)
                 throw OptionTable::UsageProblem{"code object version must be 4 or 5"};
             })
      .flag({"--allow-duplicates"}, "keep the later of two kernels with one name (and say so)",
            [&] { allow_duplicates = true; })
      .value({"-o"}, "FILE", "the output code object; '-' is standard output", [&](const std::string& v) { output = v; })
      .epilog("INPUT: a .s file (assembled) or a code object (an ELF file, read).\n\n"
              "example:\n  k100-link -o all.hsaco vadd.s gemv.hsaco\n\n"
              "exit status: 0 success, 1 an input could not be read or linked, 2 usage error\n");
  int rc = table.parse(argc, argv, [&](const std::string& a) { inputs.push_back(a); });
  if (rc >= 0) return rc;
  if (output.empty()) return table.usage_error("no output file (-o OUT.hsaco)");
  if (inputs.empty()) return table.usage_error("no input file");
  std::vector<codeobj::CodeObject> objects;
  bool failed = false;
  for (const auto& in : inputs) {
    std::string data;
    try {
      std::vector<uint8_t> bytes = codeobj::read_input_file(in, "input");
      data.assign(bytes.begin(), bytes.end());
    } catch (const Error& e) {
      std::fprintf(stderr, "k100-link: error: %s\n", e.what());
      failed = true;
      continue;
    }
    if (data.size() >= 4 && data.compare(0, 4, "\x7f" "ELF") == 0) {
      try {
        objects.push_back(codeobj::read_code_object(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()), data.size()), in));
        codeobj::require_toolkit_target(objects.back().target, in);
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
    if (output == "-") {
      std::vector<uint8_t> bytes = codeobj::write_code_object(merged);
      if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) throw Error("cannot write standard output");
    } else {
      codeobj::write_code_object_file(merged, output);
    }
    std::fprintf(stderr, "k100-link: %zu kernels from %zu inputs -> %s\n", merged.kernels.size(), inputs.size(),
                 output == "-" ? "standard output" : output.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-link: %s\n", e.what());
    return 1;
  }
  return 0;
}
