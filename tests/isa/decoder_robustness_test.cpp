// 1 MiB of random words through the decoder and printer: nothing may crash,
// every word is either an instruction or printed as `.long 0x...`, and every
// decoded instruction the encoder accepts re-encodes to an instruction that
// decodes and prints the same. (Its bytes may differ from the random word's
// in bits the instruction does not use, which the encoder writes as zero.)
#include <gtest/gtest.h>

#include <random>

#include "k100/asm/disassembler.h"
#include "k100/isa/codec.h"

namespace k100 {
namespace {

TEST(DecoderRobustness, OneMebibyteOfRandomWords) {
  std::mt19937 rng(12345);
  std::vector<uint8_t> bytes(1 << 20);
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t w = rng();
    for (int k = 0; k < 4; ++k) bytes[i + size_t(k)] = uint8_t(w >> (8 * k));
  }
  auto lines = as::disassemble(bytes, isa::Target::gfx906);
  size_t decoded = 0, undecodable = 0, reencoded = 0, checked = 0, covered = 0;
  for (const auto& l : lines) {
    covered += l.bytes.size();
    ASSERT_FALSE(l.text.empty());
    if (!l.ok) {
      ++undecodable;
      EXPECT_EQ(l.text.rfind(".long 0x", 0), 0u) << l.text;
      continue;
    }
    ++decoded;
    isa::Decoded d = isa::decode(l.bytes, isa::Target::gfx906);
    ASSERT_TRUE(d.ok);
    std::vector<uint8_t> again;
    // Some words decode to forms the assembler would refuse (e.g. a constant
    // bus violation); those are allowed to fail encoding, never to crash.
    std::string problem = isa::check(d.inst, isa::Target::gfx906);
    if (problem.empty()) {
      isa::encode(d.inst, again, isa::Target::gfx906);
      if (again == l.bytes) ++reencoded;
      isa::Decoded back = isa::decode(again, isa::Target::gfx906);
      ASSERT_TRUE(back.ok) << l.text;
      EXPECT_EQ(isa::print(back.inst), isa::print(d.inst)) << "re-encoded from " << l.text;
      ++checked;
    }
  }
  EXPECT_EQ(covered, bytes.size());
  EXPECT_GT(decoded, 10000u);
  EXPECT_GT(undecodable, 1000u);
  EXPECT_GT(checked, decoded / 2);
  std::printf("random words: %zu instructions decoded, %zu undecodable (.long), %zu re-encoded identically\n",
              decoded, undecodable, reencoded);
}

}  // namespace
}  // namespace k100
