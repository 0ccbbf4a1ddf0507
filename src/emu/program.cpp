// Decoded programs: instructions are decoded once per code object and cached
// by PC; code reached only by a computed jump is decoded on first execution.
#include <algorithm>
#include <cstdio>

#include "core.h"

namespace k100::emu::detail {

std::string Op::text() const {
  if (raw_smem) return raw_text;
  if (!valid) return "<invalid instruction>";
  return isa::print(inst);
}

std::string Op::encoding_hex() const {
  std::string s;
  unsigned n = valid ? size / 4u : 1u;
  for (unsigned i = 0; i < n && i < 3; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s0x%08x", i ? " " : "", words[i]);
    s += buf;
  }
  return s;
}

}  // namespace k100::emu::detail

namespace k100::emu {

using detail::Op;

void Program::Impl::decode_at(uint64_t pc) const {
  size_t i = size_t((pc - code_begin) >> 2);
  Op& op = ops[i];
  op = Op{};
  std::fill(std::begin(op.field), std::end(op.field), int8_t(-1));
  op.pc = uint32_t(pc);
  const auto& bytes = image.bytes;
  size_t avail = size_t(std::min<uint64_t>(code_end, bytes.size()) - pc);
  for (unsigned k = 0; k < 3 && 4 * k + 4 <= avail; ++k) std::memcpy(&op.words[k], &bytes[pc + 4 * k], 4);
  isa::Decoded d = isa::decode(std::span<const uint8_t>(bytes.data() + pc, avail));
  if (d.ok) {
    op.inst = d.inst;
    op.size = d.size;
    op.valid = true;
    const auto& specs = op.inst.specs();
    for (size_t k = 0; k < specs.size() && k < op.inst.num_operands; ++k) op.field[int(specs[k].field)] = int8_t(k);
    const isa::InstDesc& desc = op.inst.desc();
    op.cls = detail::class_of(desc);
    if (desc.is_vop()) {
      const auto& v = valu_semantics();
      op.valu = op.inst.id < v.size() ? v[op.inst.id] : nullptr;
      for (unsigned k = 0; k < op.inst.num_operands; ++k)
        if (op.inst.ops[k].code == isa::code::kLdsDirect) op.reads_lds_direct = true;
    } else {
      op.core = detail::core_semantics()[op.inst.id];
    }
    detail::prepare_checks(op);
  } else if ((op.words[0] >> 26) == 0x30 && avail >= 8) {
    // SMEM rows missing from the ISA table (cache maintenance, timers).
    uint16_t opcode = uint16_t((op.words[0] >> 18) & 0xff);
    if (detail::CoreFn fn = detail::raw_smem_semantics(opcode)) {
      op.raw_smem = uint16_t(opcode + 1);
      op.core = fn;
      op.size = 8;
      op.valid = true;
      op.cls = InstClass::SMEM;
      op.raw_text = detail::raw_smem_name(opcode);
      if (opcode >= 0x24) {
        unsigned s = (op.words[0] >> 6) & 0x7f;
        op.raw_text += " s[" + std::to_string(s) + ":" + std::to_string(s + 1) + "]";
        // s_memtime / s_memrealtime return a 64-bit value through lgkmcnt like a scalar load.
        op.counters.returns[0] = {uint16_t(s), 2};
        op.counters.num_returns = 1;
        op.effects.writes[0] = {{uint16_t(s), 2}, isa::Role::MemDest};
        op.effects.num_writes = 1;
      }
      op.counters.counters = isa::kLgkmCnt;
      op.counters.cls = isa::ReturnClass::Smem;
      op.counters.lgkm_increment = 1;
    }
  }
  ready[i].store(1, std::memory_order_release);
}

const Op& Program::Impl::fetch_slow(uint64_t pc) const {
  if (pc < code_begin || pc >= code_end || (pc & 3)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "PC 0x%llx is outside the code [0x%llx, 0x%llx)", (unsigned long long)pc,
                  (unsigned long long)code_begin, (unsigned long long)code_end);
    detail::raise(FaultKind::BadPc, buf);
  }
  size_t i = size_t((pc - code_begin) >> 2);
  if (!ready[i].load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(decode_mutex);
    if (!ready[i].load(std::memory_order_relaxed)) decode_at(pc);
  }
  return ops[i];
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;
const CodeImage& Program::image() const { return impl_->image; }
uint64_t Program::base_address() const { return impl_->base; }
const KernelSpec* Program::find_kernel(std::string_view name) const { return impl_->image.find_kernel(name); }

// ----------------------------------------------------------- code image ---

std::vector<const KernelArg*> KernelSpec::explicit_args() const {
  std::vector<const KernelArg*> out;
  for (const KernelArg& a : args)
    if (!is_hidden(a.kind)) out.push_back(&a);
  return out;
}

uint32_t KernelSpec::explicit_size() const {
  uint32_t end = 0;
  for (const KernelArg& a : args)
    if (!is_hidden(a.kind)) end = std::max(end, a.offset + a.size);
  return end;
}

const KernelSpec* CodeImage::find_kernel(std::string_view name) const {
  for (const KernelSpec& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace k100::emu
