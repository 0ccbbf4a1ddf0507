// libFuzzer target for the code-object reader: any byte string must either parse or
// raise k100::Error; every other outcome (crash, sanitizer report, other exception,
// hang) is a bug. Parsed objects are also printed and re-written, so the descriptor,
// metadata and writer paths see fuzzed-but-accepted input too.
//
// Build by hand (until the fuzz CMake is wired; needs clang with libFuzzer):
//   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 \
//         -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" -DK100_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target k100_codeobj k100_base
//   clang++-15 -std=c++20 -fsanitize=fuzzer,address,undefined -Iinclude \
//       tests/fuzz/codeobj_reader_fuzz.cpp build-fuzz/src/codeobj/libk100_codeobj.a \
//       build-fuzz/src/base/libk100_base.a -lyaml-cpp -o build-fuzz/codeobj_reader_fuzz
// Seed corpus: any .hsaco (e.g. from the codeobj tests or ORACLES.md §2-4), then
//   build-fuzz/codeobj_reader_fuzz -max_total_time=60 tests/fuzz/corpus-codeobj/
#include <cstddef>
#include <cstdint>
#include <span>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    k100::codeobj::CodeObject co =
        k100::codeobj::read_code_object(std::span<const uint8_t>(data, size), "fuzz");
    for (const auto& k : co.kernels) (void)k100::codeobj::format_descriptor(k.descriptor);
    (void)k100::codeobj::to_yaml(co.metadata);
    try {
      (void)k100::codeobj::write_code_object(co);
    } catch (const k100::Error&) {
      // Accepted objects need not be re-writable (unsupported sections, unknown targets).
    }
  } catch (const k100::Error&) {
  }
  return 0;
}
