#include "k100/asm/object_builder.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "k100/base/error.h"
#include "k100/codeobj/kernel_builder.h"
#include "k100/codeobj/metadata_node.h"

namespace k100::as {

using namespace codeobj;

codeobj::RegisterUsage register_usage(std::span<const uint8_t> bytes, isa::Target target) {
  RegisterUsage u;
  size_t pos = 0;
  auto note = [&](const isa::Operand& o) {
    if (o.is_vgpr()) u.max_vgpr = std::max(u.max_vgpr, int(o.vgpr_index() + o.width - 1));
    else if (o.code <= isa::code::kSgprLast) u.max_sgpr = std::max(u.max_sgpr, int(o.code + o.width - 1));
  };
  while (pos + 4 <= bytes.size()) {
    isa::Decoded d = isa::decode(bytes.subspan(pos), target);
    if (!d.ok) {  // data inside .text: skip the word
      pos += 4;
      continue;
    }
    for (int i = 0; i < d.inst.num_operands; ++i) note(d.inst.ops[size_t(i)]);
    if (d.inst.atomic_dst.present()) note(d.inst.atomic_dst);
    pos += d.size;
  }
  return u;
}

namespace {

// Type names of the compact form: f32*, const u8*, i32, u64, f16*, bf16*, ...
bool arg_from_type(const std::string& type, ExplicitArg& a) {
  std::string t = type;
  if (t.rfind("const", 0) == 0) {
    t = t.substr(5);
    a.is_const = true;
  }
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  if (!t.empty() && t.back() == '*') {
    a.size = 8;
    a.address_space = AddressSpace::Global;
    return true;
  }
  static const struct {
    const char* name;
    uint32_t size;
  } kScalars[] = {{"i8", 1},  {"u8", 1},  {"i16", 2}, {"u16", 2}, {"f16", 2}, {"bf16", 2},
                  {"i32", 4}, {"u32", 4}, {"f32", 4}, {"i64", 8}, {"u64", 8}, {"f64", 8}};
  for (const auto& s : kScalars)
    if (t == s.name) {
      a.size = s.size;
      return true;
    }
  return false;
}

}  // namespace

std::optional<CodeObject> build_code_object(const Program& program, const Options& options,
                                            const std::string& origin, DiagnosticSink& diags) {
  size_t errors_before = diags.error_count();
  auto err = [&](const SourceLoc& l, const std::string& m) { diags.error(l, m); };
  CodeObject co;
  co.origin = origin;
  std::string processor = isa::target_name(options.target);
  try {
    co.target = program.amdgcn_target.empty() ? default_target(processor) : parse_target_id(program.amdgcn_target);
  } catch (const Error& e) {
    err({origin, 0, 0}, e.what());
    return std::nullopt;
  }
  if (co.target.processor != processor && !options.target_explicit && isa::parse_target(co.target.processor))
    processor = co.target.processor;
  if (co.target.processor != processor) {
    err({origin, 0, 0}, ".amdgcn_target \"" + program.amdgcn_target + "\" does not match --mcpu=" + processor);
    return std::nullopt;
  }
  int version = program.code_object_version ? program.code_object_version : options.code_object_version;
  if (version != 4 && version != 5) {
    err({origin, 0, 0}, "code object version " + std::to_string(version) + " is not supported (4 or 5)");
    return std::nullopt;
  }
  co.version = version == 4 ? CodeObjectVersion::V4 : CodeObjectVersion::V5;
  if (const Section* text = program.section(".text")) co.text = text->bytes;

  // Sections as ld.lld combines them: .rodata and .rodata.* into .rodata (after the
  // kernel descriptors), .data and .data.* into .data, each input at its alignment.
  std::map<std::string, std::pair<SymbolSection, uint64_t>> placed;  // section -> where it went
  placed[".text"] = {SymbolSection::Text, 0};
  auto kind_of = [](const std::string& name, const std::string& base) {
    return name == base || name.rfind(base + ".", 0) == 0;
  };
  for (const Section& s : program.sections) {
    if (s.name == ".text") continue;
    auto append = [&](std::vector<uint8_t>& out, SymbolSection where) {
      uint64_t at = (out.size() + s.alignment - 1) / s.alignment * s.alignment;
      out.resize(at, 0);
      out.insert(out.end(), s.bytes.begin(), s.bytes.end());
      placed[s.name] = {where, at};
    };
    if (kind_of(s.name, ".rodata") && s.flags.find('w') == std::string::npos) {
      if (s.alignment > 64)
        err({origin, 0, 0}, "section '" + s.name + "' is aligned to " + std::to_string(s.alignment) +
                                " bytes; .rodata allows at most 64");
      append(co.rodata_data, SymbolSection::Data);
    } else if (kind_of(s.name, ".data")) {
      co.data_alignment = std::max(co.data_alignment, s.alignment);
      append(co.data, SymbolSection::Writable);
    } else if (s.bytes.empty()) {
      continue;  // .AMDGPU.csdata, .note.GNU-stack: nothing to load
    } else if (s.flags.find('a') == std::string::npos) {
      diags.warning({origin, 0, 0}, "section '" + s.name + "' is not allocated (no \"a\" flag): its " +
                                        std::to_string(s.bytes.size()) + " bytes are not written to the code object");
    } else {
      err({origin, 0, 0}, "section '" + s.name + "' (" + std::to_string(s.bytes.size()) +
                              " bytes) is not supported: k100-as writes .text, .rodata* and .data*");
    }
  }
  for (const auto& r : program.text_references) {
    auto it = placed.find(r.section);
    if (it == placed.end()) {
      err(r.loc, "a reference into section '" + r.section + "', which is not written to the code object");
      continue;
    }
    co.text_references.push_back({r.offset, it->second.first, it->second.second + uint64_t(r.target), r.high});
  }

  // symbols (local labels .L* stay out, as in llvm-mc)
  std::vector<const Symbol*> syms;
  for (const auto& s : program.symbols) {
    if (!s.is_label || !placed.count(s.section) || s.name.rfind(".L", 0) == 0) continue;
    syms.push_back(&s);
  }
  std::stable_sort(syms.begin(), syms.end(), [&](const Symbol* a, const Symbol* b) {
    return std::tuple(int(placed[a->section].first), a->value) < std::tuple(int(placed[b->section].first), b->value);
  });
  for (const Symbol* s : syms) {
    codeobj::Symbol cs;
    cs.name = s->name;
    cs.section = placed[s->section].first;
    cs.offset = placed[s->section].second + uint64_t(s->value);
    cs.size = s->size > 0 ? uint64_t(s->size) : 0;
    cs.type = s->type == "function" ? SymbolType::Func : s->type == "object" ? SymbolType::Object : SymbolType::NoType;
    cs.binding = s->weak ? SymbolBinding::Weak : s->global ? SymbolBinding::Global : SymbolBinding::Local;
    cs.visibility = s->global ? SymbolVisibility::Protected : SymbolVisibility::Default;
    if (s->visibility == "hidden") cs.visibility = SymbolVisibility::Hidden;
    co.symbols.push_back(cs);
  }
  co.symbol_order = program.symbol_order;

  bool yaml = !program.metadata_yaml.empty();
  if (yaml) {
    try {
      co.metadata = parse_metadata_yaml(program.metadata_yaml, origin, program.metadata_loc.line + 1);
    } catch (const Error& e) {
      err(program.metadata_loc, std::string("invalid .amdgpu_metadata: ") + e.what());
      return std::nullopt;
    }
    // A v4 document in a v5 object (or the reverse) describes another ABI than the
    // one the file declares: say so (llvm-mc writes it silently).
    const MetaNode* v = co.metadata.find("amdhsa.version");
    if (v && v->is_array() && v->items().size() == 2 && v->items()[0].is_integer() && v->items()[1].is_integer() &&
        v->items()[0].as_int() == 1) {
      int declared = int(v->items()[1].as_int()) + 3;  // [1, 1] is v4, [1, 2] is v5
      if ((declared == 4 || declared == 5) && declared != version) {
        std::string how = program.code_object_version
                              ? "by .amdhsa_code_object_version"
                              : options.code_object_version_explicit ? "by --amdhsa-code-object-version"
                                                                     : "the default";
        diags.warning(program.metadata_loc,
                      ".amdgpu_metadata is code object v" + std::to_string(declared) + " metadata (amdhsa.version [1, " +
                          std::to_string(declared - 3) + "]) but a v" + std::to_string(version) + " object is written (" +
                          how + "); give --amdhsa-code-object-version=" + std::to_string(declared) +
                          " to write the version it describes");
      }
    }
  }
  Target target = co.target;
  for (const auto& kd : program.kernels) {
    KernelSpec spec;
    spec.name = kd.name;
    bool ok = true;
    for (size_t i = 0; i < kd.settings.size(); ++i) {
      try {
        set_amdhsa_directive(spec.settings, kd.settings[i].first, kd.settings[i].second, target);
      } catch (const Error& e) {
        err(kd.setting_locs[i], e.what());
        ok = false;
      }
    }
    const Symbol* sym = program.symbol(kd.name);
    if (!sym || !sym->is_label || sym->section != ".text") {
      err(kd.loc, "kernel '" + kd.name + "' has no label in .text (its code must start at '" + kd.name + ":')");
      continue;
    }
    spec.code_offset = uint64_t(sym->value);
    uint64_t end = co.text.size();
    for (const auto& k2 : program.kernels) {
      const Symbol* s2 = program.symbol(k2.name);
      if (s2 && s2->is_label && s2->section == ".text" && uint64_t(s2->value) > spec.code_offset)
        end = std::min(end, uint64_t(s2->value));
    }
    spec.code_size = sym->size > 0 ? uint64_t(sym->size) : end - spec.code_offset;
    isa::Target isa_target = *isa::parse_target(processor);
    spec.usage = register_usage(std::span<const uint8_t>(co.text).subspan(spec.code_offset, spec.code_size),
                                isa_target);
    if (!kd.args.empty() && yaml) {
      err(kd.args[0].loc, "kernel '" + kd.name + "': .k100_arg lines and an .amdgpu_metadata block cannot be mixed");
      ok = false;
    }
    for (const auto& a : kd.args) {
      ExplicitArg ea;
      ea.name = a.name;
      auto kind = parse_value_kind(a.value_kind);
      if (!kind || is_hidden(*kind)) {
        err(a.loc, "kernel '" + kd.name + "' argument '" + a.name + "': value kind '" + a.value_kind +
                       "' (expected global_buffer or by_value)");
        ok = false;
        continue;
      }
      ea.kind = *kind;
      ea.type_name = a.type_name;
      if (!arg_from_type(a.type_name, ea)) {
        err(a.loc, "kernel '" + kd.name + "' argument '" + a.name + "': unknown type '" + a.type_name +
                       "' (use a pointer such as f32* or a scalar i8/u8/i16/u16/f16/bf16/i32/u32/f32/i64/u64/f64)");
        ok = false;
        continue;
      }
      if (ea.kind == ValueKind::GlobalBuffer && ea.size != 8) {
        err(a.loc, "kernel '" + kd.name + "' argument '" + a.name + "': a global_buffer must be a pointer type");
        ok = false;
        continue;
      }
      if (!a.access.empty()) {
        auto acc = parse_access(a.access);
        if (!acc) {
          err(a.loc, "kernel '" + kd.name + "' argument '" + a.name + "': access '" + a.access +
                         "' (expected read_only, write_only or read_write)");
          ok = false;
          continue;
        }
        ea.access = acc;
      }
      spec.args.push_back(ea);
    }
    spec.layout.hidden = kd.hidden_layout == "full"      ? HiddenArgLayout::Full
                         : kd.hidden_layout == "compact" ? HiddenArgLayout::Compact
                                                         : HiddenArgLayout::None;
    if (!ok) continue;
    try {
      Kernel k = build_kernel(spec, target, co.version);
      if (yaml) k.meta.reset();  // the document is written verbatim
      // llvm-mc gives the descriptor symbol the binding and visibility written for the
      // kernel's own symbol (clang writes .protected, hand-written code usually nothing)
      k.kd_binding = sym->weak ? SymbolBinding::Weak : sym->global ? SymbolBinding::Global : SymbolBinding::Local;
      k.kd_visibility = sym->visibility == "protected" ? SymbolVisibility::Protected
                        : sym->visibility == "hidden"  ? SymbolVisibility::Hidden
                                                       : SymbolVisibility::Default;
      co.kernels.push_back(std::move(k));
    } catch (const Error& e) {
      err(kd.loc, e.what());
    }
  }
  if (yaml) {
    // metadata that disagrees with the code
    try {
      for (const auto& km : parse_kernels(co.metadata, origin)) {
        const Kernel* k = co.find_kernel(km.name);
        if (!k) {
          err(program.metadata_loc, "metadata describes kernel '" + km.name + "' but there is no .amdhsa_kernel for it");
          continue;
        }
        uint64_t end = 0;
        for (const auto& a : km.args) end = std::max<uint64_t>(end, uint64_t(a.offset) + a.size);
        if (km.kernarg_segment_size < end)
          err(program.metadata_loc, "kernel '" + km.name + "': .kernarg_segment_size " +
                                        std::to_string(km.kernarg_segment_size) + " is smaller than its arguments (" +
                                        std::to_string(end) + " bytes)");
        RegisterUsage u = register_usage(co.kernel_code(*k), *isa::parse_target(processor));
        if (int(km.vgpr_count) < u.max_vgpr + 1)
          err(program.metadata_loc, "kernel '" + km.name + "': .vgpr_count " + std::to_string(km.vgpr_count) +
                                        " is smaller than the VGPRs its code uses (" + std::to_string(u.max_vgpr + 1) + ")");
        if (int(km.sgpr_count) < u.max_sgpr + 1)
          err(program.metadata_loc, "kernel '" + km.name + "': .sgpr_count " + std::to_string(km.sgpr_count) +
                                        " is smaller than the SGPRs its code uses (" + std::to_string(u.max_sgpr + 1) + ")");
      }
    } catch (const Error& e) {
      err(program.metadata_loc, e.what());
    }
  }
  if (diags.error_count() != errors_before) return std::nullopt;
  return co;
}

std::optional<CodeObject> assemble_code_object(std::string_view source, const std::string& filename,
                                               const Options& options, DiagnosticSink& diags) {
  Options o = options;
  o.listing = false;
  Program p = assemble(source, filename, o, diags);
  if (diags.has_errors()) return std::nullopt;
  return build_code_object(p, o, filename, diags);
}

}  // namespace k100::as
