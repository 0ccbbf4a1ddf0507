// Unit cases for every LDS opcode the emulator implements. Each case first
// copies the input pattern into LDS[0..1024) (LDS dword i = in[i]), runs its
// body, then reads LDS[0..1024) back into v10..v13 (lane l: dwords l, 64+l,
// 128+l, 192+l) so the check sees both registers and LDS.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstring>

#include "vector_harness.h"

namespace k100::emu::test {

namespace {

const char* kLdsLoad =
    " v_lshlrev_b32 v1, 2, v62\n global_load_dword v10, v1, s[94:95]\n global_load_dword v11, v1, s[94:95] offset:256\n"
    " global_load_dword v12, v1, s[94:95] offset:512\n global_load_dword v13, v1, s[94:95] offset:768\n s_waitcnt vmcnt(0)\n"
    " ds_write_b32 v1, v10\n ds_write_b32 v1, v11 offset:256\n ds_write_b32 v1, v12 offset:512\n ds_write_b32 v1, v13 offset:768\n"
    " s_waitcnt lgkmcnt(0)\n";
// Then the lane data and a known value in v2..v4, v9.
const std::string kLdsInit = std::string(kLdsLoad) + kLaneData + kMarkRegisters;
const char* kLdsDump =
    "\n s_waitcnt lgkmcnt(0)\n s_mov_b64 exec, -1\n ds_read_b32 v10, v1\n ds_read_b32 v11, v1 offset:256\n"
    " ds_read_b32 v12, v1 offset:512\n ds_read_b32 v13, v1 offset:768\n";


std::vector<uint32_t> lds_after(const VecResult& r) {
  std::vector<uint32_t> m(256);
  for (int l = 0; l < 64; ++l)
    for (int k = 0; k < 4; ++k) m[size_t(64 * k + l)] = r.reg(10 + unsigned(k), l);
  return m;
}
// LDS after the init: in[0..256) then zeros up to 4 KiB.
std::vector<uint32_t> lds_before(const VecResult& r) {
  std::vector<uint32_t> m(1024, 0);
  std::copy(r.in_before.begin(), r.in_before.begin() + 256, m.begin());
  return m;
}

void expect_lds(const VecResult& r, const std::vector<uint32_t>& want, const std::string& what) {
  auto got = lds_after(r);
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 4) ADD_FAILURE() << what << ": LDS dword " << i << std::hex << " got 0x" << got[i] << " want 0x" << want[i];
}

uint8_t get_byte(const std::vector<uint32_t>& m, uint32_t b) { return uint8_t(m[b / 4] >> (8 * (b % 4))); }
void put_byte(std::vector<uint32_t>& m, uint32_t b, uint8_t v) {
  m[b / 4] = (m[b / 4] & ~(0xffu << (8 * (b % 4)))) | uint32_t(v) << (8 * (b % 4));
}
uint32_t get32(const std::vector<uint32_t>& m, uint32_t b) {
  return uint32_t(get_byte(m, b)) | uint32_t(get_byte(m, b + 1)) << 8 | uint32_t(get_byte(m, b + 2)) << 16 |
         uint32_t(get_byte(m, b + 3)) << 24;
}

std::string regs(unsigned first, unsigned n) {
  if (n == 1) return "v" + std::to_string(first);
  return "v[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}

KernelOptions lds_options() {
  KernelOptions o;
  o.lds = 4096;
  return o;
}

float as_f(uint32_t v) { float f; std::memcpy(&f, &v, 4); return f; }
uint32_t f_bits(float f) { uint32_t v; std::memcpy(&v, &f, 4); return v; }
double as_d(uint64_t v) { double f; std::memcpy(&f, &v, 8); return f; }
uint64_t d_bits(double f) { uint64_t v; std::memcpy(&v, &f, 8); return v; }

enum Op { Add, Sub, Rsub, Inc, Dec, MinI, MaxI, MinU, MaxU, And, Or, Xor, Mskor, Swap, Cmp, FCmp, FMin, FMax, FAdd, Wrap };

uint64_t model(Op op, uint64_t old, uint64_t a, uint64_t b, bool wide) {
  uint64_t mask = wide ? ~0ull : 0xffffffffull;
  auto s = [&](uint64_t v) { return wide ? int64_t(v) : int64_t(int32_t(uint32_t(v))); };
  auto fv = [&](uint64_t v) { return wide ? as_d(v) : double(as_f(uint32_t(v))); };
  switch (op) {
    case Add: return (old + a) & mask;
    case Sub: return (old - a) & mask;
    case Rsub: return (a - old) & mask;
    case Inc: return old >= a ? 0 : old + 1;
    case Dec: return (old == 0 || old > a) ? a : old - 1;
    case MinI: return s(a) < s(old) ? a : old;
    case MaxI: return s(a) > s(old) ? a : old;
    case MinU: return a < old ? a : old;
    case MaxU: return a > old ? a : old;
    case And: return old & a;
    case Or: return old | a;
    case Xor: return old ^ a;
    case Mskor: return (old & ~a) | b;
    case Swap: return a;
    case Cmp: return old == a ? b : old;  // data0 compare, data1 new
    case FCmp: return fv(old) == fv(a) ? b : old;
    case FMin: return std::isnan(fv(old)) ? a : std::isnan(fv(a)) ? old : (fv(a) < fv(old) ? a : old);
    case FMax: return std::isnan(fv(old)) ? a : std::isnan(fv(a)) ? old : (fv(a) > fv(old) ? a : old);
    case FAdd: return wide ? d_bits(as_d(old) + as_d(a)) : f_bits(as_f(uint32_t(old)) + as_f(uint32_t(a)));
    case Wrap: return old >= a ? old - a : (old + b) & mask;
  }
  return old;
}

struct AtomicForm {
  const char* name;  // without ds_ and type
  Op op;
  bool two;          // data1 used
};
const AtomicForm kInt[] = {
    {"add", Add, false}, {"sub", Sub, false}, {"rsub", Rsub, false}, {"inc", Inc, false}, {"dec", Dec, false},
    {"min", MinI, false}, {"max", MaxI, false}, {"min", MinU, false}, {"max", MaxU, false}, {"and", And, false},
    {"or", Or, false},   {"xor", Xor, false}, {"mskor", Mskor, true},
};

void add_atomic(std::vector<VectorCase>& c, const std::string& mnemonic, Op op, bool two, bool wide, bool rtn) {
  // Lane l works on its own element at l*4 (l*8 for 64-bit). Data: 32-bit v5 (v6), 64-bit v[5:6] (v[7:8]).
  // Compare forms: data0 = LDS value for even lanes (a match), data1 = new.
  std::string body = kLdsInit;
  unsigned shift = wide ? 3 : 2;
  body += " v_lshlrev_b32 v20, " + std::to_string(shift) + ", v62\n";
  bool cmp = op == Cmp || op == FCmp;
  if (op == Inc || op == Dec) body += " v_and_b32 v5, 0xffff, v5\n v_and_b32 v6, 0xffff, v6\n";
  if (cmp) {
    body += wide ? " ds_read_b64 v[14:15], v20\n" : " ds_read_b32 v14, v20\n";
    body += " s_waitcnt lgkmcnt(0)\n v_and_b32 v22, 1, v62\n v_cmp_eq_u32 vcc, 0, v22\n v_cndmask_b32 v5, v5, v14, vcc\n";
    if (wide) body += " v_cndmask_b32 v6, v6, v15, vcc\n";
  }
  std::string d0 = wide ? "v[5:6]" : "v5", d1 = wide ? "v[7:8]" : "v6";
  if (cmp && !wide) d1 = "v7";
  std::string args = d0 + (two ? ", " + d1 : "");
  body += " " + mnemonic + " " + (rtn ? (wide ? "v[2:3], " : "v2, ") : "") + "v20, " + args + "\n";
  body += kLdsDump;
  c.push_back({mnemonic, body,
               [=](const VecResult& r) {
                 auto m = lds_before(r);
                 for (int l = 0; l < 64; ++l) {
                   uint32_t i = wide ? 2 * uint32_t(l) : uint32_t(l);
                   uint64_t old = wide ? uint64_t(m[i]) | uint64_t(m[i + 1]) << 32 : m[i];
                   uint64_t a, b;
                   uint32_t v5 = lane_data(0, l), v6 = lane_data(1, l);
                   if (op == Inc || op == Dec) {
                     v5 &= 0xffff;
                     v6 &= 0xffff;
                   }
                   if (wide) {
                     a = uint64_t(v5) | uint64_t(v6) << 32;
                     b = uint64_t(lane_data(2, l)) | uint64_t(lane_data(3, l)) << 32;
                   } else {
                     a = v5;
                     b = cmp ? lane_data(2, l) : v6;
                   }
                   if (cmp && (l % 2 == 0)) a = wide ? old : uint32_t(old);
                   uint64_t nv = model(op, old, a, b, wide);
                   if (rtn) {
                     EXPECT_EQ(r.reg(2, l), uint32_t(old)) << mnemonic << " return, lane " << l;
                     if (wide) {
                       EXPECT_EQ(r.reg(3, l), uint32_t(old >> 32)) << mnemonic << " return hi, lane " << l;
                     }
                   }
                   m[i] = uint32_t(nv);
                   if (wide) m[i + 1] = uint32_t(nv >> 32);
                 }
                 expect_lds(r, m, mnemonic);
               },
               lds_options()});
}

}  // namespace

const std::vector<VectorCase>& ds_cases() {
  static const std::vector<VectorCase> cases = [] {
    std::vector<VectorCase> c;
    // Reads at lane*8 + 6 (unaligned enough to show byte order, inside the LDS).
    struct ReadForm { const char* name; unsigned bytes; bool sign; int d16; };
    const ReadForm reads[] = {
        {"b32", 4, false, 0}, {"b64", 8, false, 0}, {"b96", 12, false, 0}, {"b128", 16, false, 0}, {"i8", 1, true, 0},
        {"u8", 1, false, 0},  {"i16", 2, true, 0},  {"u16", 2, false, 0},  {"u8_d16", 1, false, 1},
        {"u8_d16_hi", 1, false, 2}, {"i8_d16", 1, true, 1}, {"i8_d16_hi", 1, true, 2}, {"u16_d16", 2, false, 1},
        {"u16_d16_hi", 2, false, 2},
    };
    // lds_direct as a VALU source: LDS at M0[15:0] (a dword-aligned byte
    // address) read as the type M0[18:16], the same value in every lane.
    {
      struct Direct { uint32_t type; const char* text; unsigned vgpr; };
      const Direct direct[] = {{0, "v_mov_b32 v2, lds_direct", 2}, {1, "v_mov_b32 v3, src_lds_direct", 3},
                               {2, "v_add_u32 v4, lds_direct, v62", 4}, {4, "v_add_u32_e64 v5, lds_direct, 1", 5},
                               {5, "v_mov_b32_e64 v6, lds_direct", 6}};
      // each read's dword (address 0x24 + 4 * type) holds 0x8081f2f3 + type:
      // negative as a byte and as a short
      std::string body = kLdsInit;
      for (const Direct& d : direct)
        body += " v_mov_b32 v20, " + std::to_string(0x24 + 4 * d.type) + "\n v_mov_b32 v21, " +
                std::to_string(0x8081f2f3u + d.type) + "\n ds_write_b32 v20, v21\n";
      body += " s_waitcnt lgkmcnt(0)\n";
      for (const Direct& d : direct)
        body += " s_mov_b32 m0, " + std::to_string(d.type << 16 | (0x24 + 4 * d.type)) + "\n s_nop 0\n " + d.text + "\n";
      c.push_back({"lds_direct", body + kLdsDump,
                   [](const VecResult& r) {
                     auto at = [](uint32_t type) { return 0x8081f2f3u + type; };
                     expect_lanes(r, "ubyte", 2, [&](int) { return at(0) & 0xff; });
                     expect_lanes(r, "ushort", 3, [&](int) { return at(1) & 0xffff; });
                     expect_lanes(r, "dword", 4, [&](int l) { return at(2) + uint32_t(l); });
                     expect_lanes(r, "sbyte", 5, [&](int) { return uint32_t(int32_t(int8_t(at(4)))) + 1; });
                     expect_lanes(r, "sshort", 6, [&](int) { return uint32_t(int32_t(int16_t(at(5)))); });
                   },
                   lds_options()});
    }
    // GDS: addresses are offsets from M0[31:16] within M0[15:0] bytes. Lane l
    // writes 0x5000 + l at GDS byte 0x100 + 4l (base 0x100), then reads it
    // back with base 0, adds l to it and reads the sum.
    c.push_back({"gds",
                 std::string(kLdsInit) +
                     " s_mov_b32 m0, 0x01000400\n v_lshlrev_b32 v20, 2, v62\n v_add_u32 v21, 0x5000, v62\n"
                     " ds_write_b32 v20, v21 gds\n s_waitcnt lgkmcnt(0) expcnt(0)\n s_mov_b32 m0, 0x800\n"
                     " v_add_u32 v22, 0x100, v20\n ds_read_b32 v2, v22 gds\n ds_add_rtn_u32 v3, v22, v62 gds\n"
                     " s_waitcnt lgkmcnt(0) expcnt(0)\n ds_read_b32 v4, v22 gds\n s_waitcnt lgkmcnt(0)\n" + kLdsDump,
                 [](const VecResult& r) {
                   expect_lanes(r, "gds read", 2, [](int l) { return 0x5000u + uint32_t(l); });
                   expect_lanes(r, "gds add returns", 3, [](int l) { return 0x5000u + uint32_t(l); });
                   expect_lanes(r, "gds after add", 4, [](int l) { return 0x5000u + 2 * uint32_t(l); });
                 },
                 lds_options()});
    for (const ReadForm& f : reads) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      std::string body = std::string(kLdsInit) + " v_lshlrev_b32 v20, 3, v62\n ds_read_" + f.name + " " + regs(2, n) +
                         ", v20 offset:6\n" + kLdsDump;
      c.push_back({std::string("ds_read_") + f.name, body,
                   [f, n](const VecResult& r) {
                     auto m = lds_before(r);
                     for (unsigned k = 0; k < n; ++k)
                       expect_lanes(r, f.name, 2 + k, [&](int l) {
                         uint32_t a = uint32_t(l) * 8 + 6;
                         if (f.bytes >= 4) return get32(m, a + 4 * k);
                         uint32_t v = f.bytes == 1 ? get_byte(m, a) : uint32_t(get_byte(m, a) | get_byte(m, a + 1) << 8);
                         if (f.sign) v = f.bytes == 1 ? uint32_t(int32_t(int8_t(v))) : uint32_t(int32_t(int16_t(v)));
                         if (f.d16 == 1) return 0xaaaa0000u | (v & 0xffff);
                         if (f.d16 == 2) return 0xaaaau | v << 16;
                         return v;
                       });
                   },
                   lds_options()});
    }
    // Writes at lane*16 + 2.
    struct WriteForm { const char* name; unsigned bytes; bool hi; };
    const WriteForm writes[] = {
        {"b8", 1, false}, {"b16", 2, false}, {"b32", 4, false}, {"b64", 8, false}, {"b96", 12, false}, {"b128", 16, false},
        {"b8_d16_hi", 1, true}, {"b16_d16_hi", 2, true},
    };
    for (const WriteForm& f : writes) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      uint32_t off = f.bytes >= 8 ? 0 : 2;
      std::string body = std::string(kLdsInit) + " v_lshlrev_b32 v20, 4, v62\n ds_write_" + f.name + " v20, " + regs(5, n) +
                         " offset:" + std::to_string(off) + "\n" + kLdsDump;
      c.push_back({std::string("ds_write_") + f.name, body,
                   [f, off](const VecResult& r) {
                     auto m = lds_before(r);
                     for (int l = 0; l < 64; ++l)
                       for (unsigned b = 0; b < f.bytes; ++b) {
                         uint32_t reg = lane_data(int(b / 4), l);
                         if (f.hi) reg >>= 16;
                         put_byte(m, uint32_t(l) * 16 + off + b, uint8_t(reg >> (8 * (b % 4))));
                       }
                     expect_lds(r, m, f.name);
                   },
                   lds_options()});
    }
    // read2 / write2 / wrxchg2 (and st64 forms).
    for (bool wide : {false, true})
      for (bool st64 : {false, true}) {
        unsigned esz = wide ? 8 : 4;
        unsigned scale = esz * (st64 ? 64 : 1);
        unsigned o0 = st64 ? 0 : 3, o1 = st64 ? 1 : 9;
        std::string sfx = std::string(st64 ? "st64" : "") + (wide ? "_b64" : "_b32");
        std::string offs = " offset0:" + std::to_string(o0) + " offset1:" + std::to_string(o1);
        // Lane slots of 16 (32) bytes keep the two elements of different lanes apart.
        std::string base = " v_lshlrev_b32 v20, " + std::string(wide ? "5" : "4") + ", v62\n";
        auto elem_addr = [=](int l, unsigned o) { return uint32_t(l) * (wide ? 32 : 16) + o * scale; };
        // read2
        c.push_back({"ds_read2" + sfx,
                     std::string(kLdsInit) + base + " ds_read2" + sfx + " " + regs(14, wide ? 4 : 2) + ", v20" + offs + "\n" + kLdsDump,
                     [=](const VecResult& r) {
                       auto m = lds_before(r);
                       for (unsigned w = 0; w < esz / 4; ++w) {
                         expect_lanes(r, "read2 first", 14 + w, [&](int l) { return get32(m, elem_addr(l, o0) + 4 * w); });
                         expect_lanes(r, "read2 second", 14 + esz / 4 + w, [&](int l) { return get32(m, elem_addr(l, o1) + 4 * w); });
                       }
                     },
                     lds_options()});
        // write2: lanes 0..15 only, so the two elements of different lanes never overlap.
        std::string d0 = wide ? "v[5:6]" : "v5", d1 = wide ? "v[7:8]" : "v6";
        c.push_back({"ds_write2" + sfx,
                     std::string(kLdsInit) + base + " s_mov_b64 exec, 0xffff\n ds_write2" + sfx + " v20, " + d0 + ", " + d1 + offs +
                         "\n" + kLdsDump,
                     [=](const VecResult& r) {
                       auto m = lds_before(r);
                       for (int l = 0; l < 16; ++l)
                         for (unsigned w = 0; w < esz / 4; ++w) {
                           uint32_t a0 = elem_addr(l, o0) / 4 + w, a1 = elem_addr(l, o1) / 4 + w;
                           m[a0] = lane_data(int(w), l);
                           m[a1] = wide ? lane_data(2 + int(w), l) : lane_data(1, l);
                         }
                       expect_lds(r, m, "write2");
                     },
                     lds_options()});
        std::string xname = std::string("ds_wrxchg2") + (st64 ? "st64" : "") + "_rtn" + (wide ? "_b64" : "_b32");
        c.push_back({xname,
                     std::string(kLdsInit) + base + " s_mov_b64 exec, 0xffff\n " + xname + " " + regs(14, wide ? 4 : 2) +
                         ", v20, " + d0 + ", " + d1 + offs + "\n" + kLdsDump,
                     [=](const VecResult& r) {
                       auto m = lds_before(r);
                       for (int l = 0; l < 16; ++l)
                         for (unsigned w = 0; w < esz / 4; ++w) {
                           uint32_t a0 = elem_addr(l, o0) / 4 + w, a1 = elem_addr(l, o1) / 4 + w;
                           EXPECT_EQ(r.reg(14 + w, l), r.in_before[a0]) << "wrxchg2 returned first, lane " << l;
                           EXPECT_EQ(r.reg(14 + esz / 4 + w, l), r.in_before[a1]) << "wrxchg2 returned second, lane " << l;
                           m[a0] = lane_data(int(w), l);
                           m[a1] = wide ? lane_data(2 + int(w), l) : lane_data(1, l);
                         }
                       expect_lds(r, m, "wrxchg2");
                     },
                     lds_options()});
      }
    // Integer atomics, 32 and 64 bit, with and without return.
    for (bool wide : {false, true})
      for (const AtomicForm& a : kInt)
        for (bool rtn : {false, true}) {
          std::string type = a.op == MinI || a.op == MaxI ? "i" : a.op == MinU || a.op == MaxU || a.op == Add || a.op == Sub ||
                                                                         a.op == Rsub || a.op == Inc || a.op == Dec
                                                                     ? "u"
                                                                     : "b";
          std::string m = std::string("ds_") + a.name + (rtn ? "_rtn_" : "_") + type + (wide ? "64" : "32");
          add_atomic(c, m, a.op, a.two, wide, rtn);
        }
    for (bool wide : {false, true}) {
      std::string w = wide ? "64" : "32";
      add_atomic(c, "ds_wrxchg_rtn_b" + w, Swap, false, wide, true);
      for (bool rtn : {false, true}) {
        add_atomic(c, std::string("ds_cmpst") + (rtn ? "_rtn" : "") + "_b" + w, Cmp, true, wide, rtn);
        add_atomic(c, std::string("ds_cmpst") + (rtn ? "_rtn" : "") + "_f" + w, FCmp, true, wide, rtn);
        add_atomic(c, std::string("ds_min") + (rtn ? "_rtn" : "") + "_f" + w, FMin, false, wide, rtn);
        add_atomic(c, std::string("ds_max") + (rtn ? "_rtn" : "") + "_f" + w, FMax, false, wide, rtn);
      }
    }
    add_atomic(c, "ds_add_f32", FAdd, false, false, false);
    add_atomic(c, "ds_add_rtn_f32", FAdd, false, false, true);
    add_atomic(c, "ds_wrap_rtn_b32", Wrap, true, false, true);

