// Malformed input: every truncation of a small code object and thousands of random
// corruptions must give a k100::Error (or a valid object), never a crash, a hang or
// another exception type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "test_support.h"

namespace k100::codeobj {
namespace {

std::vector<uint8_t> sample_bytes() {
  return write_code_object(
      test::make_sample_object(default_target("gfx906"), CodeObjectVersion::V5));
}

// Reads `bytes`; returns "" if it parsed, the error text otherwise. Any exception other
// than k100::Error fails the test.
std::string try_read(const std::vector<uint8_t>& bytes) {
  try {
    CodeObject co = read_code_object(bytes, "fuzz.hsaco");
    // Whatever parsed must also be safe to use.
    for (const auto& k : co.kernels) (void)format_descriptor(k.descriptor);
    (void)to_yaml(co.metadata);
    return "";
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-k100 exception: " << e.what();
    return e.what();
  }
}

TEST(ReaderRobustness, EveryTruncationIsANamedError) {
  std::vector<uint8_t> full = sample_bytes();
  ASSERT_EQ(try_read(full), "");
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + ptrdiff_t(n));
    std::string e = try_read(cut);
    ASSERT_NE(e, "") << "prefix of " << n << " bytes was accepted";
    ASSERT_NE(e.find("fuzz.hsaco"), std::string::npos) << e;
    ASSERT_NE(e.find("byte offset"), std::string::npos) << e;
  }
}

TEST(ReaderRobustness, RandomCorruptionNeverCrashes) {
  std::vector<uint8_t> full = sample_bytes();
  std::mt19937 rng(12345);
  int errors = 0, accepted = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> b = full;
    int flips = 1 + int(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      size_t at = rng() % b.size();
      switch (rng() % 4) {
        case 0:
          b[at] ^= uint8_t(1u << (rng() % 8));
          break;
        case 1:
          b[at] = uint8_t(rng());
          break;
        case 2:
          b[at] = 0xff;
          break;
        default:
          b[at] = 0;
          break;
      }
    }
    (try_read(b).empty() ? accepted : errors)++;
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(accepted, 0);  // flips in code bytes or padding are harmless
}

TEST(ReaderRobustness, HeaderFieldErrorsNameTheProblem) {
  std::vector<uint8_t> full = sample_bytes();
  auto with = [&](size_t at, uint8_t v) {
    std::vector<uint8_t> b = full;
    b[at] = v;
    return try_read(b);
  };
  EXPECT_NE(with(0, 0).find("not an ELF file"), std::string::npos);
  EXPECT_NE(with(4, 1).find("not a 64-bit"), std::string::npos);
  EXPECT_NE(with(7, 0).find("OS ABI 0 is not AMDGPU_HSA"), std::string::npos);
  EXPECT_NE(with(8, 0).find("unsupported AMDHSA ABI version 0"), std::string::npos);
  EXPECT_NE(with(16, 1).find("relocatable object"), std::string::npos);
  EXPECT_NE(with(18, 0x3e).find("is not EM_AMDGPU"), std::string::npos);
  EXPECT_NE(with(63, 0x7f).find("section name table index"), std::string::npos);
}

// Inputs the fuzzer once crashed the reader with (tests/fuzz/regressions/codeobj_reader_*).
TEST(ReaderRobustness, FuzzerRegressionsAreNamedErrors) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(K100_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("codeobj_reader_", 0) != 0) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(try_read(bytes), "") << entry.path() << " parsed";
    ++seen;
  }
  EXPECT_GE(seen, 1);
}

TEST(ReaderRobustness, NoSectionNameTable) {
  std::vector<uint8_t> b = sample_bytes();
  b[62] = 0;  // e_shstrndx = SHN_UNDEF
  b[63] = 0;
  EXPECT_NE(try_read(b).find("no section name table"), std::string::npos);
}

}  // namespace
}  // namespace k100::codeobj
