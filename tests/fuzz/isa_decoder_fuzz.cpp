// libFuzzer target for the decoder and printer: any bytes decode to
// instructions or `.long` words; a decoded instruction that passes the
// encoder's checks must re-encode to the same bytes.
// Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "k100/asm/disassembler.h"
#include "k100/isa/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  for (const auto& line : k100::as::disassemble(bytes, k100::isa::Target::gfx906)) {
    if (!line.ok) continue;
    k100::isa::Decoded d = k100::isa::decode(line.bytes, k100::isa::Target::gfx906);
    if (!d.ok) std::abort();
    (void)k100::isa::print(d.inst);
    if (k100::isa::check(d.inst, k100::isa::Target::gfx906).empty()) {
      std::vector<uint8_t> again;
      k100::isa::encode(d.inst, again, k100::isa::Target::gfx906);
      if (again.size() != line.bytes.size()) std::abort();
    }
  }
  return 0;
}
