#include "header_dump.h"

#include <cxxabi.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace k100::tools {
namespace {

constexpr uint32_t kShtNobits = 8, kShtRela = 4, kShtRel = 9;
constexpr uint64_t kShfAlloc = 2, kShfExec = 4;

std::string section_name(const ElfView& v, uint16_t index) {
  if (index == 0) return "*UND*";
  if (index == 0xfff1) return "*ABS*";
  if (index == 0xfff2) return "*COM*";
  return index < v.sections.size() ? v.sections[index].name : "?";
}

const char* dynamic_tag_name(int64_t tag) {
  switch (tag) {
    case 1: return "NEEDED";
    case 2: return "PLTRELSZ";
    case 4: return "HASH";
    case 5: return "STRTAB";
    case 6: return "SYMTAB";
    case 7: return "RELA";
    case 8: return "RELASZ";
    case 9: return "RELAENT";
    case 10: return "STRSZ";
    case 11: return "SYMENT";
    case 14: return "SONAME";
    case 17: return "REL";
    case 18: return "RELSZ";
    case 19: return "RELENT";
    case 20: return "PLTREL";
    case 23: return "JMPREL";
    case 30: return "FLAGS";
    case 0x6ffffef5: return "GNU_HASH";
    case 0x6ffffff9: return "RELACOUNT";
    case 0x6ffffffa: return "RELCOUNT";
    case 0x6ffffffb: return "FLAGS_1";
  }
  return nullptr;
}

// R_AMDGPU_* names (LLVM's ELFRelocs/AMDGPU.def).
const char* relocation_name(uint32_t type) {
  static const char* const kNames[] = {"R_AMDGPU_NONE",         "R_AMDGPU_ABS32_LO",    "R_AMDGPU_ABS32_HI",
                                       "R_AMDGPU_ABS64",        "R_AMDGPU_REL32",       "R_AMDGPU_REL64",
                                       "R_AMDGPU_ABS32",        "R_AMDGPU_GOTPCREL",    "R_AMDGPU_GOTPCREL32_LO",
                                       "R_AMDGPU_GOTPCREL32_HI", "R_AMDGPU_REL32_LO",   "R_AMDGPU_REL32_HI",
                                       "",                      "R_AMDGPU_RELATIVE64",  "R_AMDGPU_REL16"};
  return type < std::size(kNames) && kNames[type][0] ? kNames[type] : "R_AMDGPU_UNKNOWN";
}

}  // namespace

