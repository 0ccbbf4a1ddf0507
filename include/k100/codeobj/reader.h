// k100lc codeobj: reads any AMDHSA code object (ours, clang's, lld's, the vendor's).
//
// The reader checks every offset and size against the file before using it;
// malformed or truncated input yields a k100::Error naming the origin, the byte
// offset and what was wrong - never a crash. It returns the CodeObject model:
// target (from e_flags, checked against amdhsa.target), version, .text, symbols,
// kernels with decoded descriptors, entry offsets and typed metadata, and the
// metadata document.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "k100/codeobj/code_object.h"

namespace k100::codeobj {

CodeObject read_code_object(std::span<const uint8_t> bytes, std::string_view origin);

// Reads the file at `path` (origin = path). Throws k100::Error if it cannot be read.
CodeObject read_code_object_file(const std::string& path);

// Finds the NT_AMDGPU_METADATA note in an ELF image and returns its payload bytes (for
// tools that want the raw MessagePack). Throws like read_code_object.
std::vector<uint8_t> read_metadata_note(std::span<const uint8_t> bytes, std::string_view origin);

}  // namespace k100::codeobj
