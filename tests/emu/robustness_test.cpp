// The host process survives anything a kernel does: thousands of random
// (decodable and undecodable) instructions run with random register state,
// and every dispatch either completes or returns a fault report.
#include <gtest/gtest.h>

#include "emu_test_support.h"
#include "k100/codeobj/reader.h"
#include "k100/emu/loader.h"
#include "k100/isa/codec.h"
#include "kernel_runner.h"

namespace k100::emu::test {

namespace {

// Loads s[4:67] and v[0:15] (lane data) from a random buffer, then falls
// through into the instruction under test.
const char* kPrologue = R"(
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  v_lshlrev_b32 v20, 2, v0
  s_waitcnt lgkmcnt(0)
  s_load_dwordx16 s[4:19], s[2:3], 0x0
  s_load_dwordx16 s[20:35], s[2:3], 0x40
  s_load_dwordx16 s[36:51], s[2:3], 0x80
  s_load_dwordx16 s[52:67], s[2:3], 0xc0
  global_load_dword v1, v20, s[2:3] offset:256
  global_load_dword v2, v20, s[2:3] offset:512
  global_load_dword v3, v20, s[2:3] offset:768
  global_load_dword v4, v20, s[2:3] offset:1024
  global_load_dword v5, v20, s[2:3] offset:1280
  global_load_dword v6, v20, s[2:3] offset:1536
  global_load_dword v7, v20, s[2:3] offset:1792
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b32 m0, s5
  s_mov_b64 vcc, s[6:7]
)";

}  // namespace

TEST(EmuRobustness, RandomInstructionsNeverCrashTheHost) {
  std::string why;
  KernelOptions o;
  o.lds = 4096;
  o.private_size = 64;
  o.private_segment_buffer = false;
  o.vgprs = 256;
  auto co = assemble(kernel_asm("prologue", kPrologue, o), "robust", &why);
  if (!co) K100_ORACLE_MISSING(why);
  CodeImage base = image_from_code_object(*co, "robust");
  const KernelSpec k = base.kernels.at(0);
  std::vector<uint8_t> prologue(base.bytes.begin() + std::ptrdiff_t(k.entry), base.bytes.begin() + std::ptrdiff_t(base.code_end));
  // Drop the trailing padding/s_endpgm llvm-mc may have placed after the body: the body ends
  // with s_mov_b64 vcc, s[6:7] (8 bytes before any padding); find it.
  const uint8_t mov_vcc[4] = {0x06, 0x01, 0xea, 0xbe};
  size_t cut = prologue.size();
  for (size_t i = 0; i + 4 <= prologue.size(); i += 4)
    if (std::memcmp(&prologue[i], mov_vcc, 4) == 0) cut = i + 4;
  prologue.resize(cut);

  Device dev;
  Rng rng(2026);
  std::vector<uint32_t> data = rng.words(2048);
  for (size_t i = 0; i < 64; ++i) data[i] &= (i % 4 == 0) ? 0xffu : 0xffffffffu;  // some small SGPR values
  uint64_t buf = dev.alloc(data.size() * 4, "random state");
  dev.write(buf, bytes_of(data));
  const uint8_t endpgm[4] = {0x00, 0x00, 0x81, 0xbf};

  size_t ran = 0, faulted = 0, decodable = 0;
  const int kTrials = 3000;
  for (int t = 0; t < kTrials; ++t) {
    // Half the trials use words that decode; the rest anything.
    uint32_t w[3] = {rng.next(), rng.next(), rng.next()};
    if (t % 2 == 0) {
      for (int tries = 0; tries < 200; ++tries) {
        uint8_t b[12];
        std::memcpy(b, w, 12);
        if (isa::decode(std::span<const uint8_t>(b, 12)).ok) break;
        w[0] = rng.next();
        w[1] = rng.next();
      }
    }
    CodeImage img;
    img.origin = "random instruction " + std::to_string(t);
    img.bytes = prologue;
    size_t at = img.bytes.size();
    img.bytes.resize(at + 12);
    std::memcpy(&img.bytes[at], w, 12);
    for (int pad = 0; pad < 4; ++pad) img.bytes.insert(img.bytes.end(), endpgm, endpgm + 4);
    img.code_begin = 0;
    img.code_end = img.bytes.size();
    KernelSpec ks = k;
    ks.entry = 0;
    img.kernels = {ks};
    uint8_t b[12];
    std::memcpy(b, w, 12);
    if (isa::decode(std::span<const uint8_t>(b, 12)).ok) ++decodable;
    auto prog = dev.load(std::move(img));
    DispatchOptions opt;
    opt.instruction_budget = 20000;
    opt.threads = 1;
    LaunchConfig l;
    l.grid = {128, 1, 1};
    l.workgroup = {64, 1, 1};
    DispatchResult r = dev.dispatch(*prog, ks.name, l, Args().add(buf).bytes(), opt);
    ++ran;
    if (!r.ok()) {
      ++faulted;
      EXPECT_FALSE(r.fault->message.empty());
    }
    // Memory the kernel may have scribbled on is re-randomised.
    dev.write(buf, bytes_of(data));
  }
  std::printf("random instructions: %zu run (%zu decodable), %zu faulted, the rest completed\n", ran, decodable, faulted);
  EXPECT_EQ(ran, size_t(kTrials));
  EXPECT_GT(decodable, size_t(kTrials / 2 - 50));
}

}  // namespace k100::emu::test
