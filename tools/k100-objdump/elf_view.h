// The ELF64 header fields, program headers, section headers, symbol tables
// and dynamic section of a file, read as they are (bounds-checked), for
// k100-objdump's -f, -p, -h, -t, -T, -r, -s and -j: the code-object reader
// keeps only what the runtime needs, these options show the file.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "k100/base/error.h"

namespace k100::tools {

struct ElfView {
  struct Section {
    std::string name;
    uint32_t type = 0, link = 0;
    uint64_t flags = 0, address = 0, offset = 0, size = 0, entsize = 0;
  };
  struct Symbol {
    std::string name;
    uint64_t value = 0, size = 0;
    uint8_t info = 0, other = 0;
    uint16_t section = 0;
  };
  struct ProgramHeader {
    uint32_t type = 0, flags = 0;
    uint64_t offset = 0, vaddr = 0, paddr = 0, filesz = 0, memsz = 0, align = 0;
  };
  std::vector<Section> sections;
  std::vector<Symbol> symbols;          // .symtab (without the null entry)
  std::vector<Symbol> dynamic_symbols;  // .dynsym (without the null entry)
  std::vector<ProgramHeader> program_headers;
  std::vector<std::pair<int64_t, uint64_t>> dynamic;  // .dynamic entries up to DT_NULL
  uint16_t machine = 0, type = 0;
  uint64_t entry = 0;

  // Throws k100::Error naming `origin` for a file that is not ELF64 little-endian
  // or whose tables point outside it.
  static ElfView read(const std::vector<uint8_t>& b, const std::string& origin) {
    auto bad = [&](const std::string& why) { throw Error(origin + ": " + why); };
    if (b.size() < 64 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0) bad("not an ELF file");
    if (b[4] != 2 || b[5] != 1) bad("not a 64-bit little-endian ELF file");
    auto u16 = [&](uint64_t o) -> uint64_t {
      if (o + 2 > b.size()) bad("truncated at offset " + std::to_string(o));
      return uint64_t(b[o]) | uint64_t(b[o + 1]) << 8;
    };
    auto u32 = [&](uint64_t o) { return u16(o) | u16(o + 2) << 16; };
    auto u64 = [&](uint64_t o) { return u32(o) | u32(o + 4) << 32; };
    ElfView v;
    v.type = uint16_t(u16(16));
    v.machine = uint16_t(u16(18));
    v.entry = u64(24);
    uint64_t phoff = u64(0x20), phentsize = u16(0x36), phnum = u16(0x38);
    if (phnum && phentsize < 56) bad("program header size " + std::to_string(phentsize) + " is too small");
    for (uint64_t i = 0; i < phnum; ++i) {
      uint64_t h = phoff + i * phentsize;
      v.program_headers.push_back({uint32_t(u32(h)), uint32_t(u32(h + 4)), u64(h + 8), u64(h + 16), u64(h + 24),
                                   u64(h + 32), u64(h + 40), u64(h + 48)});
    }
    uint64_t shoff = u64(0x28), shentsize = u16(0x3a), shnum = u16(0x3c), shstrndx = u16(0x3e);
    if (shnum && shentsize < 64) bad("section header size " + std::to_string(shentsize) + " is too small");
    for (uint64_t i = 0; i < shnum; ++i) {
      uint64_t h = shoff + i * shentsize;
      Section s;
      s.name = std::to_string(u32(h));  // replaced by the name below
      s.type = uint32_t(u32(h + 4));
      s.flags = u64(h + 8);
      s.address = u64(h + 16);
      s.offset = u64(h + 24);
      s.size = u64(h + 32);
      s.link = uint32_t(u32(h + 40));
      s.entsize = u64(h + 56);
      if (s.type != 8 && (s.offset > b.size() || s.size > b.size() - s.offset))  // 8: NOBITS
        bad("section " + std::to_string(i) + " lies outside the file");
      v.sections.push_back(s);
    }
    auto str = [&](const Section& tab, uint64_t at) {
      std::string out;
      for (uint64_t o = tab.offset + at; o < tab.offset + tab.size && b[o]; ++o) out += char(b[o]);
      return out;
    };
    if (shstrndx < v.sections.size())
      for (uint64_t i = 0; i < shnum; ++i) v.sections[i].name = str(v.sections[shstrndx], u32(shoff + i * shentsize));
    for (const Section& s : v.sections) {
      if ((s.type != 2 && s.type != 11) || s.link >= v.sections.size()) continue;  // SYMTAB, DYNSYM
      for (uint64_t o = s.offset + 24; o + 24 <= s.offset + s.size; o += 24) {  // entry 0 is the null symbol
        Symbol y;
        y.name = str(v.sections[s.link], u32(o));
        y.info = b[o + 4];
        y.other = b[o + 5];
        y.section = uint16_t(u16(o + 6));
        y.value = u64(o + 8);
        y.size = u64(o + 16);
        (s.type == 2 ? v.symbols : v.dynamic_symbols).push_back(y);
      }
    }
    for (const Section& s : v.sections) {
      if (s.type != 6) continue;  // DYNAMIC
      for (uint64_t o = s.offset; o + 16 <= s.offset + s.size; o += 16) {
        int64_t tag = int64_t(u64(o));
        if (tag == 0) break;
        v.dynamic.emplace_back(tag, u64(o + 8));
      }
    }
    return v;
  }
};

}  // namespace k100::tools
