// Kernels installed into the package by `k100-cc export --install`: their
// registry entries come from kernels/dsl/installed.json, since no C++ entry
// states their semantics. The self-test checks what the entry records
// (argument layout, register counts, segments) against the code object the
// package build makes from the source, so an edited source or a changed
// compiler that no longer gives the exported kernel is reported.
#include <functional>
#include <nlohmann/json.hpp>

#include "dsl/dsl_build.h"
#include "k100/base/error.h"
#include "k100/codeobj/code_object.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels::dsl_package {

namespace {

using nlohmann::json;

// The comment lines at the top of a source, as one paragraph.
std::string leading_comment(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size() && text[at] == '#') {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at + 1, end - at - 1);
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos) out += (out.empty() ? "" : " ") + line.substr(first);
    at = end + 1;
  }
  return out;
}

// What the entry records beside the signature, compared one value at a time.
struct Recorded {
  std::string what;
  uint64_t want = 0;
  std::function<uint64_t(const codeobj::KernelMeta&)> got;
};

}  // namespace

void register_installed(Registry& r, const std::string& installed_json, const SourceLookup& source) {
  json list;
  try {
    list = json::parse(installed_json);
  } catch (const json::exception& e) {
    throw Error(std::string("kernels/dsl/installed.json: not valid JSON (") + e.what() + ")");
  }
  if (!list.is_array()) throw Error("kernels/dsl/installed.json: expected a JSON array of kernel entries");
  for (const json& e : list) {
    const std::string name = e.is_object() ? e.value("name", "") : "";
    const std::string where = "kernels/dsl/installed.json, entry '" + name + "'";
    try {
      if (name.empty()) throw Error("an entry without a name");
      std::vector<codegen::Param> params;
      for (const json& a : e.at("args"))
        params.push_back({a.at("name").get<std::string>(), a.at("type").get<std::string>(), a.value("access", "")});
      const codegen::Signature sig(name, std::move(params), codeobj::HiddenArgLayout::Compact);
      using M = codeobj::KernelMeta;
      std::vector<Recorded> rec = {
          {"kernarg_size", e.at("kernarg_size").get<uint64_t>(), [](const M& m) { return m.kernarg_segment_size; }},
          {"sgpr_count", e.at("sgpr_count").get<uint64_t>(), [](const M& m) { return uint64_t(m.sgpr_count); }},
          {"vgpr_count", e.at("vgpr_count").get<uint64_t>(), [](const M& m) { return uint64_t(m.vgpr_count); }},
          {"group_segment", e.at("group_segment").get<uint64_t>(),
           [](const M& m) { return m.group_segment_fixed_size; }},
          {"private_segment", e.at("private_segment").get<uint64_t>(),
           [](const M& m) { return m.private_segment_fixed_size; }}};
      for (const json& a : e.at("args")) {
        const std::string arg = a.at("name").get<std::string>();
        rec.push_back({"the offset of " + arg, a.at("offset").get<uint64_t>(), [arg](const M& m) {
                         for (const codeobj::ArgMeta& x : m.args)
                           if (x.name == arg) return uint64_t(x.offset);
                         return ~uint64_t(0);  // no such argument: never the recorded offset
                       }});
      }
      KernelDef d = generated_kernel("dsl", sig, dsl_generator(name, sig, source));
      const std::string comment = leading_comment(source(name));
      d.description = (comment.empty() ? "" : comment + " ") + "Installed from kernels/dsl/" + name +
                      ".kkl by k100-cc export --install.";
      d.semantics = "as written in kernels/dsl/" + name + ".kkl";
      d.geometry = "as the caller chooses (no launch contract is recorded)";
      d.cases = [](bool) { return std::vector<Case>{make_case({})}; };
      d.run = [rec, gen = d.generate](TestDevice&, const Case&) {
        const codeobj::CodeObject obj = gen(isa::Target::gfx926);
        const codeobj::KernelMeta& m = *obj.kernels.at(0).meta;
        CaseResult res;
        res.pass = true;
        res.tolerance = Tolerance{};
        for (const Recorded& x : rec) {
          const uint64_t got = x.got(m);
          ++res.compared;
          if (got != x.want) {
            res.pass = false;
            res.note += x.what + " is " + std::to_string(got) + ", the installed entry records " +
                        std::to_string(x.want) + "; re-export the kernel. ";
          }
        }
        return res;
      };
      r.add(std::move(d));
    } catch (const json::exception& x) {
      throw Error(where + ": " + x.what());
    } catch (const Error& x) {
      throw Error(where + ": " + x.what());
    }
  }
}

}  // namespace k100::kernels::dsl_package
