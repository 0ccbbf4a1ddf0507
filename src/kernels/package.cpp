#include "k100/kernels/package.h"

#include <fstream>
#include <set>
#include <sstream>

#include "k100/asm/object_builder.h"
#include "k100/base/error.h"
#include "k100/codeobj/demangle.h"
#include "k100/codeobj/merge.h"

namespace k100::kernels {

namespace {

// The kernel's launch contract into its metadata (`.k100_launch`, one string
// per line), which the catalog and the runtime read back.
void attach_launch_contract(codeobj::CodeObject& co, const KernelDef& def) {
  codeobj::MetaNode lines = codeobj::MetaNode::array();
  for (const std::string& l : def.contract().text_lines()) lines.push_back(codeobj::MetaNode::string(l));
  for (codeobj::Kernel& k : co.kernels)
    if (k.meta && codeobj::lookup_name(k.name) == def.lookup) {
      k.meta->extra.set(".k100_launch", lines);
      return;
    }
  throw Error("no kernel '" + def.lookup + "' in its generated code object for its launch contract");
}

}  // namespace

Package build_package(const Registry& registry, isa::Target target, const std::string& kernels_dir,
                      codeobj::CodeObjectVersion version, bool skip_broken, codegen::BuildOverrides overrides) {
  Package pkg;
  std::vector<codeobj::CodeObject> parts;
  std::set<std::string> sources_done;
  std::string problems;
  for (const KernelDef& def : registry.all()) {
    try {
      if (!def.source.empty()) {
        if (!sources_done.insert(def.source).second) continue;  // one .s may hold several kernels
        std::string path = kernels_dir + "/" + def.source;
        std::ifstream f(path, std::ios::binary);
        if (!f) throw Error("cannot open " + path);
        std::stringstream ss;
        ss << f.rdbuf();
        DiagnosticSink diags;
        as::Options opts;
        opts.target = target;
        opts.target_explicit = true;
        opts.code_object_version = int(version);
        opts.include_dirs = {kernels_dir};  // .include "common/..." (shared macros)
        auto co = as::assemble_code_object(ss.str(), path, opts, diags);
        if (!co) throw Error(diags.format_all());
        parts.push_back(std::move(*co));
      } else {
        const codegen::ScopedBuildOverrides scoped(overrides);
        codeobj::CodeObject co = def.generate(target);
        if (co.version != version) throw Error("generator produced code object v" + std::to_string(int(co.version)));
        if (!def.launch.empty()) attach_launch_contract(co, def);
        parts.push_back(std::move(co));
      }
    } catch (const std::exception& e) {
      if (skip_broken) pkg.broken.emplace_back(def.lookup, e.what());
      else problems += "kernel '" + def.lookup + "': " + e.what() + "\n";
    }
  }
  if (!problems.empty()) throw Error("the kernel package cannot be built:\n" + problems);
  codeobj::MergeOptions mo;
  mo.origin = std::string("k100lc_kernels (") + isa::target_name(target) + ")";
  pkg.code_object = codeobj::merge_code_objects(parts, mo);
  pkg.catalog = codeobj::make_catalog(pkg.code_object);
  std::set<std::string> lookups;
  for (const auto& e : pkg.catalog) lookups.insert(e.lookup);
  for (const KernelDef& def : registry.all()) {
    bool is_broken = false;
    for (const auto& b : pkg.broken) is_broken |= b.first == def.lookup;
    if (!lookups.count(def.lookup) && !is_broken)
      problems += "kernel '" + def.lookup + "' is registered but not in the package\n";
  }
  if (!problems.empty()) throw Error(problems);
  return pkg;
}

}  // namespace k100::kernels
