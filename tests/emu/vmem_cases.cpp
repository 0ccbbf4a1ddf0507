// Unit cases for every vector memory opcode: GLOBAL, FLAT (global, LDS and
// scratch apertures), SCRATCH, MUBUF (raw, structured, swizzled, range
// checks, formats, LDS DMA) and MTBUF. Expected values come from a host
// model of the same access written independently here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "vector_harness.h"

namespace k100::emu::test {

namespace {

std::string hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

uint8_t byte_at(const std::vector<uint32_t>& m, uint32_t b) { return uint8_t(m[b / 4] >> (8 * (b % 4))); }
uint32_t dword_at(const std::vector<uint32_t>& m, uint32_t b) {
  return uint32_t(byte_at(m, b)) | uint32_t(byte_at(m, b + 1)) << 8 | uint32_t(byte_at(m, b + 2)) << 16 |
         uint32_t(byte_at(m, b + 3)) << 24;
}


struct LoadForm {
  const char* suffix;
  unsigned bytes;
  bool sign;
  int d16;  // 0, 1 low, 2 high
};
const LoadForm kLoads[] = {
    {"ubyte", 1, false, 0},     {"sbyte", 1, true, 0},         {"ushort", 2, false, 0},
    {"sshort", 2, true, 0},     {"dword", 4, false, 0},        {"dwordx2", 8, false, 0},
    {"dwordx3", 12, false, 0},  {"dwordx4", 16, false, 0},     {"ubyte_d16", 1, false, 1},
    {"ubyte_d16_hi", 1, false, 2}, {"sbyte_d16", 1, true, 1},  {"sbyte_d16_hi", 1, true, 2},
    {"short_d16", 2, false, 1}, {"short_d16_hi", 2, false, 2},
};
struct StoreForm {
  const char* suffix;
  unsigned bytes;
  bool hi;
};
const StoreForm kStores[] = {
    {"byte", 1, false}, {"byte_d16_hi", 1, true}, {"short", 2, false}, {"short_d16_hi", 2, true},
    {"dword", 4, false}, {"dwordx2", 8, false}, {"dwordx3", 12, false}, {"dwordx4", 16, false},
};

std::string regs(unsigned first, unsigned n) {
  if (n == 1) return "v" + std::to_string(first);
  return "v[" + std::to_string(first) + ":" + std::to_string(first + n - 1) + "]";
}

// Expected v2.. after a load of form f from memory m at byte address addr (v2.. prefilled 0xaaaaaaaa).
uint32_t load_result(const LoadForm& f, const std::vector<uint32_t>& m, uint32_t addr, unsigned k) {
  if (f.bytes >= 4) return dword_at(m, addr + 4 * k);
  uint32_t v = f.bytes == 1 ? byte_at(m, addr) : uint32_t(byte_at(m, addr) | byte_at(m, addr + 1) << 8);
  if (f.sign) v = f.bytes == 1 ? uint32_t(int32_t(int8_t(v))) : uint32_t(int32_t(int16_t(v)));
  if (f.d16 == 1) return 0xaaaa0000u | (v & 0xffff);
  if (f.d16 == 2) return 0x0000aaaau | (v << 16);
  return v;
}

void check_load(const VecResult& r, const LoadForm& f, const std::function<uint32_t(int)>& addr) {
  unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
  for (unsigned k = 0; k < n; ++k)
    expect_lanes(r, f.suffix, 2 + k, [&](int l) { return load_result(f, r.in_before, addr(l), k); });
}

// Memory after storing form f of v5.. for each lane at addr(lane).
void check_store(const VecResult& r, const StoreForm& f, const std::function<uint32_t(int)>& addr) {
  std::vector<uint32_t> want = r.in_before;
  auto put = [&](uint32_t b, uint8_t v) { want[b / 4] = (want[b / 4] & ~(0xffu << (8 * (b % 4)))) | uint32_t(v) << (8 * (b % 4)); };
  for (int l = 0; l < 64; ++l)
    for (unsigned b = 0; b < f.bytes; ++b) {
      uint32_t reg = lane_data(int(b / 4), l);
      if (f.hi) reg >>= 16;
      put(addr(l) + b, uint8_t(reg >> (8 * (b % 4))));
    }
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (r.in_after[i] != want[i] && bad++ < 3)
      ADD_FAILURE() << f.suffix << ": in[" << i << "] got " << hex(r.in_after[i]) << " want " << hex(want[i]);
}

// ------------------------------------------------------------- atomics ---

struct AtomicOpInfo {
  const char* name;
  int op;
};
const AtomicOpInfo kAtomicOps[] = {
    {"swap", 0}, {"cmpswap", 1}, {"add", 2}, {"sub", 3}, {"smin", 4}, {"umin", 5}, {"smax", 6},
    {"umax", 7}, {"and", 8},     {"or", 9},       {"xor", 10}, {"inc", 11}, {"dec", 12},
};

uint64_t model_atomic(int op, uint64_t old, uint64_t src, uint64_t cmp, bool wide) {
  uint64_t mask = wide ? ~0ull : 0xffffffffull;
  int64_t so = wide ? int64_t(old) : int32_t(uint32_t(old)), ss = wide ? int64_t(src) : int32_t(uint32_t(src));
  switch (op) {
    case 0: return src;
    case 1: return old == cmp ? src : old;
    case 2: return (old + src) & mask;
    case 3: return (old - src) & mask;
    case 4: return ss < so ? src : old;
    case 5: return src < old ? src : old;
    case 6: return ss > so ? src : old;
    case 7: return src > old ? src : old;
    case 8: return old & src;
    case 9: return old | src;
    case 10: return old ^ src;
    case 11: return old >= src ? 0 : old + 1;
    default: return (old == 0 || old > src) ? src : old - 1;
  }
}

// v5 (v[5:6]) is the data, v[7:8] / v6 the compare value: in[] for even lanes (a match), data otherwise.
const char* kAtomicData =
    " v_lshlrev_b32 v20, 2, v62\n v_lshlrev_b32 v21, 3, v62\n"
    " global_load_dword v6, v20, s[94:95]\n global_load_dwordx2 v[7:8], v21, s[94:95]\n s_waitcnt vmcnt(0)\n"
    " v_and_b32 v22, 1, v62\n v_cmp_ne_u32 vcc, 0, v22\n v_cndmask_b32 v6, v6, v5, vcc\n"
    " v_cndmask_b32 v7, v7, v5, vcc\n";

uint64_t atomic_data(int lane, bool wide) {
  // Matches the bodies: 32-bit data v5 (small for inc/dec), 64-bit data v[5:6] = (v5, v5 ^ 0x01234567).
  uint32_t v5 = lane_data(0, lane) & 0x7ff;
  if (!wide) return v5;
  return uint64_t(v5) | uint64_t(v5 ^ 0x01234567u) << 32;
}

void check_atomic(const VecResult& r, int op, bool wide, bool ret, unsigned ret_reg, const char* what) {
  std::vector<uint32_t> want = r.in_before;
  for (int l = 0; l < 64; ++l) {
    uint64_t old = wide ? (uint64_t(r.in_before[2 * l]) | uint64_t(r.in_before[2 * l + 1]) << 32) : r.in_before[l];
    uint64_t src = atomic_data(l, wide);
    uint64_t cmp;
    if (l & 1) cmp = wide ? (uint64_t(lane_data(0, l) & 0x7ff) | uint64_t(r.in_before[2 * l + 1]) << 32) : (lane_data(0, l) & 0x7ff);
    else cmp = old;
    uint64_t nv = model_atomic(op, old, src, cmp, wide);
    if (wide) {
      want[2 * l] = uint32_t(nv);
      want[2 * l + 1] = uint32_t(nv >> 32);
    } else {
      want[l] = uint32_t(nv);
    }
    if (ret) {
      EXPECT_EQ(r.reg(ret_reg, l), uint32_t(old)) << what << " returned value, lane " << l;
      if (wide) {
        EXPECT_EQ(r.reg(ret_reg + 1, l), uint32_t(old >> 32)) << what << " returned high, lane " << l;
      }
    }
  }
  for (size_t i = 0; i < 128; ++i) EXPECT_EQ(r.in_after[i], want[i]) << what << " in[" << i << "]";
}

// 32-bit data is masked to 11 bits so inc/dec wrap differently per lane.
const char* kAtomicMask = " v_and_b32 v5, 0x7ff, v5\n";

// ------------------------------------------------------------- helpers ---

// Raw buffer descriptor over the input buffer in s[8:11]; word3 given.
std::string rsrc(uint32_t stride, uint32_t num_records, uint32_t word3, bool swizzle = false) {
  return " s_mov_b32 s8, s94\n s_and_b32 s9, s95, 0xffff\n s_or_b32 s9, s9, " + hex((stride << 16) | (swizzle ? 0x80000000u : 0)) +
         "\n s_mov_b32 s10, " + hex(num_records) + "\n s_mov_b32 s11, " + hex(word3) + "\n";
}
constexpr uint32_t kWord3Identity = 4u | 5u << 3 | 6u << 6 | 7u << 9;
uint32_t word3_fmt(uint32_t dfmt, uint32_t nfmt) { return kWord3Identity | nfmt << 12 | dfmt << 15; }

// 64-bit address of the input buffer + v1 (byte offset) in v[10:11].
const char* kFlatAddr = " v_mov_b32 v11, s95\n v_add_co_u32 v10, vcc, s94, v1\n v_addc_co_u32 v11, vcc, 0, v11, vcc\n";

KernelOptions scratch_options() {
  KernelOptions o;
  o.flat_scratch_init = true;
  o.private_size = 256;
  return o;
}

void add_global_like(std::vector<VectorCase>& c, const std::string& fam) {
  bool flat = fam == "flat";
  auto addr_operand = [&]() -> std::string { return flat ? "v[10:11]" : "v1"; };
  auto tail = [&]() -> std::string { return flat ? "" : ", s[94:95]"; };
  // Loads at lane*16 + 4.
  for (const LoadForm& f : kLoads) {
    unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
    uint32_t off = f.bytes == 16 ? 0 : 4;
    std::string body = std::string(kMarkRegisters) + " v_lshlrev_b32 v1, 4, v62\n" + (flat ? kFlatAddr : "") + " " + fam +
                       "_load_" + f.suffix + " " + regs(2, n) + ", " + addr_operand() + tail() + " offset:" + std::to_string(off) + "\n";
    c.push_back({fam + "_load_" + f.suffix, body,
                 [f, off](const VecResult& r) { check_load(r, f, [off](int l) { return uint32_t(l * 16) + off; }); }, {}});
  }
  // Stores at lane*16 + 4 (+ 0 for x4 so it stays in its 16 bytes).
  for (const StoreForm& f : kStores) {
    unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
    uint32_t off = f.bytes == 16 ? 0 : 4;
    std::string body = std::string(kLaneData) + " v_lshlrev_b32 v1, 4, v62\n" + (flat ? kFlatAddr : "") + " " + fam + "_store_" +
                       f.suffix + " " + addr_operand() + ", " + regs(5, n) + tail() + " offset:" + std::to_string(off) + "\n";
    c.push_back({fam + "_store_" + f.suffix, body,
                 [f, off](const VecResult& r) { check_store(r, f, [off](int l) { return uint32_t(l * 16) + off; }); }, {}});
  }
  // Atomics: 32-bit on in[lane], 64-bit on in[2*lane..].
  for (const AtomicOpInfo& a : kAtomicOps)
    for (bool wide : {false, true})
      for (bool glc : {true, false}) {
        if (!glc && a.op != 2 && a.op != 1) continue;  // no-return form exercised for add and cmpswap
        std::string name = fam + "_atomic_" + a.name + (wide ? "_x2" : "");
        std::string data = a.op == 1 ? (wide ? "v[5:8]" : "v[5:6]") : (wide ? "v[5:6]" : "v5");
        std::string body = std::string(kLaneData) + kAtomicMask + " v_xor_b32 v6, 0x01234567, v5\n" + kAtomicData +
                           (wide ? " v_mov_b32 v1, v21\n" : " v_mov_b32 v1, v20\n") + (wide ? " v_mov_b32 v6, v5\n v_xor_b32 v6, 0x01234567, v6\n" : "") +
                           (flat ? kFlatAddr : "");
        std::string dst = glc ? (wide ? "v[2:3], " : "v2, ") : "";
        body += " " + name + " " + dst + addr_operand() + ", " + data + tail() + (glc ? " glc" : "") + "\n";
        c.push_back({name + (glc ? " glc" : ""), body,
                     [a, wide, glc, name](const VecResult& r) { check_atomic(r, a.op, wide, glc, 2, name.c_str()); }, {}});
      }
}

}  // namespace

const std::vector<VectorCase>& vmem_cases() {
  static const std::vector<VectorCase> cases = [] {
    std::vector<VectorCase> c;
    add_global_like(c, "global");
    add_global_like(c, "flat");

    // GLOBAL with a 64-bit VGPR address (saddr off) and a negative offset.
    c.push_back({"global vaddr64",
                 std::string(" v_lshlrev_b32 v1, 4, v62\n v_add_u32 v1, 16, v1\n") + kFlatAddr +
                     " global_load_dword v2, v[10:11], off offset:-8\n",
                 [](const VecResult& r) { expect_lanes(r, "vaddr64", 2, [&](int l) { return dword_at(r.in_before, uint32_t(l) * 16 + 8); }); },
                 {}});

    // FLAT into the LDS aperture: store via flat, read back via ds_read.
    {
      KernelOptions o;
      o.lds = 512;
      c.push_back({"flat lds aperture",
                   std::string(kLaneData) + " s_mov_b64 s[20:21], src_shared_base\n v_lshlrev_b32 v10, 2, v62\n v_mov_b32 v11, s21\n"
                                        " flat_store_dword v[10:11], v5 offset:8\n s_waitcnt vmcnt(0) lgkmcnt(0)\n"
                                        " ds_read_b32 v2, v10 offset:8\n flat_load_dword v3, v[10:11] offset:8\n",
                   [](const VecResult& r) {
                     expect_lanes(r, "ds_read of flat store", 2, [](int l) { return lane_data(0, l); });
                     expect_lanes(r, "flat load from LDS", 3, [](int l) { return lane_data(0, l); });
                   },
                   o});
    }
    // FLAT into the private aperture, SCRATCH and MUBUF over the private segment buffer see one layout.
    {
      KernelOptions o = scratch_options();
      o.private_segment_buffer = true;
      c.push_back({"flat private aperture",
                   std::string(kLaneData) + " s_mov_b64 s[20:21], src_private_base\n v_mov_b32 v10, 16\n v_mov_b32 v11, s21\n"
                                        " flat_store_dword v[10:11], v5\n s_waitcnt vmcnt(0)\n v_mov_b32 v1, 16\n"
                                        " scratch_load_dword v2, v1, off\n s_mov_b32 s41, 0\n"
                                        " scratch_store_dword off, v6, s41 offset:24\n s_waitcnt vmcnt(0)\n"
                                        " buffer_load_dword v3, off, s[0:3], s9 offset:16\n"
                                        " scratch_store_dword v1, v7, off offset:4\n s_waitcnt vmcnt(0)\n"
                                        " flat_load_dword v4, v[10:11] offset:4\n",
                   [](const VecResult& r) {
                     expect_lanes(r, "scratch_load of flat store", 2, [](int l) { return lane_data(0, l); });
                     expect_lanes(r, "buffer_load of private segment", 3, [](int l) { return lane_data(0, l); });
                     expect_lanes(r, "flat_load of scratch store", 4, [](int l) { return lane_data(2, l); });
                   },
                   o});
    }

    // SCRATCH: every store form then dwordx4 back; every load form from a stored pattern.
    for (const StoreForm& f : kStores) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      std::string body = std::string(kLaneData) + " v_mov_b32 v1, 32\n v_mov_b32 v2, 0\n v_mov_b32 v3, 0\n v_mov_b32 v4, 0\n v_mov_b32 v9, 0\n"
                         " scratch_store_dwordx4 v1, v[2:5], off\n s_waitcnt vmcnt(0)\n v_mov_b32 v5, v5\n" +
                         std::string(kLaneData) + " scratch_store_" + f.suffix + " v1, " + regs(5, n) + ", off\n s_waitcnt vmcnt(0)\n"
                         " scratch_load_dwordx4 v[12:15], v1, off\n";
      c.push_back({std::string("scratch_store_") + f.suffix, body,
                   [f](const VecResult& r) {
                     for (int k = 0; k < 4; ++k)
                       expect_lanes(r, f.suffix, 12 + unsigned(k), [&](int l) {
                         uint32_t v = k == 3 ? lane_data(0, l) : 0;
                         for (unsigned b = 0; b < f.bytes; ++b)
                           if (b / 4 == unsigned(k)) {
                             uint32_t reg = lane_data(k, l);
                             if (f.hi) reg >>= 16;
                             v = (v & ~(0xffu << (8 * (b % 4)))) | ((reg >> (8 * (b % 4))) & 0xff) << (8 * (b % 4));
                           }
                         return v;
                       });
                   },
                   scratch_options()});
    }
    for (const LoadForm& f : kLoads) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      std::string body = std::string(kLaneData) + " v_mov_b32 v1, 64\n scratch_store_dwordx4 v1, v[5:8], off offset:-4\n s_waitcnt vmcnt(0)\n" +
                         kMarkRegisters + " scratch_load_" + f.suffix + " " + regs(2, n) + ", v1, off offset:-4\n";
      c.push_back({std::string("scratch_load_") + f.suffix, body,
                   [f](const VecResult& r) {
                     unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
                     for (unsigned k = 0; k < n; ++k)
                       expect_lanes(r, f.suffix, 2 + k, [&](int l) {
                         std::vector<uint32_t> m = {lane_data(0, l), lane_data(1, l), lane_data(2, l), lane_data(3, l)};
                         return load_result(f, m, 0, k);
                       });
                   },
                   scratch_options()});
    }

