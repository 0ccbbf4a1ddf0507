// Scalar memory semantics: s_load/s_buffer_load, s_store/s_buffer_store,
// scalar atomics, cache maintenance (no-ops: memory is coherent and immediate)
// and the timers.
#include <chrono>
#include <string>

#include "atomics.h"
#include "core.h"

namespace k100::emu::detail {

namespace {

using isa::Field;

uint32_t smem_offset(const Wave& w, const Op& op) {
  const isa::Operand& o = op.opnd(Field::offset);
  return o.is_imm() ? o.value : w.s.sgpr[o.code];
}

struct BufferRsrc {
  uint64_t base;
  uint32_t stride, num_records;
};
BufferRsrc rsrc_at(const Wave& w, uint16_t code) {
  uint32_t d0 = w.s.sgpr[code], d1 = w.s.sgpr[code + 1u], d2 = w.s.sgpr[code + 2u];
  return {uint64_t(d0) | uint64_t(d1 & 0xffff) << 32, (d1 >> 16) & 0x3fff, d2};
}

// SGPR range of `n` registers at `code` (a malformed program could name s127 as a pair).
void check_sdata(uint16_t code, unsigned n) {
  if (code + n > 128) raise(FaultKind::InvalidInstruction, "scalar data registers s" + std::to_string(code) + ".. run past s127");
}

template <unsigned N>
Step s_load(Exec& e, Wave& w, const Op& op) {
  uint64_t addr = (w.s.sgpr64(op.opnd(Field::sbase).code) + smem_offset(w, op)) & ~uint64_t(3);
  if (e.obs) e.obs->scalar_memory(addr, 4 * N, MemoryAccess::Read);
  const uint8_t* p = e.dev(addr, 4 * N, false, -1);
  uint16_t d = op.opnd(Field::sdata).code;
  for (unsigned i = 0; i < N; ++i) {
    uint32_t v;
    std::memcpy(&v, p + 4 * i, 4);
    swrite(w, uint16_t(d + i), v);
  }
  return Step::Next;
}

// Scalar buffer loads: dwords past num_records (bytes when the stride is 0,
// records otherwise) read as zero.
bool sbuf_in_range(const BufferRsrc& r, uint64_t offset) {
  uint64_t limit = r.stride ? uint64_t(r.num_records) * r.stride : r.num_records;
  return offset < limit;
}

template <unsigned N>
Step s_buffer_load(Exec& e, Wave& w, const Op& op) {
  BufferRsrc r = rsrc_at(w, op.opnd(Field::sbase).code);
  uint32_t off = smem_offset(w, op) & ~3u;
  if (e.obs) e.obs->scalar_memory(r.base + off, 4 * N, MemoryAccess::Read);
  uint16_t d = op.opnd(Field::sdata).code;
  for (unsigned i = 0; i < N; ++i) {
    uint32_t v = 0;
    if (sbuf_in_range(r, uint64_t(off) + 4 * i)) std::memcpy(&v, e.dev(r.base + off + 4 * i, 4, false, -1), 4);
    swrite(w, uint16_t(d + i), v);
  }
  return Step::Next;
}

template <unsigned N>
Step s_store(Exec& e, Wave& w, const Op& op) {
  uint64_t addr = (w.s.sgpr64(op.opnd(Field::sbase).code) + smem_offset(w, op)) & ~uint64_t(3);
  uint16_t d = op.opnd(Field::sdata).code;
  check_sdata(d, N);
  if (e.obs) e.obs->scalar_memory(addr, 4 * N, MemoryAccess::Write);
  uint8_t* p = e.dev(addr, 4 * N, true, -1);
  for (unsigned i = 0; i < N; ++i) std::memcpy(p + 4 * i, &w.s.sgpr[d + i], 4);
  return Step::Next;
}

template <unsigned N>
Step s_buffer_store(Exec& e, Wave& w, const Op& op) {
  BufferRsrc r = rsrc_at(w, op.opnd(Field::sbase).code);
  uint32_t off = smem_offset(w, op) & ~3u;
  uint16_t d = op.opnd(Field::sdata).code;
  check_sdata(d, N);
  if (e.obs) e.obs->scalar_memory(r.base + off, 4 * N, MemoryAccess::Write);
  for (unsigned i = 0; i < N; ++i)
    if (sbuf_in_range(r, uint64_t(off) + 4 * i))
      std::memcpy(e.dev(r.base + off + 4 * i, 4, true, -1), &w.s.sgpr[d + i], 4);
  return Step::Next;
}

template <AtomicOp A, bool Wide, bool Buffer>
Step s_atomic(Exec& e, Wave& w, const Op& op) {
  uint64_t addr;
  if (Buffer) {
    BufferRsrc r = rsrc_at(w, op.opnd(Field::sbase).code);
    uint32_t off = smem_offset(w, op);
    if (!sbuf_in_range(r, off)) return Step::Next;
    addr = r.base + off;
  } else {
    addr = w.s.sgpr64(op.opnd(Field::sbase).code) + smem_offset(w, op);
  }
  addr &= Wide ? ~uint64_t(7) : ~uint64_t(3);
  const unsigned bytes = Wide ? 8 : 4;
  uint16_t d = op.opnd(Field::sdata).code;
  check_sdata(d, A == AtomicOp::Cmpswap ? (Wide ? 4 : 2) : (Wide ? 2 : 1));
  auto rd = [&](unsigned at) { return Wide ? w.s.sgpr64(uint16_t(d + at)) : uint64_t(w.s.sgpr[d + at]); };
  uint64_t data = rd(0);
  uint64_t data2 = A == AtomicOp::Cmpswap ? rd(Wide ? 2 : 1) : 0;
  if (e.obs) e.obs->scalar_memory(addr, bytes, MemoryAccess::ReadWrite);
  uint8_t* p = e.dev(addr, bytes, true, -1);
  e.prof.bytes_read += bytes;
  uint64_t old = 0;
  {
    std::lock_guard<std::mutex> lock(e.mem.atomic_lock(addr));
    std::memcpy(&old, p, bytes);
    uint64_t nv = atomic_apply(A, old, data, data2, Wide);
    std::memcpy(p, &nv, bytes);
  }
  if (op.inst.mods.glc) {
    if (Wide) swrite64(w, d, old);
    else swrite(w, d, uint32_t(old));
  }
  return Step::Next;
}

Step s_nop_mem(Exec&, Wave&, const Op&) { return Step::Next; }

Step s_memtime(Exec&, Wave& w, const Op& op) {
  // A per-wave clock that advances with retired instructions: deterministic
  // across runs and thread counts.
  swrite64(w, uint16_t((op.words[0] >> 6) & 0x7f), w.retired * 4);
  return Step::Next;
}
Step s_memrealtime(Exec&, Wave& w, const Op& op) {
  // The 100 MHz constant "REFCLK" of the device.
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now().time_since_epoch()).count();
  swrite64(w, uint16_t((op.words[0] >> 6) & 0x7f), uint64_t(ns / 10));
  return Step::Next;
}

}  // namespace