    // All 64 lanes adding into one dword: atomicity within the wave.
    c.push_back({"ds_add_u32 contended",
                 std::string(kLdsInit) + " v_mov_b32 v20, 0\n v_mov_b32 v21, 1\n ds_add_rtn_u32 v2, v20, v21 offset:512\n" + kLdsDump,
                 [](const VecResult& r) {
                   auto m = lds_before(r);
                   m[128] += 64;
                   expect_lds(r, m, "contended add");
                   std::vector<uint32_t> seen;
                   for (int l = 0; l < 64; ++l) seen.push_back(r.reg(2, l) - r.in_before[128]);
                   std::sort(seen.begin(), seen.end());
                   for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(seen[i], i);
                 },
                 lds_options()});
    // Cross-lane: swizzle (quad-perm and bitmask modes, inactive sources read 0), permute, bpermute.
    c.push_back({"ds_swizzle_b32",
                 std::string(kLdsInit) +
                     " ds_swizzle_b32 v2, v5 offset:swizzle(QUAD_PERM,1,0,3,2)\n"
                     " ds_swizzle_b32 v3, v5 offset:swizzle(BITMASK_PERM,\"01pip\")\n"
                     " s_mov_b32 s20, 0x55555555\n s_mov_b32 s21, 0x55555555\n s_mov_b64 exec, s[20:21]\n"
                     " ds_swizzle_b32 v4, v5 offset:swizzle(QUAD_PERM,1,0,3,2)\n s_mov_b64 exec, -1\n" +
                     kLdsDump,
                 [](const VecResult& r) {
                   expect_lanes(r, "quad perm", 2, [](int l) { return lane_data(0, (l & ~3) + ((l & 3) ^ 1)); });
                   // "01pip": bit4 0, bit3 1, bit2 preserve, bit1 invert, bit0 preserve
                   expect_lanes(r, "bitmask perm", 3, [](int l) {
                     int in = (l & 32) | ((((l & 31) & 0x07) | 0x08) ^ 0x02);
                     return lane_data(0, in);
                   });
                   // even lanes active; each reads its odd neighbour, which is inactive -> 0
                   expect_lanes(r, "inactive source", 4, [](int l) { return l % 2 == 0 ? 0u : 0xaaaaaaaau; });
                 },
                 lds_options()});
    c.push_back({"ds_permute/bpermute",
                 std::string(kLdsInit) +
                     " v_xor_b32 v20, 1, v62\n v_lshlrev_b32 v20, 2, v20\n ds_bpermute_b32 v2, v20, v5\n"
                     " v_sub_u32 v21, 63, v62\n v_lshlrev_b32 v21, 2, v21\n ds_permute_b32 v3, v21, v5\n"
                     " ds_bpermute_b32 v4, v21, v5 offset:8\n" +
                     kLdsDump,
                 [](const VecResult& r) {
                   expect_lanes(r, "bpermute", 2, [](int l) { return lane_data(0, l ^ 1); });
                   expect_lanes(r, "permute", 3, [](int l) { return lane_data(0, 63 - l); });
                   expect_lanes(r, "bpermute offset", 4, [](int l) { return lane_data(0, (63 - l + 2) & 63); });
                 },
                 lds_options()});
    // append / consume count active lanes at M0-addressed LDS.
    c.push_back({"ds_append/consume",
                 std::string(kLdsInit) +
                     " s_mov_b32 m0, 0x100\n ds_append v2 offset:4\n s_waitcnt lgkmcnt(0)\n s_mov_b64 exec, 0xff\n"
                     " ds_consume v3 offset:4\n s_waitcnt lgkmcnt(0)\n s_mov_b64 exec, -1\n" +
                     kLdsDump,
                 [](const VecResult& r) {
                   auto m = lds_before(r);
                   uint32_t old = m[65];
                   expect_lanes(r, "append", 2, [&](int) { return old; });
                   expect_lanes(r, "consume", 3, [&](int l) { return l < 8 ? old + 64 : 0xaaaaaaaau; });
                   m[65] = old + 64 - 8;
                   expect_lds(r, m, "append/consume");
                 },
                 lds_options()});
    c.push_back({"ds addtid",
                 std::string(kLdsInit) + " s_mov_b32 m0, 0x200\n s_nop 0\n ds_write_addtid_b32 v5 offset:16\n s_waitcnt lgkmcnt(0)\n"
                                         " ds_read_addtid_b32 v2 offset:16\n ds_nop\n" +
                     kLdsDump,
                 [](const VecResult& r) {
                   auto m = lds_before(r);
                   for (int l = 0; l < 64; ++l) m[size_t(128 + 4 + l)] = lane_data(0, l);
                   expect_lds(r, m, "write_addtid");
                   expect_lanes(r, "read_addtid", 2, [](int l) { return lane_data(0, l); });
                 },
                 lds_options()});
    return c;
  }();
  return cases;
}

}  // namespace k100::emu::test
