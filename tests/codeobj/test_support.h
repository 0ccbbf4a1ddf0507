// Helpers for the codeobj tests: small code objects with known contents,
// known encodings, and reading llvm-readelf's metadata output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "files.h"
#include "k100/codeobj/code_object.h"
#include "tools.h"

namespace k100::codeobj::test {

// Running the oracle tools, temporary directories and files: the helpers
// every module's tests share (tests/support).
using k100::test::CommandResult;
using k100::test::have_tool;
using k100::test::read_bytes;
using k100::test::run;
using k100::test::TempDir;
using k100::test::write_bytes;
using k100::test::write_text;

// The YAML document llvm-readelf -n prints for the (first) metadata note: the text from
// the "---" line to the "..." line, both included, newline-terminated.
std::string readelf_metadata_yaml(const std::string& readelf_output);

// Known gfx906 instruction encodings (llvm-mc-14 -show-encoding).
std::vector<uint8_t> encoding_s_endpgm();            // s_endpgm
std::vector<uint8_t> encoding_v_add_f32_v0_v1_v2();  // v_add_f32_e32 v0, v1, v2
std::vector<uint8_t> encoding_s_mov_b32_s0_s1();     // s_mov_b32 s0, s1

// A small two-kernel code object ("scale" with explicit args, "fill" without) for `target`,
// built the way the assembler will: text bytes, settings -> descriptors, compact args.
CodeObject make_sample_object(const Target& target, CodeObjectVersion version);

}  // namespace k100::codeobj::test
