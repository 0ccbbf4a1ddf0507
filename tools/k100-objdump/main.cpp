// k100-objdump: disassembler and inspector for code objects and raw code.
//
//   k100-objdump -d FILE           disassemble (.text of a code object, kernel symbols as labels;
//                                  a file that is not ELF is read as raw code)
//   k100-objdump --notes FILE      the metadata note as YAML (like llvm-readelf -n)
//   k100-objdump --kernels FILE    each kernel's descriptor fields and metadata record
//   [--mcpu=gfx926|gfx906]         target for raw code (code objects name their own)
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "k100/asm/disassembler.h"
#include "k100/base/error.h"
#include "k100/codeobj/kernel_descriptor.h"
#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/reader.h"

namespace {

void usage() {
  std::fprintf(stderr,
               "usage: k100-objdump (-d | --notes | --kernels) [--mcpu=gfx926|gfx906] FILE\n"
               "  -d, --disassemble   disassemble .text (kernel and function symbols as labels)\n"
               "  --notes             metadata note as YAML\n"
               "  --kernels           kernel descriptors (decoded) and metadata per kernel\n");
}

void print_line(const k100::as::DisasmLine& l, uint64_t address) {
  std::string line = "\t" + l.text;
  if (l.text.size() < 60) line += std::string(60 - l.text.size(), ' ');
  char addr[32];
  std::snprintf(addr, sizeof addr, " // %012llX:", (unsigned long long)address);
  line += addr;
  for (size_t i = 0; i < l.bytes.size(); i += 4) {
    uint32_t w = 0;
    for (size_t k = 0; k < 4 && i + k < l.bytes.size(); ++k) w |= uint32_t(l.bytes[i + k]) << (8 * k);
    char b[16];
    std::snprintf(b, sizeof b, " %08X", w);
    line += b;
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  isa::Target target = isa::Target::gfx926;
  bool disasm = false, notes = false, kernels = false;
  std::string input;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "-d") || !std::strcmp(a, "--disassemble")) disasm = true;
    else if (!std::strcmp(a, "--notes") || !std::strcmp(a, "-n")) notes = true;
    else if (!std::strcmp(a, "--kernels")) kernels = true;
    else if (!std::strncmp(a, "--mcpu=", 7) || !std::strncmp(a, "-mcpu=", 6)) {
      auto t = isa::parse_target(std::strchr(a, '=') + 1);
      if (!t) {
        std::fprintf(stderr, "k100-objdump: unknown target '%s'\n", std::strchr(a, '=') + 1);
        return 2;
      }
      target = *t;
    } else if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (a[0] == '-') {
      std::fprintf(stderr, "k100-objdump: unknown option '%s'\n", a);
      usage();
      return 2;
    } else {
      input = a;
    }
  }
  if ((!disasm && !notes && !kernels) || input.empty()) {
    usage();
    return 2;
  }
  std::ifstream f(input, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "k100-objdump: cannot open '%s'\n", input.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  bool elf = bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
  if (!elf) {
    if (notes || kernels) {
      std::fprintf(stderr, "k100-objdump: '%s' is not a code object (no ELF header)\n", input.c_str());
      return 1;
    }
    std::printf("\n%s:\tfile format raw (%s)\n\nDisassembly of section .text:\n\n", input.c_str(),
                isa::target_name(target));
    for (const auto& l : as::disassemble(bytes, target)) print_line(l, l.offset);
    return 0;
  }
  codeobj::CodeObject co;
  try {
    co = codeobj::read_code_object(bytes, input);
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-objdump: %s\n", e.what());
    return 1;
  }
  auto t = isa::parse_target(co.target.processor);
  if (!t) {
    std::fprintf(stderr, "k100-objdump: %s: processor %s is not one k100lc disassembles (gfx906, gfx926)\n",
                 input.c_str(), co.target.processor.c_str());
    return 1;
  }
  target = *t;
  if (notes) {
    std::printf("%s: %s, code object v%d\n", input.c_str(), co.target.id().c_str(), int(co.version));
    std::printf("%s", codeobj::to_yaml(co.metadata).c_str());
  }
  if (kernels) {
    for (const auto& k : co.kernels) {
      std::printf("kernel %s: code at .text+0x%llx, %llu bytes\n", k.name.c_str(),
                  (unsigned long long)k.code_offset, (unsigned long long)k.code_size);
      std::printf("%s", codeobj::format_descriptor(k.descriptor).c_str());
      if (k.meta) {
        std::printf("  metadata: kernarg_segment_size %llu, group %llu, private %llu, sgpr %u, vgpr %u\n",
                    (unsigned long long)k.meta->kernarg_segment_size,
                    (unsigned long long)k.meta->group_segment_fixed_size,
                    (unsigned long long)k.meta->private_segment_fixed_size, k.meta->sgpr_count, k.meta->vgpr_count);
        for (const auto& a : k.meta->args)
          std::printf("    arg %-20s offset %4u size %2u %s\n", a.name ? a.name->c_str() : "-", a.offset, a.size,
                      std::string(codeobj::value_kind_name(a.value_kind)).c_str());
      }
    }
  }
  if (disasm) {
    std::printf("\n%s:\tfile format elf64-amdgpu (%s)\n\nDisassembly of section .text:\n", input.c_str(),
                co.target.id().c_str());
    std::map<uint64_t, std::vector<std::string>> labels;
    for (const auto& s : co.symbols)
      if (s.section == codeobj::SymbolSection::Text) labels[s.offset].push_back(s.name);
    for (const auto& k : co.kernels) {
      auto& v = labels[k.code_offset];
      if (std::find(v.begin(), v.end(), k.name) == v.end()) v.push_back(k.name);
    }
    uint64_t base = co.read_info.text_address;
    auto lines = as::disassemble(co.text, target, 0);
    for (const auto& l : lines) {
      auto it = labels.find(l.offset);
      if (it != labels.end())
        for (const auto& name : it->second) std::printf("\n%016llx <%s>:\n", (unsigned long long)(base + l.offset), name.c_str());
      print_line(l, base + l.offset);
    }
  }
  return 0;
}
