// k100lc codeobj: merging several code objects into one package.
//
// The HSA loader of the reference runtime takes one code object per process,
// so kernels from many objects (hand-written, generated, clang-compiled) are
// combined into one. Each input's .text is copied as a block (aligned to 256,
// so PC-relative code inside it stays valid), its symbols and kernels are moved
// with it, and the metadata documents are merged. A kernel (or other global
// symbol) defined twice is an error naming both origins; with allow_duplicates
// the later definition wins and the replacement is reported as a warning.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "k100/codeobj/code_object.h"

namespace k100::codeobj {

struct MergeOptions {
  bool allow_duplicates = false;
  std::function<void(const std::string&)> on_warning;  // optional
  std::string origin = "merged code object";           // origin of the result
};

// Throws k100::Error for: no inputs, inputs with different targets or code object
// versions, duplicate global symbols without allow_duplicates, inputs the writer could not
// re-write (read_info.unsupported), data in .rodata that code may address (non-weak data
// symbols), and metadata documents that disagree on a top-level scalar key.
CodeObject merge_code_objects(std::span<const CodeObject> inputs, const MergeOptions& options = {});

}  // namespace k100::codeobj
