// k100lc asm: disassembly helpers shared by k100-as --disassemble and
// k100-objdump: llvm-mc's byte-list input format and listing output.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/asm/assembler.h"
#include "k100/base/diagnostic.h"
#include "k100/isa/codec.h"

namespace k100::as {

// llvm-mc -disassemble input: "[0x01,0x00,...]" groups (one instruction per
// group) or a plain stream of byte values. Comments start with '#' or ';'.
struct ByteGroups {
  std::vector<std::vector<uint8_t>> groups;  // one entry per [..] group; a plain stream is one group
  std::vector<SourceLoc> locs;
  std::vector<bool> bracketed;
};
ByteGroups parse_byte_lists(std::string_view text, const std::string& filename, DiagnosticSink& diags);

// "\tTEXT<pad to 40> ; encoding: [0x..,...]" as llvm-mc -show-encoding prints it.
std::string encoding_comment(const std::vector<uint8_t>& bytes, const std::vector<bool>& fixup_bytes = {});
std::string show_encoding_line(const std::string& text, const std::vector<uint8_t>& bytes,
                               const std::vector<bool>& fixup_bytes = {});

struct DisasmLine {
  uint64_t offset = 0;
  std::string text;            // instruction text, or ".long 0x..." for an undecodable word
  std::vector<uint8_t> bytes;
  bool ok = true;
};
// Decodes a byte range instruction by instruction. Undecodable words become
// `.long 0x...` lines and decoding resumes at the next word.
std::vector<DisasmLine> disassemble(std::span<const uint8_t> bytes, isa::Target target, uint64_t base = 0);

}  // namespace k100::as
