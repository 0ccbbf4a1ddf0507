#include "k100/asm/object_builder.h"

#include <algorithm>

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

  // symbols of .text (local labels .L* stay out, as in llvm-mc)
  std::vector<const Symbol*> text_syms;
  for (const auto& s : program.symbols) {
    if (!s.is_label || s.section != ".text" || s.name.rfind(".L", 0) == 0) continue;
    text_syms.push_back(&s);
  }
  std::sort(text_syms.begin(), text_syms.end(), [](const Symbol* a, const Symbol* b) { return a->value < b->value; });
  for (const Symbol* s : text_syms) {
    codeobj::Symbol cs;
    cs.name = s->name;
    cs.section = SymbolSection::Text;
    cs.offset = uint64_t(s->value);
    cs.size = s->size > 0 ? uint64_t(s->size) : 0;
    cs.type = s->type == "function" ? SymbolType::Func : s->type == "object" ? SymbolType::Object : SymbolType::NoType;
    cs.binding = s->global ? SymbolBinding::Global : SymbolBinding::Local;
    cs.visibility = s->global ? SymbolVisibility::Protected : SymbolVisibility::Default;
    if (s->visibility == "hidden") cs.visibility = SymbolVisibility::Hidden;
    co.symbols.push_back(cs);
  }
  if (const Section* ro = program.section(".rodata")) co.rodata_data = ro->bytes;

  bool yaml = !program.metadata_yaml.empty();
  if (yaml) {
    try {
      co.metadata = parse_metadata_yaml(program.metadata_yaml, origin, program.metadata_loc.line + 1);
    } catch (const Error& e) {
      err(program.metadata_loc, std::string("invalid .amdgpu_metadata: ") + e.what());
      return std::nullopt;
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