std::string display_name(const std::string& name, bool demangle) {
  if (!demangle || name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

void print_file_header(const ElfView& v) {
  std::printf("architecture: amdgcn\nstart address: 0x%016llx\n", (unsigned long long)v.entry);
}

void print_private_headers(const ElfView& v) {
  std::printf("\nProgram Header:\n");
  for (const auto& p : v.program_headers) {
    const char* type = " UNKNOWN ";
    switch (p.type) {
      case 1: type = "    LOAD "; break;
      case 2: type = " DYNAMIC "; break;
      case 3: type = "  INTERP "; break;
      case 4: type = "    NOTE "; break;
      case 6: type = "    PHDR "; break;
      case 7: type = "    TLS "; break;
      case 0x6474e550: type = "EH_FRAME "; break;
      case 0x6474e551: type = "   STACK "; break;
      case 0x6474e552: type = "   RELRO "; break;
      case 0x6474e553: type = "   PROPERTY "; break;
    }
    std::printf("%soff    0x%016llx vaddr 0x%016llx paddr 0x%016llx align 2**%d\n", type,
                (unsigned long long)p.offset, (unsigned long long)p.vaddr, (unsigned long long)p.paddr,
                std::countr_zero(p.align));
    std::printf("         filesz 0x%016llx memsz 0x%016llx flags %c%c%c\n", (unsigned long long)p.filesz,
                (unsigned long long)p.memsz, (p.flags & 4) ? 'r' : '-', (p.flags & 2) ? 'w' : '-',
                (p.flags & 1) ? 'x' : '-');
  }
  if (v.dynamic.empty()) return;
  std::printf("\nDynamic Section:\n");
  size_t width = 0;
  auto tag_text = [](int64_t tag) {
    const char* n = dynamic_tag_name(tag);
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llX", (unsigned long long)tag);
    return std::string(n ? n : buf);
  };
  for (const auto& [tag, value] : v.dynamic) width = std::max(width, tag_text(tag).size());
  for (const auto& [tag, value] : v.dynamic)
    std::printf("  %-*s 0x%016llx\n", int(width), tag_text(tag).c_str(), (unsigned long long)value);
}

void print_section_headers(const ElfView& v) {
  size_t width = 13;
  for (const auto& s : v.sections) width = std::max(width, s.name.size());
  std::printf("\nSections:\nIdx %-*s Size     %-16s Type\n", int(width), "Name", "VMA");
  for (size_t i = 0; i < v.sections.size(); ++i) {
    const auto& s = v.sections[i];
    std::string type = (s.flags & kShfExec) ? "TEXT" : "";
    if ((s.flags & kShfAlloc) && !(s.flags & kShfExec) && s.type == 1) type += type.empty() ? "DATA" : ", DATA";
    if ((s.flags & kShfAlloc) && s.type == kShtNobits) type += type.empty() ? "BSS" : ", BSS";
    std::printf("%3zu %-*s %08llx %016llx %s\n", i, int(width), s.name.c_str(), (unsigned long long)s.size,
                (unsigned long long)s.address, type.c_str());
  }
}

void print_symbol_table(const ElfView& v, bool dynamic, bool demangle) {
  std::printf("\n%s:\n", dynamic ? "DYNAMIC SYMBOL TABLE" : "SYMBOL TABLE");
  for (const auto& y : dynamic ? v.dynamic_symbols : v.symbols) {
    int bind = y.info >> 4, type = y.info & 15;
    bool weak = bind == 2, defined = y.section != 0;
    char glob = ' ';
    if (defined && !weak) glob = bind == 0 ? 'l' : 'g';
    char debug = dynamic ? 'D' : type == 3 ? 'd' : ' ';  // STT_SECTION
    char kind = type == 2 ? 'F' : type == 1 ? 'O' : type == 4 ? 'f' : ' ';
    const char* vis = (y.other & 3) == 1 ? " .internal" : (y.other & 3) == 2 ? " .hidden" : (y.other & 3) == 3 ? " .protected" : "";
    std::string name = type == 3 ? section_name(v, y.section) : display_name(y.name, demangle);
    std::printf("%016llx %c%c  %c%c%c %s\t%016llx%s %s\n", (unsigned long long)y.value, glob, weak ? 'w' : ' ',
                type == 10 ? 'i' : ' ', debug, kind, section_name(v, y.section).c_str(), (unsigned long long)y.size,
                vis, name.c_str());
  }
}

void print_relocations(const ElfView& v, const std::vector<uint8_t>& b) {
  for (const auto& s : v.sections) {
    // static relocations; the loader's (allocated .rela.dyn) are -R in llvm-objdump
    if ((s.type != kShtRela && s.type != kShtRel) || (s.flags & kShfAlloc)) continue;
    size_t entry = s.type == kShtRela ? 24 : 16;
    std::printf("\nRELOCATION RECORDS FOR [%s]:\nOFFSET           TYPE                     VALUE\n", s.name.c_str());
    for (uint64_t o = s.offset; o + entry <= s.offset + s.size; o += entry) {
      uint64_t at = 0, info = 0;
      int64_t addend = 0;
      for (int k = 0; k < 8; ++k) {
        at |= uint64_t(b[o + k]) << (8 * k);
        info |= uint64_t(b[o + 8 + k]) << (8 * k);
        if (entry == 24) addend |= int64_t(uint64_t(b[o + 16 + k]) << (8 * k));
      }
      uint32_t sym = uint32_t(info >> 32);
      std::string target = sym && sym <= v.symbols.size() ? v.symbols[sym - 1].name : "*ABS*";
      char add[32] = "";
      if (addend) std::snprintf(add, sizeof add, "%c0x%llx", addend < 0 ? '-' : '+',
                                (unsigned long long)(addend < 0 ? -addend : addend));
      std::printf("%016llx %-24s %s%s\n", (unsigned long long)at, relocation_name(uint32_t(info)), target.c_str(), add);
    }
  }
}

void print_contents(const ElfView& v, const std::vector<uint8_t>& b, const std::vector<std::string>& only) {
  for (const auto& s : v.sections) {
    if (s.size == 0 || (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end())) continue;
    std::printf("Contents of section %s:\n", s.name.c_str());
    if (s.type == kShtNobits) {
      std::printf("<skipping contents of bss section at [%04llx, %04llx)>\n", (unsigned long long)s.address,
                  (unsigned long long)(s.address + s.size));
      continue;
    }
    // the address column is as wide as the section's last address needs, at least 4 digits
    int width = 4;
    for (uint64_t end = s.address + s.size; width < 16 && (end >> (4 * width)); ++width) {
    }
    for (uint64_t o = 0; o < s.size; o += 16) {
      std::string hex, text;
      for (uint64_t k = 0; k < 16; ++k) {
        if (k && k % 4 == 0) hex += ' ';
        if (o + k < s.size) {
          uint8_t c = b[s.offset + o + k];
          char h[4];
          std::snprintf(h, sizeof h, "%02x", c);
          hex += h;
          text += (c >= 32 && c < 127) ? char(c) : '.';
        } else {
          hex += "  ";
        }
      }
      std::printf(" %0*llx %s  %s\n", width, (unsigned long long)(s.address + o), hex.c_str(), text.c_str());
    }
  }
}

}  // namespace k100::tools
