#include "k100/codegen/kernel.h"

#include <algorithm>

#include "k100/base/error.h"
#include "k100/codegen/kernarg_loads.h"
#include "k100/codeobj/target.h"
#include "k100/isa/table.h"
#include "operand_roles.h"

namespace k100::codegen {

Kernel::Kernel(Signature sig, isa::Target target, KernelOptions options)
    : sig_(std::move(sig)), target_(target), options_(options) {
  if (options_.workgroup_dims < 1 || options_.workgroup_dims > 3 || options_.workitem_dims < 1 ||
      options_.workitem_dims > 3)
    throw Error("kernel '" + name() + "': workgroup and work-item dimensions are 1 to 3");
  vgpr_budget(options_.waves_per_simd);  // validates the occupancy
  // User SGPRs in hardware order: private segment buffer s[0:3], (dispatch
  // pointer,) kernarg pointer; then the workgroup ids.
  int next = 4;
  if (options_.dispatch_ptr) {
    dispatch_code_ = next;
    next += 2;
  }
  kernarg_code_ = next;
  group_code_ = next + 2;
}

Kernel::~Kernel() = default;

int Kernel::new_reg(RegFile f, int width, std::string name, int fixed, bool entry) {
  if (width < 1 || width > 16)
    throw Error("kernel '" + this->name() + "': register '" + name + "' of " + std::to_string(width) +
                " dwords (1 to 16)");
  VirtualReg r;
  r.file = f;
  r.width = uint8_t(width);
  r.align = uint8_t(f == RegFile::Scalar ? sgpr_alignment(width) : 1);
  r.name = std::move(name);
  r.fixed = fixed;
  r.entry_value = entry;
  regs_.push_back(std::move(r));
  return int(regs_.size() - 1);
}

VGPR Kernel::vgpr(int width, std::string name) {
  VGPR v;
  v.id = new_reg(RegFile::Vector, width, std::move(name), -1, false);
  v.width = uint8_t(width);
  return v;
}

SGPR Kernel::sgpr(int width, std::string name) {
  SGPR s;
  s.id = new_reg(RegFile::Scalar, width, std::move(name), -1, false);
  s.width = uint8_t(width);
  return s;
}

namespace {
SGPR fixed_sgpr(int id, int width) {
  SGPR s;
  s.id = id;
  s.width = uint8_t(width);
  return s;
}
}  // namespace

SGPR Kernel::kernarg_pointer() {
  if (!entry_sgpr_[0]) entry_sgpr_[0] = fixed_sgpr(new_reg(RegFile::Scalar, 2, "kernarg pointer", kernarg_code_, true), 2);
  return *entry_sgpr_[0];
}

SGPR Kernel::dispatch_pointer() {
  if (dispatch_code_ < 0)
    throw Error("kernel '" + name() + "': the dispatch pointer needs KernelOptions::dispatch_ptr");
  if (!entry_sgpr_[1]) entry_sgpr_[1] = fixed_sgpr(new_reg(RegFile::Scalar, 2, "dispatch pointer", dispatch_code_, true), 2);
  return *entry_sgpr_[1];
}

SGPR Kernel::workgroup_id(int dim) {
  if (dim < 0 || dim >= options_.workgroup_dims)
    throw Error("kernel '" + name() + "': workgroup id " + std::to_string(dim) + " is not enabled (workgroup_dims)");
  auto& slot = entry_sgpr_[2 + dim];
  if (!slot) slot = fixed_sgpr(new_reg(RegFile::Scalar, 1, "workgroup id " + std::string(1, char('x' + dim)), group_code_ + dim, true), 1);
  return *slot;
}

VGPR Kernel::local_id(int dim) {
  if (dim < 0 || dim >= options_.workitem_dims)
    throw Error("kernel '" + name() + "': local id " + std::to_string(dim) + " is not enabled (workitem_dims)");
  auto& slot = entry_vgpr_[dim];
  if (!slot) {
    VGPR v;
    v.id = new_reg(RegFile::Vector, 1, "local id " + std::string(1, char('x' + dim)), dim, true);
    v.width = 1;
    slot = v;
  }
  return *slot;
}

SGPR Kernel::kernarg(uint32_t byte_offset, int dwords) {
  if (byte_offset % 4 || dwords < 1 || dwords > 16 || byte_offset + 4 * uint32_t(dwords) > sig_.kernarg_size())
    throw Error("kernel '" + name() + "': kernarg dwords at " + std::to_string(byte_offset) + " (+" +
                std::to_string(dwords) + ") lie outside its " + std::to_string(sig_.kernarg_size()) + "-byte segment");
  for (const EntryLoad& l : loads_)
    if (l.byte_offset == byte_offset && l.dwords == dwords) return l.dst;
  SGPR dst = sgpr(dwords, "kernarg+" + std::to_string(byte_offset));
  loads_.push_back({byte_offset, dwords, dst});
  return dst;
}

SGPR Kernel::arg(std::string_view name) {
  const uint32_t off = sig_.offset(name), size = sig_.size(name);
  // The explicit block in pieces of up to 16 dwords (one register each).
  const uint32_t chunk = off / 64;
  if (!arg_block_[chunk]) {
    const uint32_t end = std::min<uint32_t>(sig_.layout().explicit_end, 64 * (chunk + 1));
    int dwords = int((end - 64 * chunk + 3) / 4);
    // A 3-dword block would be loaded as x2 + x1 into a register the
    // allocator may start at an odd SGPR; as 4 dwords (the segment is a
    // multiple of 8 bytes, so the fourth is inside it) it is 4-aligned.
    if (dwords == 3 && 64 * chunk + 16 <= sig_.kernarg_size()) dwords = 4;
    arg_block_[chunk] = kernarg(64 * chunk, dwords);
  }
  const int first = int((off - 64 * chunk) / 4);
  SGPR r = arg_block_[chunk]->sub(first, std::max(1, int(size / 4)));
  return r;
}

Label Kernel::label(std::string hint) {
  label_pos_.push_back(-1);
  label_hint_.push_back(hint.empty() ? "l" : std::move(hint));
  return Label{int(label_pos_.size() - 1)};
}

void Kernel::bind(Label l) {
  if (l.id < 0 || size_t(l.id) >= label_pos_.size())
    throw Error("kernel '" + name() + "': binding a label that was not created by this kernel");
  if (label_pos_[size_t(l.id)] >= 0)
    throw Error("kernel '" + name() + "': label '" + label_hint_[size_t(l.id)] + "' is bound twice");
  label_pos_[size_t(l.id)] = int(insts_.size());
}

Label Kernel::exit() {
  if (exit_.id < 0) exit_ = label("exit");
  return exit_;
}

void Kernel::glue(size_t first) {
  for (size_t i = first; i < insts_.size(); ++i) insts_[i].glued = true;
}

// s_getpc_b64 returns the address of the instruction after it; `from` names
// that instruction, so the distances below are counted from it.
Routine Kernel::routine(std::string name, const std::function<void(const Routine&)>& body) {
  const Routine r{int(routine_entry_.size()), sgpr(2, name + " address"), sgpr(2, name + " return")};
  const Label from = label(name + "_pc"), entry = label(name), after = label(name + "_end");
  routine_entry_.push_back(entry);
  return_points_.emplace_back();
  s_getpc_b64(r.address);
  const size_t first = insts_.size();
  bind(from);
  s_add_u32(r.address[0], r.address[0], 12);  // s_add, s_addc, s_branch: 12 bytes
  s_addc_u32(r.address[1], r.address[1], 0);
  s_branch(after);
  glue(first);
  bind(entry);
  distances_.push_back({from, entry, 12});
  body(r);
  bind(after);
  return r;
}

void Kernel::call(const Routine& r) {
  if (r.id < 0 || size_t(r.id) >= routine_entry_.size())
    throw Error("kernel '" + name() + "': a call of a routine this kernel did not create");
  s_swappc_b64(r.ret, r.address);
  insts_.back().targets.push_back(routine_entry_[size_t(r.id)].id);
  const Label back = label("return");
  bind(back);
  return_points_[size_t(r.id)].push_back(back);
}

void Kernel::ret(const Routine& r) {
  if (r.id < 0 || size_t(r.id) >= routine_entry_.size())
    throw Error("kernel '" + name() + "': a return from a routine this kernel did not create");
  s_setpc_b64(r.ret);
  insts_.back().returns_of = r.id;
}

// The jump's s_add, s_addc and s_setpc take 12 bytes before the first entry.
SGPR Kernel::table_offset(Operand index, int entry_bytes) {
  const SGPR off = sgpr(1, "table offset");
  s_mul_i32(off, index, entry_bytes);
  s_add_u32(off, off, 12);
  return off;
}

void Kernel::jump_table(SGPR offset, int count, int entry_bytes, const std::function<void(int)>& entry) {
  const SGPR pc = sgpr(2, "jump address");
  const Label from = label("table_pc");
  s_getpc_b64(pc);
  const size_t first = insts_.size();
  bind(from);
  s_add_u32(pc[0], pc[0], offset);
  s_addc_u32(pc[1], pc[1], 0);
  s_setpc_b64(pc);
  const size_t jump = insts_.size() - 1;
  for (int i = 0; i <= count; ++i) {
    const Label at = label(i < count ? "table_entry" + std::to_string(i) : "table_end");
    bind(at);
    distances_.push_back({from, at, 12 + i * entry_bytes});
    if (i == count) break;
    insts_[jump].targets.push_back(at.id);
    entry(i);
  }
  glue(first);
}

void Kernel::emit(std::string_view mnemonic, std::initializer_list<Operand> operands) {
  record(mnemonic, std::vector<Operand>(operands), insts_);
}

void Kernel::record(std::string_view mnemonic, std::vector<Operand> ops, std::vector<Inst>& into) {
  const std::string where =
      "kernel '" + name() + "', instruction " + std::to_string(into.size()) + " (" + std::string(mnemonic) + ")";
  size_t count = 0;
  bool glc = false;
  for (const Operand& o : ops) {
    if (o.is_modifier()) {
      glc = glc || o.modifier_name() == "glc";
      continue;
    }
    ++count;
    // general registers come from the allocator; special ones (vcc, exec, m0, ...) are named
    if (o.sreg() && !o.sreg()->virtual_reg() && o.sreg()->code <= isa::code::kSgprLast)
      throw Error(where + ": SGPRs come from sgpr(), not physical numbers (s" + std::to_string(o.sreg()->code) + ")");
  }
  std::vector<OperandRole> roles = operand_roles(mnemonic, count, glc, where);
  Inst inst;
  inst.mnemonic = std::string(mnemonic);
  size_t pos = 0;
  for (const Operand& o : ops) {
    if (o.is_modifier()) continue;
    const OperandRole role = pos < roles.size() ? roles[pos] : OperandRole{true, false};
    ++pos;
    int32_t id = -1;
    int width = 0, offset = 0;
    if (o.vreg() && o.vreg()->valid()) {
      if (!o.vreg()->virtual_reg()) throw Error(where + ": VGPRs come from vgpr(), not physical numbers");
      id = o.vreg()->id, width = o.vreg()->width, offset = o.vreg()->offset;
    } else if (o.sreg() && o.sreg()->valid() && o.sreg()->virtual_reg()) {
      id = o.sreg()->id, width = o.sreg()->width, offset = o.sreg()->offset;
    } else if ((o.vreg() && !o.vreg()->valid()) || (o.sreg() && !o.sreg()->valid())) {
      throw Error(where + ": operand " + std::to_string(pos - 1) + " is a register that was never created");
    }
    if (id < 0) continue;
    const VirtualReg& r = regs_[size_t(id)];
    if (offset + width > r.width)
      throw Error(where + ": dwords " + std::to_string(offset) + ".." + std::to_string(offset + width - 1) + " of '" +
                  r.name + "', which has " + std::to_string(r.width));
    if (r.file == RegFile::Scalar && offset % sgpr_alignment(width))
      throw Error(where + ": a " + std::to_string(width) + "-dword view of '" + r.name + "' must start at a multiple of " +
                  std::to_string(sgpr_alignment(width)) + " (it starts at dword " + std::to_string(offset) + ")");
    if (r.file == RegFile::Scalar && width > 1 && sgpr_alignment(width) > r.align)
      throw Error(where + ": a " + std::to_string(width) + "-dword view of the " + std::to_string(r.width) +
                  "-dword register '" + r.name + "' needs an alignment the register does not have");
    inst.access.push_back(RegAccess{id, role.read, role.write});
  }
  inst.ops = std::move(ops);
  into.push_back(std::move(inst));
}

std::vector<Kernel::Inst> Kernel::entry_instructions(std::vector<Inst>& body) {
  std::vector<Inst> out;
  if (loads_.empty()) return out;
  // The kernarg dwords the body reads, through the registers arg() and
  // kernarg() handed out, then the loads that hold them (kernarg_loads.h); the
  // body's operands are moved onto the loads' destinations.
  auto entry_load = [&](const Operand& o) -> const EntryLoad* {
    if (!o.sreg() || !o.sreg()->virtual_reg()) return nullptr;
    for (const EntryLoad& l : loads_)
      if (l.dst.id == o.sreg()->id) return &l;
    return nullptr;
  };
  std::vector<KernargUse> uses;
  for (const Inst& inst : body)
    for (const Operand& o : inst.ops)
      if (const EntryLoad* l = entry_load(o)) uses.push_back({l->byte_offset / 4 + o.sreg()->offset, o.sreg()->width});
  const KernargPlan plan = plan_kernarg_loads(uses, sig_.kernarg_size() / 4, name());
  std::vector<SGPR> dst;
  for (const KernargLoad& l : plan.loads) dst.push_back(sgpr(l.dwords, "kernarg@" + std::to_string(4 * l.first)));
  size_t use = 0;
  for (Inst& inst : body) {
    size_t access = 0;
    for (Operand& o : inst.ops) {
      const bool reg = (o.vreg() && o.vreg()->virtual_reg()) || (o.sreg() && o.sreg()->virtual_reg());
      if (entry_load(o)) {
        const int at = plan.load_of_use[use];
        const SGPR view = dst[size_t(at)].sub(int(uses[use].first - plan.loads[size_t(at)].first), o.sreg()->width);
        Operand moved(view);
        if (o.mods() & 1) moved.neg();
        if (o.mods() & 2) moved.abs();
        if (o.mods() & 4) moved.sext();
        o = moved;
        inst.access[access].reg = view.id;
        ++use;
      }
      if (reg) ++access;
    }
  }
  SGPR base = kernarg_pointer();
  for (size_t i = 0; i < plan.loads.size(); ++i) {
    static const char* names[] = {"", "s_load_dword", "s_load_dwordx2", "", "s_load_dwordx4", "", "", "",
                                  "s_load_dwordx8", "", "", "", "", "", "", "", "s_load_dwordx16"};
    record(names[plan.loads[i].dwords], {Operand(dst[i]), Operand(base), Operand(int(4 * plan.loads[i].first))}, out);
  }
  return out;
}

std::string Kernel::text_of(const Inst& inst) const {
  std::string t = inst.mnemonic;
  bool first = true;
  for (const Operand& o : inst.ops) {
    if (o.is_modifier()) continue;
    t += first ? " " : ", ";
    first = false;
    auto reg_text = [&](int id, int off, int width) {
      std::string s = regs_[size_t(id)].name.empty() ? "%" + std::to_string(id) : regs_[size_t(id)].name;
      if (off || width != regs_[size_t(id)].width)
        s += width == 1 ? "[" + std::to_string(off) + "]" : "[" + std::to_string(off) + ":" + std::to_string(off + width - 1) + "]";
      return s;
    };
    if (o.vreg() && o.vreg()->virtual_reg()) t += reg_text(o.vreg()->id, o.vreg()->offset, o.vreg()->width);
    else if (o.sreg() && o.sreg()->virtual_reg()) t += reg_text(o.sreg()->id, o.sreg()->offset, o.sreg()->width);
    else if (o.label() >= 0) t += label_hint_[size_t(o.label())];
    else t += o.text().empty() ? "_" : o.text();
  }
  return t;
}

}  // namespace k100::codegen