    // MUBUF loads and stores over a raw descriptor, offen, offset 4.
    for (const LoadForm& f : kLoads) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      uint32_t off = f.bytes == 16 ? 0 : 4;
      std::string body = rsrc(0, 1024, word3_fmt(4, 4)) + kMarkRegisters + " v_lshlrev_b32 v1, 4, v62\n buffer_load_" + f.suffix +
                         " " + regs(2, n) + ", v1, s[8:11], 0 offen offset:" + std::to_string(off) + "\n";
      c.push_back({std::string("buffer_load_") + f.suffix, body,
                   [f, off](const VecResult& r) { check_load(r, f, [off](int l) { return uint32_t(l * 16) + off; }); }, {}});
    }
    for (const StoreForm& f : kStores) {
      unsigned n = f.bytes >= 4 ? f.bytes / 4 : 1;
      uint32_t off = f.bytes == 16 ? 0 : 4;
      std::string body = rsrc(0, 1024, word3_fmt(4, 4)) + kLaneData + " v_lshlrev_b32 v1, 4, v62\n buffer_store_" + f.suffix + " " +
                         regs(5, n) + ", v1, s[8:11], 0 offen offset:" + std::to_string(off) + "\n";
      c.push_back({std::string("buffer_store_") + f.suffix, body,
                   [f, off](const VecResult& r) { check_store(r, f, [off](int l) { return uint32_t(l * 16) + off; }); }, {}});
    }
    // MUBUF atomics (returned in vdata with glc).
    for (const AtomicOpInfo& a : kAtomicOps)
      for (bool wide : {false, true}) {
        std::string name = std::string("buffer_atomic_") + a.name + (wide ? "_x2" : "");
        std::string data = a.op == 1 ? (wide ? "v[5:8]" : "v[5:6]") : (wide ? "v[5:6]" : "v5");
        std::string body = rsrc(0, 1024, word3_fmt(4, 4)) + kLaneData + kAtomicMask + kAtomicData +
                           (wide ? " v_mov_b32 v1, v21\n v_xor_b32 v6, 0x01234567, v5\n" : " v_mov_b32 v1, v20\n");
        body += " " + name + " " + data + ", v1, s[8:11], 0 offen glc\n s_waitcnt vmcnt(0)\n v_mov_b32 v2, v5\n v_mov_b32 v3, v6\n";
        c.push_back({name, body, [a, wide, name](const VecResult& r) { check_atomic(r, a.op, wide, true, 2, name.c_str()); }, {}});
      }
    // Addressing: idxen with stride, idxen+offen, soffset, neither.
    c.push_back({"buffer idxen/offen/soffset",
                 rsrc(16, 64, word3_fmt(4, 4)) +
                     " buffer_load_dword v2, v62, s[8:11], 0 idxen offset:4\n v_mov_b32 v20, v62\n v_mov_b32 v21, 8\n"
                     " buffer_load_dword v3, v[20:21], s[8:11], 0 idxen offen\n s_mov_b32 s12, 12\n"
                     " buffer_load_dword v4, v62, s[8:11], s12 idxen\n buffer_load_dword v9, off, s[8:11], 0 offset:8\n",
                 [](const VecResult& r) {
                   expect_lanes(r, "idxen", 2, [&](int l) { return r.in_before[uint32_t(l) * 4 + 1]; });
                   expect_lanes(r, "idxen offen", 3, [&](int l) { return r.in_before[uint32_t(l) * 4 + 2]; });
                   expect_lanes(r, "soffset", 4, [&](int l) { return r.in_before[uint32_t(l) * 4 + 3]; });
                   expect_lanes(r, "no vaddr", 9, [&](int) { return r.in_before[2]; });
                 },
                 {}});
    // Range checks: raw (num_records bytes) and structured (num_records records); stores dropped.
    c.push_back({"buffer range checks",
                 rsrc(0, 100, word3_fmt(4, 4)) + kLaneData +
                     " v_lshlrev_b32 v1, 2, v62\n buffer_load_dword v2, v1, s[8:11], 0 offen\n"
                     " buffer_load_dwordx2 v[3:4], v1, s[8:11], 0 offen offset:92\n"
                     " buffer_store_dword v5, v1, s[8:11], 0 offen offset:900\n" +
                     rsrc(16, 10, word3_fmt(4, 4)) + " buffer_load_dword v9, v62, s[8:11], 0 idxen\n",
                 [](const VecResult& r) {
                   expect_lanes(r, "raw range", 2, [&](int l) { return l < 25 ? r.in_before[size_t(l)] : 0u; });
                   expect_lanes(r, "per-dword range", 3, [&](int l) { return 4 * l + 92 < 100 ? r.in_before[size_t(l) + 23] : 0u; });
                   expect_lanes(r, "per-dword range hi", 4, [&](int l) { return 4 * l + 96 < 100 ? r.in_before[size_t(l) + 24] : 0u; });
                   expect_lanes(r, "structured range", 9, [&](int l) { return l < 10 ? r.in_before[size_t(l) * 4] : 0u; });
                   EXPECT_EQ(r.in_after, r.in_before) << "out-of-range store must be dropped";
                 },
                 {}});
    // Swizzled: element 4, index stride 64, thread id added (the scratch layout).
    c.push_back({"buffer swizzle",
                 rsrc(0, 1024, kWord3Identity | 1u << 19 | 3u << 21 | 1u << 23, true) + kLaneData +
                     " v_mov_b32 v1, 4\n buffer_store_dword v5, v1, s[8:11], 0 offen\n s_waitcnt vmcnt(0)\n"
                     " buffer_load_dword v2, v1, s[8:11], 0 offen\n",
                 [](const VecResult& r) {
                   expect_lanes(r, "swizzled load", 2, [](int l) { return lane_data(0, l); });
                   for (int l = 0; l < 64; ++l) EXPECT_EQ(r.in_after[64 + size_t(l)], lane_data(0, l)) << "lane " << l;
                 },
                 {}});
    // Format loads/stores through the descriptor (32_32_32_32 UINT) and d16 (16_16_16_16 UINT).
    for (unsigned n = 1; n <= 4; ++n) {
      const char* sfx[] = {"", "x", "xy", "xyz", "xyzw"};
      c.push_back({std::string("buffer_load_format_") + sfx[n],
                   rsrc(0, 1024, word3_fmt(14, 4)) + kMarkRegisters + " v_lshlrev_b32 v1, 4, v62\n buffer_load_format_" + sfx[n] + " " +
                       regs(2, n) + ", v1, s[8:11], 0 offen\n",
                   [n](const VecResult& r) {
                     for (unsigned k = 0; k < n; ++k)
                       expect_lanes(r, "format", 2 + k, [&](int l) { return r.in_before[size_t(l) * 4 + k]; });
                   },
                   {}});
      c.push_back({std::string("buffer_store_format_") + sfx[n],
                   rsrc(0, 1024, word3_fmt(14, 4)) + kLaneData + " v_lshlrev_b32 v1, 4, v62\n buffer_store_format_" + sfx[n] + " " +
                       regs(5, n) + ", v1, s[8:11], 0 offen\n",
                   [n](const VecResult& r) {
                     for (int l = 0; l < 64; ++l)
                       for (unsigned k = 0; k < 4; ++k)
                         EXPECT_EQ(r.in_after[size_t(l) * 4 + k], k < n ? lane_data(int(k), l) : 0u) << "lane " << l << " comp " << k;
                   },
                   {}});
      unsigned dregs = (n + 1) / 2;
      c.push_back({std::string("buffer_load_format_d16_") + sfx[n],
                   rsrc(0, 1024, word3_fmt(12, 4)) + kMarkRegisters + " v_lshlrev_b32 v1, 4, v62\n buffer_load_format_d16_" + sfx[n] + " " +
                       regs(2, dregs) + ", v1, s[8:11], 0 offen\n",
                   [n](const VecResult& r) {
                     for (unsigned k = 0; k < (n + 1) / 2; ++k)
                       expect_lanes(r, "format d16", 2 + k, [&](int l) {
                         uint32_t m = r.in_before[size_t(l) * 4 + k];
                         uint32_t lo = m & 0xffff, hi = 2 * k + 1 < n ? (m & 0xffff0000u) : 0xaaaa0000u;
                         return lo | hi;
                       });
                   },
                   {}});
      c.push_back({std::string("buffer_store_format_d16_") + sfx[n],
                   rsrc(0, 1024, word3_fmt(12, 4)) + kLaneData + " v_lshlrev_b32 v1, 4, v62\n buffer_store_format_d16_" + sfx[n] + " " +
                       regs(5, dregs) + ", v1, s[8:11], 0 offen\n",
                   [n](const VecResult& r) {
                     for (int l = 0; l < 64; ++l)
                       for (unsigned k = 0; k < 4; ++k) {
                         uint32_t h = (lane_data(int(k / 2), l) >> (16 * (k % 2))) & 0xffff;
                         uint32_t got = (r.in_after[size_t(l) * 4 + k / 2] >> (16 * (k % 2))) & 0xffff;
                         EXPECT_EQ(got, k < n ? h : 0u) << "lane " << l << " comp " << k;
                       }
                   },
                   {}});
      // MTBUF: the format comes from the instruction.
      c.push_back({std::string("tbuffer_load_format_") + sfx[n],
                   rsrc(0, 1024, 0) + kMarkRegisters + " v_lshlrev_b32 v1, 4, v62\n tbuffer_load_format_" + sfx[n] + " " + regs(2, n) +
                       ", v1, s[8:11], 0 format:[BUF_DATA_FORMAT_32_32_32_32, BUF_NUM_FORMAT_UINT] offen\n",
                   [n](const VecResult& r) {
                     for (unsigned k = 0; k < n; ++k)
                       expect_lanes(r, "tbuffer", 2 + k, [&](int l) { return r.in_before[size_t(l) * 4 + k]; });
                   },
                   {}});
      c.push_back({std::string("tbuffer_store_format_") + sfx[n],
                   rsrc(0, 1024, 0) + kLaneData + " v_lshlrev_b32 v1, 4, v62\n tbuffer_store_format_" + sfx[n] + " " + regs(5, n) +
                       ", v1, s[8:11], 0 format:[BUF_DATA_FORMAT_32_32_32_32, BUF_NUM_FORMAT_UINT] offen\n",
                   [n](const VecResult& r) {
                     for (int l = 0; l < 64; ++l)
                       for (unsigned k = 0; k < n; ++k) EXPECT_EQ(r.in_after[size_t(l) * 4 + k], lane_data(int(k), l));
                   },
                   {}});
      c.push_back({std::string("tbuffer_load_format_d16_") + sfx[n],
                   rsrc(0, 1024, 0) + kMarkRegisters + " v_lshlrev_b32 v1, 4, v62\n tbuffer_load_format_d16_" + sfx[n] + " " +
                       regs(2, dregs) + ", v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16_16_16, BUF_NUM_FORMAT_UINT] offen\n",
                   [n](const VecResult& r) {
                     for (unsigned k = 0; k < (n + 1) / 2; ++k)
                       expect_lanes(r, "tbuffer d16", 2 + k, [&](int l) {
                         uint32_t m = r.in_before[size_t(l) * 4 + k];
                         return (m & 0xffff) | (2 * k + 1 < n ? (m & 0xffff0000u) : 0xaaaa0000u);
                       });
                   },
                   {}});
      c.push_back({std::string("tbuffer_store_format_d16_") + sfx[n],
                   rsrc(0, 1024, 0) + kLaneData + " v_lshlrev_b32 v1, 4, v62\n tbuffer_store_format_d16_" + sfx[n] + " " +
                       regs(5, dregs) + ", v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16_16_16, BUF_NUM_FORMAT_UINT] offen\n",
                   [n](const VecResult& r) {
                     for (int l = 0; l < 64; ++l)
                       for (unsigned k = 0; k < n; ++k) {
                         uint32_t h = (lane_data(int(k / 2), l) >> (16 * (k % 2))) & 0xffff;
                         EXPECT_EQ((r.in_after[size_t(l) * 4 + k / 2] >> (16 * (k % 2))) & 0xffff, h);
                       }
                   },
                   {}});
    }
    // Conversions: 8_8_8_8 UNORM -> float, and FLOAT 16 -> f32 via tbuffer.
    c.push_back({"tbuffer unorm and half conversions",
                 rsrc(0, 1024, 0) + " v_lshlrev_b32 v1, 4, v62\n"
                                    " tbuffer_load_format_xyzw v[2:5], v1, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8, BUF_NUM_FORMAT_UNORM] offen\n"
                                    " tbuffer_load_format_xy v[12:13], v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16, BUF_NUM_FORMAT_FLOAT] offen\n",
                 [](const VecResult& r) {
                   for (unsigned k = 0; k < 4; ++k)
                     expect_lanes(r, "unorm8", 2 + k, [&](int l) {
                       float f = float(double(byte_at(r.in_before, uint32_t(l) * 16 + k)) / 255.0);
                       uint32_t b;
                       std::memcpy(&b, &f, 4);
                       return b;
                     });
                   expect_lanes(r, "half", 12, [&](int l) {
                     uint16_t h = uint16_t(r.in_before[size_t(l) * 4]);
                     // reference conversion of a half to float (NaN payload kept)
                     uint32_t sign = uint32_t(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 0x3ff;
                     if (e == 31) return sign | 0x7f800000u | m << 13;
                     float f = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(1.0f + float(m) / 1024, int(e) - 15);
                     uint32_t b;
                     std::memcpy(&b, &f, 4);
                     return b | sign;
                   });
                 },
                 {}});
    // d16_hi format forms.
    c.push_back({"buffer format d16_hi",
                 rsrc(0, 1024, word3_fmt(2, 4)) + kLaneData + kMarkRegisters +
                     " v_lshlrev_b32 v1, 4, v62\n buffer_load_format_d16_hi_x v2, v1, s[8:11], 0 offen\n"
                     " buffer_store_format_d16_hi_x v5, v1, s[8:11], 0 offen offset:8\n",
                 [](const VecResult& r) {
                   expect_lanes(r, "d16_hi load", 2, [&](int l) { return (r.in_before[size_t(l) * 4] << 16) | 0xaaaau; });
                   for (int l = 0; l < 64; ++l)
                     EXPECT_EQ(r.in_after[size_t(l) * 4 + 2] & 0xffff, lane_data(0, l) >> 16) << "lane " << l;
                 },
                 {}});
    // LDS DMA: buffer_load_dword ... lds writes LDS[M0 + lane*4].
    {
      KernelOptions o;
      o.lds = 512;
      c.push_back({"buffer lds dma",
                   rsrc(0, 1024, word3_fmt(4, 4)) + " s_mov_b32 m0, 64\n v_lshlrev_b32 v1, 2, v62\n"
                                                    " buffer_load_dword v1, v1, s[8:11], 0 offen lds\n s_waitcnt vmcnt(0)\n"
                                                    " v_lshlrev_b32 v3, 2, v62\n ds_read_b32 v2, v3 offset:64\n",
                   [](const VecResult& r) { expect_lanes(r, "lds dma", 2, [&](int l) { return r.in_before[size_t(l)]; }); }, o});
    }
    // LDS -> memory: each lane stores LDS[M0 + lane*4] at base + lane*4 (thread id indexing).
    {
      KernelOptions o;
      o.lds = 512;
      c.push_back({"buffer_store_lds_dword",
                   rsrc(4, 64, kWord3Identity | 1u << 23) + kLaneData +
                       " v_lshlrev_b32 v1, 2, v62\n ds_write_b32 v1, v5 offset:128\n s_waitcnt lgkmcnt(0)\n s_mov_b32 m0, 128\n s_nop 0\n"
                       " buffer_store_lds_dword s[8:11], 0 lds\n",
                   [](const VecResult& r) {
                     for (int l = 0; l < 64; ++l) EXPECT_EQ(r.in_after[size_t(l)], lane_data(0, l)) << "lane " << l;
                   },
                   o});
    }
    // Cache maintenance no-ops, including the decode-only alias opcode.
    c.push_back({"buffer_wbinvl1", " buffer_wbinvl1\n buffer_wbinvl1_vol\n .long 0xE1C40000, 0x0\n v_mov_b32 v2, 7\n",
                 [](const VecResult& r) { expect_lanes(r, "after wbinvl1", 2, [](int) { return 7u; }); }, {}});
    return c;
  }();
  return cases;
}

}  // namespace k100::emu::test