CoreFn raw_smem_semantics(uint16_t opcode) {
  switch (opcode) {
    case 0x20: case 0x21: case 0x22: case 0x23: return s_nop_mem;  // s_dcache_inv/wb(_vol)
    case 0x24: return s_memtime;
    case 0x25: return s_memrealtime;
    default: return nullptr;
  }
}
const char* raw_smem_name(uint16_t opcode) {
  switch (opcode) {
    case 0x20: return "s_dcache_inv";
    case 0x21: return "s_dcache_wb";
    case 0x22: return "s_dcache_inv_vol";
    case 0x23: return "s_dcache_wb_vol";
    case 0x24: return "s_memtime";
    case 0x25: return "s_memrealtime";
    default: return nullptr;
  }
}

void register_smem(std::vector<CoreEntry>& out) {
  auto add = [&](const char* name, CoreFn fn) { out.push_back({name, fn}); };
  add("s_load_dword", s_load<1>);
  add("s_load_dwordx2", s_load<2>);
  add("s_load_dwordx4", s_load<4>);
  add("s_load_dwordx8", s_load<8>);
  add("s_load_dwordx16", s_load<16>);
  add("s_buffer_load_dword", s_buffer_load<1>);
  add("s_buffer_load_dwordx2", s_buffer_load<2>);
  add("s_buffer_load_dwordx4", s_buffer_load<4>);
  add("s_buffer_load_dwordx8", s_buffer_load<8>);
  add("s_buffer_load_dwordx16", s_buffer_load<16>);
  add("s_store_dword", s_store<1>);
  add("s_store_dwordx2", s_store<2>);
  add("s_store_dwordx4", s_store<4>);
  add("s_buffer_store_dword", s_buffer_store<1>);
  add("s_buffer_store_dwordx2", s_buffer_store<2>);
  add("s_buffer_store_dwordx4", s_buffer_store<4>);
  add("s_dcache_discard", s_nop_mem);
  add("s_dcache_discard_x2", s_nop_mem);
  add("s_atc_probe", s_nop_mem);
  add("s_atc_probe_buffer", s_nop_mem);
  add("s_dcache_inv", s_nop_mem);
  add("s_dcache_wb", s_nop_mem);
  add("s_dcache_inv_vol", s_nop_mem);
  add("s_dcache_wb_vol", s_nop_mem);
  add("s_memtime", s_memtime);
  add("s_memrealtime", s_memrealtime);

#define ATOMICS(prefix, Buffer)                                                         \
  add(prefix "swap", s_atomic<AtomicOp::Swap, false, Buffer>);                         \
  add(prefix "cmpswap", s_atomic<AtomicOp::Cmpswap, false, Buffer>);                   \
  add(prefix "add", s_atomic<AtomicOp::Add, false, Buffer>);                           \
  add(prefix "sub", s_atomic<AtomicOp::Sub, false, Buffer>);                           \
  add(prefix "smin", s_atomic<AtomicOp::Smin, false, Buffer>);                         \
  add(prefix "umin", s_atomic<AtomicOp::Umin, false, Buffer>);                         \
  add(prefix "smax", s_atomic<AtomicOp::Smax, false, Buffer>);                         \
  add(prefix "umax", s_atomic<AtomicOp::Umax, false, Buffer>);                         \
  add(prefix "and", s_atomic<AtomicOp::And, false, Buffer>);                           \
  add(prefix "or", s_atomic<AtomicOp::Or, false, Buffer>);                             \
  add(prefix "xor", s_atomic<AtomicOp::Xor, false, Buffer>);                           \
  add(prefix "inc", s_atomic<AtomicOp::Inc, false, Buffer>);                           \
  add(prefix "dec", s_atomic<AtomicOp::Dec, false, Buffer>);                           \
  add(prefix "swap_x2", s_atomic<AtomicOp::Swap, true, Buffer>);                       \
  add(prefix "cmpswap_x2", s_atomic<AtomicOp::Cmpswap, true, Buffer>);                 \
  add(prefix "add_x2", s_atomic<AtomicOp::Add, true, Buffer>);                         \
  add(prefix "sub_x2", s_atomic<AtomicOp::Sub, true, Buffer>);                         \
  add(prefix "smin_x2", s_atomic<AtomicOp::Smin, true, Buffer>);                       \
  add(prefix "umin_x2", s_atomic<AtomicOp::Umin, true, Buffer>);                       \
  add(prefix "smax_x2", s_atomic<AtomicOp::Smax, true, Buffer>);                       \
  add(prefix "umax_x2", s_atomic<AtomicOp::Umax, true, Buffer>);                       \
  add(prefix "and_x2", s_atomic<AtomicOp::And, true, Buffer>);                         \
  add(prefix "or_x2", s_atomic<AtomicOp::Or, true, Buffer>);                           \
  add(prefix "xor_x2", s_atomic<AtomicOp::Xor, true, Buffer>);                         \
  add(prefix "inc_x2", s_atomic<AtomicOp::Inc, true, Buffer>);                         \
  add(prefix "dec_x2", s_atomic<AtomicOp::Dec, true, Buffer>);
  ATOMICS("s_atomic_", false)
  ATOMICS("s_buffer_atomic_", true)
#undef ATOMICS
}

}  // namespace k100::emu::detail
