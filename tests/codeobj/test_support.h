// Helpers for the codeobj tests: running the LLVM oracle tools, temporary
// directories, file I/O, and small code objects with known contents.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "k100/codeobj/code_object.h"

namespace k100::codeobj::test {

struct CommandResult {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs argv (no shell interpretation of the arguments), optionally feeding stdin_text.
CommandResult run(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// True if `tool` is an executable on PATH (or an absolute path that exists).
bool have_tool(const std::string& tool);

// A fresh directory under the build tree's temp area, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::vector<uint8_t> read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text(const std::string& path, const std::string& text);

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
