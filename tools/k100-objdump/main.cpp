// k100-objdump: disassembler and inspector for code objects and raw code.
//
//   k100-objdump -d FILE...        disassemble (.text of a code object, kernel symbols as labels,
//                                  branch targets as <symbol+offset>); --raw reads raw code
//   k100-objdump -h / -t / -s [-j NAME] / -D   sections, symbols, contents, all sections
//   k100-objdump --notes FILE      the metadata note as YAML (like llvm-readelf -n)
//   k100-objdump --kernels FILE    each kernel's descriptor fields and metadata record
//   [--mcpu=gfx926|gfx906]         target for raw code (code objects name their own)
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "k100/asm/disassembler.h"
#include "k100/base/error.h"
#include "k100/codeobj/kernel_descriptor.h"
#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/reader.h"
#include "k100/isa/codec.h"
#include "elf_view.h"
#include "option_table.h"

namespace {

using k100::tools::ElfView;

struct Request {
  bool disasm = false, disasm_all = false, notes = false, kernels = false, headers = false, syms = false,
       contents = false, raw = false;
  std::vector<std::string> only;  // -j NAME...
  bool wanted(const std::string& section) const {
    return only.empty() || std::find(only.begin(), only.end(), section) != only.end();
  }
};

// "name" or "name+0x1c" for an address, from the symbols at or before it.
std::string symbolize(const std::map<uint64_t, std::vector<std::string>>& labels, uint64_t offset) {
  auto it = labels.upper_bound(offset);
  if (it == labels.begin()) return "";
  --it;
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", (unsigned long long)(offset - it->first));
  return it->second.front() + (offset == it->first ? "" : buf);
}

// Offset a branch at `offset` jumps to, if the line is a branch.
bool branch_target(const k100::as::DisasmLine& l, k100::isa::Target target, uint64_t offset, uint64_t& to) {
  if (!l.ok) return false;
  k100::isa::Decoded d = k100::isa::decode(l.bytes, target);
  if (!d.ok) return false;
  const auto& specs = d.inst.specs();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].type == k100::isa::OpType::Label) {
      to = uint64_t(int64_t(offset) + 4 + int64_t(int32_t(d.inst.ops[i].value)) * 4);
      return true;
    }
  return false;
}

void print_line(const k100::as::DisasmLine& l, uint64_t address, const std::string& target_label) {
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
  if (!target_label.empty()) line += " <" + target_label + ">";
  std::printf("%s\n", line.c_str());
}

void disassemble_range(std::span<const uint8_t> code, k100::isa::Target target, uint64_t base,
                       const std::map<uint64_t, std::vector<std::string>>& labels) {
  for (const auto& l : k100::as::disassemble(code, target, 0)) {
    auto it = labels.find(l.offset);
    if (it != labels.end())
      for (const auto& name : it->second)
        std::printf("\n%016llx <%s>:\n", (unsigned long long)(base + l.offset), name.c_str());
    uint64_t to = 0;
    std::string where;
    if (branch_target(l, target, l.offset, to)) where = symbolize(labels, to);
    print_line(l, base + l.offset, where);
  }
}

void section_headers(const ElfView& v) {
  std::printf("\nSections:\nIdx Name                 Size     VMA              Type\n");
  for (size_t i = 0; i < v.sections.size(); ++i) {
    const auto& s = v.sections[i];
    const char* type = s.type == 1 ? ((s.flags & 4) ? "TEXT" : (s.flags & 2) ? "DATA" : "")
                       : s.type == 8 ? "BSS" : "";
    std::printf("%3zu %-20s %08llx %016llx %s\n", i, s.name.c_str(), (unsigned long long)s.size,
                (unsigned long long)s.address, type);
  }
}

void symbol_table(const ElfView& v) {
  std::printf("\nSYMBOL TABLE:\n");
  for (const auto& y : v.symbols) {
    int bind = y.info >> 4, type = y.info & 15;
    std::string sec = y.section == 0 ? "*UND*" : y.section == 0xfff1 ? "*ABS*"
                      : y.section < v.sections.size() ? v.sections[y.section].name : "?";
    std::printf("%016llx %c     %c %-12s %016llx %s\n", (unsigned long long)y.value,
                bind == 0 ? 'l' : bind == 2 ? 'w' : 'g', type == 2 ? 'F' : type == 1 ? 'O' : ' ', sec.c_str(),
                (unsigned long long)y.size, y.name.c_str());
  }
}

void section_contents(const ElfView& v, const std::vector<uint8_t>& b, const Request& r) {
  for (const auto& s : v.sections) {
    if (s.name.empty() || s.type == 8 || s.size == 0 || !r.wanted(s.name)) continue;
    std::printf("Contents of section %s:\n", s.name.c_str());
    for (uint64_t o = 0; o < s.size; o += 16) {
      std::string hex, text;
      for (uint64_t k = 0; k < 16; ++k) {
        if (o + k < s.size) {
          uint8_t c = b[s.offset + o + k];
          char h[4];
          std::snprintf(h, sizeof h, "%02x", c);
          hex += h;
          text += (c >= 32 && c < 127) ? char(c) : '.';
        } else {
          hex += "  ";
        }
        if (k % 4 == 3) hex += ' ';
      }
      std::printf(" %04llx %s %s\n", (unsigned long long)(s.address + o), hex.c_str(), text.c_str());
    }
  }
}

