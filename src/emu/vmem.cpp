// Vector memory semantics: MUBUF and MTBUF (buffer resource descriptors with
// stride, index/offset enables, swizzling, range checks, formats, LDS DMA,
// TFE), FLAT (global, LDS or scratch by aperture), GLOBAL and SCRATCH, with
// all widths, d16 forms and atomics.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "atomics.h"
#include "core.h"
#include "half.h"

namespace k100::emu::detail {

bool parse_atomic_op(std::string_view n, AtomicOp* op) {
  struct Name { std::string_view name; AtomicOp op; };
  static const Name names[] = {
      {"swap", AtomicOp::Swap}, {"cmpswap", AtomicOp::Cmpswap}, {"add", AtomicOp::Add},
      {"sub", AtomicOp::Sub},   {"rsub", AtomicOp::Rsub},       {"smin", AtomicOp::Smin},
      {"umin", AtomicOp::Umin}, {"smax", AtomicOp::Smax},       {"umax", AtomicOp::Umax},
      {"and", AtomicOp::And},   {"or", AtomicOp::Or},           {"xor", AtomicOp::Xor},
      {"inc", AtomicOp::Inc},   {"dec", AtomicOp::Dec},
  };
  for (const Name& x : names)
    if (x.name == n) {
      *op = x.op;
      return true;
    }
  return false;
}

namespace {

using isa::Field;
using isa::Family;

enum class MemKind : uint8_t { Nop, Load, Store, Atomic, LoadFormat, StoreFormat, StoreLds };

struct MemDesc {
  MemKind kind = MemKind::Nop;
  uint8_t bytes = 4;   // Load/Store: bytes per lane
  bool sign = false;   // sign-extending loads
  uint8_t d16 = 0;     // 1: low half of the VGPR, 2: high half
  uint8_t comps = 0;   // format forms: components moved
  AtomicOp aop = AtomicOp::Add;
  bool wide = false;   // 64-bit atomic
};

std::vector<MemDesc>& mem_descs() {
  static std::vector<MemDesc> t(isa::instructions().size());
  return t;
}

bool parse_mem(std::string_view name, MemDesc* m) {
  if (name.starts_with("buffer_wbinvl1")) {
    m->kind = MemKind::Nop;
    return true;
  }
  size_t p;
  if ((p = name.find("_atomic_")) != std::string_view::npos) {
    std::string_view opn = name.substr(p + 8);
    m->kind = MemKind::Atomic;
    if (opn.ends_with("_x2")) {
      m->wide = true;
      opn.remove_suffix(3);
    }
    return parse_atomic_op(opn, &m->aop);
  }
  bool store;
  if ((p = name.find("_load_")) != std::string_view::npos) {
    store = false;
    p += 6;
  } else if ((p = name.find("_store_")) != std::string_view::npos) {
    store = true;
    p += 7;
  } else {
    return false;
  }
  std::string_view rest = name.substr(p);
  if (store && rest == "lds_dword") {  // buffer_store_lds_dword: LDS -> memory
    m->kind = MemKind::StoreLds;
    m->bytes = 4;
    return true;
  }
  if (rest.starts_with("format_")) {
    rest.remove_prefix(7);
    m->kind = store ? MemKind::StoreFormat : MemKind::LoadFormat;
    if (rest.starts_with("d16_hi_")) {
      m->d16 = 2;
      rest.remove_prefix(7);
    } else if (rest.starts_with("d16_")) {
      m->d16 = 1;
      rest.remove_prefix(4);
    }
    if (rest != "x" && rest != "xy" && rest != "xyz" && rest != "xyzw") return false;
    m->comps = uint8_t(rest.size());
    return true;
  }
  m->kind = store ? MemKind::Store : MemKind::Load;
  struct Form { std::string_view name; uint8_t bytes; bool sign; uint8_t d16; };
  static const Form forms[] = {
      {"ubyte", 1, false, 0},        {"sbyte", 1, true, 0},         {"ushort", 2, false, 0},
      {"sshort", 2, true, 0},        {"dword", 4, false, 0},        {"dwordx2", 8, false, 0},
      {"dwordx3", 12, false, 0},     {"dwordx4", 16, false, 0},     {"byte", 1, false, 0},
      {"short", 2, false, 0},        {"byte_d16_hi", 1, false, 2},  {"short_d16_hi", 2, false, 2},
      {"ubyte_d16", 1, false, 1},    {"ubyte_d16_hi", 1, false, 2}, {"sbyte_d16", 1, true, 1},
      {"sbyte_d16_hi", 1, true, 2},  {"short_d16", 2, false, 1},
  };
  for (const Form& f : forms)
    if (f.name == rest) {
      m->bytes = f.bytes;
      m->sign = f.sign;
      m->d16 = f.d16;
      return true;
    }
  return false;
}

// ------------------------------------------------------------- addressing ---

enum class Space : uint8_t { Global, Lds, Buffer, Swizzled };

struct Addressing {
  Space space[64];
  uint64_t addr[64];  // Global: device address; Lds: offset; Buffer/Swizzled: base + soffset
  uint32_t off[64];   // Buffer/Swizzled: offset within the record
  uint32_t idx[64];   // Buffer/Swizzled: record index
  bool lane_oor[64];  // structured buffer: whole lane out of range
  uint32_t elem = 4, index_stride = 64, stride = 0;
  bool range_check = false;  // raw buffer: per-component check against raw_limit
  uint64_t raw_limit = 0;
  bool structured = false;
};

// Device or LDS pointer for `len` bytes at byte `k` of the lane's access.
uint8_t* lane_ptr(Exec& e, const Addressing& a, int lane, uint32_t k, uint32_t len, bool write,
                  uint64_t* dev_addr) {
  switch (a.space[lane]) {
    case Space::Global: *dev_addr = a.addr[lane] + k; return e.dev(*dev_addr, len, write, lane);
    case Space::Lds: *dev_addr = ~uint64_t(0); return e.lds_ptr(a.addr[lane] + k, len, write, lane);
    case Space::Buffer:
      *dev_addr = a.addr[lane] + uint32_t(a.idx[lane] * a.stride) + uint64_t(a.off[lane]) + k;
      return e.dev(*dev_addr, len, write, lane);
    case Space::Swizzled: {
      uint64_t o = uint64_t(a.off[lane]) + k;
      uint64_t imsb = a.idx[lane] / a.index_stride, ilsb = a.idx[lane] % a.index_stride;
      uint64_t omsb = o / a.elem, olsb = o % a.elem;
      *dev_addr = a.addr[lane] + olsb + a.elem * ilsb + a.index_stride * (imsb * a.stride + omsb * a.elem);
      return e.dev(*dev_addr, len, write, lane);
    }
  }
  return nullptr;
}

// Whether component byte offset `k` of the lane's access is inside the buffer.
inline bool in_range(const Addressing& a, int lane, uint32_t k) {
  if (a.structured) return !a.lane_oor[lane];
  if (a.range_check) return uint64_t(a.off[lane]) + k < a.raw_limit;
  return true;
}

struct Lines {
  uint64_t addr[256];
  uint32_t size[256];
  int n = 0;
  void add(uint64_t a, uint32_t s) {
    if (a != ~uint64_t(0) && n < 256) {
      addr[n] = a;
      size[n] = s;
      ++n;
    }
  }
};

// Copies n bytes of the lane's access into dst (zeros where out of range).
void lane_read(Exec& e, const Addressing& a, int lane, uint8_t* dst, uint32_t n, Lines* lines,
               bool check = true) {
  for (uint32_t c = 0; c < n; c += 4) {
    uint32_t clen = std::min<uint32_t>(4, n - c);
    if (check && !in_range(a, lane, c)) {
      std::memset(dst + c, 0, clen);
      continue;
    }
    for (uint32_t k = c; k < c + clen;) {
      uint32_t len = c + clen - k;
      if (a.space[lane] == Space::Swizzled) len = std::min<uint32_t>(len, a.elem - uint32_t((a.off[lane] + k) % a.elem));
      uint64_t da = ~uint64_t(0);
      std::memcpy(dst + k, lane_ptr(e, a, lane, k, len, false, &da), len);
      if (lines) lines->add(da, len);
      k += len;
    }
  }
}

void lane_write(Exec& e, const Addressing& a, int lane, const uint8_t* src, uint32_t n, Lines* lines,
                bool check = true) {
  for (uint32_t c = 0; c < n; c += 4) {
    uint32_t clen = std::min<uint32_t>(4, n - c);
    if (check && !in_range(a, lane, c)) continue;
    for (uint32_t k = c; k < c + clen;) {
      uint32_t len = c + clen - k;
      if (a.space[lane] == Space::Swizzled) len = std::min<uint32_t>(len, a.elem - uint32_t((a.off[lane] + k) % a.elem));
      uint64_t da = ~uint64_t(0);
      std::memcpy(lane_ptr(e, a, lane, k, len, true, &da), src + k, len);
      if (lines) lines->add(da, len);
      k += len;
    }
  }
}

// Fixed-size copies (the common access widths) avoid a library call per lane.
inline void copy_bytes(uint8_t* dst, const uint8_t* src, unsigned n) {
  switch (n) {
    case 1: *dst = *src; break;
    case 2: std::memcpy(dst, src, 2); break;
    case 4: std::memcpy(dst, src, 4); break;
    case 8: std::memcpy(dst, src, 8); break;
    case 12: std::memcpy(dst, src, 12); break;
    case 16: std::memcpy(dst, src, 16); break;
    default: std::memcpy(dst, src, n); break;
  }
}

// The device address of a lane's whole access when it is one contiguous,
// in-range piece of global memory (the common case), else ~0.
inline uint64_t contiguous_address(const Addressing& a, int lane, uint32_t n) {
  switch (a.space[lane]) {
    case Space::Global: return a.addr[lane];
    case Space::Buffer:
      if (a.structured ? a.lane_oor[lane] : (a.range_check && uint64_t(a.off[lane]) + n > a.raw_limit)) return ~uint64_t(0);
      return a.addr[lane] + uint32_t(a.idx[lane] * a.stride) + uint64_t(a.off[lane]);
    default: return ~uint64_t(0);
  }
}

struct BufferRsrc {
  uint64_t base;
  uint32_t stride, num_records, word3;
  bool swizzle;
  uint32_t elem() const { return 2u << ((word3 >> 19) & 3); }
  uint32_t index_stride() const { return 8u << ((word3 >> 21) & 3); }
  bool add_tid() const { return (word3 >> 23) & 1; }
  uint32_t nfmt() const { return (word3 >> 12) & 7; }
  uint32_t dfmt() const { return (word3 >> 15) & 15; }
  uint32_t dst_sel(int c) const { return (word3 >> (3 * c)) & 7; }
};

BufferRsrc rsrc(const Wave& w, const Op& op) {
  uint16_t c = op.opnd(Field::srsrc).code;
  uint32_t d0 = w.s.sgpr[c], d1 = w.s.sgpr[c + 1u], d2 = w.s.sgpr[c + 2u], d3 = w.s.sgpr[c + 3u];
  return {uint64_t(d0) | uint64_t(d1 & 0xffff) << 32, (d1 >> 16) & 0x3fff, d2, d3, bool((d1 >> 31) & 1)};
}

void address_buffer(Wave& w, const Op& op, uint64_t exec, Addressing& a, const BufferRsrc& r) {
  const isa::Modifiers& m = op.inst.mods;
  uint32_t soffset = sread(w, op.opnd(Field::soffset));
  uint64_t base = r.base + soffset;
  bool has_vaddr = op.has(Field::vaddr) && op.opnd(Field::vaddr).is_vgpr();
  unsigned vi = has_vaddr ? op.opnd(Field::vaddr).vgpr_index() : 0;
  a.stride = r.stride;
  a.elem = r.elem();
  a.index_stride = r.index_stride();
  a.structured = r.stride != 0;
  a.range_check = r.stride == 0;
  // Raw buffers: out of range when offset >= num_records - soffset.
  a.raw_limit = r.num_records >= soffset ? uint64_t(r.num_records - soffset) : 0;
  bool add_tid = r.add_tid();
  Space sp = r.swizzle ? Space::Swizzled : Space::Buffer;
  for_lanes(exec, [&](int lane) {
    uint32_t index = 0, offset = uint32_t(m.offset);
    if (!has_vaddr) {
    } else if (m.idxen && m.offen) {
      index = vreg(w, vi, lane);
      offset += vreg(w, vi + 1, lane);
    } else if (m.idxen) {
      index = vreg(w, vi, lane);
    } else if (m.offen) {
      offset += vreg(w, vi, lane);
    }
    if (add_tid) index += uint32_t(lane);
    a.space[lane] = sp;
    a.addr[lane] = base;
    a.off[lane] = offset;
    a.idx[lane] = index;
    a.lane_oor[lane] = a.structured && (index >= r.num_records || ((m.idxen || add_tid) && offset >= r.stride));
  });
}

// FLAT: the aperture of each lane's address selects global memory, LDS or scratch.
void address_flat(Wave& w, const Op& op, uint64_t exec, Addressing& a) {
  unsigned vi = op.opnd(Field::vaddr).vgpr_index();
  uint64_t off = uint64_t(uint32_t(op.inst.mods.offset));
  uint64_t scratch = w.s.sgpr64(isa::code::kFlatScratchLo);
  a.elem = 4;
  a.index_stride = 64;
  a.stride = 0;
  for_lanes(exec, [&](int lane) {
    uint64_t addr = (uint64_t(vreg(w, vi, lane)) | uint64_t(vreg(w, vi + 1, lane)) << 32) + off;
    uint64_t hi = addr >> 32;
    if (hi == (w.s.shared_base >> 32)) {
      a.space[lane] = Space::Lds;
      a.addr[lane] = uint32_t(addr);
    } else if (hi == (w.s.private_base >> 32)) {
      a.space[lane] = Space::Swizzled;
      a.addr[lane] = scratch;
      a.off[lane] = uint32_t(addr);
      a.idx[lane] = uint32_t(lane);
    } else {
      a.space[lane] = Space::Global;
      a.addr[lane] = addr;
    }
  });
}

void address_global(Wave& w, const Op& op, uint64_t exec, Addressing& a) {
  const isa::Operand& va = op.opnd(Field::vaddr);
  const isa::Operand& sa = op.opnd(Field::saddr);
  int64_t off = op.inst.mods.offset;
  unsigned vi = va.vgpr_index();
  if (sa.is_off()) {
    for_lanes(exec, [&](int lane) {
      a.space[lane] = Space::Global;
      a.addr[lane] = (uint64_t(vreg(w, vi, lane)) | uint64_t(vreg(w, vi + 1, lane)) << 32) + uint64_t(off);
    });
  } else {
    uint64_t base = w.s.sgpr64(sa.code) + uint64_t(off);
    for_lanes(exec, [&](int lane) {
      a.space[lane] = Space::Global;
      a.addr[lane] = base + vreg(w, vi, lane);
    });
  }
}

void address_scratch(Wave& w, const Op& op, uint64_t exec, Addressing& a) {
  const isa::Operand& va = op.opnd(Field::vaddr);
  const isa::Operand& sa = op.opnd(Field::saddr);
  uint32_t base_off = uint32_t(op.inst.mods.offset) + (sa.is_off() ? 0 : w.s.sgpr[sa.code]);
  uint64_t scratch = w.s.sgpr64(isa::code::kFlatScratchLo);
  a.elem = 4;
  a.index_stride = 64;
  a.stride = 0;
  for_lanes(exec, [&](int lane) {
    a.space[lane] = Space::Swizzled;
    a.addr[lane] = scratch;
    a.off[lane] = base_off + (va.is_vgpr() ? vreg(w, va.vgpr_index(), lane) : 0);
    a.idx[lane] = uint32_t(lane);
  });
}

// ---------------------------------------------------------------- formats ---

struct FormatLayout {
  uint8_t bits[4];
  uint8_t comps;
  uint8_t bytes;
};
FormatLayout layout_of(uint32_t dfmt) {
  switch (dfmt) {
    case 1: return {{8}, 1, 1};
    case 2: return {{16}, 1, 2};
    case 3: return {{8, 8}, 2, 2};
    case 4: return {{32}, 1, 4};
    case 5: return {{16, 16}, 2, 4};
    case 6: return {{11, 11, 10}, 3, 4};
    case 7: return {{10, 11, 11}, 3, 4};
    case 8: return {{2, 10, 10, 10}, 4, 4};
    case 9: return {{10, 10, 10, 2}, 4, 4};
    case 10: return {{8, 8, 8, 8}, 4, 4};
    case 11: return {{32, 32}, 2, 8};
    case 12: return {{16, 16, 16, 16}, 4, 8};
    case 13: return {{32, 32, 32}, 3, 12};
    case 14: return {{32, 32, 32, 32}, 4, 16};
    default: return {{0}, 0, 0};
  }
}

enum Nfmt : uint32_t { kUnorm = 0, kSnorm = 1, kUscaled = 2, kSscaled = 3, kUint = 4, kSint = 5, kSnormOgl = 6, kFloat = 7 };
bool is_float_nfmt(uint32_t nfmt) { return nfmt != kUint && nfmt != kSint; }

// Small unsigned floats (10/11 bits: 5-bit exponent, 5/6-bit mantissa).
float small_float(uint32_t v, unsigned bits) {
  unsigned mbits = bits - 5;
  uint32_t e = (v >> mbits) & 31, m = v & ((1u << mbits) - 1);
  if (e == 31) return m ? NAN : INFINITY;
  if (e == 0) return std::ldexp(float(m), -14 - int(mbits));
  return std::ldexp(1.0f + float(m) / float(1u << mbits), int(e) - 15);
}
uint32_t to_small_float(float f, unsigned bits) {
  unsigned mbits = bits - 5;
  if (std::isnan(f)) return (31u << mbits) | 1;
  if (f <= 0) return 0;
  if (std::isinf(f)) return 31u << mbits;
  int ex;
  float fr = std::frexp(f, &ex);  // f = fr * 2^ex, fr in [0.5, 1)
  int e = ex - 1 + 15;
  if (e >= 31) return 31u << mbits;
  if (e <= 0) return uint32_t(std::nearbyint(std::ldexp(f, 14 + int(mbits)))) & ((1u << mbits) - 1);
  uint32_t m = uint32_t(std::nearbyint((fr * 2 - 1) * float(1u << mbits)));
  if (m >> mbits) {
    m = 0;
    ++e;
    if (e >= 31) return 31u << mbits;
  }
  return uint32_t(e) << mbits | m;
}

uint32_t decode_component(uint64_t raw, unsigned bits, uint32_t nfmt) {
  uint64_t maxu = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  int64_t s = bits >= 64 ? int64_t(raw) : int64_t(raw << (64 - bits)) >> (64 - bits);
  switch (nfmt) {
    case kUnorm: return f32_bits(bits == 32 ? float(raw) / 4294967295.0f : float(double(raw) / double(maxu)));
    case kSnorm: {
      double d = double(s) / double((uint64_t(1) << (bits - 1)) - 1);
      return f32_bits(float(std::max(d, -1.0)));
    }
    case kSnormOgl: return f32_bits(float((2.0 * double(s) + 1.0) / double(maxu)));
    case kUscaled: return f32_bits(float(raw));
    case kSscaled: return f32_bits(float(s));
    case kUint: return uint32_t(raw);
    case kSint: return uint32_t(int32_t(s));
    case kFloat:
      if (bits == 32) return uint32_t(raw);
      if (bits == 16) return f32_bits(half_to_float(uint16_t(raw)));
      if (bits == 11 || bits == 10) return f32_bits(small_float(uint32_t(raw), bits));
      return 0;
  }
  return 0;
}

uint64_t encode_component(uint32_t v, unsigned bits, uint32_t nfmt) {
  uint64_t maxu = (uint64_t(1) << bits) - 1;
  float f = as_f32(v);
  auto clampf = [](double x, double lo, double hi) { return std::isnan(x) ? 0.0 : std::min(std::max(x, lo), hi); };
  switch (nfmt) {
    case kUnorm: return uint64_t(std::nearbyint(clampf(f, 0, 1) * double(maxu))) & maxu;
    case kSnorm:
    case kSnormOgl: {
      double m = double((uint64_t(1) << (bits - 1)) - 1);
      return uint64_t(int64_t(std::nearbyint(clampf(f, -1, 1) * m))) & maxu;
    }
    case kUscaled: return uint64_t(std::nearbyint(clampf(f, 0, double(maxu)))) & maxu;
    case kSscaled: {
      double m = double((uint64_t(1) << (bits - 1)) - 1);
      return uint64_t(int64_t(std::nearbyint(clampf(f, -m - 1, m)))) & maxu;
    }
    case kUint:
    case kSint: return uint64_t(v) & maxu;
    case kFloat:
      if (bits == 32) return v;
      if (bits == 16) return float_to_half(f);
      if (bits == 11 || bits == 10) return to_small_float(f, bits);
      return 0;
  }
  return 0;
}

// Unpacks an element of format (dfmt, nfmt) into 4 register values
// (missing components: 0, 0, 0, 1).
void decode_element(const uint8_t* p, uint32_t dfmt, uint32_t nfmt, uint32_t out[4]) {
  FormatLayout l = layout_of(dfmt);
  bool fl = is_float_nfmt(nfmt);
  out[0] = out[1] = out[2] = 0;
  out[3] = fl ? f32_bits(1.0f) : 1;
  if (!l.comps) return;
  uint8_t buf[16] = {};
  std::memcpy(buf, p, l.bytes);
  if (l.bits[0] == 32) {
    for (int c = 0; c < l.comps; ++c) {
      uint32_t raw;
      std::memcpy(&raw, buf + 4 * c, 4);
      out[c] = decode_component(raw, 32, nfmt);
    }
    return;
  }
  uint64_t word = 0;
  std::memcpy(&word, buf, std::min<int>(l.bytes, 8));
  unsigned shift = 0;
  for (int c = 0; c < l.comps; ++c) {
    unsigned b = l.bits[c];
    out[c] = decode_component((word >> shift) & ((uint64_t(1) << b) - 1), b, nfmt);
    shift += b;
  }
}

void encode_element(uint8_t* p, uint32_t dfmt, uint32_t nfmt, const uint32_t in[4]) {
  FormatLayout l = layout_of(dfmt);
  if (!l.comps) return;
  if (l.bits[0] == 32) {
    for (int c = 0; c < l.comps; ++c) {
      uint32_t raw = uint32_t(encode_component(in[c], 32, nfmt));
      std::memcpy(p + 4 * c, &raw, 4);
    }
    return;
  }
  uint64_t word = 0;
  unsigned shift = 0;
  for (int c = 0; c < l.comps; ++c) {
    word |= encode_component(in[c], l.bits[c], nfmt) << shift;
    shift += l.bits[c];
  }
  std::memcpy(p, &word, l.bytes);
}

// ------------------------------------------------------------- execution ---

unsigned data_reg(const Op& op, bool load) {
  Family f = op.inst.family();
  if (f == Family::MUBUF || f == Family::MTBUF) return op.opnd(Field::vdata).vgpr_index();
  return (load ? op.opnd(Field::vdst) : op.opnd(Field::vdata)).vgpr_index();
}

Step vmem(Exec& e, Wave& w, const Op& op) {
  const MemDesc& m = mem_descs()[op.inst.id];
  if (m.kind == MemKind::Nop) return Step::Next;
  uint64_t exec = w.s.exec();
  if (!exec) return Step::Next;
  Family fam = op.inst.family();
  Addressing a;
  BufferRsrc r{};
  bool buffer = fam == Family::MUBUF || fam == Family::MTBUF;
  switch (fam) {
    case Family::MUBUF:
    case Family::MTBUF:
      r = rsrc(w, op);
      address_buffer(w, op, exec, a, r);
      break;
    case Family::FLAT: address_flat(w, op, exec, a); break;
    case Family::GLOBAL: address_global(w, op, exec, a); break;
    default: address_scratch(w, op, exec, a); break;
  }
  if (op.inst.mods.lds && fam != Family::MUBUF) raise(FaultKind::Unsupported, "LDS DMA from FLAT/GLOBAL/SCRATCH is not available on gfx906");
  Lines lines_buf;
  Lines* lines = e.d.detailed || e.obs ? &lines_buf : nullptr;
  const isa::Modifiers& mods = op.inst.mods;

  switch (m.kind) {
    case MemKind::Load: {
      unsigned vd = data_reg(op, true);
      unsigned nregs = m.d16 ? 1 : (m.bytes + 3) / 4;
      for_lanes(exec, [&](int lane) {
        uint8_t buf[16] = {};
        uint64_t da = contiguous_address(a, lane, m.bytes);
        if (da != ~uint64_t(0)) {
          copy_bytes(buf, e.dev(da, m.bytes, false, lane), m.bytes);
          if (lines) lines->add(da, m.bytes);
        } else {
          lane_read(e, a, lane, buf, m.bytes, lines);
        }
        uint32_t v;
        if (m.bytes == 1) v = m.sign ? uint32_t(int32_t(int8_t(buf[0]))) : buf[0];
        else if (m.bytes == 2) v = m.sign ? uint32_t(int32_t(int16_t(uint16_t(buf[0] | buf[1] << 8)))) : uint32_t(buf[0] | buf[1] << 8);
        else std::memcpy(&v, buf, 4);
        if (buffer && mods.lds) {
          uint64_t at = (w.s.m0() & 0xffff) + uint64_t(lane) * 4;
          std::memcpy(e.lds_ptr(at, 4, true, lane), &v, 4);
          return;
        }
        if (m.d16 == 1) {
          vreg(w, vd, lane) = (vreg(w, vd, lane) & 0xffff0000u) | (v & 0xffff);
        } else if (m.d16 == 2) {
          vreg(w, vd, lane) = (vreg(w, vd, lane) & 0xffff) | (v << 16);
        } else if (m.bytes <= 4) {
          vreg(w, vd, lane) = v;
        } else {
          for (unsigned i = 0; i < nregs; ++i) std::memcpy(&vreg(w, vd + i, lane), buf + 4 * i, 4);
        }
        if (buffer && mods.tfe) vreg(w, vd + nregs, lane) = 0;
      });
      break;
    }
    case MemKind::Store: {
      unsigned vs = data_reg(op, false);
      for_lanes(exec, [&](int lane) {
        uint8_t buf[16];
        uint32_t v0 = vreg(w, vs, lane);
        if (m.d16 == 2) v0 = (m.bytes == 1) ? (v0 >> 16) & 0xff : v0 >> 16;
        std::memcpy(buf, &v0, 4);
        for (unsigned i = 1; i < (m.bytes + 3) / 4u; ++i) std::memcpy(buf + 4 * i, &vreg(w, vs + i, lane), 4);
        uint64_t da = contiguous_address(a, lane, m.bytes);
        if (da != ~uint64_t(0)) {
          copy_bytes(e.dev(da, m.bytes, true, lane), buf, m.bytes);
          if (lines) lines->add(da, m.bytes);
        } else {
          lane_write(e, a, lane, buf, m.bytes, lines);
        }
      });
      break;
    }
    case MemKind::Atomic: {
      unsigned vs = data_reg(op, false);
      bool cmp = m.aop == AtomicOp::Cmpswap;
      unsigned words = m.wide ? 2 : 1;
      uint32_t bytes = 4 * words;
      bool ret = mods.glc;
      unsigned vret = 0;
      if (ret) vret = buffer ? vs : op.inst.atomic_dst.vgpr_index();
      for_lanes(exec, [&](int lane) {
        auto rd = [&](unsigned at) {
          uint64_t v = vreg(w, vs + at, lane);
          if (m.wide) v |= uint64_t(vreg(w, vs + at + 1, lane)) << 32;
          return v;
        };
        uint64_t data = rd(0), data2 = cmp ? rd(words) : 0;
        if (!in_range(a, lane, 0)) {
          if (ret)
            for (unsigned i = 0; i < words; ++i) vreg(w, vret + i, lane) = 0;
          return;
        }
        if (a.space[lane] == Space::Swizzled && (a.off[lane] % a.elem) + bytes > a.elem)
          raise(FaultKind::Unsupported, "atomic access crosses a swizzle element", lane);
        uint64_t da = ~uint64_t(0);
        uint8_t* p = lane_ptr(e, a, lane, 0, bytes, true, &da);
        if (lines) lines->add(da, bytes);
        uint64_t old = 0;
        if (a.space[lane] == Space::Lds) {
          std::memcpy(&old, p, bytes);
          uint64_t nv = atomic_apply(m.aop, old, data, data2, m.wide);
          std::memcpy(p, &nv, bytes);
        } else {
          e.prof.bytes_read += bytes;
          std::lock_guard<std::mutex> lock(e.mem.atomic_lock(da));
          std::memcpy(&old, p, bytes);
          uint64_t nv = atomic_apply(m.aop, old, data, data2, m.wide);
          std::memcpy(p, &nv, bytes);
        }
        if (ret) {
          vreg(w, vret, lane) = uint32_t(old);
          if (m.wide) vreg(w, vret + 1, lane) = uint32_t(old >> 32);
        }
      });
      break;
    }
    case MemKind::LoadFormat:
    case MemKind::StoreFormat: {
      uint32_t dfmt = fam == Family::MTBUF ? mods.dfmt : r.dfmt();
      uint32_t nfmt = fam == Family::MTBUF ? mods.nfmt : r.nfmt();
      FormatLayout l = layout_of(dfmt);
      bool fl = is_float_nfmt(nfmt);
      unsigned vd = op.opnd(Field::vdata).vgpr_index();
      bool load = m.kind == MemKind::LoadFormat;
      for_lanes(exec, [&](int lane) {
        uint32_t comp[4];
        if (load) {
          uint8_t buf[16] = {};
          bool ok = l.bytes && in_range(a, lane, 0);
          if (ok) lane_read(e, a, lane, buf, l.bytes, lines, false);  // element checked as a whole
          uint32_t raw[4];
          decode_element(buf, dfmt, nfmt, raw);
          if (!ok) raw[0] = raw[1] = raw[2] = raw[3] = 0;
          for (int c = 0; c < 4; ++c) {
            uint32_t sel = fam == Family::MUBUF ? r.dst_sel(c) : uint32_t(4 + c);
            comp[c] = sel >= 4 ? raw[sel - 4] : sel == 1 ? (fl ? f32_bits(1.0f) : 1u) : 0u;
          }
          if (m.d16) {
            auto h = [&](uint32_t v) -> uint32_t { return fl ? float_to_half(as_f32(v)) : (v & 0xffff); };
            if (m.d16 == 2) {
              vreg(w, vd, lane) = (vreg(w, vd, lane) & 0xffff) | h(comp[0]) << 16;
            } else {
              for (unsigned c = 0; c < m.comps; ++c) {
                uint32_t& reg = vreg(w, vd + c / 2, lane);
                reg = (c & 1) ? (reg & 0xffff) | h(comp[c]) << 16 : (reg & 0xffff0000u) | h(comp[c]);
              }
            }
          } else {
            for (unsigned c = 0; c < m.comps; ++c) vreg(w, vd + c, lane) = comp[c];
          }
          if (mods.tfe) vreg(w, vd + (m.d16 ? (m.comps + 1) / 2 : m.comps), lane) = 0;
        } else {
          comp[0] = comp[1] = comp[2] = 0;
          comp[3] = 0;
          for (unsigned c = 0; c < m.comps; ++c) {
            if (m.d16) {
              uint32_t reg = vreg(w, vd + (m.d16 == 2 ? 0 : c / 2), lane);
              uint32_t h = (m.d16 == 2 || (c & 1)) ? reg >> 16 : reg & 0xffff;
              comp[c] = fl ? f32_bits(half_to_float(uint16_t(h)))
                           : (nfmt == kSint ? uint32_t(int32_t(int16_t(uint16_t(h)))) : h);
            } else {
              comp[c] = vreg(w, vd + c, lane);
            }
          }
          if (!l.bytes || !in_range(a, lane, 0)) return;
          uint8_t buf[16] = {};
          encode_element(buf, dfmt, nfmt, comp);
          lane_write(e, a, lane, buf, l.bytes, lines, false);
        }
      });
      break;
    }
    case MemKind::StoreLds: {
      // Each lane stores the LDS dword at M0[15:0] + lane * 4.
      uint64_t lds_base = w.s.m0() & 0xffff;
      for_lanes(exec, [&](int lane) {
        uint8_t buf[4];
        std::memcpy(buf, e.lds_ptr(lds_base + uint64_t(lane) * 4, 4, false, lane), 4);
        lane_write(e, a, lane, buf, 4, lines);
      });
      break;
    }
    case MemKind::Nop: break;
  }
  if (lines && lines->n) {
    uint8_t access = m.kind == MemKind::Atomic ? detail::kLineRead | detail::kLineWritten
                     : (m.kind == MemKind::Store || m.kind == MemKind::StoreFormat || m.kind == MemKind::StoreLds)
                         ? detail::kLineWritten
                         : detail::kLineRead;
    if (e.d.detailed) record_lines(e, lines->addr, lines->size, lines->n, access);
    if (e.obs) e.obs->vector_memory(lines->addr, lines->size, lines->n, MemoryAccess(access));
  }
  return Step::Next;
}

}  // namespace

void register_vmem(std::vector<CoreEntry>& out) {
  auto& descs = mem_descs();
  for (const isa::InstDesc& d : isa::instructions()) {
    switch (d.family) {
      case Family::MUBUF: case Family::MTBUF: case Family::FLAT: case Family::GLOBAL: case Family::SCRATCH: break;
      default: continue;
    }
    MemDesc m;
    if (!parse_mem(d.name, &m)) continue;
    descs[d.id] = m;
    out.push_back({d.ident.c_str(), vmem});
  }
}

}  // namespace k100::emu::detail
