// k100-objdump: disassembler and inspector for code objects and raw code,
// with llvm-objdump's options and llvm-objdump-15's output layout.
//
//   k100-objdump -d FILE...        disassemble .text (symbols as labels, branch targets as
//                                  <symbol+offset>); --raw reads raw code
//   -D                             every allocated section decoded as code
//   -f -p -h -t -T -r -s [-j NAME] file header, program headers and dynamic section, section
//                                  headers, symbols, dynamic symbols, relocations, contents
//   -x                             -f -p -h -t -r together
//   -C, -S, --no-show-raw-insn, --disassemble-symbols=A,B, --start-address=X,
//   --stop-address=X, --triple=amdgcn-amd-amdhsa: as in llvm-objdump
//   --notes FILE                   the metadata note as YAML (like llvm-readelf -n)
//   --kernels FILE                 each kernel's descriptor fields and metadata record
//   [--mcpu=gfx926|gfx906]         target for raw code (code objects name their own)
// One-letter flags group as in llvm-objdump: -dr, -ht, -sj.rodata.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "elf_view.h"
#include "header_dump.h"
#include "k100/asm/disassembler.h"
#include "k100/base/error.h"
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/kernel_descriptor.h"
#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/target.h"
#include "k100/isa/codec.h"
#include "option_table.h"

namespace {

using k100::tools::ElfView;

struct Request {
  bool disasm = false, disasm_all = false, notes = false, kernels = false, headers = false, syms = false,
       dyn_syms = false, contents = false, raw = false, file_header = false, private_headers = false,
       relocs = false, demangle = false;
  std::vector<std::string> only;     // -j NAME...
  std::vector<std::string> symbols;  // --disassemble-symbols
  std::optional<uint64_t> start, stop;
  bool wanted(const std::string& section) const {
    return only.empty() || std::find(only.begin(), only.end(), section) != only.end();
  }
};

using Labels = std::map<uint64_t, std::vector<std::string>>;

// "name" or "name+0x1c" for an address, from the symbols at or before it.
std::string symbolize(const Labels& labels, uint64_t address) {
  auto it = labels.upper_bound(address);
  if (it == labels.begin()) return "";
  --it;
  char buf[32];
  std::snprintf(buf, sizeof buf, "+0x%llx", (unsigned long long)(address - it->first));
  return it->second.front() + (address == it->first ? "" : buf);
}

// The address a branch at `address` jumps to, if the line is a branch.
bool branch_target(const k100::as::DisasmLine& l, k100::isa::Target target, uint64_t address, uint64_t& to) {
  if (!l.ok) return false;
  k100::isa::Decoded d = k100::isa::decode(l.bytes, target);
  if (!d.ok) return false;
  const auto& specs = d.inst.specs();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].type == k100::isa::OpType::Label) {
      to = uint64_t(int64_t(address) + 4 + int64_t(int32_t(d.inst.ops[i].value)) * 4);
      return true;
    }
  return false;
}

// llvm-objdump's AMDGPU line: the instruction left-justified to 60 columns
// (its tab included), then "// ADDRESS:" and the instruction's dwords; a word
// that decodes to nothing is ".long 0x..." padded the way llvm pads it.
void print_line(const k100::as::DisasmLine& l, uint64_t address, const std::string& target_label) {
  std::string line;
  if (l.ok) {
    line = "\t" + l.text;
    if (line.size() < 60) line += std::string(60 - line.size(), ' ');
  } else {
    uint32_t w = 0;
    for (size_t k = 0; k < 4 && k < l.bytes.size(); ++k) w |= uint32_t(l.bytes[k]) << (8 * k);
    char b[32];
    std::snprintf(b, sizeof b, "\t.long 0x%08x ", w);
    line = b + std::string(42, ' ');
  }
  char addr[32];
  std::snprintf(addr, sizeof addr, "// %012llX:", (unsigned long long)address);
  line += addr;
  for (size_t i = 0; i + 4 <= l.bytes.size(); i += 4) {
    uint32_t w = 0;
    for (size_t k = 0; k < 4; ++k) w |= uint32_t(l.bytes[i + k]) << (8 * k);
    char b[16];
    std::snprintf(b, sizeof b, " %08X", w);
    line += b;
  }
  if (!target_label.empty()) line += " <" + target_label + ">";
  std::printf("%s\n", line.c_str());
}