// One file, as llvm-objdump does it: returns false after reporting an error.
bool dump_file(const std::string& input, const Request& r, k100::isa::Target raw_target, bool several) {
  using namespace k100;
  std::ifstream f(input, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "k100-objdump: error: '%s': cannot open the file\n", input.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (r.raw) {
    std::printf("\n%s:\tfile format raw (%s)\n\nDisassembly of section .text:\n\n", input.c_str(),
                isa::target_name(raw_target));
    disassemble_range(bytes, raw_target, 0, {});
    return true;
  }
  ElfView view;
  codeobj::CodeObject co;
  try {
    view = ElfView::read(bytes, input);
    if (view.machine != 224)
      throw Error(input + ": ELF machine " + std::to_string(view.machine) + " is not AMDGPU (EM_AMDGPU = 224)");
    co = codeobj::read_code_object(bytes, input);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.find("not an ELF file") != std::string::npos) why += " (--raw reads raw code)";
    std::fprintf(stderr, "k100-objdump: error: %s\n", why.c_str());
    return false;
  }
  auto t = isa::parse_target(co.target.processor);
  if (!t) {
    std::fprintf(stderr, "k100-objdump: error: %s: processor %s is not one k100lc disassembles (gfx906, gfx926)\n",
                 input.c_str(), co.target.processor.c_str());
    return false;
  }
  (void)several;
  std::printf("\n%s:\tfile format elf64-amdgpu (%s)\n", input.c_str(), co.target.id().c_str());
  if (r.headers) section_headers(view);
  if (r.syms) symbol_table(view);
  if (r.contents) section_contents(view, bytes, r);
  if (r.notes) std::printf("code object v%d\n%s", int(co.version), codeobj::to_yaml(co.metadata).c_str());
  if (r.kernels) {
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
  if (r.disasm || r.disasm_all) {
    std::map<uint64_t, std::vector<std::string>> labels;
    for (const auto& s : co.symbols)
      if (s.section == codeobj::SymbolSection::Text) labels[s.offset].push_back(s.name);
    for (const auto& k : co.kernels) {
      auto& v = labels[k.code_offset];
      if (std::find(v.begin(), v.end(), k.name) == v.end()) v.push_back(k.name);
    }
    if (r.wanted(".text")) {
      std::printf("\nDisassembly of section .text:\n");
      disassemble_range(co.text, *t, co.read_info.text_address, labels);
    }
    if (r.disasm_all) {
      // -D: every other allocated section with contents, decoded as code too
      for (const auto& s : view.sections) {
        if (s.name == ".text" || s.name.empty() || s.type == 8 || !(s.flags & 2) || s.size == 0 || !r.wanted(s.name))
          continue;
        std::printf("\nDisassembly of section %s:\n", s.name.c_str());
        disassemble_range(std::span<const uint8_t>(bytes.data() + s.offset, size_t(s.size)), *t, s.address, {});
      }
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  using tools::OptionTable;
  isa::Target target = isa::Target::gfx926;
  Request r;
  std::vector<std::string> inputs;
  OptionTable table("k100-objdump", "prints AMDGPU code objects (gfx926/gfx906): disassembly, sections, symbols, "
                    "metadata, kernel descriptors, with llvm-objdump's options",
                    {"k100-objdump [options] FILE..."});
  table.flag({"-d", "--disassemble"}, "disassemble .text (kernel and function symbols as labels)", [&] { r.disasm = true; })
      .flag({"-D", "--disassemble-all"}, "disassemble every allocated section", [&] { r.disasm_all = true; })
      .flag({"-h", "--section-headers", "--headers"}, "section headers", [&] { r.headers = true; })
      .flag({"-t", "--syms"}, "symbol table", [&] { r.syms = true; })
      .flag({"-s", "--full-contents"}, "contents of every section in hex", [&] { r.contents = true; })
      .value({"-j", "--section"}, "NAME", "only this section (repeatable) for -d, -D and -s",
             [&](const std::string& v) { r.only.push_back(v); })
      .flag({"--notes", "-n"}, "the metadata note as YAML", [&] { r.notes = true; })
      .flag({"--kernels"}, "kernel descriptors (decoded) and metadata per kernel", [&] { r.kernels = true; })
      .flag({"--raw"}, "read FILE as raw code (no ELF header) and disassemble it", [&] { r.raw = true; })
      .value({"--mcpu"}, "gfx926|gfx906", "target of raw code (a code object names its own)",
             [&](const std::string& v) {
               auto t = isa::parse_target(v);
               if (!t) throw OptionTable::UsageProblem{"unknown --mcpu '" + v + "' (expected gfx926 or gfx906)"};
               target = *t;
             })
      .epilog("Every FILE is dumped in turn; a file that cannot be read is reported and the others still\n"
              "are. Input that is not an AMDGPU ELF file is refused unless --raw is given.\n\n"
              "examples:\n"
              "  k100-objdump -d vadd.hsaco\n"
              "  k100-objdump -h -t a.hsaco b.hsaco\n"
              "  k100-objdump -s -j .rodata vadd.hsaco\n\n"
              "exit status: 0 success, 1 a file could not be read, 2 usage error\n");
  int rc = table.parse(argc, argv, [&](const std::string& a) { inputs.push_back(a); });
  if (rc >= 0) return rc;
  if (!(r.disasm || r.disasm_all || r.notes || r.kernels || r.headers || r.syms || r.contents))
    return table.usage_error("nothing to print: give at least one of -d, -D, -h, -t, -s, --notes, --kernels");
  if (inputs.empty()) return table.usage_error("no input file");
  bool ok = true;
  for (const auto& in : inputs) ok &= dump_file(in, r, target, inputs.size() > 1);
  return ok ? 0 : 1;
}
