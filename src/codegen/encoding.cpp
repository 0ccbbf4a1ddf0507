// encode: the machine code of an allocated kernel, and its text.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"
#include "k100/isa/codec.h"

namespace k100::codegen {

namespace {

std::vector<uint32_t> instruction_sizes(const MFunction& f, std::vector<uint32_t>& block_offset) {
  std::vector<uint32_t> sizes;
  std::vector<uint8_t> scratch;
  block_offset.assign(f.blocks.size() + 1, 0);
  uint32_t at = 0;
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    block_offset[b] = at;
    for (const MInst& m : f.blocks[b].insts) {
      if (m.is_pseudo())
        throw Error("kernel '" + f.name + "': " + pseudo_name(m.pseudo) + " was not lowered before encoding");
      scratch.clear();
      isa::Inst inst = m.inst;
      isa::encode_checked(inst, scratch, f.target);
      sizes.push_back(uint32_t(scratch.size()));
      at += uint32_t(scratch.size());
    }
  }
  block_offset[f.blocks.size()] = at;
  return sizes;
}

}  // namespace

std::vector<uint32_t> block_offsets(const MFunction& f) {
  std::vector<uint32_t> offsets;
  instruction_sizes(f, offsets);
  return offsets;
}

Encoded encode(const MFunction& f) {
  Encoded e;
  const std::vector<uint32_t> sizes = instruction_sizes(f, e.block_offset);
  e.code.reserve(e.block_offset.back());
  // long jumps: the distance their s_add/s_addc add
  std::vector<int64_t> far(f.blocks.size(), 0);
  std::vector<char> is_far(f.blocks.size(), 0);
  for (const FarJump& j : f.far_jumps) {
    const int from = f.label_block[size_t(j.from)];
    far[size_t(from)] = int64_t(e.block_offset[size_t(f.label_block[size_t(j.to)])]) - int64_t(e.block_offset[size_t(from)]);
    is_far[size_t(from)] = 1;
  }
  size_t k = 0;
  uint32_t at = 0;
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (size_t i = 0; i < f.blocks[b].insts.size(); ++i) {
      const MInst& m = f.blocks[b].insts[i];
      isa::Inst inst = m.inst;
      if (is_far[b] && i < 2)
        inst.ops[2] = isa::Operand::literal(uint32_t(i == 0 ? uint64_t(far[b]) : uint64_t(far[b]) >> 32));
      if (m.label_operand >= 0 && m.label >= 0) {
        const int target = f.label_block[size_t(m.label)];
        if (target < 0)
          throw Error("kernel '" + f.name + "': " + m.name() + " goes to label '" + f.label_names[size_t(m.label)] +
                      "', which is never bound");
        const int64_t delta = (int64_t(e.block_offset[size_t(target)]) - int64_t(at + sizes[k])) / 4;
        if (delta < -32768 || delta > 32767)
          throw Error("kernel '" + f.name + "': branch to '" + f.label_names[size_t(m.label)] +
                      "' is out of range after relaxation");
        inst.ops[size_t(m.label_operand)].value = uint32_t(int32_t(delta));
      }
      try {
        isa::encode(inst, e.code, f.target);
      } catch (const Error& err) {
        throw Error("kernel '" + f.name + "': " + print_inst(f, m) + ": " + err.what());
      }
      at += sizes[k++];
    }
  for (const PcDistance& d : f.distances) {
    const int from = f.label_block[size_t(d.from)], to = f.label_block[size_t(d.to)];
    const int got = int(e.block_offset[size_t(to)]) - int(e.block_offset[size_t(from)]);
    if (got != d.bytes)
      throw Error("kernel '" + f.name + "': '" + f.label_names[size_t(d.to)] + "' lies " + std::to_string(got) +
                  " bytes after '" + f.label_names[size_t(d.from)] + "', the computed jump needs " +
                  std::to_string(d.bytes) + " (jump-table entries of another size?)");
  }
  return e;
}

std::string assembly_text(const MFunction& f) {
  std::string out;
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const MBlock& blk = f.blocks[b];
    if (blk.label >= 0) out += ".L" + f.label_names[size_t(blk.label)] + ":\n";
    for (const MInst& m : blk.insts) {
      std::string texts[isa::kMaxOperands];
      if (m.label_operand >= 0 && m.label >= 0) texts[m.label_operand] = ".L" + f.label_names[size_t(m.label)];
      isa::PrintOptions po;
      po.operand_text = texts;
      out += "\t" + isa::print(m.inst, po) + "\n";
    }
  }
  return out;
}

void dump_after(const MFunction& f, const char* pass) {
  static const char* want = std::getenv("K100_CODEGEN_DUMP");
  if (!want || !*want || std::strcmp(want, "0") == 0) return;
  if (std::strcmp(want, "1") != 0 && f.name != want) return;
  std::fprintf(stderr, "# %s after %s\n%s\n", f.name.c_str(), pass, print_ir(f).c_str());
}

}  // namespace k100::codegen
