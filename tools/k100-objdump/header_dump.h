// k100-objdump's views of the ELF file itself (-f, -p, -h, -t, -T, -r, -s),
// printed in llvm-objdump-15's layout so that scripts written against it
// read ours: the same columns, widths and section-type words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elf_view.h"

namespace k100::tools {

// A symbol name as printed: demangled (-C) when it is a mangled C++ name.
std::string display_name(const std::string& name, bool demangle);

void print_file_header(const ElfView& v);        // -f
void print_private_headers(const ElfView& v);    // -p: program headers and the dynamic section
void print_section_headers(const ElfView& v);    // -h
void print_symbol_table(const ElfView& v, bool dynamic, bool demangle);  // -t, -T
void print_relocations(const ElfView& v, const std::vector<uint8_t>& bytes);  // -r
// -s: every section with contents, or those named in `only`.
void print_contents(const ElfView& v, const std::vector<uint8_t>& bytes, const std::vector<std::string>& only);

}  // namespace k100::tools
