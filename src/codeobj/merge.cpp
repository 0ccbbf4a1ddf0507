#include "k100/codeobj/merge.h"

#include <algorithm>
#include <map>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

std::string name_of(const CodeObject& co, size_t index) {
  return co.origin.empty() ? "input " + std::to_string(index + 1) : co.origin;
}

struct Definition {
  size_t input;
  bool kernel;
  bool weak;
};

}  // namespace

CodeObject merge_code_objects(std::span<const CodeObject> inputs, const MergeOptions& options) {
  if (inputs.empty()) throw Error("merge: no code objects given");
  auto warn = [&](const std::string& m) {
    if (options.on_warning) options.on_warning(m);
  };

  CodeObject out;
  out.origin = options.origin;
  out.target = inputs[0].target;
  out.version = inputs[0].version;
  out.comment = kDefaultComment;

  std::vector<size_t> symbol_input, kernel_input;  // which input each output element came from
  std::vector<std::pair<MetaNode, size_t>> kernel_records;
  MetaNode doc = MetaNode::map();
  std::map<std::string, size_t> doc_key_origin;
  std::map<std::string, Definition> defined;
  bool has_target_key = false;

  for (size_t i = 0; i < inputs.size(); ++i) {
    const CodeObject& in = inputs[i];
    const std::string who = name_of(in, i);
    auto target = combined_target(out.target, in.target);
    if (!target)
      throw Error("merge: " + who + " targets " + in.target.id() + " but " + name_of(inputs[0], 0) +
                  " targets " + out.target.id());
    out.target = *target;
    if (in.version != out.version)
      throw Error("merge: " + who + " is code object v" + std::to_string(int(in.version)) +
                  " but " + name_of(inputs[0], 0) + " is v" + std::to_string(int(out.version)));
    if (!in.read_info.unsupported.empty())
      throw Error("merge: " + who + " cannot be merged: " + in.read_info.unsupported.front());
    // An object read from a file does not say where its code refers to its data; one
    // assembled here lists those references (text_references) and moves them with it.
    const bool references_unknown = !in.read_info.sections.empty();
    for (const auto& s : in.symbols)
      if (references_unknown && s.section == SymbolSection::Data && s.binding != SymbolBinding::Weak)
        throw Error("merge: " + who + ": read-only data symbol '" + s.name +
                    "' may be addressed PC-relatively by its code; merging would move it");

    MetaNode in_doc = in.metadata;
    if (in_doc.is_nil()) {
      std::vector<KernelMeta> metas;
      for (const auto& k : in.kernels) {
        if (!k.meta) throw Error("merge: " + who + ": kernel '" + k.name + "' has no metadata");
        metas.push_back(*k.meta);
      }
      in_doc = make_metadata_document(in.version, in.target, metas);
    }
    if (!in_doc.is_map()) throw Error("merge: " + who + ": metadata document is not a map");

    // Global names of this input: kernels first, then other global symbols.
    std::vector<std::pair<std::string, Definition>> names;
    for (const auto& k : in.kernels) names.push_back({k.name, {i, true, false}});
    for (const auto& s : in.symbols) {
      if (s.binding == SymbolBinding::Local) continue;
      bool is_kernel = in.find_kernel(s.name) != nullptr;
      if (!is_kernel) names.push_back({s.name, {i, false, s.binding == SymbolBinding::Weak}});
    }
    std::vector<std::string> drop_here;  // weak symbols of this input that lose to earlier ones
    for (const auto& [name, def] : names) {
      auto it = defined.find(name);
      if (it == defined.end()) {
        defined.emplace(name, def);
        continue;
      }
      const Definition& old = it->second;
      const std::string old_who = name_of(inputs[old.input], old.input);
      if (old.weak && def.weak && !old.kernel && !def.kernel) {
        drop_here.push_back(name);  // like a linker: the first weak definition stays
        continue;
      }
      std::string what = def.kernel ? "kernel" : "symbol";
      if (!options.allow_duplicates)
        throw Error("merge: duplicate " + what + " '" + name + "': defined in " + old_who +
                    " and in " + who);
      warn("merge: " + what + " '" + name + "' from " + old_who + " is replaced by the one from " +
           who + " (allow_duplicates)");
      // Remove the earlier definition: its kernel, symbol and metadata record.
      for (size_t k = out.kernels.size(); k-- > 0;)
        if (out.kernels[k].name == name) {
          out.kernels.erase(out.kernels.begin() + ptrdiff_t(k));
          kernel_input.erase(kernel_input.begin() + ptrdiff_t(k));
        }
      for (size_t s = out.symbols.size(); s-- > 0;)
        if (out.symbols[s].name == name && out.symbols[s].binding != SymbolBinding::Local) {
          out.symbols.erase(out.symbols.begin() + ptrdiff_t(s));
          symbol_input.erase(symbol_input.begin() + ptrdiff_t(s));
        }
      std::string kd = name + ".kd";
      std::erase_if(kernel_records, [&](const std::pair<MetaNode, size_t>& r) {
        const MetaNode* sym = r.first.find(".symbol");
        return sym && sym->is_string() && sym->as_string() == kd;
      });
      it->second = def;
    }

    // Code and data, moved as blocks.
    uint64_t text_base = align_up(out.text.size(), 256);
    out.text.resize(text_base, 0);
    out.text.insert(out.text.end(), in.text.begin(), in.text.end());
    uint64_t data_base = out.rodata_data.size();
    out.rodata_data.insert(out.rodata_data.end(), in.rodata_data.begin(), in.rodata_data.end());
    uint64_t writable_base = align_up(out.data.size(), std::max<uint32_t>(in.data_alignment, 1));
    out.data.resize(writable_base, 0);
    out.data.insert(out.data.end(), in.data.begin(), in.data.end());
    out.data_alignment = std::max(out.data_alignment, in.data_alignment);
    auto base_of = [&](SymbolSection s) {
      return s == SymbolSection::Text ? text_base : s == SymbolSection::Data ? data_base : writable_base;
    };
    for (Symbol s : in.symbols) {
      if (std::find(drop_here.begin(), drop_here.end(), s.name) != drop_here.end()) continue;
      s.offset += base_of(s.section);
      out.symbols.push_back(std::move(s));
      symbol_input.push_back(i);
    }
    for (TextReference r : in.text_references) {
      r.text_offset += text_base;
      r.offset += base_of(r.section);
      out.text_references.push_back(r);
    }
    for (Kernel k : in.kernels) {
      k.code_offset += text_base;
      out.kernels.push_back(std::move(k));
      kernel_input.push_back(i);
    }

    // Metadata: kernel records concatenated, other keys must agree (arrays concatenate).
    for (const auto& [key, value] : in_doc.entries()) {
      if (key == "amdhsa.kernels") {
        if (!value.is_array()) throw Error("merge: " + who + ": amdhsa.kernels is not an array");
        for (const auto& r : value.items()) kernel_records.push_back({r, i});
        continue;
      }
      if (key == "amdhsa.target") {  // the combined target, written below
        has_target_key = true;
        continue;
      }
      MetaNode* have = doc.find(key);
      if (!have) {
        doc.set(key, value);
        doc_key_origin[key] = i;
      } else if (*have == value) {
        continue;
      } else if (have->is_array() && value.is_array() && key != "amdhsa.version") {
        for (const auto& e : value.items()) have->push_back(e);
      } else {
        throw Error("merge: metadata key '" + key + "' differs between " +
                    name_of(inputs[doc_key_origin[key]], doc_key_origin[key]) + " and " + who);
      }
    }
  }

  MetaNode list = MetaNode::array();
  for (auto& r : kernel_records) list.push_back(std::move(r.first));
  doc.set("amdhsa.kernels", std::move(list));
  if (has_target_key) doc.set("amdhsa.target", MetaNode::string(out.target.id()));
  out.metadata = std::move(doc);
  return out;
}

}  // namespace k100::codeobj
