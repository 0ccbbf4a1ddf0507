#include "k100/codegen/machine_ir.h"

#include <cctype>

#include "k100/base/error.h"
#include "k100/isa/table.h"

namespace k100::codegen {

const char* pseudo_name(Pseudo p) {
  switch (p) {
    case Pseudo::None: return "";
    case Pseudo::If: return "if_";
    case Pseudo::Else: return "else_";
    case Pseudo::EndIf: return "end_if";
    case Pseudo::Loop: return "loop_";
    case Pseudo::Break: return "break_";
    case Pseudo::Continue: return "continue_";
    case Pseudo::EndLoop: return "end_loop";
    case Pseudo::WholeWave: return "require_whole_wave";
  }
  return "?";
}

const char* cond_name(Cond c) {
  switch (c) {
    case Cond::None: return "";
    case Cond::Scc0: return "scc0";
    case Cond::Scc1: return "scc1";
    case Cond::Vccz: return "vccz";
    case Cond::Vccnz: return "vccnz";
    case Cond::Lanes: return "lanes";
  }
  return "?";
}

namespace {
// Names become identifiers of the text form: letters, digits, '_' and '.'.
std::string identifier(std::string n) {
  for (char& c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) c = '_';
  return n;
}
}  // namespace

int MFunction::add_reg(VirtualReg r) {
  r.name = identifier(std::move(r.name));
  // names are unique, so the text form can name every register
  if (r.name.empty()) r.name = (r.file == RegFile::Vector ? "v" : "s") + std::to_string(regs.size());
  if (!reg_name_set.insert(r.name).second) {
    r.name += "_" + std::to_string(regs.size());
    reg_name_set.insert(r.name);
  }
  regs.push_back(std::move(r));
  return int(regs.size() - 1);
}

int MFunction::add_label(std::string n) {
  n = identifier(std::move(n));
  // names are unique, so the text form can name a block by its label
  if (!label_name_set.insert(n).second) {
    n += "_" + std::to_string(label_names.size());
    label_name_set.insert(n);
  }
  label_names.push_back(std::move(n));
  label_block.push_back(-1);
  return int(label_names.size() - 1);
}

int MFunction::add_block(int after) {
  cfg_valid = false;
  if (after < 0 || after + 1 >= int(blocks.size())) {
    blocks.emplace_back();
    return int(blocks.size() - 1);
  }
  blocks.insert(blocks.begin() + after + 1, MBlock{});
  for (int& b : label_block)
    if (b > after) ++b;
  return after + 1;
}

std::string MFunction::reg_text(VRef r) const {
  const VirtualReg& v = regs[size_t(r.id)];
  std::string s = "%" + (v.name.empty() ? std::to_string(r.id) : v.name);
  if (r.offset || r.width != v.width)
    s += r.width == 1 ? "[" + std::to_string(r.offset) + "]"
                      : "[" + std::to_string(r.offset) + ":" + std::to_string(r.offset + r.width - 1) + "]";
  return s;
}

size_t MFunction::instruction_count() const {
  size_t n = 0;
  for (const MBlock& b : blocks) n += b.insts.size();
  return n;
}

uint16_t placeholder_code(RegFile file, int slot) {
  return file == RegFile::Vector ? uint16_t(isa::code::kVgprFirst + 16 * slot) : uint16_t(16 * slot);
}

namespace {

// The operand slot whose placeholder range holds `code`, or -1.
int slot_of(const MInst& m, uint16_t code) {
  for (int i = 0; i < m.inst.num_operands; ++i) {
    const VRef& v = m.vref[size_t(i)];
    const isa::Operand& o = m.inst.ops[size_t(i)];
    if (v.valid() && code >= o.code && code < o.code + o.width) return i;
  }
  return -1;
}

}  // namespace

namespace {
void compute_accesses(const MFunction& f, const MInst& m, AccessList& out);
}  // namespace

const AccessList& accesses(const MFunction& f, const MInst& m) {
  if (!m.access_cached) {
    compute_accesses(f, m, m.access_cache);
    m.access_cached = true;
  }
  return m.access_cache;
}

namespace {
void compute_accesses(const MFunction& f, const MInst& m, AccessList& out) {
  out.count = 0;
  if (m.is_pseudo()) {
    // if_/break_/continue_ on a lane mask read it (and EXEC); uniform ones their condition
    auto add_special = [&](uint16_t code, int width) {
      Access a;
      a.reg = special_reg(code);
      a.width = uint8_t(width);
      a.read = true;
      out.items[size_t(out.count++)] = a;
    };
    if (m.cond == Cond::Lanes) {
      if (m.vref[0].valid()) {
        Access a;
        a.reg = m.vref[0].id;
        a.offset = m.vref[0].offset;
        a.width = m.vref[0].width;
        a.read = true;
        out.items[size_t(out.count++)] = a;
      } else {
        add_special(m.inst.ops[0].code, 2);
      }
    } else if (m.cond == Cond::Scc0 || m.cond == Cond::Scc1) {
      add_special(isa::code::kScc, 1);
    } else if (m.cond == Cond::Vccz || m.cond == Cond::Vccnz) {
      add_special(isa::code::kVccLo, 2);
    }
    return;
  }
  const isa::Effects e = isa::effects_of(m.inst);
  auto add = [&](const isa::RegUse& u, bool write) {
    Access a;
    a.read = !write;
    a.write = write;
    a.late = write && u.role == isa::Role::MemDest;
    a.masked = write && u.regs.is_vgpr();
    int slot = slot_of(m, u.regs.first);
    if (slot < 0 && m.atomic_dst.valid()) {
      const isa::Operand& o = m.inst.atomic_dst;
      if (u.regs.first >= o.code && u.regs.first < o.code + o.width) slot = kPlaceholderSlots;  // the atomic's
    }
    if (slot >= 0) {
      const VRef& v = slot == kPlaceholderSlots ? m.atomic_dst : m.vref[size_t(slot)];
      const isa::Operand& o = slot == kPlaceholderSlots ? m.inst.atomic_dst : m.inst.ops[size_t(slot)];
      const int off = v.offset + (u.regs.first - o.code);
      const VirtualReg& r = f.regs[size_t(v.id)];
      if (off + u.regs.count > r.width)
        throw Error("kernel '" + f.name + "': " + m.name() + " " + (write ? "writes" : "reads") + " " +
                    std::to_string(u.regs.count) + " dwords from dword " + std::to_string(off) + " of '" + r.name +
                    "', which has " + std::to_string(r.width));
      a.reg = v.id;
      a.offset = uint8_t(off);
      a.width = u.regs.count;
    } else {
      a.reg = special_reg(u.regs.first);
      a.width = u.regs.count;
    }
    // one access per register and direction: merge a read of a range already read
    for (int i = 0; i < out.count; ++i) {
      Access& b = out.items[size_t(i)];
      if (b.reg == a.reg && b.offset == a.offset && b.width == a.width && b.write == a.write) {
        b.late = b.late || a.late;
        return;
      }
    }
    out.items[size_t(out.count++)] = a;
  };
  for (const isa::RegUse& u : e.read_list()) add(u, false);
  for (const isa::RegUse& u : e.write_list()) add(u, true);
}

}  // namespace

namespace {
bool name_is(const MInst& i, std::string_view n) { return !i.is_pseudo() && i.name() == n; }
}  // namespace

bool is_conditional_branch(const MInst& i) {
  if (i.is_pseudo()) return false;
  const std::string& n = i.name();
  return n.starts_with("s_cbranch_");
}

bool ends_program(const MInst& i) { return name_is(i, "s_endpgm"); }

bool falls_through(const MInst& i) {
  if (i.is_pseudo()) return true;
  const std::string& n = i.name();
  return !(n == "s_branch" || n == "s_endpgm" || n == "s_setpc_b64" || n == "s_swappc_b64");
}

bool is_terminator(const MInst& i) {
  if (i.is_pseudo()) return i.pseudo != Pseudo::WholeWave;
  const std::string& n = i.name();
  return n == "s_branch" || n.starts_with("s_cbranch_") || n == "s_endpgm" || n == "s_setpc_b64" ||
         n == "s_swappc_b64";
}

}  // namespace k100::codegen
