#include "test_support.h"

#include "k100/codeobj/kernel_builder.h"

namespace k100::codeobj::test {

std::string readelf_metadata_yaml(const std::string& text) {
  size_t start = text.find("---\n");
  if (start == std::string::npos) return {};
  size_t end = text.find("\n...\n", start);
  if (end == std::string::npos) return {};
  return text.substr(start, end + 5 - start);
}

std::vector<uint8_t> encoding_s_endpgm() {
  return {0x00, 0x00, 0x81, 0xbf};
}
std::vector<uint8_t> encoding_v_add_f32_v0_v1_v2() {
  return {0x01, 0x05, 0x00, 0x02};
}
std::vector<uint8_t> encoding_s_mov_b32_s0_s1() {
  return {0x01, 0x00, 0x80, 0xbe};
}

CodeObject make_sample_object(const Target& target, CodeObjectVersion version) {
  CodeObject co;
  co.origin = "sample";
  co.target = target;
  co.version = version;
  auto append = [&](const std::vector<uint8_t>& b) {
    co.text.insert(co.text.end(), b.begin(), b.end());
  };
  // Kernel "scale" at 0: s_mov_b32 s0, s1; v_add_f32 v0, v1, v2; s_endpgm.
  append(encoding_s_mov_b32_s0_s1());
  append(encoding_v_add_f32_v0_v1_v2());
  append(encoding_s_endpgm());
  uint64_t scale_size = co.text.size();
  co.text.resize(256, 0);
  // Kernel "fill" at 256: s_endpgm.
  append(encoding_s_endpgm());

  auto arg = [](const char* name, ValueKind kind, const char* type, uint32_t size,
                std::optional<Access> actual = std::nullopt) {
    ExplicitArg a;
    a.name = name;
    a.kind = kind;
    a.type_name = type;
    a.size = size;
    a.actual_access = actual;
    return a;
  };
  KernelSpec scale_spec;
  scale_spec.name = "scale";
  set_amdhsa_directive(scale_spec.settings, "user_sgpr_kernarg_segment_ptr", 1, target);
  set_amdhsa_directive(scale_spec.settings, "next_free_vgpr", 3, target);
  set_amdhsa_directive(scale_spec.settings, "next_free_sgpr", 8, target);
  scale_spec.args = {arg("in", ValueKind::GlobalBuffer, "float*", 8, Access::ReadOnly),
                     arg("out", ValueKind::GlobalBuffer, "float*", 8, Access::WriteOnly),
                     arg("count", ValueKind::ByValue, "uint", 4)};
  scale_spec.layout.hidden = HiddenArgLayout::Compact;
  scale_spec.code_offset = 0;
  scale_spec.code_size = scale_size;
  Kernel scale = build_kernel(scale_spec, target, version);

  KernelSpec fill_spec;
  fill_spec.name = "fill";
  set_amdhsa_directive(fill_spec.settings, "group_segment_fixed_size", 1024, target);
  fill_spec.layout.hidden = HiddenArgLayout::None;
  fill_spec.usage = RegisterUsage{0, 0};
  fill_spec.code_offset = 256;
  fill_spec.code_size = 4;
  Kernel fill = build_kernel(fill_spec, target, version);

  co.kernels = {scale, fill};
  co.symbols.push_back({"scale", SymbolSection::Text, 0, scale_size});
  co.symbols.push_back({"fill", SymbolSection::Text, 256, 4});
  co.symbols.push_back({"scale_tail", SymbolSection::Text, 8, 0, SymbolType::NoType,
                        SymbolBinding::Local, SymbolVisibility::Default});
  return co;
}

}  // namespace k100::codeobj::test
