#include "vector_harness.h"

#include <gtest/gtest.h>

#include <sstream>

namespace k100::emu::test {

uint32_t vec_pattern(uint32_t i) { return (i * 0x9E3779B1u) ^ (i << 7) ^ 0x80402010u; }

namespace {

unsigned kernarg_sgpr(const KernelOptions& o) {
  return (o.private_segment_buffer ? 4 : 0) + (o.dispatch_ptr ? 2 : 0) + (o.queue_ptr ? 2 : 0);
}
unsigned user_sgprs(const KernelOptions& o) {
  return kernarg_sgpr(o) + 2 + (o.dispatch_id ? 2 : 0) + (o.flat_scratch_init ? 2 : 0) +
         (o.private_segment_size ? 1 : 0);
}

}  // namespace

std::string vector_cases_source(const std::vector<VectorCase>& cases, const std::string& prefix) {
  std::string src;
  for (size_t i = 0; i < cases.size(); ++i) {
    KernelOptions o = cases[i].options;
    o.kernarg_ptr = true;
    o.kernarg_size = 16;
    o.sgprs = 102;
    if (o.flat_scratch_init) o.wave_offset = true;
    std::ostringstream b;
    unsigned ka = kernarg_sgpr(o);
    b << "  s_load_dwordx4 s[92:95], s[" << ka << ":" << ka + 1 << "], 0x0\n";
    if (o.flat_scratch_init) {
      unsigned fs = ka + 2 + (o.dispatch_id ? 2 : 0);
      unsigned off = user_sgprs(o) + (o.wg_id_x ? 1 : 0) + (o.wg_id_y ? 1 : 0) + (o.wg_id_z ? 1 : 0) + (o.wg_info ? 1 : 0);
      b << "  s_add_u32 flat_scratch_lo, s" << fs << ", s" << off << "\n  s_addc_u32 flat_scratch_hi, s" << fs + 1
        << ", 0\n";
    }
    b << "  v_mov_b32 v62, v0\n  s_waitcnt lgkmcnt(0)\n" << cases[i].body << "\n";
    b << "  s_waitcnt vmcnt(0) lgkmcnt(0)\n  s_mov_b64 exec, -1\n  v_lshlrev_b32 v63, 2, v62\n";
    for (int r = 0; r < 32; ++r) {
      b << "  global_store_dword v63, v" << r << ", s[92:93]\n";
      if (r != 31) b << "  v_add_u32 v63, 0x100, v63\n";
    }
    b << "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
    src += kernel_asm(prefix + "_" + std::to_string(i), b.str(), o);
  }
  return src;
}

const char* const kLaneData =
    " s_mov_b32 s40, 0x9e3779b1\n v_mul_lo_u32 v5, v62, s40\n v_xor_b32 v5, 0x55aa00ff, v5\n"
    " v_xor_b32 v6, 0x01234567, v5\n v_not_b32 v7, v5\n v_xor_b32 v8, 0x7f7f7f7f, v5\n";

const char* const kMarkRegisters =
    " v_mov_b32 v2, 0xaaaaaaaa\n v_mov_b32 v3, 0xaaaaaaaa\n v_mov_b32 v4, 0xaaaaaaaa\n v_mov_b32 v9, 0xaaaaaaaa\n";

uint32_t lane_data(int k, int lane) {
  uint32_t v5 = (uint32_t(lane) * 0x9e3779b1u) ^ 0x55aa00ffu;
  switch (k) {
    case 0: return v5;
    case 1: return v5 ^ 0x01234567u;
    case 2: return ~v5;
    default: return v5 ^ 0x7f7f7f7fu;
  }
}

void run_vector_cases(const std::vector<VectorCase>& cases, const std::string& prefix) {
  std::string why;
  auto co = assemble(vector_cases_source(cases, prefix), prefix, &why);
  if (!co) K100_ORACLE_MISSING(why);
  Device dev;
  auto prog = dev.load_code_object(*co, prefix + ".hsaco");
  for (size_t i = 0; i < cases.size(); ++i) {
    const VectorCase& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i) + " '" + c.name + "':\n" + c.body);
    Buffers buf(dev);
    std::vector<uint32_t> in(256);
    for (uint32_t k = 0; k < 256; ++k) in[k] = vec_pattern(k);
    uint64_t out_a = buf.zeros(32 * 64 * 4), in_a = buf.upload(in);
    DispatchResult r = run_one_wave(dev, *prog, prefix + "_" + std::to_string(i), out_a, in_a);
    if (!r.ok()) {
      ADD_FAILURE() << r.fault->report();
      continue;
    }
    VecResult res;
    res.v = buf.download<uint32_t>(out_a, 32 * 64);
    res.in_before = in;
    res.in_after = buf.download<uint32_t>(in_a, 256);
    c.check(res);
  }
}

void expect_lanes(const VecResult& r, const std::string& what, unsigned reg, const std::function<uint32_t(int)>& f) {
  int bad = 0;
  for (int l = 0; l < 64; ++l) {
    uint32_t want = f(l), got = r.reg(reg, l);
    if (got != want && bad++ < 3)
      ADD_FAILURE() << what << ": v" << reg << " lane " << l << std::hex << ": got 0x" << got << " want 0x" << want;
  }
}

}  // namespace k100::emu::test
