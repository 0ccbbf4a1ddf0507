// libFuzzer target for the assembler: any text must assemble or produce
// diagnostics; crashes, sanitizer reports, exceptions and hangs are bugs.
// Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "k100/asm/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  k100::DiagnosticSink diags(1000);
  k100::as::Options opts;
  opts.target = (size & 1) ? k100::isa::Target::gfx906 : k100::isa::Target::gfx926;
  k100::as::Program p = k100::as::assemble(text, "fuzz.s", opts, diags);
  (void)diags.format_all();
  (void)p;
  return 0;
}
