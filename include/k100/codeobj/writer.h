// k100lc codeobj: writes a CodeObject as an AMDHSA ELF code object (.hsaco).
//
// The output is what ld.lld -shared makes of an llvm-mc object with the same
// content: ELF64 little-endian, EM_AMDGPU, ET_DYN, OS ABI AMDGPU_HSA, ABI version
// 2 (v4) or 3 (v5); sections .note (NT_AMDGPU_METADATA), .dynsym, .gnu.hash,
// .hash, .dynstr, .rodata (64-byte descriptors, NAME.kd), .text (aligned 256),
// .dynamic, .comment, .symtab, .shstrtab, .strtab; program headers PHDR, three
// LOADs (R, RX, RW), DYNAMIC, GNU_RELRO, GNU_STACK, NOTE; page-aligned
// segments at lld's addresses. The bytes depend only on the input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "k100/codeobj/code_object.h"

namespace k100::codeobj {

// Throws k100::Error naming co.origin for: an unknown or unwritable target, code object v3,
// empty .text, kernel entry points outside .text, symbols outside their section,
// duplicate symbol names, kernels without metadata when the document must be built, and
// objects whose read_info lists unsupported contents.
std::vector<uint8_t> write_code_object(const CodeObject& co);

// Convenience: write_code_object() into a file (throws k100::Error on I/O failure).
void write_code_object_file(const CodeObject& co, const std::string& path);

}  // namespace k100::codeobj
