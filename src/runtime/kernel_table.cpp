#include "k100/runtime/kernel_table.h"

#include <algorithm>
#include <cctype>

#include "k100/base/closest_match.h"
#include "k100/base/error.h"
#include "k100/codeobj/catalog.h"
#include "k100/runtime/error.h"

namespace k100::runtime {

std::vector<LayoutEntry> KernelInfo::layout() const {
  std::vector<LayoutEntry> out;
  out.reserve(args.size());
  for (const auto& a : args) out.push_back({a.offset, a.size, a.kind});
  return out;
}

std::string KernelInfo::signature() const {
  std::string s = lookup + "(";
  for (size_t i = 0; i < explicit_args; ++i) {
    const ArgInfo& a = args[i];
    if (i) s += ", ";
    s += a.name.empty() ? "arg" + std::to_string(i) : a.name;
    s += ": " + (a.type.empty() ? a.value_kind + "/" + std::to_string(a.size) : a.type);
  }
  return s + ")";
}

std::vector<KernelInfo> kernels_of(const codeobj::CodeObject& co) {
  std::vector<KernelInfo> out;
  for (const codeobj::CatalogEntry& e : codeobj::make_catalog(co)) {
    KernelInfo k;
    k.name = e.name;
    k.lookup = e.lookup;
    for (const auto& a : e.args)
      k.args.push_back({a.name.value_or(""), a.offset, a.size, codeobj::kind_code(a.kind), a.kind,
                        a.type.value_or("")});
    while (k.explicit_args < k.args.size() && k.args[k.explicit_args].kind == kExplicit)
      ++k.explicit_args;
    k.kernarg_size = uint32_t(e.kernarg_size);
    k.group_segment = uint32_t(e.group_segment);
    k.private_segment = uint32_t(e.private_segment);
    k.sgpr_count = e.sgpr_count;
    k.vgpr_count = e.vgpr_count;
    k.max_workgroup = e.max_flat_workgroup_size;
    k.launch = e.launch;
    out.push_back(std::move(k));
  }
  return out;
}

std::string normalize_lookup(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

void KernelTable::check_package(const std::vector<KernelInfo>& kernels,
                                const std::string& origin) const {
  std::unordered_map<std::string, int> fresh;
  for (const auto& k : kernels) {
    for (const std::string* key : {&k.lookup, &k.name}) {
      const char* what = key == &k.lookup ? "lookup name" : "symbol";
      auto& index = key == &k.lookup ? by_lookup_ : by_name_;
      auto it = index.find(*key);
      if (it != index.end()) {
        const KernelInfo& old = kernels_[size_t(it->second)];
        throw RuntimeError(ErrorCode::Package,
                           origin + ": kernel " + what + " '" + *key + "' is already defined by " +
                               origins_[size_t(old.package)] + " (kernel '" + old.name +
                               "'); merge the code objects with k100-link or rename one");
      }
    }
    if (!fresh.emplace(k.lookup, 0).second)
      throw RuntimeError(ErrorCode::Package,
                         origin + ": two kernels have the lookup name '" + k.lookup + "'");
  }
}

int KernelTable::add_package(std::vector<KernelInfo> kernels, int module,
                             const std::string& origin) {
  check_package(kernels, origin);  // a failed load leaves the table as it was
  int package = int(origins_.size());
  origins_.push_back(origin);
  for (auto& k : kernels) {
    k.id = int(kernels_.size());
    k.package = package;
    k.module = module;
    by_lookup_.emplace(k.lookup, k.id);
    by_name_.emplace(k.name, k.id);
    kernels_.push_back(std::move(k));
  }
  return package;
}

const KernelInfo* KernelTable::find_lookup(std::string_view lookup) const {
  auto it = by_lookup_.find(normalize_lookup(lookup));
  return it == by_lookup_.end() ? nullptr : &kernels_[size_t(it->second)];
}

const KernelInfo* KernelTable::find(std::string_view lookup) const {
  if (const KernelInfo* k = find_lookup(lookup)) return k;
  auto it = by_name_.find(std::string(lookup));
  return it == by_name_.end() ? nullptr : &kernels_[size_t(it->second)];
}

const KernelInfo* KernelTable::at(int id) const {
  return id >= 0 && size_t(id) < kernels_.size() ? &kernels_[size_t(id)] : nullptr;
}

std::string KernelTable::unknown_message(std::string_view lookup) const {
  std::string msg = "unknown kernel '" + std::string(lookup) + "'";
  std::vector<std::string> names;
  names.reserve(kernels_.size());
  for (const auto& k : kernels_) names.push_back(k.lookup);
  std::string best = closest_match(normalize_lookup(lookup), names);
  if (!best.empty()) return msg + " (did you mean '" + best + "'?)";
  if (origins_.empty()) return msg + "; no kernel package is loaded";
  msg += "; " + std::to_string(kernels_.size()) + " kernel" + (kernels_.size() == 1 ? "" : "s") +
         " loaded from ";
  for (size_t i = 0; i < origins_.size(); ++i) msg += (i ? ", " : "") + origins_[i];
  return msg;
}

const KernelInfo& KernelTable::get(std::string_view lookup) const {
  if (const KernelInfo* k = find(lookup)) return *k;
  throw RuntimeError(ErrorCode::UnknownKernel, unknown_message(lookup));
}

}  // namespace k100::runtime
