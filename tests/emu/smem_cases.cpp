// Unit cases for every scalar memory opcode. The input buffer (s[94:95])
// holds in[i] = 0x1000 + i; "V#" below is a raw buffer descriptor over it
// with num_records = 256 bytes.
#include <string>

#include "scalar_harness.h"

namespace k100::emu::test {

namespace {

const char* kRsrc = " s_mov_b32 s8, s94\n s_and_b32 s9, s95, 0xffff\n s_movk_i32 s10, 0x100\n s_mov_b32 s11, 0\n";

struct AtomicCase {
  const char* op;
  uint32_t data, data2;           // data2: compare value for cmpswap
  uint32_t expect_mem;            // in[1] after (32-bit forms, in[1] = 0x1001 before)
  uint64_t data64, expect_mem64;  // x2 forms on in[2:3] = 0x0000100300001002
};

const AtomicCase kAtomics[] = {
    {"swap", 7, 0, 7, 7, 7},
    {"cmpswap", 9, 0x1001, 9, 9, 9},  // 64-bit compare value set below
    {"add", 5, 0, 0x1006, 1, 0x0000100300001003ull},
    {"sub", 5, 0, 0xffc, 2, 0x0000100300001000ull},
    {"smin", 0xffffffff, 0, 0xffffffff, ~0ull, ~0ull},
    {"umin", 3, 0, 3, 3, 3},
    {"smax", 0xffffffff, 0, 0x1001, ~0ull, 0x0000100300001002ull},
    {"umax", 0xffffffff, 0, 0xffffffff, ~0ull, ~0ull},
    {"and", 0xff, 0, 1, 0xff, 2},
    {"or", 0x100, 0, 0x1101, 0x100, 0x0000100300001102ull},
    {"xor", 1, 0, 0x1000, 1, 0x0000100300001003ull},
    {"inc", 0x2000, 0, 0x1002, 0x0000200000000000ull, 0x0000100300001003ull},
    {"dec", 0x2000, 0, 0x1000, 0x0000200000000000ull, 0x0000100300001001ull},
};

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

void add_atomic_cases(std::vector<ScalarCase>& out, bool buffer) {
  std::string base = buffer ? "s[8:11]" : "s[94:95]";
  std::string prefix = buffer ? "s_buffer_atomic_" : "s_atomic_";
  std::string setup = buffer ? kRsrc : "";
  for (const AtomicCase& a : kAtomics) {
    std::string name = a.op;
    bool cmp = name == "cmpswap";
    // 32-bit on in[1]; returned value (glc) is the old 0x1001.
    std::string body = setup + " s_mov_b32 s4, " + hex(a.data) + "\n s_mov_b32 s5, " + hex(a.data2) + "\n";
    body += " " + prefix + name + " " + (cmp ? "s[4:5]" : "s4") + ", " + base + ", 0x4 glc\n s_waitcnt lgkmcnt(0)\n";
    out.push_back({body, {{"s4", 0x1001}, {"in[1]", a.expect_mem}}});
    // Without glc nothing is returned.
    std::string body_nr = setup + " s_mov_b32 s4, " + hex(a.data) + "\n s_mov_b32 s5, " + hex(a.data2) + "\n";
    body_nr += " " + prefix + name + " " + (cmp ? "s[4:5]" : "s4") + ", " + base + ", 0x4\n s_waitcnt lgkmcnt(0)\n";
    out.push_back({body_nr, {{"s4", a.data}, {"in[1]", a.expect_mem}}});
    // 64-bit on in[2:3].
    uint64_t cmp64 = 0x0000100300001002ull;
    std::string b64 = setup + " s_mov_b32 s4, " + hex(uint32_t(a.data64)) + "\n s_mov_b32 s5, " +
                      hex(uint32_t(a.data64 >> 32)) + "\n s_mov_b32 s6, " + hex(uint32_t(cmp64)) +
                      "\n s_mov_b32 s7, " + hex(uint32_t(cmp64 >> 32)) + "\n";
    b64 += " " + prefix + name + "_x2 " + (cmp ? "s[4:7]" : "s[4:5]") + ", " + base + ", 0x8 glc\n s_waitcnt lgkmcnt(0)\n";
    out.push_back({b64, {{"s[4:5]", cmp64}, {"in[2]", uint32_t(a.expect_mem64)}, {"in[3]", uint32_t(a.expect_mem64 >> 32)}}});
  }
}

}  // namespace

const std::vector<ScalarCase>& smem_cases() {
  static const std::vector<ScalarCase> cases = [] {
    std::vector<ScalarCase> c = {
        {" s_load_dword s3, s[94:95], 0x8\n s_load_dwordx2 s[4:5], s[94:95], 0x0\n"
         " s_load_dwordx4 s[8:11], s[94:95], 0x10\n s_load_dwordx8 s[16:23], s[94:95], 0x20\n"
         " s_load_dwordx16 s[32:47], s[94:95], 0x40\n s_mov_b32 s2, 12\n s_load_dword s6, s[94:95], s2\n"
         " s_load_dword s7, s[94:95], 0x7 glc\n s_waitcnt lgkmcnt(0)",
         {{"s3", 0x1002}, {"s[4:5]", 0x0000100100001000ull}, {"s8", 0x1004}, {"s11", 0x1007}, {"s16", 0x1008},
          {"s23", 0x100f}, {"s32", 0x1010}, {"s47", 0x101f}, {"s6", 0x1003}, {"s7", 0x1001}}},
        {std::string(kRsrc) +
             " s_buffer_load_dword s3, s[8:11], 0x8\n s_buffer_load_dwordx2 s[4:5], s[8:11], 0x0\n"
             " s_buffer_load_dwordx4 s[12:15], s[8:11], 0x10\n s_buffer_load_dwordx8 s[16:23], s[8:11], 0x20\n"
             " s_buffer_load_dwordx16 s[32:47], s[8:11], 0x40\n s_buffer_load_dword s6, s[8:11], 0x100\n"
             " s_buffer_load_dwordx2 s[48:49], s[8:11], 0xfc\n s_waitcnt lgkmcnt(0)",
         {{"s3", 0x1002}, {"s[4:5]", 0x0000100100001000ull}, {"s15", 0x1007}, {"s23", 0x100f}, {"s47", 0x101f},
          {"s6", 0}, {"s[48:49]", 0x103f}}},
        {" s_mov_b32 s3, 77\n s_store_dword s3, s[94:95], 0x0\n s_mov_b64 s[4:5], -1\n"
         " s_store_dwordx2 s[4:5], s[94:95], 0x8\n s_mov_b32 s8, 1\n s_mov_b32 s9, 2\n s_mov_b32 s10, 3\n s_mov_b32 s11, 4\n"
         " s_store_dwordx4 s[8:11], s[94:95], 0x10\n s_waitcnt lgkmcnt(0)",
         {{"in[0]", 77}, {"in[2]", 0xffffffff}, {"in[3]", 0xffffffff}, {"in[4]", 1}, {"in[7]", 4}, {"in[8]", 0x1008}}},
        {std::string(kRsrc) +
             " s_mov_b32 s3, 77\n s_buffer_store_dword s3, s[8:11], 0x0\n s_mov_b64 s[4:5], -1\n"
             " s_buffer_store_dwordx2 s[4:5], s[8:11], 0x8\n s_mov_b32 s12, 1\n s_mov_b32 s13, 2\n s_mov_b32 s14, 3\n"
             " s_mov_b32 s15, 4\n s_buffer_store_dwordx4 s[12:15], s[8:11], 0x10\n"
             " s_buffer_store_dword s3, s[8:11], 0x100\n s_waitcnt lgkmcnt(0)",
         {{"in[0]", 77}, {"in[2]", 0xffffffff}, {"in[3]", 0xffffffff}, {"in[4]", 1}, {"in[7]", 4}, {"in[8]", 0x1008}}},
        {std::string(kRsrc) +
             " s_dcache_discard s[94:95], 0x0\n s_dcache_discard_x2 s[94:95], 0x40\n s_atc_probe 0, s[94:95], 0x0\n"
             " s_atc_probe_buffer 0, s[8:11], 0x0\n s_dcache_inv\n s_dcache_wb\n s_dcache_inv_vol\n s_dcache_wb_vol\n"
             " s_memtime s[4:5]\n s_memrealtime s[6:7]\n s_waitcnt lgkmcnt(0)\n s_mov_b32 s3, 1",
         {{"s3", 1}}},
    };
    add_atomic_cases(c, false);
    add_atomic_cases(c, true);
    return c;
  }();
  return cases;
}

}  // namespace k100::emu::test
