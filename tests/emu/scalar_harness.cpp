#include "scalar_harness.h"

#include <gtest/gtest.h>

#include <sstream>

namespace k100::emu::test {

std::string scalar_cases_source(const std::vector<ScalarCase>& cases, const std::string& prefix) {
  std::string src;
  for (size_t i = 0; i < cases.size(); ++i) {
    std::ostringstream b;
    b << "  s_load_dwordx4 s[92:95], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n  s_mov_b64 s[0:1], 0\n"
      << cases[i].body << "\n"
      << "  s_cselect_b32 s72, 1, 0\n  s_mov_b64 s[74:75], vcc\n  s_mov_b64 s[76:77], exec\n  s_mov_b32 s78, m0\n";
    for (int r = 0; r < 80; r += 4)
      b << "  s_store_dwordx4 s[" << r << ":" << r + 3 << "], s[92:93], " << r * 4 << "\n";
    b << "  s_waitcnt lgkmcnt(0)\n  " << cases[i].end << "\n";
    KernelOptions o;
    o.kernarg_size = 16;
    o.sgprs = 102;
    src += kernel_asm(prefix + "_" + std::to_string(i), b.str(), o);
  }
  return src;
}

namespace {

uint64_t pick(const std::vector<uint32_t>& out, const std::vector<uint32_t>& in, const std::string& name, bool* wide,
              bool* ok) {
  *ok = true;
  *wide = false;
  auto reg64 = [&](size_t r) { return uint64_t(out[r]) | uint64_t(out[r + 1]) << 32; };
  if (name == "scc") return out[72];
  if (name == "vcc") return *wide = true, reg64(74);
  if (name == "exec") return *wide = true, reg64(76);
  if (name == "m0") return out[78];
  if (name.rfind("in[", 0) == 0) return in[std::stoul(name.substr(3))];
  if (name.rfind("s[", 0) == 0) {
    *wide = true;
    return reg64(std::stoul(name.substr(2)));
  }
  if (name[0] == 's') return out[std::stoul(name.substr(1))];
  *ok = false;
  return 0;
}

}  // namespace

void run_scalar_cases(const std::vector<ScalarCase>& cases, const std::string& prefix) {
  std::string why;
  auto co = assemble(scalar_cases_source(cases, prefix), prefix, &why);
  if (!co) K100_ORACLE_MISSING(why);
  Device dev;
  auto prog = dev.load_code_object(*co, prefix + ".hsaco");
  for (size_t i = 0; i < cases.size(); ++i) {
    const ScalarCase& c = cases[i];
    Buffers buf(dev);
    std::vector<uint32_t> in(64);
    for (uint32_t k = 0; k < 64; ++k) in[k] = 0x1000 + k;
    uint64_t out_a = buf.zeros(80 * 4), in_a = buf.upload(in);
    DispatchResult r = run_one_wave(dev, *prog, prefix + "_" + std::to_string(i), out_a, in_a);
    if (!r.ok()) {
      ADD_FAILURE() << "case " << i << ":\n" << c.body << "\n" << r.fault->report();
      continue;
    }
    auto out = buf.download<uint32_t>(out_a, 80);
    auto in_after = buf.download<uint32_t>(in_a, 64);
    for (const auto& [name, want] : c.expect) {
      bool wide, ok;
      uint64_t got = pick(out, in_after, name, &wide, &ok);
      ASSERT_TRUE(ok) << "bad register name " << name;
      EXPECT_EQ(got, wide ? want : (want & 0xffffffffu))
          << "case " << i << " (" << name << "):\n" << c.body << std::hex << "\n got 0x" << got << " want 0x" << want;
    }
  }
}

}  // namespace k100::emu::test
