// k100lc emu: code objects -> CodeImage.
//
// Reads an AMDHSA ELF code object (v4 or v5; clang's, lld's, ours, the
// vendor's) with the codeobj reader for kernels, descriptors and metadata,
// and maps its PT_LOAD segments (applying R_AMDGPU_RELATIVE64 dynamic
// relocations against image offset 0, which the device adds its base to) so
// PC-relative data such as ocml's constant tables is where the code expects.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "k100/emu/program.h"

namespace k100::emu {

CodeImage image_from_code_object(std::span<const uint8_t> elf, std::string origin);
CodeImage image_from_code_object_file(const std::string& path);

}  // namespace k100::emu
