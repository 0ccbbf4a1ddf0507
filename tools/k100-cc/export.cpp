// k100-cc export: one kernel's spec entry (DSL.md §9.4), read back from the
// code object the compiler wrote, and with --install its source copied into
// a tree's package DSL kernels (kernels/dsl/<name>.kkl) and the entry added
// to (or replaced in) kernels/dsl/installed.json, which the next build of
// that tree registers as a package kernel.
#include "export.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/kernels/registry.h"

namespace k100::cc {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw Error("cannot read " + p.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw Error("cannot write " + p.string());
}

}  // namespace

nlohmann::ordered_json spec_entry(const std::vector<uint8_t>& code_object, const std::string& name,
                                  const std::string& asm_path) {
  const codeobj::CodeObject obj = codeobj::read_code_object(code_object, name + ".hsaco");
  auto it = std::find_if(obj.kernels.begin(), obj.kernels.end(), [&](const codeobj::Kernel& k) { return k.name == name; });
  if (it == obj.kernels.end() || !it->meta) throw Error("the code object of '" + name + "' holds no such kernel");
  const codeobj::KernelMeta& m = *it->meta;
  nlohmann::ordered_json args = nlohmann::ordered_json::array();
  for (const codeobj::ArgMeta& a : m.args) {
    if (codeobj::is_hidden(a.value_kind)) continue;  // the hidden block follows from the layout
    nlohmann::ordered_json j;
    j["name"] = a.name.value_or("");
    j["type"] = a.type_name.value_or("");
    if (a.access) j["access"] = std::string(codeobj::access_name(*a.access));
    j["offset"] = a.offset;
    j["size"] = a.size;
    j["value_kind"] = std::string(codeobj::value_kind_name(a.value_kind));
    args.push_back(std::move(j));
  }
  nlohmann::ordered_json e;
  e["name"] = name;
  e["source"] = name + ".kkl";
  e["asm"] = fs::path(asm_path).filename().string();
  e["args"] = std::move(args);
  e["kernarg_size"] = m.kernarg_segment_size;
  e["kernarg_align"] = m.kernarg_segment_align;
  e["sgpr_count"] = m.sgpr_count;
  e["vgpr_count"] = m.vgpr_count;
  e["group_segment"] = m.group_segment_fixed_size;
  e["private_segment"] = m.private_segment_fixed_size;
  return e;
}

std::string install(const std::string& source_path, const std::string& source_text, const nlohmann::ordered_json& entry,
                    const std::string& tree) {
  const std::string name = entry.at("name").get<std::string>();
  const fs::path dir = fs::path(tree) / "kernels" / "dsl";
  if (!fs::is_directory(dir))
    throw Error("--tree " + tree + ": no kernels/dsl directory there (the package's DSL kernels live in it)");
  const fs::path list_path = dir / "installed.json";
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  if (fs::exists(list_path)) {
    try {
      list = nlohmann::ordered_json::parse(read_text(list_path));
    } catch (const nlohmann::json::exception& e) {
      throw Error(list_path.string() + ": not valid JSON (" + e.what() + ")");
    }
    if (!list.is_array()) throw Error(list_path.string() + ": expected a JSON array of kernel entries");
  }
  bool installed_before = false;
  for (const auto& e : list)
    if (e.is_object() && e.value("name", "") == name) installed_before = true;
  if (!installed_before) {
    // Only a kernel installed this way may be replaced; any other package kernel keeps its name.
    if (const kernels::KernelDef* d = kernels::registry().find(name))
      throw Error("'" + name + "' is a kernel of the package (family " + d->family +
                  ") with its own registry entry; install under another name");
    if (fs::exists(dir / (name + ".kkl")))
      throw Error("'" + name + "': " + (dir / (name + ".kkl")).string() +
                  " is a package DSL kernel with its own registry entry; install under another name");
  }
  const fs::path dst = dir / (name + ".kkl");
  std::error_code ec;
  if (!fs::exists(dst) || !fs::equivalent(source_path, dst, ec)) write_text(dst, source_text);
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  bool replaced = false;
  for (auto& e : list) {
    if (e.is_object() && e.value("name", "") == name) {
      out.push_back(entry);
      replaced = true;
    } else {
      out.push_back(e);
    }
  }
  if (!replaced) out.push_back(entry);
  write_text(list_path, out.dump(2) + "\n");
  return (replaced ? "replaced " : "installed ") + name + " in " + list_path.string() + " (source " + dst.string() + ")";
}

}  // namespace k100::cc