// Disassembles [base, base + code.size()) with a header at each label, as llvm-objdump
// does: a range that starts inside a symbol is headed by that symbol's own address.
// Returns the names of `r.symbols` found.
std::vector<std::string> disassemble_range(std::span<const uint8_t> code, k100::isa::Target target, uint64_t base,
                                           const std::string& section, const Labels& labels, const Request& r) {
  std::vector<std::string> found;
  const Labels* headed = &labels;
  Labels section_label;
  if (labels.empty() || labels.begin()->first > base) {  // llvm heads unlabelled code with the section
    section_label = labels;
    section_label[base].push_back(section);
    headed = &section_label;
  }
  bool selected = r.symbols.empty();
  uint64_t last_header = UINT64_MAX;
  for (const auto& l : k100::as::disassemble(code, target, 0)) {
    const uint64_t at = base + l.offset;
    auto it = headed->upper_bound(at);
    const bool labelled = it != headed->begin();
    if (labelled) --it;
    if (labelled && it->first == at && !r.symbols.empty()) {
      selected = false;
      for (const auto& name : it->second)
        if (std::find(r.symbols.begin(), r.symbols.end(), name) != r.symbols.end()) {
          selected = true;
          found.push_back(name);
        }
    }
    if (!selected || (r.start && at < *r.start) || (r.stop && at >= *r.stop)) continue;
    if (labelled && it->first != last_header) {
      last_header = it->first;
      std::printf("\n%016llx <%s>:\n", (unsigned long long)it->first,
                  k100::tools::display_name(it->second.front(), r.demangle).c_str());
    }
    uint64_t to = 0;
    std::string where;
    if (branch_target(l, target, at, to)) where = k100::tools::display_name(symbolize(labels, to), r.demangle);
    print_line(l, at, where);
  }
  return found;
}

// Labels of a section: the function, object and untyped symbols defined in it.
Labels labels_of(const ElfView& v, size_t section) {
  Labels labels;
  for (const auto* table : {&v.symbols, &v.dynamic_symbols})
    for (const auto& y : *table) {
      int type = y.info & 15;
      if (y.section != section || type == 3 || type == 4 || y.name.empty()) continue;  // SECTION, FILE
      auto& names = labels[y.value];
      if (std::find(names.begin(), names.end(), y.name) == names.end()) names.push_back(y.name);
    }
  return labels;
}

// One file, as llvm-objdump does it: returns false after reporting an error.
bool dump_file(const std::string& input, const Request& r, k100::isa::Target raw_target,
               std::vector<std::string>& sections_seen, std::vector<std::string>& symbols_seen) {
  using namespace k100;
  std::vector<uint8_t> bytes;
  try {
    bytes = codeobj::read_input_file(input, "input");
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-objdump: error: %s\n", e.what());
    return false;
  }
  if (r.raw) {
    std::printf("\n%s:\tfile format raw (%s)\n\nDisassembly of section .text:\n", input.c_str(),
                isa::target_name(raw_target));
    sections_seen.push_back(".text");
    auto found = disassemble_range(bytes, raw_target, 0, ".text", {}, r);
    symbols_seen.insert(symbols_seen.end(), found.begin(), found.end());
    return true;
  }
  ElfView view;
  codeobj::CodeObject co;
  try {
    view = ElfView::read(bytes, input);
    if (view.machine != 224)
      throw Error(input + ": ELF machine " + std::to_string(view.machine) + " is not AMDGPU (EM_AMDGPU = 224)");
    co = codeobj::read_code_object(bytes, input);
    codeobj::require_toolkit_target(co.target, input);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.find("not an ELF file") != std::string::npos) why += " (--raw reads raw code)";
    std::fprintf(stderr, "k100-objdump: error: %s\n", why.c_str());
    return false;
  }
  const isa::Target t = *isa::parse_target(co.target.processor);  // a toolkit target: one the decoder knows
  for (const auto& s : view.sections) sections_seen.push_back(s.name);
  std::printf("\n%s:\tfile format elf64-amdgpu\n", input.c_str());
  if (r.file_header) k100::tools::print_file_header(view);
  if (r.private_headers) k100::tools::print_private_headers(view);
  if (r.headers) k100::tools::print_section_headers(view);
  if (r.syms) k100::tools::print_symbol_table(view, false, r.demangle);
  if (r.dyn_syms) k100::tools::print_symbol_table(view, true, r.demangle);
  if (r.relocs) k100::tools::print_relocations(view, bytes);
  if (r.contents) k100::tools::print_contents(view, bytes, r.only);
  if (r.notes)
    std::printf("code object v%d, target %s (e_flags 0x%X)\n%s", int(co.version), co.target.id().c_str(),
                co.read_info.e_flags, codeobj::to_yaml(co.metadata).c_str());
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
    for (size_t i = 0; i < view.sections.size(); ++i) {
      const auto& s = view.sections[i];
      const bool code = (s.flags & 4) != 0;  // SHF_EXECINSTR
      // -d: executable sections; -D: every allocated section with contents, decoded as code too
      if (s.name.empty() || s.type == 8 || s.size == 0 || !(s.flags & 2) || !r.wanted(s.name)) continue;
      if (!code && !r.disasm_all) continue;
      std::printf("\nDisassembly of section %s:\n", s.name.c_str());
      auto found = disassemble_range(std::span<const uint8_t>(bytes.data() + s.offset, size_t(s.size)), t,
                                     s.address, s.name, labels_of(view, i), r);
      symbols_seen.insert(symbols_seen.end(), found.begin(), found.end());
    }
  }
  return true;
}

