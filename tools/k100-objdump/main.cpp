// k100-objdump: disassembler for raw code (and, once the code-object reader is
// wired in, for code objects with kernel symbols as labels).
//
//   k100-objdump -d [--mcpu=gfx926|gfx906] FILE
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "k100/asm/disassembler.h"

int main(int argc, char** argv) {
  using namespace k100;
  isa::Target target = isa::Target::gfx926;
  bool disasm = false;
  std::string input;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "-d") || !std::strcmp(a, "--disassemble")) disasm = true;
    else if (!std::strncmp(a, "--mcpu=", 7) || !std::strncmp(a, "-mcpu=", 6)) {
      auto t = isa::parse_target(std::strchr(a, '=') + 1);
      if (!t) {
        std::fprintf(stderr, "k100-objdump: unknown target '%s'\n", std::strchr(a, '=') + 1);
        return 2;
      }
      target = *t;
    } else if (a[0] == '-') {
      std::fprintf(stderr, "k100-objdump: unknown option '%s'\nusage: k100-objdump -d [--mcpu=gfx926|gfx906] FILE\n", a);
      return 2;
    } else {
      input = a;
    }
  }
  if (!disasm || input.empty()) {
    std::fprintf(stderr, "usage: k100-objdump -d [--mcpu=gfx926|gfx906] FILE\n");
    return 2;
  }
  std::ifstream f(input, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "k100-objdump: cannot open '%s'\n", input.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::printf("\n%s:\tfile format raw (%s)\n\nDisassembly of section .text:\n\n", input.c_str(), isa::target_name(target));
  for (const auto& l : as::disassemble(bytes, target)) {
    std::string line = "\t" + l.text;
    if (l.text.size() < 60) line += std::string(60 - l.text.size(), ' ');
    char addr[32];
    std::snprintf(addr, sizeof addr, " // %012llX:", (unsigned long long)l.offset);
    line += addr;
    for (size_t i = 0; i + 3 < l.bytes.size() + 3 && i < l.bytes.size(); i += 4) {
      uint32_t w = 0;
      for (size_t k = 0; k < 4 && i + k < l.bytes.size(); ++k) w |= uint32_t(l.bytes[i + k]) << (8 * k);
      char b[16];
      std::snprintf(b, sizeof b, " %08X", w);
      line += b;
    }
    std::printf("%s\n", line.c_str());
  }
  return 0;
}