// -dr -> -d -r; -sj.rodata -> -s -j .rodata: one-letter flags written together,
// the last of them possibly taking the rest of the argument as its value.
std::vector<std::string> ungroup(int argc, char** argv) {
  const std::string flags = "dDhtTsrpfxCSn", with_value = "j";
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool grouped = a.size() > 2 && a[0] == '-' && a[1] != '-' && flags.find(a[1]) != std::string::npos;
    for (size_t k = 2; grouped && k < a.size(); ++k)
      if (flags.find(a[k]) == std::string::npos) {
        grouped = with_value.find(a[k]) != std::string::npos;
        break;
      }
    if (!grouped) {
      out.push_back(a);
      continue;
    }
    for (size_t k = 1; k < a.size(); ++k) {
      out.push_back(std::string("-") + a[k]);
      if (with_value.find(a[k]) != std::string::npos) {
        if (k + 1 < a.size()) out.push_back(a.substr(k + 1));
        break;
      }
    }
  }
  return out;
}

uint64_t parse_address(const std::string& v, const char* what) {
  try {
    size_t used = 0;
    uint64_t x = std::stoull(v, &used, 0);
    if (used == v.size()) return x;
  } catch (...) {
  }
  throw k100::tools::OptionTable::UsageProblem{std::string(what) + ": '" + v + "' is not an address"};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace k100;
  using tools::OptionTable;
  isa::Target target = isa::Target::gfx926;
  Request r;
  std::vector<std::string> inputs;
  OptionTable table("k100-objdump", "prints AMDGPU code objects (gfx926/gfx906): disassembly, sections, symbols, "
                    "metadata, kernel descriptors, with llvm-objdump's options and layout",
                    {"k100-objdump [options] FILE..."});
  table.flag({"-d", "--disassemble"}, "disassemble executable sections (symbols as labels)", [&] { r.disasm = true; })
      .flag({"-D", "--disassemble-all"}, "disassemble every allocated section", [&] { r.disasm_all = true; })
      .value({"--disassemble-symbols"}, "A,B", "disassemble only these symbols (implies -d)",
             [&](const std::string& v) {
               r.disasm = true;
               for (size_t p = 0; p <= v.size();) {
                 size_t e = std::min(v.find(',', p), v.size());
                 if (e > p) r.symbols.push_back(v.substr(p, e - p));
                 p = e + 1;
               }
             })
      .value({"--start-address"}, "ADDRESS", "disassemble from this address on",
             [&](const std::string& v) { r.start = parse_address(v, "--start-address"); })
      .value({"--stop-address"}, "ADDRESS", "disassemble up to (not including) this address",
             [&](const std::string& v) { r.stop = parse_address(v, "--stop-address"); })
      .flag({"-S", "--source"}, "disassemble with source lines (code objects carry none: as -d)",
            [&] { r.disasm = true; })
      .flag({"--no-show-raw-insn"},
            "accepted as llvm-objdump accepts it; for AMDGPU llvm-objdump-15 prints the encoding comment anyway, "
            "and so does this tool", [] {})
      .flag({"-C", "--demangle"}, "demangle C++ symbol names", [&] { r.demangle = true; })
      .flag({"-f", "--file-headers"}, "the file header: architecture and start address", [&] { r.file_header = true; })
      .flag({"-p", "--private-headers"}, "program headers and the dynamic section", [&] { r.private_headers = true; })
      .flag({"-h", "--section-headers", "--headers"}, "section headers", [&] { r.headers = true; })
      .flag({"-t", "--syms"}, "symbol table", [&] { r.syms = true; })
      .flag({"-T", "--dynamic-syms"}, "dynamic symbol table", [&] { r.dyn_syms = true; })
      .flag({"-r", "--reloc"}, "relocation records (a linked code object has none)", [&] { r.relocs = true; })
      .flag({"-x", "--all-headers"}, "-f -p -h -t -r", [&] {
        r.file_header = r.private_headers = r.headers = r.syms = r.relocs = true;
      })
      .flag({"-s", "--full-contents"}, "contents of every section in hex", [&] { r.contents = true; })
      .value({"-j", "--section"}, "NAME", "only this section (repeatable) for -d, -D and -s; a name no file has is "
             "an error", [&](const std::string& v) { r.only.push_back(v); })
      .flag({"--notes", "-n"}, "the target and the metadata note as YAML", [&] { r.notes = true; })
      .flag({"--kernels"}, "kernel descriptors (decoded) and metadata per kernel", [&] { r.kernels = true; })
      .flag({"--raw"}, "read FILE as raw code (no ELF header) and disassemble it", [&] { r.raw = true; })
      .value({"--mcpu"}, "gfx926|gfx906", "target of raw code (a code object names its own)",
             [&](const std::string& v) {
               auto t = isa::parse_target(v);
               if (!t) throw OptionTable::UsageProblem{"unknown --mcpu '" + v + "' (expected gfx926 or gfx906)"};
               target = *t;
             })
      .value({"--triple", "--arch-name"}, "TRIPLE", "amdgcn-amd-amdhsa (or amdgcn): the only target this tool reads",
             [&](const std::string& v) {
               if (v != "amdgcn" && v.rfind("amdgcn-", 0) != 0)
                 throw OptionTable::UsageProblem{"unsupported triple '" + v + "' (expected amdgcn-amd-amdhsa)"};
             })
      .epilog("One-letter flags may be grouped (-dr, -ht, -sj.rodata). Every FILE is dumped in turn; a file\n"
              "that cannot be read is reported and the others still are. Input that is not an AMDGPU ELF\n"
              "file is refused unless --raw is given, and so is a code object for another processor.\n\n"
              "examples:\n"
              "  k100-objdump -d vadd.hsaco\n"
              "  k100-objdump -ht a.hsaco b.hsaco\n"
              "  k100-objdump -s -j .rodata vadd.hsaco\n"
              "  k100-objdump -d --disassemble-symbols=vadd --start-address=0x1000 vadd.hsaco\n\n"
              "exit status: 0 success, 1 a file could not be read or a -j section or symbol was not found,\n"
              "2 usage error\n");
  std::vector<std::string> args = ungroup(argc, argv);
  std::vector<char*> argp{argv[0]};
  for (auto& a : args) argp.push_back(a.data());
  int rc = table.parse(int(argp.size()), argp.data(), [&](const std::string& a) { inputs.push_back(a); });
  if (rc >= 0) return rc;
  if (!(r.disasm || r.disasm_all || r.notes || r.kernels || r.headers || r.syms || r.dyn_syms || r.contents ||
        r.file_header || r.private_headers || r.relocs))
    return table.usage_error("nothing to print: give at least one of -d, -D, -f, -p, -h, -t, -T, -r, -s, -x, "
                             "--notes, --kernels");
  if (inputs.empty()) return table.usage_error("no input file");
  bool ok = true;
  std::vector<std::string> sections, symbols;
  for (const auto& in : inputs) ok &= dump_file(in, r, target, sections, symbols);
  for (const auto& name : r.only)
    if (std::find(sections.begin(), sections.end(), name) == sections.end()) {
      std::fprintf(stderr, "k100-objdump: error: section '%s' given with -j is in no input file\n", name.c_str());
      ok = false;
    }
  for (const auto& name : r.symbols)
    if (std::find(symbols.begin(), symbols.end(), name) == symbols.end()) {
      std::fprintf(stderr, "k100-objdump: error: symbol '%s' given with --disassemble-symbols is in no "
                   "disassembled section\n", name.c_str());
      ok = false;
    }
  return ok ? 0 : 1;
}
